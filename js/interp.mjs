// The interpretability tools of the JS API (Model.lens, Model.patch,
// Model.attribute), in TransformerLens's vocabulary: the residual stream,
// a head's output z before o_proj, the logit lens, activation patching and
// direct logit attribution with the final norm's scale frozen. The math is
// the core's (core/interp/); this file checks the options and nests the
// flat typed arrays the module returns.
//
// Blocks are numbered from 0, as heads.json and L0H3 number them. The residual
// stream has L + 1 rows: row 0 is the embedding's output, named "embed", and
// row b + 1 the output of block b, named "L{b}" (residualNames).

import { argumentChecks, describeBrief } from './argument_checks.mjs';
import { MiniMindError, argumentError } from './minimind_error.mjs';

const { integer, object: checkObject, flag: checkFlag } = argumentChecks({ describe: describeBrief, max: 2 ** 31 - 1 });

// {causalMask, scaleScores, ablate}: both on and no head off unless asked, as
// forward() takes them. options.ablate arrives checked by minimind.mjs's
// ablationList ([[layer, head], ...]); the core checks the ranges.
function switches(options) {
  checkObject(options, 'options');
  for (const flag of ['causalMask', 'scaleScores']) {
    checkFlag(options[flag], flag);
  }
  const request = { causalMask: options.causalMask ?? true, scaleScores: options.scaleScores ?? true };
  if (options.ablate !== undefined) request.ablate = options.ablate;
  return request;
}

function vocabularyId(value, name, info) {
  if (value === undefined) throw argumentError(TypeError, 'api.required', { name }, `${name} is required: give a token id`);
  return integer(value, name, 0, info.vocab_size - 1);
}

// A flat row-major typed array as nested arrays of `shape`.
function nest(flat, shape) {
  const build = (offset, axis) => {
    if (axis === shape.length - 1) return Array.from(flat.subarray(offset, offset + shape[axis]));
    const stride = shape.slice(axis + 1).reduce((a, b) => a * b, 1);
    return Array.from({ length: shape[axis] }, (_, i) => build(offset + i * stride, axis + 1));
  };
  return build(0, 0);
}

/** The names of the residual stream's L + 1 rows: ['embed', 'L0', ..., 'L{L-1}']. */
export function residualNames(blocks) {
  return ['embed', ...Array.from({ length: blocks }, (_, b) => `L${b}`)];
}

/**
 * The logit lens of ids (Int32Array): per residual row (embed, L0, ...) and position,
 * the `top` most probable next tokens of lm_head(norm(residual)), and the
 * probability of `token` when given.
 */
export function logitLens(native, info, ids, options = {}) {
  const request = switches(options);
  request.top = integer(options.top ?? 5, 'top', 1, info.vocab_size);
  if (options.token !== undefined) request.token = vocabularyId(options.token, 'token', info);
  const out = native.lens(ids, JSON.stringify(request));
  const layers = out.layers,
    T = out.T,
    k = out.top;
  const lens = Array.from({ length: layers }, (_, l) =>
    Array.from({ length: T }, (_, t) =>
      Array.from({ length: k }, (_, j) => {
        const i = (l * T + t) * k + j;
        return { id: out.ids[i], p: out.p[i] };
      }),
    ),
  );
  const result = { residuals: residualNames(layers - 1), lens };
  if (request.token !== undefined) result.token = { id: request.token, p: nest(out.tokenP, [layers, T]) };
  return result;
}

/**
 * Activation patching from the clean run into the corrupt one (same
 * length), metric logit(answer) - logit(wrong) at the last position. Raw
 * metrics, and `restoration`: (patched - corrupt) / (clean - corrupt), 1 where
 * the patch brings the clean answer fully back (null when the two runs tie).
 * options.heads / options.residual: false skips that sweep (its result is null).
 * options.ablate: both runs with those heads switched off; their cells of
 * `heads` (and of restoration.heads) are null, as a zero z has nothing to patch.
 */
export function activationPatching(native, info, clean, corrupt, options) {
  const request = switches(options);
  request.answer = vocabularyId(options.answer, 'answer', info);
  request.wrong = vocabularyId(options.wrong, 'wrong', info);
  for (const sweep of ['heads', 'residual']) {
    checkFlag(options[sweep], sweep, undefined, ' (whether to sweep them)');
    request[sweep] = options[sweep] ?? true;
  }
  if (clean.length !== corrupt.length)
    throw new MiniMindError(
      `clean has ${clean.length} tokens and corrupt ${corrupt.length}: patching needs texts of the same token length`,
      {
        kind: 'interp.length_mismatch',
        values: { clean: clean.length, corrupt: corrupt.length },
      },
    );
  const out = native.patch(clean, corrupt, JSON.stringify(request));
  const L = info.num_hidden_layers,
    H = info.num_attention_heads,
    T = clean.length;
  const heads = request.heads ? nest(out.heads, [L, H]) : null;
  for (const [layer, head] of heads ? (request.ablate ?? []) : []) heads[layer][head] = null; // the core's NaN
  const residual = request.residual ? nest(out.residual, [L + 1, T]) : null;
  const span = out.clean - out.corrupt;
  const restore = (rows) => rows && rows.map((row) => row.map((v) => (v === null ? null : (v - out.corrupt) / span)));
  return {
    metric: { clean: out.clean, corrupt: out.corrupt },
    heads,
    residuals: residualNames(L),
    residual,
    restoration: span === 0 ? null : { heads: restore(heads), residual: restore(residual) },
  };
}

/**
 * Direct logit attribution at `position` (default: the last): each head's,
 * the embedding's and each FFN's share of logit(answer) - logit(wrong); the
 * parts add up to `total`. A head in options.ablate writes nothing: its share is 0.
 */
export function directLogitAttribution(native, info, ids, options = {}) {
  const request = switches(options);
  request.position = integer(options.position ?? ids.length - 1, 'position', 0, ids.length - 1);
  request.answer = vocabularyId(options.answer, 'answer', info);
  request.wrong = vocabularyId(options.wrong, 'wrong', info);
  const out = native.attribute(ids, JSON.stringify(request));
  const L = info.num_hidden_layers,
    H = info.num_attention_heads;
  return {
    position: out.position,
    total: out.total,
    embedding: out.embedding,
    heads: nest(out.heads, [L, H]),
    ffn: Array.from(out.ffn),
  };
}

/**
 * QK attribution: the score of head `head` of block `layer` (from 0) from
 * query position `query` to key position `key` (after q/k norm and RoPE,
 * before the mask), split into a table [C][C] of q-side component × k-side
 * component (embed, then per earlier block L{k}H0 .. L{k}H{H-1}, L{k}ffn)
 * at the run's frozen norm scales: the table sums to the score. ropePairs
 * [Dh/2]: the part of the score from dims p and p + Dh/2, rotated as the
 * model has them and with RoPE removed. versus (a key position or 'mean'):
 * the same split of score(query, key) - score(query, versus), where 'mean' is
 * the row's attention-weighted mean over its keys. rankKeys (block 0 only):
 * the rankKeys vocabulary ids whose key, placed at `key`, scores highest.
 * Ranges are the core's to check (errors with kinds: qk.layer_out_of_range ...).
 */
export function qkAttribution(native, info, ids, options) {
  const request = switches(options);
  for (const name of ['layer', 'head', 'query', 'key']) {
    if (options[name] === undefined) throw argumentError(TypeError, 'api.required', { name }, `${name} is required: give an integer`);
    request[name] = integer(options[name], name, -(2 ** 31), 2 ** 31 - 1);
  }
  if (options.versus !== undefined && options.versus !== null) {
    request.versus = options.versus === 'mean' ? 'mean' : integer(options.versus, 'versus (a key position or "mean")', -(2 ** 31));
  }
  if (options.rankKeys !== undefined) request.rankKeys = integer(options.rankKeys, 'rankKeys', 0, info.vocab_size);
  const out = native.qk(ids, JSON.stringify(request));
  const C = out.components.length;
  const result = {
    layer: out.layer,
    head: out.head,
    query: out.query,
    key: out.key,
    score: out.score,
    weight: out.weight,
    masked: out.masked,
    components: out.components,
    table: nest(out.table, [C, C]),
    ropePairs: Array.from(out.ropePairs),
    ropePairsUnrotated: Array.from(out.ropePairsUnrotated),
  };
  if (out.versus)
    result.versus = {
      key: out.versus.key < 0 ? 'mean' : out.versus.key,
      score: out.versus.score,
      table: nest(out.versus.table, [C, C]),
    };
  if (request.rankKeys > 0) result.ranked = Array.from(out.rankedIds, (id, i) => ({ id, score: out.rankedScores[i] }));
  return result;
}

/**
 * K-composition (core/interp/key_composition.h): for each head of blocks
 * 1 .. L-1, the gap between its score on each cell's key and the mean score
 * of the row's other keys, split by the component that wrote the key side
 * (embed, L{k}H{h}, L{k}ffn), averaged over the cells.
 */
export function keyComposition(native, info, ids, options) {
  const request = switches(options);
  const cells = options.cells;
  if (!Array.isArray(cells) || cells.length === 0)
    throw argumentError(TypeError, 'api.not_rows', { name: 'cells' }, 'cells must be a non-empty array of [query, key] rows');
  request.cells = cells.map((cell, k) => {
    if (!Array.isArray(cell) || cell.length !== 2)
      throw argumentError(TypeError, 'api.not_row', { name: 'cells', row: k }, `row ${k} of cells must be [query, key]`);
    return [integer(cell[0], `cells[${k}][0]`, 0, 2 ** 31 - 1), integer(cell[1], `cells[${k}][1]`, 0, 2 ** 31 - 1)];
  });
  const out = native.keyComposition(ids, JSON.stringify(request));
  return out.layers.map((layer) => ({
    layer: layer.layer,
    components: layer.components,
    heads: layer.heads.map((h) => ({ head: h.head, gap: h.gap, parts: Array.from(h.parts) })),
  }));
}
