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
import { GENDER, HABITS, PRONOUN } from './corpus.mjs';
import { PRONOUN_PAIR } from './pronoun_pair.mjs';

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

/**
 * Who the last pronoun of `text` is, as the corpus decides it: the name
 * before it of the pronoun's gender (the referent) and one of the other
 * gender (the other). {pronoun, referent, other, answer, wrong}, answer and
 * wrong the two names' habits (the model writes the referent's right after
 * the pronoun), prefix the text up to the pronoun (the habits' first tokens
 * are read after it); null when the text has no pronoun or not both genders named.
 */
export function pronounStory(text) {
  const at = Math.max(...PRONOUNS.map((p) => text.lastIndexOf(p)));
  if (at < 0) return null;
  const pronoun = text[at];
  const gender = pronoun === PRONOUN.male ? 'male' : 'female';
  const before = namesIn(text.slice(0, at)).reverse(); // the nearest first
  const referent = before.find((n) => GENDER[n.name] === gender)?.name;
  const other = before.find((n) => GENDER[n.name] !== gender)?.name;
  if (!referent || !other) return null;
  return { pronoun, referent, other, answer: HABITS[referent], wrong: HABITS[other], prefix: text.slice(0, at + 1) };
}

/**
 * Whether row `row` of a text's token labels is its story's pronoun: the
 * last 他/她 of the text, where the model is to write the referent's habit.
 */
export function storyRow(labels, row, story) {
  if (!story || labels[row] !== story.pronoun) return false;
  return labels.slice(row + 1).every((label) => !PRONOUNS.includes(label));
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
export function lensAt(lens, position) {
  return lens.lens.map((layer) => layer[position]);
}

/**
 * The lens's sentence for the token `id` (labelled `token`) at `position`: the first layer
 * (0 = the embeddings, l = after block l - 1) from which it stays the top
 * prediction, with its p there and at the last layer.
 */
export function lensSentence(lens, position, id, token) {
  const rows = lensAt(lens, position);
  const last = rows.length - 1;
  const pAt = (l) => lens.token?.p?.[l]?.[position] ?? rows[l].find((e) => e.id === id)?.p ?? 0;
  let from = -1;
  for (let l = last; l >= 0 && rows[l][0]?.id === id; l -= 1) from = l;
  if (from < 0) return { key: 'why.lens.never', params: { token, p: fixed(pAt(last)) } };
  const params = { token, layer: layerName(from), p: fixed(pAt(from)), pLast: fixed(pAt(last)) };
  return { key: from === 0 ? 'why.lens.fromEmbedding' : 'why.lens.from', params };
}

/** A lens row's name: 0 the embeddings, l after block l - 1 (blocks counted from 0, as the heads are). */
export function layerName(layer) {
  return layer === 0 ? 'emb' : `L${layer - 1}`;
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
  const norm = (rows) => rows.map((row) => row.map((v) => restoration(v, clean, corrupt)));
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

/** The patching sentences: the head that restores the most and the residual cell that does. */
export function patchSentences(result) {
  const { clean, corrupt } = result.metric;
  const metrics = { clean: fixed(clean, 2), corrupt: fixed(corrupt, 2) };
  const normal = normalisePatch(result);
  const head = largest(normal.heads);
  if (!head) return [{ key: 'why.patch.noGap', params: metrics }];
  const cell = largest(normal.residual);
  return [
    { key: 'why.patch.metrics', params: metrics },
    { key: 'why.patch.head', params: { head: `L${head.row}H${head.col}`, percent: percent(head.value) } },
    {
      key: cell.row === 0 ? 'why.patch.residualEmb' : 'why.patch.residual',
      params: { layer: layerName(cell.row), position: cell.col, token: result.tokens.corrupt[cell.col], percent: percent(cell.value) },
    },
  ];
}

// ---------------------------------------------------------------- direct logit attribution

/** The attribution's parts, in the order of the bars: [{kind, layer?, head?, name, value}]. */
export function attributionParts(attribution) {
  const parts = [{ kind: 'embedding', name: 'emb', value: attribution.embedding }];
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

function fixed(value, digits = 3) {
  return value.toFixed(digits);
}

function percent(value) {
  return String(Math.round(value * 100));
}
