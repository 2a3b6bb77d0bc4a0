// The stories of "why this weight", measured over many probes with
// model.qk() (QK attribution, core/interp/qk_attribution.h), not told from
// one sequence:
//   induction  at each induction cell (the second occurrence of a token, the
//              token after its first occurrence) of an induction head, the
//              contrast score(i, j) − Σ_j' w_j' score(i, j') (what decides
//              where the weight goes) split by the component that wrote the
//              key (summed over the query side): does the previous-token head
//              write it (K-composition)?
//   pronoun    at the pronoun head's query of 他/她 and the referent's first
//              token: which tokens its key would match best there (block 0:
//              a key is its token's embedding at that position), and how much
//              of the score is content (RoPE's rotation removed) and how much
//              distance (the rest).
// Every number is a linearisation at frozen norms, not the effect of removing
// a component.
import { argmax } from './argmax.mjs';
import { FEMALE_NAMES, MALE_NAMES, lessonProbes } from './corpus.mjs';
import { inductionProbes, pronounProbeTokens } from './head_roles.mjs';
import { argumentError } from './minimind_error.mjs';

/** {n, mean, sd, min, max} of a list of numbers (sd: the population's, over all n). */
export function spread(values) {
  const n = values.length;
  if (n === 0) return { n: 0, mean: NaN, sd: NaN, min: NaN, max: NaN };
  let sum = 0;
  let min = Infinity;
  let max = -Infinity;
  for (const v of values) {
    sum += v;
    if (v < min) min = v;
    if (v > max) max = v;
  }
  const mean = sum / n;
  let squares = 0;
  for (const v of values) squares += (v - mean) ** 2;
  return { n, mean, sd: Math.sqrt(squares / n), min, max };
}

// A [C][C] table as rows, whether it came as nested arrays or flat row-major.
function tableRows(table, C) {
  if (Array.isArray(table[0]) || ArrayBuffer.isView(table[0])) return table;
  return Array.from({ length: C }, (_, a) => Array.from(table.slice(a * C, (a + 1) * C)));
}

/** The key side of a [C][C] table: for each k-side component b, Σ_a table[a][b]. */
export function keySide(table, C = table.length) {
  const rows = tableRows(table, C);
  const parts = new Array(C).fill(0);
  for (const row of rows) for (let b = 0; b < C; b += 1) parts[b] += row[b];
  return parts;
}

/** The query side of a [C][C] table: for each q-side component a, Σ_b table[a][b]. */
export function querySide(table, C = table.length) {
  return tableRows(table, C).map((row) => Array.from(row).reduce((s, v) => s + v, 0));
}

/**
 * Key-side parts of many cells' contrasts, summarised. cells: [{contrast,
 * weight, components, table}] (table: the contrast's [C][C], one component
 * list shared by all). Returns {cells, contrast, weight: spreads, parts:
 * [{component, ...spread, share}] by mean part, largest first (share = mean
 * part / mean contrast: the parts' shares add up to 1), largest: {component:
 * how many cells that component's part is the largest of}}.
 */
export function summariseKeySide(cells) {
  if (cells.length === 0) throw argumentError(RangeError, 'qk.no_cells', {}, 'no cells to summarise');
  const components = cells[0].components;
  const C = components.length;
  const byComponent = components.map(() => []);
  const largest = Object.fromEntries(components.map((c) => [c, 0]));
  for (const cell of cells) {
    const parts = keySide(cell.table, C);
    parts.forEach((v, b) => byComponent[b].push(v));
    largest[components[argmax(parts)]] += 1;
  }
  const contrast = spread(cells.map((c) => c.contrast));
  const parts = components
    .map((component, b) => {
      const s = spread(byComponent[b]);
      return { component, ...s, share: s.mean / contrast.mean };
    })
    .sort((x, y) => y.mean - x.mean);
  const notAbove = cells.filter((c) => !(c.contrast > 0)).length;
  return { cells: cells.length, contrast, notAbove, weight: spread(cells.map((c) => c.weight)), parts, largest };
}

const headName = ({ layer, head }) => `L${layer}H${head}`;

/**
 * The induction story on `model`: for each head of heads.json whose role is
 * 'induction', at every induction cell of the `heads` command's probes
 * (inductionProbes(): `count` sequences of `length` corpus tokens at `seed`),
 * the contrast against the row's weighted mean split on the key side.
 * Returns {seed, length, sequences, previousTokenHeads: ['L1H1', ...],
 * heads: [{name: 'L3H2', layer, head, ...summariseKeySide()}]}.
 */
function inductionStory(model, tokenizer, headsRecord, { seed = 7, length = 20, count = 40 } = {}) {
  const probes = inductionProbes(tokenizer, { seed, length, count });
  const inductionHeads = headsRecord.heads.filter((h) => h.role === 'induction');
  const previousTokenHeads = headsRecord.heads.filter((h) => h.role === 'previous-token').map(headName);
  const heads = inductionHeads.map(({ layer, head }) => {
    const cells = [];
    for (const { ids, cells: probeCells } of probes) {
      for (const { query, key } of probeCells) {
        const r = model.qk({ ids, layer, head, query, key, versus: 'mean' });
        cells.push({ contrast: r.versus.score, weight: r.weight, components: r.components, table: r.versus.table });
      }
    }
    return { name: headName({ layer, head }), layer, head, ...summariseKeySide(cells) };
  });
  return { seed, length, sequences: probes.length, previousTokenHeads, heads };
}

/**
 * First tokens of the corpus's names by gender: {female: Set, male: Set} of
 * ids (a name of one token is its own first token). 小 starts 小红 and 小明:
 * it is in both.
 */
function nameStarts(tokenizer) {
  const first = (names) => new Set(names.map((name) => tokenizer.encode(name)[0]));
  return { female: first(FEMALE_NAMES), male: first(MALE_NAMES) };
}

/** How many of `ids` start a female name only, a male name only, both, or none. */
export function countNameStarts(ids, starts) {
  const counts = { female: 0, male: 0, both: 0, neither: 0 };
  for (const id of ids) {
    const f = starts.female.has(id);
    const m = starts.male.has(id);
    counts[f && m ? 'both' : f ? 'female' : m ? 'male' : 'neither'] += 1;
  }
  return counts;
}

/**
 * One pronoun cell of a block-0 head explained from an answer of model.qk()
 * with rankKeys (ranked: the whole vocabulary, best first): the key token's
 * rank (1-based) and score, the top `top` tokens and their name starts, and
 * the score's content part (Σ RoPE pairs with the rotation removed: both
 * tokens at one position) against the score (Σ the rotated pairs), the rest
 * being what the distance adds.
 */
export function pronounCell(answer, keyId, starts, top = 20) {
  const topIds = answer.ranked.slice(0, top).map((r) => r.id);
  const rank = answer.ranked.findIndex((r) => r.id === keyId) + 1;
  const content = Array.from(answer.ropePairsUnrotated).reduce((s, v) => s + v, 0);
  const pairs = Array.from(answer.ropePairs);
  let bestPair = 0;
  pairs.forEach((v, p) => {
    if (Math.abs(v) > Math.abs(pairs[bestPair])) bestPair = p;
  });
  return {
    score: answer.score,
    weight: answer.weight,
    contrast: answer.versus?.score ?? null,
    rank: rank || null,
    top: answer.ranked.slice(0, top).map((r) => ({ id: r.id, score: r.score })),
    starts: countNameStarts(topIds, starts),
    content,
    distance: answer.score - content,
    bestPair: { pair: bestPair, rotated: pairs[bestPair], unrotated: answer.ropePairsUnrotated[bestPair] },
  };
}

/**
 * The pronoun story on `model`: the pronoun head of heads.json, at each of
 * the lesson's four sentences (lessonProbes(): 她 and 他, the referent first
 * and second), the query at the pronoun and the key at the referent's first
 * token, ranked against the whole vocabulary. Returns {name: 'L0H3', layer,
 * head, top, sentences: [{text, pronoun, referent, query, key, keyId, keyToken,
 * ...pronounCell() with each top token's text}]}.
 */
function pronounStory(model, tokenizer, headsRecord, { top = 20 } = {}) {
  const { layer, head } = headsRecord.pronounHead;
  const starts = nameStarts(tokenizer);
  const vocab = model.info().vocab_size;
  const sentences = lessonProbes().map((probe) => {
    const tokens = pronounProbeTokens(tokenizer, probe);
    const key = tokens.referent[0];
    const answer = model.qk({ ids: tokens.ids, layer, head, query: tokens.pronoun, key, versus: 'mean', rankKeys: vocab });
    const keyId = tokens.ids[key];
    const cell = pronounCell(answer, keyId, starts, top);
    cell.top = cell.top.map((t) => ({ ...t, token: tokenizer.decode([t.id]) }));
    return {
      text: probe.text,
      pronoun: probe.pronoun,
      referent: probe.referent,
      query: tokens.pronoun,
      key,
      keyId,
      keyToken: tokenizer.decode([keyId]),
      ...cell,
    };
  });
  return { name: headName({ layer, head }), layer, head, top, sentences };
}

/**
 * An induction probe the playground can show as typed text: the first of
 * inductionProbes() at `seed` whose tokens, decoded and read again with the
 * bos, are its own ids (random tokens side by side may merge into others),
 * and its middle induction cell. Returns {seed, sequence (its index), text,
 * query, key, queryToken, keyToken} (positions count the bos), or null.
 */
function inductionFigure(tokenizer, { seed = 7, length = 20, count = 40 } = {}) {
  const probes = inductionProbes(tokenizer, { seed, length, count });
  for (let n = 0; n < probes.length; n += 1) {
    const { ids, lead, cells } = probes[n];
    const text = tokenizer.decode(ids.slice(lead));
    const again = tokenizer.encode(text);
    if (again.length !== ids.length - lead || again.some((id, i) => id !== ids[lead + i])) continue;
    const { query, key } = cells[Math.floor(cells.length / 2)];
    return { seed, sequence: n, text, query, key, queryToken: tokenizer.decode([ids[query]]), keyToken: tokenizer.decode([ids[key]]) };
  }
  return null;
}

/**
 * Both stories of `model`, as qk_stories.json records them: {induction:
 * [inductionStory() per seed of `seeds`], pronoun: pronounStory(), figure:
 * inductionFigure() at the last seed (the held-out one, where the sentences
 * read the numbers)}.
 */
export function measureQkStories(model, tokenizer, headsRecord, { seeds = [7], length = 20, count = 40, top = 20 } = {}) {
  return {
    induction: seeds.map((seed) => inductionStory(model, tokenizer, headsRecord, { seed, length, count })),
    pronoun: pronounStory(model, tokenizer, headsRecord, { top }),
    figure: inductionFigure(tokenizer, { seed: seeds[seeds.length - 1], length, count }),
  };
}

/**
 * What an induction head's summary shows about K-composition through the
 * previous-token heads (names as 'L1H1'): {previous: the largest of their
 * parts (or null), top: the largest part of all, kind}: 'no-contrast' (the
 * mean contrast is not positive: the head does not prefer the induction key),
 * 'most' (a previous-token head's part is the largest and at least half the
 * mean contrast), 'largest' (the largest, under half), 'not-largest' (another
 * component's is larger), 'none' (no previous-token head precedes the head).
 */
export function inductionReading(summary, previousTokenHeads) {
  const previous = summary.parts.find((p) => previousTokenHeads.includes(p.component)) ?? null;
  const top = summary.parts[0];
  let kind;
  if (!(summary.contrast.mean > 0)) kind = 'no-contrast';
  else if (!previous) kind = 'none';
  else if (top.component !== previous.component) kind = 'not-largest';
  else kind = previous.share >= 0.5 ? 'most' : 'largest';
  return { previous, top, kind };
}

/**
 * What a pronoun sentence's ranking shows: {own, other, kind}: own the top
 * tokens that start only a name of the pronoun's gender (她: female), other
 * those of the other gender; kind 'own' (own is at least half of the top and
 * more than other), 'other' (other more than own) or 'mixed'.
 */
export function pronounReading(sentence) {
  const female = sentence.pronoun === '她';
  const own = female ? sentence.starts.female : sentence.starts.male;
  const other = female ? sentence.starts.male : sentence.starts.female;
  const kind = own > other && own * 2 >= sentence.top.length ? 'own' : other > own ? 'other' : 'mixed';
  return { own, other, kind };
}
