// A tour step's declarative state (chapters.mjs), resolved against the model
// on screen: the trained model's lesson sentence and measured heads come from
// its files (heads.json, read by the worker: store.demo), rows and cells from
// the tokens of the text once the forward pass has answered. Also the view
// js/tour_text.mjs composes its sentences from, read from the store.
import { PRONOUN } from '../../js/corpus.mjs';
import { viewOf } from '../../js/exercises/screen.mjs';
import { DEMO, headLabel } from '../demo_model.mjs';
import { headMatrix, shown } from '../shown_matrix.mjs';
import { DEFAULTS } from '../url_state.mjs';

// What every step sets; a step's own state goes on top.
const BASE = { stage: 'attn_weights', causal: true, scale: true, ablate: [], row: null, cell: null };

// The keys a step sets in the store (and tests read back).
export const STEP_KEYS = ['text', 'preset', 'layer', 'head', 'stage', 'causal', 'scale', 'ablate', 'row', 'cell'];

const ROLE_SCORE = { 'previous-token': 'previousToken', induction: 'induction', sink: 'sink', pronoun: 'pronoun' };

/** The head of a measured role: heads.json's pronoun head, else the one of that role with the largest score; null when none. */
export function headOfRole(heads, role) {
  if (!heads) return null;
  if (role === 'pronoun' && heads.pronounHead) return heads.pronounHead;
  const score = ROLE_SCORE[role];
  const found = (heads.heads ?? []).filter((h) => h.role === role).sort((a, b) => b[score] - a[score])[0];
  return found ? { layer: found.layer, head: found.head } : null;
}

function textOf(spec, demo) {
  const lesson = demo?.sentence?.text ?? DEFAULTS.text;
  if (spec === 'lesson' || spec === undefined) return lesson;
  if (spec === 'lesson-twice') return `${lesson}${lesson}`;
  return spec;
}

/** A row spec's row in `tokens`, or undefined (no tokens yet). */
export function rowOf(spec, tokens) {
  if (spec === null || spec === undefined) return null;
  if (!tokens) return undefined;
  if (typeof spec === 'number') return Math.min(spec, tokens.length - 1);
  if (spec === 'last') return tokens.length - 1;
  if (spec === 'pronoun') {
    for (let i = tokens.length - 1; i >= 0; i -= 1) if (Object.values(PRONOUN).includes(tokens[i])) return i;
    return tokens.length - 1;
  }
  if (spec.token !== undefined) {
    // The first of the spellings the tokenizer made a token of (明, or 小明 as one token).
    const i = [spec.token]
      .flat()
      .map((token) => tokens.indexOf(token))
      .find((k) => k >= 0);
    return i ?? tokens.length - 1;
  }
  if (spec.second !== undefined) {
    // A text typed twice after the bos: row `second` of the first copy, in the second copy.
    const half = (tokens.length - 1) / 2;
    const i = spec.second + half;
    return Number.isInteger(half) && tokens[i] === tokens[spec.second] ? i : tokens.length - 1;
  }
  return null;
}

/**
 * The store state of `step` now: {target: the keys it sets, pending: the keys
 * that wait for the model's heads or the text's tokens}. ctx: {demo (the
 * trained model's, as last known), result (the forward pass on screen, when it
 * is for the target's text and model), info}.
 */
export function resolveStep(step, ctx) {
  const spec = { ...BASE, ...step.state };
  const preset = spec.model ?? DEMO;
  const heads = preset === DEMO ? ctx.demo?.heads : null;
  const target = {
    inputMode: 'text',
    text: textOf(spec.text, ctx.demo),
    preset,
    seed: 0,
    config: null,
    files: null,
    stage: spec.stage,
    causal: spec.causal,
    scale: spec.scale,
    lab: null,
  };
  const pending = [];
  for (const key of ['layer', 'head']) {
    const value = spec[key];
    if (typeof value === 'number') target[key] = value;
    else {
      const found = headOfRole(heads, value?.role);
      if (found) target[key] = found[key];
      else if (preset === DEMO && !ctx.demo) pending.push(key);
      else target[key] = 0;
    }
  }
  if (spec.ablate === 'pronoun-heads') {
    const list = heads?.referentAccuracy?.pronounHeads ?? (heads?.pronounHead ? [[heads.pronounHead.layer, heads.pronounHead.head]] : null);
    if (list) target.ablate = list.map(([l, h]) => [l, h]);
    else pending.push('ablate');
  } else target.ablate = spec.ablate;
  const tokens = ctx.result?.tokens ?? null;
  // Until the text's tokens are in, even "no row" waits: a model that loads picks its own row meanwhile.
  const row = tokens ? rowOf(spec.row, tokens) : undefined;
  if (row === undefined) pending.push('row');
  else target.row = row;
  if (spec.cell) {
    const query = rowOf(spec.cell.query, tokens);
    if (query === undefined || pending.includes('layer') || pending.includes('head')) pending.push('cell');
    else {
      const T = tokens.length;
      const weights = headMatrix(ctx.result.entries.get(target.layer, 'attn_weights'), target.head, T);
      let key = 0;
      for (let j = 1; j <= query; j += 1) if (weights[query * T + j] > weights[query * T + key]) key = j;
      target.cell = { query, key };
    }
  } else target.cell = null;
  return { target, pending };
}

/** The measured heads of the model on screen (the trained model's heads.json, or a model trained in the page), or null. */
function measuredHeads(s) {
  if (s.files) return s.files.roles ?? null;
  return s.demo && s.preset === DEMO ? s.demo.heads : null;
}

/** What js/tour_text.mjs composes from: the state on screen now, or null while there is no matrix. */
/** The model's shape as the tour's sentences name it, from its config (info). */
export function modelShape(info) {
  return {
    L: info.num_hidden_layers,
    H: info.num_attention_heads,
    Hkv: info.num_key_value_heads,
    Dh: info.head_dim,
    D: info.hidden_size,
    qkNorm: Boolean(info.use_qk_norm),
    ropeTheta: info.rope_theta,
  };
}

export function tourView(s) {
  const result = shown(s);
  const info = s.model.info;
  if (!result || !info || s.layer === null || s.head === null || s.inputMode === 'manual') return null;
  const { tokens, T } = result;
  const at = s.row !== null && s.row < T ? s.row : T - 1;
  const rowValues = (stage) => Array.from(headMatrix(result.entries.get(s.layer, stage), s.head, T).subarray(at * T, (at + 1) * T));
  const entry = measuredHeads(s)?.heads?.find((h) => h.layer === s.layer && h.head === s.head) ?? null;
  const cell = s.cell && s.cell.query < T && s.cell.key < T ? s.cell : null;
  const p = s.prediction && s.prediction.query !== null ? s.prediction : null;
  const candidate = (c) => (c ? { label: c.label, p: c.p } : null);
  return {
    text: s.text,
    tokens,
    special: result.special ?? null,
    row: s.row !== null && s.row < T ? s.row : null,
    at,
    cell,
    cellWeight: cell ? headMatrix(result.entries.get(s.layer, 'attn_weights'), s.head, T)[cell.query * T + cell.key] : null,
    ...viewOf(s),
    preset: s.files ? s.files.name : s.preset,
    info: modelShape(info),
    role: entry ? { role: entry.role, ...headLabel(entry) } : null,
    rows: { scores_raw: rowValues('scores_raw'), scores_scaled: rowValues('scores_scaled'), attn_weights: rowValues('attn_weights') },
    prediction:
      p && p.row === at ? { query: p.query, top: candidate(p.candidates[0]), on: candidate(p.on), masked: candidate(p.masked?.[0]) } : null,
  };
}
