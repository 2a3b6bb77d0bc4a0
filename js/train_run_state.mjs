// A training run as data, to save it and go on with it later, exactly where
// it stopped (a reload, a closed tab): everything js/train_session.mjs needs
// to continue, and everything the Train panel shows of the run so far.
//
// A run state is a plain object of numbers, strings and typed arrays (what
// IndexedDB's structured clone stores as is, and postMessage transfers):
//   format, version       'minimind-train-run', 1
//   settings              how the run was prepared: {model: {kind: 'new', config, seed} | {kind: 'files', config},
//                         data (the request's data, without file text), pack, options (the trainer's, epochs resolved),
//                         probe, snapshotEvery, maxSteps}
//   model                 {config: config.json text, weights: model.safetensors bytes, float32}
//   tokenizer             tokenizer.json text when the run's is not MiniMind's own, else null
//   data                  {kind: 'samples', ids, offsets, count, stats, stream}: the trainer's samples in the
//                         data's order (ids: Uint16Array, or Int32Array past 65535; sample i is
//                         ids[offsets[i] .. offsets[i + 1]]), its stats (texts, tokens, padding), and the
//                         generator's state (js/corpus_stream.mjs state()) when a stream still has samples to
//                         give, else null
//   trainer               js/minimind.mjs Trainer.state(): epoch, batch, AdamW's moments and step, pending gradients
//   session               {trainMs, positions, lastSnapshotStep, lossSum, lossCount, trainLoss}: TrainSession's
//                         own counters
//   history               {loss, lr: Float64Array, positions}: every batch so far (js/train_history.mjs StepHistory)
//   snapshots             the snapshots' summaries (see snapshotSummaries)
//   timeline              every timeline entry (js/timeline.mjs), attention as Uint16Array half floats, within
//                         TIMELINE_BUDGET (see timelineState); a run saved before the timeline has none
// The samples are kept rather than made again from the data's settings: a
// resumed run then reads the very same batches whatever the corpus generator
// or the tokenizer code has become since.
import { CorpusStream } from './corpus_stream.mjs';
import { TrainSession } from './train_session.mjs';
import { TIMELINE_BYTES } from './timeline_store.mjs';
import { argumentError } from './minimind_error.mjs';

const RUN_FORMAT = 'minimind-train-run';
const RUN_VERSION = 1;

/** The attention matrices a saved run keeps, at most (bytes): past it, the middle snapshots keep their scores and predictions but not their attention. */
const SNAPSHOT_ATTENTION_BUDGET = 8 * 2 ** 20;

/**
 * The most a saved run's timeline takes (bytes, as stateBytes counts
 * them). A 2M-token run (the induction recipe, 3906 batches) at the default
 * spacing stays far below it with every entry's attention; at the spacing's
 * smallest setting (a snapshot every batch) its attention alone would take
 * several times as much, so past the budget evenly spaced entries keep their
 * numbers but not their attention (tests/node/timeline_persistence.test.mjs).
 */
export const TIMELINE_BUDGET = TIMELINE_BYTES;

/** Id arrays as {ids, offsets}: one flat typed array (16-bit when every id fits) and where each sample starts. */
export function packSamples(samples) {
  const offsets = new Uint32Array(samples.length + 1);
  let max = 0;
  for (let i = 0; i < samples.length; i += 1) {
    offsets[i + 1] = offsets[i] + samples[i].length;
    for (const id of samples[i]) if (id > max) max = id;
  }
  const ids = max < 0x10000 ? new Uint16Array(offsets[samples.length]) : new Int32Array(offsets[samples.length]);
  for (let i = 0; i < samples.length; i += 1) ids.set(samples[i], offsets[i]);
  return { ids, offsets };
}

/** The id arrays of packSamples' {ids, offsets}. */
export function unpackSamples({ ids, offsets }) {
  const samples = new Array(offsets.length - 1);
  for (let i = 0; i < samples.length; i += 1) samples[i] = Array.from(ids.subarray(offsets[i], offsets[i + 1]));
  return samples;
}

/**
 * The worker's part of a run state: the session's model, trainer and
 * counters (TrainSession.captureState), the samples it trains on, and how
 * the run was prepared. samples: id arrays, or packSamples' {ids, offsets}
 * (a resumed run's); settings: see above (a 'files' model without its
 * weights: the weights saved are the trained ones); tokenizer: the run's
 * tokenizer.json text when it is not MiniMind's; stats: {texts, tokens,
 * padding}; stream: the corpus stream (js/corpus_stream.mjs) the samples
 * come from when it still has more to give (or its state()), or null.
 */
export function captureRun({ session, samples, settings, tokenizer = null, stats = {}, stream = null }) {
  const { config, weights, trainer, session: counters } = session.captureState();
  const { model, ...rest } = settings;
  // Copies of packed samples (a resumed run's): the caller may transfer these buffers.
  const packed = Array.isArray(samples) ? packSamples(samples) : { ids: samples.ids.slice(), offsets: samples.offsets.slice() };
  const streamState = stream && typeof stream.state === 'function' ? stream.state() : stream;
  return {
    format: RUN_FORMAT,
    version: RUN_VERSION,
    settings: {
      ...rest,
      model: { kind: model.kind, config: model.config, seed: model.seed ?? null },
      data: withoutText(rest.data),
      options: session.options,
    },
    model: { config, weights },
    tokenizer,
    data: { kind: 'samples', ...packed, count: packed.offsets.length - 1, stats: { ...stats }, stream: streamState ?? null },
    trainer,
    session: counters,
  };
}

// The data's request without a pasted text or a file's contents (the samples are kept instead).
function withoutText(data) {
  if (!data) return null;
  const { text, ...rest } = data;
  return text === undefined ? rest : { ...rest, textLength: text.length };
}

/** Throws unless `run` is a run state this code reads. */
export function checkRun(run) {
  if (!run || run.format !== RUN_FORMAT) throw argumentError(Error, 'run.not_a_run', {}, 'not a saved training run');
  if (run.version !== RUN_VERSION)
    throw argumentError(
      Error,
      'run.version',
      { version: String(run.version), supported: RUN_VERSION },
      `a saved training run of version ${run.version}; this page reads version ${RUN_VERSION}`,
    );
  if (run.data?.kind !== 'samples')
    throw argumentError(
      Error,
      'run.data_kind',
      { kind: String(run.data?.kind) },
      `a saved run's data of kind ${run.data?.kind} is not read here`,
    );
}

/** The saved run's model: its float32 weights under its config (mm: the loaded module). */
export function loadRunModel(mm, run) {
  checkRun(run);
  return mm.loadModel({ config: run.model.config, weights: run.model.weights });
}

/**
 * A TrainSession that goes on exactly where `run` was saved: over `model`
 * (loadRunModel), the same samples, options and position, AdamW's state and
 * the session's counters. tokenizer: the run's (MiniMind's unless
 * run.tokenizer); encode: its encode, for a stream that goes on
 * (run.data.stream). Returns {session, samples, stream}.
 */
export function resumeSession({ model, tokenizer, run, encode = (text) => tokenizer.encode(text), roles = true }) {
  checkRun(run);
  const samples = unpackSamples(run.data);
  const { settings } = run;
  const session = new TrainSession({
    model,
    tokenizer,
    samples,
    options: settings.options,
    probe: settings.probe,
    snapshotEvery: settings.snapshotEvery,
    roles,
    maxSteps: settings.maxSteps ?? null,
    resume: { trainer: run.trainer, session: run.session },
  });
  const stream = run.data.stream ? CorpusStream.fromState(run.data.stream, encode) : null;
  return { session, samples, stream };
}

/** The page's part: every batch's loss and learning rate (copies), from a StepHistory. */
export function historyState(history) {
  return { loss: history.loss.slice(), lr: history.lr.slice(), positions: history.positions };
}

/** Refills a StepHistory (cleared first) from historyState(). */
export function restoreHistory(history, state) {
  history.clear();
  const n = state.loss.length;
  const steps = new Array(n);
  // StepHistory counts positions per step: the total rides on the last one.
  for (let i = 0; i < n; i += 1) steps[i] = { loss: state.loss[i], lr: state.lr[i], positions: i === n - 1 ? state.positions : 0 };
  history.push(steps);
}

/**
 * The snapshots of a SnapshotStore as saved: each one whole (its step,
 * probe, predictions, role scores, ...), its attention matrix too when the
 * matrices fit SNAPSHOT_ATTENTION_BUDGET; past it the first and the newest
 * keep theirs and evenly spaced ones in between, the rest have attention null.
 */
export function snapshotSummaries(snapshots, budget = SNAPSHOT_ATTENTION_BUDGET) {
  const items = Array.from({ length: snapshots.length }, (_, k) => snapshots.get(k));
  const bytes = items.reduce((n, s) => n + (s.attention?.byteLength ?? 0), 0);
  const keepEvery = bytes <= budget ? 1 : Math.ceil(bytes / budget);
  return items.map((s, k) => {
    const kept = k % keepEvery === 0 || k === items.length - 1;
    return { ...s, attention: kept && s.attention ? s.attention.slice() : null };
  });
}

/** Refills a SnapshotStore (cleared first) from snapshotSummaries(). */
export function restoreSnapshots(store, summaries) {
  store.clear();
  for (const s of summaries) store.add(s);
}

/**
 * A TimelineStore's entries as saved (bytes as stateBytes counts them): each one's numbers, and its attention
 * (a copy) when every entry's fits `budget` with the numbers; past it the
 * first and the newest keep theirs and evenly spaced ones in between (the
 * widest spacing under the budget), the rest have attention null.
 */
export function timelineState(timeline, budget = TIMELINE_BUDGET) {
  const entries = timeline.entries();
  const room = budget - entries.reduce((n, e) => n + stateBytes({ ...e, attention: null }), 0);
  const keeps = (every, k) => k % every === 0 || k === entries.length - 1;
  const kept = (every) => entries.reduce((n, e, k) => n + (keeps(every, k) ? (e.attention?.byteLength ?? 0) : 0), 0);
  let every = 1;
  if (kept(1) > room) {
    every = Math.max(2, Math.ceil(kept(1) / Math.max(room, 1)));
    while (every < entries.length && kept(every) > room) every += 1;
  }
  const fits = kept(every) <= room; // else not even the first and the newest: none keeps its attention
  return entries.map((e, k) => ({ ...e, attention: fits && keeps(every, k) && e.attention ? e.attention.slice() : null }));
}

/** Refills a TimelineStore (cleared first) from timelineState() (none: a run saved before the timeline). */
export function restoreTimeline(store, entries = []) {
  store.clear();
  for (const entry of entries ?? []) store.add(entry);
}

/** Bytes of a run state, or of any part of one: its typed arrays, and its other values as JSON. */
export function stateBytes(run) {
  let bytes = 0;
  const json = JSON.stringify(run, (key, value) => {
    if (ArrayBuffer.isView(value)) {
      bytes += value.byteLength;
      return undefined;
    }
    return value;
  });
  return bytes + (json?.length ?? 0);
}

/**
 * What a list of saved runs shows of one: {step, totalBatches, epoch, loss
 * (the last batch's), hidden, layers, heads, source, bytes}, every value read
 * off the run.
 */
export function runSummary(run) {
  const config = JSON.parse(run.model.config);
  const { options } = run.settings;
  const perEpoch = Math.ceil(run.data.count / options.batchSize);
  const scheduled = perEpoch * options.epochs;
  const loss = run.history?.loss;
  return {
    step: run.trainer.epoch * perEpoch + run.trainer.batch,
    totalBatches: run.settings.maxSteps ? Math.min(scheduled, run.settings.maxSteps) : scheduled,
    epoch: run.trainer.epoch,
    loss: loss && loss.length ? loss[loss.length - 1] : null,
    hidden: config.hidden_size,
    layers: config.num_hidden_layers,
    heads: config.num_attention_heads,
    source: run.settings.data?.source ?? null,
    bytes: stateBytes(run),
  };
}
