// A training run's timeline: one entry per snapshot, what the model is at
// that moment, measured on fixed probes (nothing here is the training data):
//   tokens       token positions trained on so far (batch rows × max_seq_len, as the page counts them)
//   loss         the mean next-token loss on the held-out sequences below (nats)
//   trainLoss    the mean loss of the training batches since the entry before (null at batch 0)
//   icl          the in-context-learning score on the same sequences: the mean loss at the last quarter
//                of positions minus the mean loss at positions 4-7 (Olsson et al. 2022 compare tokens 500
//                and 50; these sequences are ICL_LENGTH tokens long). Negative: later tokens are predicted
//                better, the context helps. Position t is the loss of predicting token t from those before it.
//   heads        {L0H1: {previousToken, induction, pronoun, sink}}: scoreHeadRoles on the light probes
//                (js/head_roles.mjs lightHeadProbes, plus the attention on the bos: the sink)
//   composition  {L2H2: {L0H0: share, ..., L1H3: share} | null} for every head of blocks ≥ 1: on the
//                induction probe (a token's second occurrence attending to the token after its first), the
//                share of the head's gap (its score on that key minus the mean score of the row's other
//                keys) that each earlier head wrote on the key side (model.keyComposition: QK attribution's
//                split); null while the gap is below COMPOSITION_MIN_GAP, where a share means nothing
//   gaps         {L2H2: gap} those gaps, in score units (logits of the softmax)
//   attention    the probe sentence's attention, every layer and head, as IEEE half floats: Uint16Array
//                [L, H, T, T] (js/half_float.mjs), so that any moment redraws without weights
// Deterministic: the same weights give the same entry, bit for bit.
import { halfFromFloats } from './half_float.mjs';
import { lightHeadProbes, scoreHeadRoles } from './head_roles.mjs';
import { CorpusStream } from './corpus_stream.mjs';
import { argumentError } from './minimind_error.mjs';

const TIMELINE_FORMAT = 'minimind-timeline';
const TIMELINE_VERSION = 1;

/** Below this gap (score units: the key's weight about e times the others' geometric mean) a head's shares are null. */
export const COMPOSITION_MIN_GAP = 1;

/** The held-out sequences of the loss and the ICL score: ICL_SEQUENCES windows of ICL_LENGTH tokens. */
export const ICL_SEQUENCES = 4;
export const ICL_LENGTH = 64;
/** The early positions of the ICL score, [from, to). */
export const ICL_EARLY = Object.freeze([4, 8]);
/** The generated corpus's seed for the held-out sequences: drawn once, no training recipe uses it. */
const ICL_SEED = 918273645;

/** A timeline's default spacing: about 100 entries a run. */
export function defaultSnapshotEvery(batches) {
  return Math.max(1, Math.floor(batches / 100));
}

/** A head's name in a timeline: L{layer}H{head}, blocks from 0. */
export const headName = (layer, head) => `L${layer}H${head}`;

/**
 * The fixed probes of a timeline, made once a run: roles (lightHeadProbes
 * with `roleOptions`, plus sink: every held-out text's queries onto the
 * bos), icl (ICL_SEQUENCES id arrays of ICL_LENGTH, cut from the held-out
 * corpus stream), induction ([{ids, cells: [[query, key]]}]: the role
 * probes' induction sequences, grouped).
 */
export function timelineProbes(tokenizer, { roleOptions = {}, bos = 1, eos = 2 } = {}) {
  const roles = lightHeadProbes(tokenizer, roleOptions);
  const texts = new Set(roles.previousToken.map((p) => p.ids));
  const sink = [];
  for (const ids of texts) for (let i = 1; i < ids.length; i += 1) sink.push({ ids, query: i, keys: [0] });
  const bySequence = new Map();
  for (const { ids, query, keys } of roles.induction) {
    if (!bySequence.has(ids)) bySequence.set(ids, []);
    bySequence.get(ids).push([query, keys[0]]);
  }
  const induction = [...bySequence].map(([ids, cells]) => ({ ids, cells }));
  return { roles: { ...roles, sink }, icl: iclSequences((text) => tokenizer.encode(text), { bos, eos }), induction };
}

/** ICL_SEQUENCES windows of ICL_LENGTH tokens, consecutive, from the held-out corpus stream's packed samples. */
function iclSequences(encode, { bos = 1, eos = 2 } = {}) {
  const stream = new CorpusStream({ seed: ICL_SEED, mix: null, maxSeqLen: ICL_LENGTH, encode, bos, eos });
  const flat = [];
  while (flat.length < ICL_SEQUENCES * ICL_LENGTH) flat.push(...stream.next());
  return Array.from({ length: ICL_SEQUENCES }, (_, k) => flat.slice(k * ICL_LENGTH, (k + 1) * ICL_LENGTH));
}

/**
 * The mean loss per position over id arrays of one length: Float64Array
 * [T] (position 0 is NaN: nothing predicts the first token), from
 * model.tokenLosses (the softmax stays in the module).
 */
export function positionLosses(model, sequences) {
  const T = sequences[0].length;
  const sums = new Float64Array(T);
  for (const losses of model.tokenLosses(sequences)) for (let t = 1; t < T; t += 1) sums[t] += losses[t];
  const out = sums.map((s) => s / sequences.length);
  out[0] = NaN;
  return out;
}

const mean = (values, from, to) => {
  let sum = 0;
  for (let t = from; t < to; t += 1) sum += values[t];
  return sum / (to - from);
};

/** {loss, icl} of position losses (positionLosses): the mean over positions 1.., and late − early. */
function lossAndIcl(losses) {
  const T = losses.length;
  const late = Math.floor((3 * T) / 4);
  return { loss: mean(losses, 1, T), icl: mean(losses, late, T) - mean(losses, ICL_EARLY[0], ICL_EARLY[1]) };
}

/**
 * composition and gaps (see the header) from model.keyComposition over the
 * induction probe's sequences, each sequence's means weighted by its cells.
 */
export function headComposition(model, induction) {
  const total = induction.reduce((n, s) => n + s.cells.length, 0);
  const sums = new Map(); // "L2H2" -> {gap, parts: Float64Array, components}
  for (const { ids, cells } of induction) {
    for (const layer of model.keyComposition({ ids, cells })) {
      for (const h of layer.heads) {
        const name = headName(layer.layer, h.head);
        if (!sums.has(name)) sums.set(name, { gap: 0, parts: new Float64Array(h.parts.length), components: layer.components });
        const s = sums.get(name);
        const w = cells.length / total;
        s.gap += w * h.gap;
        for (let c = 0; c < h.parts.length; c += 1) s.parts[c] += w * h.parts[c];
      }
    }
  }
  const composition = {};
  const gaps = {};
  for (const [name, { gap, parts, components }] of sums) {
    gaps[name] = gap;
    if (!(gap >= COMPOSITION_MIN_GAP)) {
      composition[name] = null;
      continue;
    }
    const shares = {};
    components.forEach((component, c) => {
      if (/^L\d+H\d+$/.test(component)) shares[component] = parts[c] / gap;
    });
    composition[name] = shares;
  }
  return { composition, gaps };
}

/** The attention of every layer and head on `ids` (one traced forward): Float32Array [L, H, T, T]. */
export function probeAttention(model, ids) {
  const { num_hidden_layers: L, num_attention_heads: H } = model.info();
  const T = ids.length;
  const { trace } = model.forward(ids, { trace: { layers: 'all', stages: ['attn_weights'] } });
  const attention = new Float32Array(L * H * T * T);
  for (let layer = 0; layer < L; layer += 1) attention.set(trace.get(layer, 'attn_weights').data, layer * H * T * T);
  return attention;
}

/** scores {kind: [L][H]} as {L0H1: {previousToken, induction, pronoun, sink}}. */
export function headScores(scores) {
  const kinds = Object.keys(scores).filter((kind) => scores[kind]);
  const heads = {};
  scores[kinds[0]].forEach((row, layer) =>
    row.forEach((_, head) => {
      heads[headName(layer, head)] = Object.fromEntries(kinds.map((kind) => [kind, scores[kind][layer][head]]));
    }),
  );
  return heads;
}

/** {L0H1: {...}} back to {kind: [L][H]} (the Train panel's snapshot scores). */
export function scoreMatrices(heads) {
  const names = Object.keys(heads);
  const at = names.map((name) => /^L(\d+)H(\d+)$/.exec(name).slice(1).map(Number));
  const L = Math.max(...at.map(([l]) => l)) + 1;
  const H = Math.max(...at.map(([, h]) => h)) + 1;
  const kinds = Object.keys(heads[names[0]]);
  const out = {};
  for (const kind of kinds)
    out[kind] = Array.from({ length: L }, (_, l) => Array.from({ length: H }, (_, h) => heads[headName(l, h)]?.[kind] ?? NaN));
  return out;
}

/**
 * One entry of the timeline (see the header) for `model` as it is now.
 * probes: timelineProbes(); at: {step, tokens, trainLoss}; scores: the role
 * scores already measured on probes.roles (scoreHeadRoles), else measured
 * here; attention: the probe sentence's attention Float32Array [L, H, T, T]
 * with T, or null.
 */
export function timelineEntry(model, probes, { step, tokens, trainLoss = null }, { scores = null, attention = null, T = 0 } = {}) {
  if (!Number.isSafeInteger(step) || step < 0)
    throw argumentError(
      RangeError,
      'api.not_negative',
      { name: 'step', got: String(step) },
      `step must be a non-negative integer, got ${step}`,
    );
  const { loss, icl } = lossAndIcl(positionLosses(model, probes.icl));
  const { composition, gaps } = headComposition(model, probes.induction);
  return {
    step,
    tokens,
    loss,
    trainLoss,
    icl,
    heads: headScores(scores ?? scoreHeadRoles(model, probes.roles)),
    composition,
    gaps,
    T: attention ? T : 0,
    attention: attention ? halfFromFloats(attention) : null,
  };
}

/** The entry as JSON takes it: attention as an array of half-float bits (or left out with `attention: false`). */
export function entryJson(entry, { attention = true } = {}) {
  const { attention: bits, ...rest } = entry;
  return attention && bits ? { ...rest, attention: Array.from(bits) } : rest;
}

/** A timeline file's object: {format, version, every, probe, layers, heads, snapshots}. */
export function timelineJson({ every, probe, layers, heads, entries, attention = true }) {
  return {
    format: TIMELINE_FORMAT,
    version: TIMELINE_VERSION,
    every,
    probe,
    layers,
    heads,
    compositionMinGap: COMPOSITION_MIN_GAP,
    icl: { sequences: ICL_SEQUENCES, length: ICL_LENGTH, early: ICL_EARLY, seed: ICL_SEED },
    snapshots: entries.map((e) => entryJson(e, { attention })),
  };
}

/** Entries from a timeline file's object (checked): attention back to Uint16Array. */
export function readTimeline(json) {
  if (!json || json.format !== TIMELINE_FORMAT)
    throw argumentError(Error, 'timeline.not_a_timeline', {}, 'not a MiniMind training timeline');
  if (json.version !== TIMELINE_VERSION)
    throw argumentError(
      Error,
      'timeline.version',
      { version: String(json.version), supported: TIMELINE_VERSION },
      `a timeline of version ${json.version}; this code reads version ${TIMELINE_VERSION}`,
    );
  const entries = json.snapshots.map((s) => ({ ...s, attention: Array.isArray(s.attention) ? Uint16Array.from(s.attention) : null }));
  return { ...json, snapshots: entries };
}
