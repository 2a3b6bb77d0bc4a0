// What is on screen, as the exercises read it: the page's text or ids, the
// layer, head and stage shown, the switches (causal mask, ÷√d, heads off),
// the selected row and cell, and the Train panel's settings. The compute
// worker (web/worker.mjs) and the element fill in `ids`, `labels` and
// `tokenizer` (the model's own, or null for a preset) before a check: every
// answer is computed from these, never from a fixed token or head.
//
// screen: {text, ids [T], labels [T], tokenizer, layer, head, stage, causal,
//   scale, ablate [[layer, head]], row, cell {query, key} | null,
//   train {batches, batchSize, maxSeqLen, source} | null}
import { encodeText } from '../text_encoding.mjs';
import { tokenLabels } from '../token_text.mjs';

/** The view of a page's or an element's state `s`: {layer, head, stage, causal, scale, ablate}. */
export function viewOf(s) {
  return { layer: s.layer, head: s.head, stage: s.stage, causal: s.causal, scale: s.scale, ablate: s.ablate };
}

/** A screen for `text` read by `tokenizer` (the bos first), with the rest as given. */
export function textScreen(tokenizer, text, rest = {}) {
  const ids = encodeText(tokenizer, text);
  const labels = tokenLabels(tokenizer.display(ids)).map((l) => l.label);
  return { text, ids, labels, tokenizer, causal: true, scale: true, ablate: [], row: null, cell: null, ...rest };
}

/** The forward's switches of the screen: {causalMask, scaleScores, ablate?}; `over` replaces some. */
export function switchesOf(screen, over = {}) {
  const switches = { causalMask: screen.causal !== false, scaleScores: screen.scale !== false };
  if (screen.ablate?.length) switches.ablate = screen.ablate;
  return { ...switches, ...over };
}

/** The layer and head shown, within the model's ranges (layer 0, head 0 when none is set). */
export function shownHead(model, screen) {
  const { num_hidden_layers: L, num_attention_heads: H } = model.info();
  const clamp = (value, n) => (Number.isInteger(value) && value >= 0 && value < n ? value : 0);
  return { layer: clamp(screen.layer, L), head: clamp(screen.head, H) };
}

/** The selected row when it is one of the text's, else the last. */
export function shownRow(screen) {
  const T = screen.ids.length;
  return Number.isInteger(screen.row) && screen.row >= 0 && screen.row < T ? screen.row : T - 1;
}

/**
 * One stage's row of one head: [T] values of `stage` at (layer, head) for
 * query `row`, from a forward over the screen's ids with its switches
 * (`over` replaces some). The trace is [1, H, T, T].
 */
export function stageRow(model, screen, { layer, head, row, stage = 'attn_weights', over = {} }) {
  return stageRows(model, screen, { layer, row, stage, over })[head];
}

/** The same row of every head of `layer`: [H][T] (one forward). */
export function stageRows(model, screen, { layer, row, stage = 'attn_weights', over = {} }) {
  const { trace } = model.forward(screen.ids, { trace: { layers: [layer], stages: [stage] }, ...switchesOf(screen, over) });
  const { shape, data } = trace.get(layer, stage);
  const [, H, , T] = shape;
  return range(0, H).map((head) => Array.from(data.subarray((head * T + row) * T, (head * T + row + 1) * T)));
}

/** The positions whose value is within `tolerance` of the largest among `positions`: ties count as right. */
export function largestPositions(values, positions, tolerance) {
  let best = -Infinity;
  for (const j of positions) best = Math.max(best, values[j]);
  return positions.filter((j) => values[j] >= best - tolerance);
}

/** [from, from + 1, ..., to - 1]. */
export function range(from, to) {
  return Array.from({ length: Math.max(0, to - from) }, (_, k) => from + k);
}

/** The text's tokens are read by a tokenizer and the screen has its text (not typed ids). */
export function hasText(screen) {
  return Boolean(screen.tokenizer) && typeof screen.text === 'string' && screen.ids.length > 0;
}
