// "Why this weight": the logic of the page's QK attribution view that is not
// drawing. model.qk() splits one attention score, of head h of block l from
// query position i to key position j, into the components that wrote the
// query and the key (core/interp/qk_attribution.h); every sentence here is a
// {key, params} computed from that answer and from what the page shows (its
// tokens, its matrices), and the page's catalogue words it.
//
// Shapes (as the API returns them): C components (embed, L{k}H{h}…, L{k}ffn),
// Dh the head dim.
//   answer.table, answer.versus.table: [C][C], q-side component × k-side
//   component, summing to answer.score and answer.versus.score
//   answer.ropePairs, answer.ropePairsUnrotated: [Dh/2]
//   answer.ranked: [K] of {id, score}, best first (block 0 only)
import { FEMALE_NAMES, MALE_NAMES } from './corpus.mjs';

/** How many ranked tokens the page asks for: enough to find the key's own rank past the ones shown. */
export const RANK_ASKED = 50;
/** How many of them the view lists. */
export const RANK_SHOWN = 10;
/** How many component pairs the bars show. */
const TOP_PAIRS = 6;
/** An entry of the table is drawn when its size is at least this share of the largest entry's. */
export const NEGLIGIBLE = 0.05;

const fixed = (value, digits = 2) => value.toFixed(digits);

/** A component's block and head, from its name: 'L1H2' -> {layer: 1, head: 2}; null for embed and the FFNs. */
export function headOf(name) {
  const m = /^L(\d+)H(\d+)$/.exec(name);
  return m ? { layer: Number(m[1]), head: Number(m[2]) } : null;
}

/**
 * The measured role of each head that has one (heads.json of the trained
 * model, js/head_roles.mjs): {'L1H1': 'previous-token', …}; a 'mixed' head
 * has none. heads: heads.json's {heads: [{layer, head, role}]} or null.
 */
export function componentRoles(heads) {
  const roles = {};
  for (const h of heads?.heads ?? []) if (h.role && h.role !== 'mixed') roles[`L${h.layer}H${h.head}`] = h.role;
  return roles;
}

/** Row sums (each q-side component's part) and column sums (each k-side component's part) of a [C][C] table. */
export function sideSums(table) {
  const C = table.length;
  const q = table.map((row) => row.reduce((sum, x) => sum + x, 0));
  const k = Array.from({ length: C }, (_, b) => table.reduce((sum, row) => sum + row[b], 0));
  return { q, k };
}

/** The n entries of a [C][C] table largest in size: [{q, k, value}] (component indexes), largest first. */
export function topPairs(table, n = TOP_PAIRS) {
  const pairs = [];
  table.forEach((row, a) => row.forEach((value, b) => pairs.push({ q: a, k: b, value })));
  return pairs.sort((x, y) => Math.abs(y.value) - Math.abs(x.value) || x.q - y.q || x.k - y.k).slice(0, n);
}

/**
 * The components a small heatmap of `table` shows: {q: [indexes], k: [indexes]},
 * each a component with an entry at least NEGLIGIBLE of the largest in size,
 * in the components' order; and {rest}: the sum of the entries left out.
 */
export function shownComponents(table, fraction = NEGLIGIBLE) {
  let largest = 0;
  for (const row of table) for (const x of row) largest = Math.max(largest, Math.abs(x));
  const keep = (x) => largest > 0 && Math.abs(x) >= fraction * largest;
  const C = table.length;
  const q = [];
  const k = [];
  for (let a = 0; a < C; a += 1) if (table[a].some(keep)) q.push(a);
  for (let b = 0; b < C; b += 1) if (table.some((row) => keep(row[b]))) k.push(b);
  if (q.length === 0) q.push(0);
  if (k.length === 0) k.push(0);
  let rest = 0;
  table.forEach((row, a) =>
    row.forEach((x, b) => {
      if (!q.includes(a) || !k.includes(b)) rest += x;
    }),
  );
  return { q, k, rest };
}

/** The index and value of the entry of `values` largest in size. */
function largestEntry(values) {
  let at = 0;
  values.forEach((x, i) => {
    if (Math.abs(x) > Math.abs(values[at])) at = i;
  });
  return { at, value: values[at] };
}

/** A component as the sentences name it: with its measured role when it has one. */
export function componentName(name, roles = {}) {
  const role = roles[name];
  if (role) return { key: 'qk.named', params: { name, role: { key: `qk.role.${role}` } } };
  if (name === 'embed') return { key: 'qk.embed', params: {} };
  if (/ffn$/.test(name)) return { key: 'qk.ffn', params: { name } };
  return name;
}

/**
 * Of the ranked tokens' labels, how many begin a name of the training stories
 * (js/corpus.mjs): {female, male}; a label that begins names of both counts for neither.
 */
export function nameStarts(labels) {
  let female = 0;
  let male = 0;
  for (const label of labels) {
    if (!label) continue;
    const f = FEMALE_NAMES.some((n) => n.startsWith(label));
    const m = MALE_NAMES.some((n) => n.startsWith(label));
    if (f && !m) female += 1;
    if (m && !f) male += 1;
  }
  return { female, male };
}

/**
 * Where a head that wrote one side puts its attention at that side's
 * position: the sentence naming the token it reads most (the token before:
 * the previous-token story). attention(name, position): that head's weights
 * [T] at that query position in the page's run, or null.
 */
function attendsLine(side, name, position, { tokens, attention }) {
  const head = headOf(name);
  const weights = head && attention ? attention(name, position) : null;
  if (!weights || position < 0) return null;
  let to = 0;
  for (let j = 1; j <= position && j < weights.length; j += 1) if (weights[j] > weights[to]) to = j;
  const params = { name, side: { key: `qk.side.${side}` }, token: tokens[position], to: tokens[to], weight: fixed(weights[to]) };
  if (to === position - 1 && weights[to] >= 0.5) return { key: 'qk.readsPrevious', params };
  if (to === position) return { key: 'qk.readsItself', params };
  return { key: 'qk.reads', params: { ...params, at: to } };
}

/**
 * The sentences explaining one answer of model.qk(), as {key, params}.
 * context: {tokens: labels [T] of the positions, roles: componentRoles(),
 *   attention(name, position) (see attendsLine), labelOf(id): a ranked token's
 *   label, world: true when the model is trained on the corpus's stories}.
 */
export function qkSentences(answer, context) {
  const { tokens, roles = {}, labelOf = (id) => `#${id}`, world = false } = context;
  const { query, key, score, weight, masked, components } = answer;
  const q = tokens[query];
  const k = tokens[key];
  const lines = [];
  if (masked) lines.push({ key: 'qk.masked', params: { query: q, key: k, score: fixed(score) } });
  else lines.push({ key: 'qk.score', params: { query: q, key: k, score: fixed(score), weight: fixed(weight, 3) } });
  const versus = answer.versus;
  if (versus && !masked) {
    const other = versus.key === 'mean' ? null : tokens[versus.key];
    const params = { diff: fixed(Math.abs(versus.score)), other: other ?? '' };
    const which = versus.key === 'mean' ? 'Mean' : 'Key';
    lines.push({ key: `qk.versus${which}${versus.score >= 0 ? 'Above' : 'Below'}`, params });
  }
  if (components.length > 1) {
    // Later blocks: which components wrote the query and the key so that this key stands out (the contrast).
    const contrast = Boolean(versus) && !masked;
    const table = contrast ? versus.table : answer.table;
    const total = contrast ? versus.score : score;
    const named = (index) => componentName(components[index], roles);
    const [top] = topPairs(table, 1);
    lines.push({
      key: contrast ? 'qk.pair' : 'qk.pairScore',
      params: { q: named(top.q), k: named(top.k), value: fixed(top.value), total: fixed(total) },
    });
    const sums = sideSums(table);
    // Each side's largest component, key side first, and what it reads there when it is a head.
    const sides = [
      { side: 'key', sum: sums.k, token: k, position: key },
      { side: 'query', sum: sums.q, token: q, position: query },
    ];
    for (const { side, sum, token, position } of sides) {
      const largest = largestEntry(sum);
      lines.push({
        key: `qk.${side}Side`,
        params: { token, name: named(largest.at), value: fixed(largest.value), total: fixed(total) },
      });
      const reads = attendsLine(side, components[largest.at], position, context);
      if (reads) lines.push(reads);
    }
  } else {
    lines.push(...blockZeroLines(answer, { q, k, labelOf, world, ids: context.ids }));
  }
  return lines;
}

// Block 0 reads the token embeddings only: which tokens the query looks for, and the score over RoPE's pairs.
function blockZeroLines(answer, { q, k, labelOf, world, ids }) {
  const lines = [];
  const { ranked, score, key, query } = answer;
  if (ranked?.length) {
    const shown = ranked.slice(0, RANK_SHOWN).map((r) => labelOf(r.id));
    lines.push({ key: 'qk.ranked', params: { query: q, top: shown.join(', '), count: shown.length } });
    if (world) {
      const { female, male } = nameStarts(shown);
      if (female + male > 0) lines.push({ key: 'qk.rankedNames', params: { female, male, count: shown.length } });
    }
    const rank = ids ? ranked.findIndex((r) => r.id === ids[key]) : -1;
    if (rank >= 0) lines.push({ key: 'qk.rankedKey', params: { key: k, score: fixed(ranked[rank].score), rank: rank + 1 } });
    else lines.push({ key: 'qk.rankedKeyBelow', params: { key: k, score: fixed(score), count: ranked.length } });
  }
  const pairs = answer.ropePairs;
  if (pairs?.length) {
    const top = largestEntry(pairs);
    lines.push({
      key: 'qk.ropePair',
      params: {
        pair: top.at,
        value: fixed(top.value),
        score: fixed(score),
        unrotated: fixed(answer.ropePairsUnrotated[top.at]),
      },
    });
    const unrotated = answer.ropePairsUnrotated.reduce((sum, x) => sum + x, 0);
    lines.push({
      key: 'qk.ropeTotal',
      params: { unrotated: fixed(unrotated), score: fixed(score), distance: Math.abs(query - key), diff: fixed(score - unrotated) },
    });
  }
  return lines;
}
