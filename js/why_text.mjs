// "Ask the model why": the logic of the page's three interpretability views
// (the logit lens, activation patching, direct logit attribution) that is not
// drawing. The default clean/corrupt pair and its answer/wrong tokens come
// from the corpus generator (js/corpus.mjs), so they follow the trained
// model's world; every sentence the views show is a {key, params} computed
// here from the numbers the model returned (the page's catalogue words it).
//
// Shapes (as the API returns them): L layers, H heads, T tokens.
//   lens.lens: [L + 1][T][top] of {id, p}; lens.token.p: [L + 1][T]
//   patch.heads: [L][H], patch.residual: [L + 1][T] (raw metric values)
//   attribution.heads: [L][H], attribution.ffn: [L]
import { FEMALE_NAMES, GENDER, HABITS, MALE_NAMES, PRONOUN } from './corpus.mjs';
import { residualNames } from './interp.mjs';
import { PRONOUN_PAIR, nextToken } from './pronoun_pair.mjs';

const PRONOUNS = Object.values(PRONOUN);
const OTHER_PRONOUN = { [PRONOUN.male]: PRONOUN.female, [PRONOUN.female]: PRONOUN.male };
// Longest names first: a name found inside a longer one is not a name of its own.
const NAMES = Object.keys(HABITS).sort((a, b) => b.length - a.length);

/**
 * The default pair (js/pronoun_pair.mjs, as the CLI's): 小明把书给了小红，她
 * (她 is 小红) and the same text with the pronoun flipped (他 is 小明). In
 * the corpus gender decides the referent, so swapping the names with the same
 * pronoun would change nothing: the pronoun is what is flipped.
 */
export function defaultPair() {
  return { clean: PRONOUN_PAIR.clean, corrupt: PRONOUN_PAIR.corrupt };
}

/** The text with its last 他/她 changed to the other; null without one. */
export function flipPronoun(text) {
  const at = Math.max(...PRONOUNS.map((p) => text.lastIndexOf(p)));
  if (at < 0) return null;
  return text.slice(0, at) + OTHER_PRONOUN[text[at]] + text.slice(at + 1);
}

/** The names of the corpus in `text`, in order: [{name, at}]. */
export function namesIn(text) {
  const found = [];
  let i = 0;
  while (i < text.length) {
    const name = NAMES.find((n) => text.startsWith(n, i));
    if (name) found.push({ name, at: i });
    i += name ? name.length : 1;
  }
  return found;
}

/** The character indexes of the 他/她 in `text`, in order. */
function pronounIndexes(text) {
  const found = [];
  for (let i = 0; i < text.length; i += 1) if (PRONOUNS.includes(text[i])) found.push(i);
  return found;
}

/**
 * The character index in `text` of the pronoun at row `row` of its token
 * labels (the bos first); null when that row is no 他/她. Pronoun tokens and
 * pronoun characters are matched from the end (the last token is the last
 * character), so a pronoun merged into a longer token earlier in the text
 * does not shift the ones after it.
 */
export function pronounIndexOfRow(text, labels, row) {
  if (!PRONOUNS.includes(labels[row])) return null;
  const fromEnd = labels.slice(row + 1).filter((label) => PRONOUNS.includes(label)).length;
  const indexes = pronounIndexes(text);
  return indexes[indexes.length - 1 - fromEnd] ?? null;
}

/**
 * Who the pronoun at character `at` of `text` (by default its last 他/她) is,
 * as the corpus decides it: the name before it of the pronoun's gender (the
 * referent) and one of the other gender (the other). {pronoun, at, referent,
 * other, answer, wrong}, answer and wrong the two names' habits (the model
 * writes the referent's right after the pronoun), prefix the text up to the
 * pronoun (the habits' first tokens are read after it); null when there is
 * no pronoun there or not both genders are named before it.
 */
export function pronounStory(text, at = pronounIndexes(text).at(-1) ?? -1) {
  if (!(at >= 0) || !PRONOUNS.includes(text[at])) return null;
  const pronoun = text[at];
  const gender = pronoun === PRONOUN.male ? 'male' : 'female';
  const before = namesIn(text.slice(0, at)).reverse(); // the nearest first
  const referent = before.find((n) => GENDER[n.name] === gender)?.name;
  const other = before.find((n) => GENDER[n.name] !== gender)?.name;
  if (!referent || !other) return null;
  return { pronoun, at, referent, other, answer: HABITS[referent], wrong: HABITS[other], prefix: text.slice(0, at + 1) };
}

/**
 * The story of the pronoun at row `row` of a text's token labels; null when
 * the row is no pronoun or its pronoun has no story. The story carries its
 * row, so the worker explains it only there.
 */
export function rowStory(text, labels, row) {
  const at = pronounIndexOfRow(text, labels, row);
  const story = at === null ? null : pronounStory(text, at);
  return story && { ...story, row };
}

/**
 * The row a text opens on after typing: the last pronoun's whose story the
 * corpus can tell, else the last token's.
 */
export function defaultRow(text, labels) {
  for (let row = labels.length - 1; row >= 0; row -= 1) if (rowStory(text, labels, row)) return row;
  return labels.length - 1;
}

/**
 * Whether row `row` of a text's token labels is its story's pronoun (the
 * story's own row when it names one, else the text's last 他/她), where the
 * model is to write the referent's habit.
 */
export function storyRow(labels, row, story) {
  if (!story || labels[row] !== story.pronoun) return false;
  if (story.row !== undefined) return story.row === row;
  return labels.slice(row + 1).every((label) => !PRONOUNS.includes(label));
}

/**
 * The story the patching pair is derived from, for the text on screen at row
 * `row`: the row's pronoun's (a 他/她 row), else the text's last pronoun with
 * a story. {story, reason}: story null when there is none, and reason
 * ({key, params}) says why, for the label of the lesson's pair.
 */
export function patchStory(text, labels, row) {
  const pronounRow = PRONOUNS.includes(labels[row]);
  const chosen = pronounRow ? row : defaultRow(text, labels);
  const story = rowStory(text, labels, chosen);
  if (story) return { story, reason: null };
  const at = pronounRow ? pronounIndexOfRow(text, labels, row) : (pronounIndexes(text).at(-1) ?? null);
  if (at === null) return { story: null, reason: { key: 'why.pair.noPronoun', params: {} } };
  const names = namesIn(text.slice(0, at)).map((n) => n.name);
  const pronoun = text[at];
  if (names.length === 0) return { story: null, reason: { key: 'why.pair.noNames', params: { pronoun } } };
  const list = [...new Set(names)].join('、');
  return { story: null, reason: { key: 'why.pair.oneGender', params: { pronoun, names: list } } };
}

/**
 * The patching pair for a story, to watch the referent move: the clean text
 * is the story's prefix (up to its pronoun, where the metric is read); the
 * corrupt one has the referent replaced, wherever it is named, by the first
 * listed name of the same gender and token count that the text does not
 * name and whose habit starts with another token than both story habits.
 * Where there is none, the pronoun is flipped instead; without a story, the
 * lesson's pair. tokenizer: {encode(text) -> ids} (no bos).
 * Returns {kind: 'name' | 'pronoun' | 'lesson', clean, corrupt, story (the
 * clean text's), answer and wrong (the habits whose first tokens the metric
 * compares: the referent's, and the replacement's or the other name's),
 * replacement?, tokens? (the referent's token count)}.
 */
export function storyPair(story, tokenizer) {
  if (!story) {
    const lesson = pronounStory(PRONOUN_PAIR.clean);
    return {
      kind: 'lesson',
      clean: PRONOUN_PAIR.clean,
      corrupt: PRONOUN_PAIR.corrupt,
      story: lesson,
      answer: lesson.answer,
      wrong: lesson.wrong,
    };
  }
  const clean = story.prefix;
  const count = (text) => tokenizer.encode(text).length;
  const first = (habit) => {
    try {
      return nextToken(tokenizer, clean, habit);
    } catch {
      return null; // the habit merges with the pronoun: no first token of its own
    }
  };
  const tokens = count(story.referent);
  const taken = new Set([story.answer, story.wrong].map(first));
  const named = new Set(namesIn(clean).map((n) => n.name));
  const length = count(clean);
  const candidates = GENDER[story.referent] === 'male' ? MALE_NAMES : FEMALE_NAMES;
  for (const name of candidates) {
    if (named.has(name) || count(name) !== tokens) continue;
    const habitFirst = first(HABITS[name]);
    if (habitFirst === null || taken.has(habitFirst)) continue;
    const corrupt = replaceName(clean, story.referent, name);
    if (count(corrupt) !== length) continue; // merges differently in context: positions would not line up
    return { kind: 'name', clean, corrupt, story, replacement: name, tokens, answer: story.answer, wrong: HABITS[name] };
  }
  return { kind: 'pronoun', clean, corrupt: flipPronoun(clean), story, tokens, answer: story.answer, wrong: story.wrong };
}

// Every mention of `name` in `text` (as a name, not inside a longer one) replaced by `by`.
function replaceName(text, name, by) {
  let out = '';
  let from = 0;
  for (const n of namesIn(text)) {
    if (n.name !== name) continue;
    out += text.slice(from, n.at) + by;
    from = n.at + name.length;
  }
  return out + text.slice(from);
}

/**
 * What the user typed in an answer/wrong field: {id} for a number (123 or
 * #123), {text} for anything else, null for nothing (the default is used).
 */
export function parseTokenField(value) {
  const text = value.trim();
  if (text === '') return null;
  const number = /^#?(\d+)$/.exec(text);
  return number ? { id: Number(number[1]) } : { text };
}

/** Token ids typed as numbers separated by spaces or commas: {ids} or {bad: the first part that is not one}. */
export function parseIds(value) {
  const parts = value.split(/[\s,]+/u).filter(Boolean);
  const bad = parts.find((p) => !/^#?\d+$/.test(p));
  return bad === undefined ? { ids: parts.map((p) => Number(p.replace('#', ''))) } : { bad };
}

// ---------------------------------------------------------------- the logit lens

/** The lens at one position: [L + 1][top] of {id, p}. */
function lensAt(lens, position) {
  return lens.lens.map((layer) => layer[position]);
}

/**
 * The lens's sentence for the token `id` (labelled `token`) at `position`: the first layer
 * (0 = embed, l = after block l - 1) from which it stays the top
 * prediction, with its p there and at the last layer.
 */
export function lensSentence(lens, position, id, token) {
  const rows = lensAt(lens, position);
  const last = rows.length - 1;
  const pAt = (l) => lens.token?.p?.[l]?.[position] ?? rows[l].find((e) => e.id === id)?.p ?? 0;
  const onTop = (l) => rows[l][0]?.id === id;
  let from = -1;
  for (let l = last; l >= 0 && onTop(l); l -= 1) from = l;
  if (from < 0) return { key: 'why.lens.never', params: { token, p: fixed(pAt(last)) } };
  const params = { token, layer: layerName(from), p: fixed(pAt(from)), pLast: fixed(pAt(last)) };
  // First on top earlier, then overtaken: the sentence names both moments.
  const first = rows.findIndex((_, l) => onTop(l));
  if (first < from) {
    let lost = first;
    while (onTop(lost)) lost += 1;
    return {
      key: 'why.lens.fromAgain',
      params: { ...params, first: layerName(first), pFirst: fixed(pAt(first)), lost: layerName(lost) },
    };
  }
  return { key: from === 0 ? 'why.lens.fromEmbedding' : 'why.lens.from', params };
}

/**
 * A residual layer's name as a nested sentence part ({key, params}, worded by
 * the page's catalogue): embed, or after block l - 1.
 */
export function residualName(layer) {
  return layer === 0 ? { key: 'why.emb', params: {} } : { key: 'why.after', params: { layer: layerName(layer) } };
}

/** A sentence's parameters with nested parts ({key, params}) worded by `t`. */
export function wordParams(t, params = {}) {
  const worded = {};
  for (const [name, value] of Object.entries(params))
    worded[name] = value && typeof value === 'object' && typeof value.key === 'string' ? t(value.key, wordParams(t, value.params)) : value;
  return worded;
}

/** A residual row's name (js/interp.mjs residualNames): 0 'embed', r after block r - 1 'L{r-1}' (blocks from 0, as the heads are). */
function layerName(layer) {
  return residualNames(layer).at(-1);
}

// ---------------------------------------------------------------- activation patching

/**
 * How much of the answer a patched run restores: (patched - corrupt) /
 * (clean - corrupt), 1 the clean run's metric, 0 the corrupt's; null when the
 * two runs' metrics are (nearly) the same and there is nothing to restore.
 */
export function restoration(patched, clean, corrupt) {
  const gap = clean - corrupt;
  if (!(Math.abs(gap) > 1e-6)) return null;
  return (patched - corrupt) / gap;
}

/** The patch result normalised: {heads: [L][H], residual: [L + 1][T]} of restorations (null when no gap). */
export function normalisePatch(result) {
  const { clean, corrupt } = result.metric;
  // null: a head switched off, which has nothing to patch.
  const norm = (rows) => rows.map((row) => row.map((v) => (v === null ? null : restoration(v, clean, corrupt))));
  return { heads: norm(result.heads), residual: norm(result.residual) };
}

/** The largest value of a [rows][cols] grid: {row, col, value}; null when it has none. */
export function largest(grid) {
  let best = null;
  grid.forEach((row, r) =>
    row.forEach((value, c) => {
      if (value !== null && (best === null || value > best.value)) best = { row: r, col: c, value };
    }),
  );
  return best;
}

/**
 * Where the residual grid's answer sits, layer by layer (causal tracing, as
 * in ROME): the cell that restores the most away from the last position (the
 * source, e.g. the referent's first token after the embeddings) and the
 * first residual layer from which the last position restores the most at
 * every later layer (the arrival). {source: {layer, position, value},
 * arrival: {layer, value}, blocks: [first, last] block indexes between them}
 * or {lastOnly: true} when only the last position ever restores (the texts
 * differ there alone), null without a gap.
 */
export function residualJourney(result) {
  const grid = normalisePatch(result).residual;
  const T = grid[0]?.length ?? 0;
  if (T === 0 || grid.every((row) => row.every((v) => v === null))) return null;
  const best = (row) => row.reduce((b, v, position) => (v !== null && (b === null || v > row[b]) ? position : b), null);
  let arrival = grid.length;
  while (arrival > 0 && best(grid[arrival - 1]) === T - 1) arrival -= 1;
  if (arrival === grid.length) return null;
  const source = largest(grid.slice(0, arrival).map((row) => row.slice(0, T - 1)));
  if (arrival === 0 || !source || source.value < 0.5) return arrival === 0 ? { lastOnly: true, value: grid[0][T - 1] } : null;
  return {
    source: { layer: source.row, position: source.col, value: source.value },
    arrival: { layer: arrival, value: grid[arrival][T - 1] },
    blocks: [source.row, arrival - 1],
  };
}

/** The patching sentences: the metrics, the head that restores the most, the residual's largest cell and its journey. */
export function patchSentences(result) {
  const { clean, corrupt } = result.metric;
  const metrics = { clean: fixed(clean, 2), corrupt: fixed(corrupt, 2) };
  const normal = normalisePatch(result);
  const head = largest(normal.heads);
  if (!head) return [{ key: 'why.patch.noGap', params: metrics }];
  const cell = largest(normal.residual);
  const lines = [
    { key: 'why.patch.metrics', params: metrics },
    { key: 'why.patch.head', params: { head: `L${head.row}H${head.col}`, percent: percent(head.value) } },
    {
      key: cell.row === 0 ? 'why.patch.residualEmb' : 'why.patch.residual',
      params: { layer: layerName(cell.row), position: cell.col, token: result.tokens.clean[cell.col], percent: percent(cell.value) },
    },
  ];
  const journey = residualJourney(result);
  const T = result.tokens.clean.length;
  if (journey?.lastOnly) {
    lines.push({
      key: 'why.patch.lastOnly',
      params: { position: T - 1, token: result.tokens.clean[T - 1], percent: percent(journey.value) },
    });
  } else if (journey) {
    const { source, arrival, blocks } = journey;
    lines.push({
      key: blocks[0] === blocks[1] ? 'why.patch.jump' : 'why.patch.move',
      params: {
        block: `L${blocks[0]}`,
        lastBlock: `L${blocks[1]}`,
        from: residualName(source.layer),
        fromPosition: source.position,
        fromToken: result.tokens.clean[source.position],
        fromPercent: percent(source.value),
        to: residualName(arrival.layer),
        toPosition: T - 1,
        toToken: result.tokens.clean[T - 1],
        toPercent: percent(arrival.value),
      },
    });
  }
  return lines;
}

// ---------------------------------------------------------------- direct logit attribution

/** The attribution's parts, in the order of the bars: [{kind, layer?, head?, name, value}]. */
export function attributionParts(attribution) {
  const parts = [{ kind: 'embedding', name: residualNames(0)[0], value: attribution.embedding }];
  attribution.heads.forEach((row, layer) => {
    row.forEach((value, head) => parts.push({ kind: 'head', layer, head, name: `L${layer}H${head}`, value }));
    parts.push({ kind: 'ffn', layer, name: `L${layer} FFN`, value: attribution.ffn[layer] });
  });
  return parts;
}

/** The parts' sum (float64): the total, to float32 rounding. */
export function partsSum(parts) {
  return parts.reduce((sum, p) => sum + p.value, 0);
}

/**
 * The attribution's sentences: the total, the part that writes the most of
 * it, and (when the model names one, e.g. the trained model's pronoun head)
 * what that head writes.
 */
export function attributionSentences(attribution, named = null) {
  const parts = attributionParts(attribution);
  const top = parts.reduce((best, p) => (p.value > best.value ? p : best), parts[0]);
  const total = attribution.total;
  const share = (v) => (Math.abs(total) > 1e-6 ? percent(v / total) : '—');
  const lines = [
    { key: 'why.attr.total', params: { total: fixed(total, 2), sum: fixed(partsSum(parts), 2) } },
    { key: 'why.attr.top', params: { part: top.name, value: fixed(top.value, 2), share: share(top.value) } },
  ];
  const head = named && parts.find((p) => p.kind === 'head' && p.layer === named.layer && p.head === named.head);
  if (head) lines.push({ key: 'why.attr.named', params: { part: head.name, value: fixed(head.value, 2), share: share(head.value) } });
  return lines;
}

/**
 * One sentence on why patching and direct attribution give the head `named`
 * ({layer, head}) different sizes, with both numbers; null when either has no
 * number for it (a head switched off, no gap). Patching counts what flows
 * from the head through every later layer; direct attribution only what the
 * head itself writes into the answer's logit.
 */
export function measuresDiffer(patchResult, attribution, named) {
  const restored = normalisePatch(patchResult).heads[named.layer]?.[named.head];
  const part = attributionParts(attribution).find((p) => p.kind === 'head' && p.layer === named.layer && p.head === named.head);
  if (restored === null || restored === undefined || !part) return null;
  const total = attribution.total;
  return {
    key: 'why.attr.versusPatch',
    params: {
      head: part.name,
      percent: percent(restored),
      value: fixed(part.value, 2),
      share: Math.abs(total) > 1e-6 ? percent(part.value / total) : '—',
    },
  };
}

function fixed(value, digits = 3) {
  return value.toFixed(digits);
}

function percent(value) {
  return String(Math.round(value * 100));
}
