// The timeline of a run of the JS API's trainer (Model.trainer's
// onSnapshot): the entries js/timeline.mjs makes (timelineEntry, the same
// objects as the page's TrainSession records), handed to the caller while the
// trainer runs:
//   - batch 0: on the first step() call, before its batch runs (the weights
//     as they were when training started);
//   - after every `every` batches (batchesDone % every === 0);
//   - after the last batch.
// tokens counts batch rows × max_seq_len as the page does (the last batch of
// an epoch has the rows left), worked out from the batches done, so a
// restored trainer counts on from where its run was; trainLoss is the mean
// loss of the batches since the entry before (null at batch 0, and for an
// entry with no batch of this trainer before it, after a restore).
import { encodeText } from './text_encoding.mjs';
import { defaultSnapshotEvery, probeAttention, timelineEntry, timelineProbes } from './timeline.mjs';
import { LESSON_PROBE } from './train_session.mjs';
import { argumentError } from './minimind_error.mjs';

// The probe sentence is cut to this many tokens, as the Train panel cuts it.
const PROBE_TOKENS = 64;

/** Token positions trained on after `batches` batches: rows × maxSeqLen, each epoch's rows summing to its samples. */
function tokensAfter(batches, { samples, batchesPerEpoch, maxSeqLen }, batchSize) {
  const epochs = Math.floor(batches / batchesPerEpoch);
  const rows = Math.min(samples, (batches % batchesPerEpoch) * batchSize);
  return (epochs * samples + rows) * maxSeqLen;
}

/**
 * What a timeline needs before a trainer exists (checked against `model`'s
 * vocabulary): {probes: timelineProbes, probe: {text, ids}}. tokenizer:
 * MiniMind's (a Tokenizer of loadTokenizer), probe: the probe sentence, read
 * after the bos.
 */
export function prepareTimeline(model, tokenizer, probe = LESSON_PROBE) {
  const info = model.info();
  const probes = timelineProbes(tokenizer, { bos: info.bos_token_id ?? 1, eos: info.eos_token_id ?? 2 });
  const ids = encodeText(tokenizer, probe).slice(0, PROBE_TOKENS);
  if (ids.length < 2) throw argumentError(Error, 'train.probe_empty', {}, 'the probe sentence needs at least one token');
  let top = Math.max(...ids);
  const seen = (list) => list.forEach((s) => (top = Math.max(top, ...s)));
  seen(probes.icl);
  seen(probes.induction.map((s) => s.ids));
  for (const kind of Object.keys(probes.roles)) seen(probes.roles[kind].map((p) => p.ids));
  if (top >= info.vocab_size)
    throw argumentError(
      RangeError,
      'api.timeline_vocab',
      { id: top, vocab: info.vocab_size },
      `the timeline's probes hold token id ${top}, outside this model's vocabulary of ${info.vocab_size}: ` +
        "give the model MiniMind's vocabulary (vocab_size 6400) or a tokenizer that fits it",
    );
  return { probes, probe: { text: probe, ids } };
}

export class TrainerTimeline {
  #model;
  #prepared;
  #onSnapshot;
  #every;
  #batchSize;
  #lossSum = 0;
  #lossCount = 0;
  #lastStep = -1;

  /**
   * model: the trained Model; prepared: prepareTimeline(); onSnapshot(entry);
   * every: batches between entries (null: defaultSnapshotEvery of the run's
   * batches); info: the trainer's info(); batchSize: its rows per batch.
   */
  constructor(model, prepared, { onSnapshot, every, batchSize }, info) {
    this.#model = model;
    this.#prepared = prepared;
    this.#onSnapshot = onSnapshot;
    this.#every = every ?? defaultSnapshotEvery(info.totalBatches);
    this.#batchSize = batchSize;
  }

  /** Batches between entries. */
  get every() {
    return this.#every;
  }

  /** Before a batch runs: the batch-0 entry, once, when no batch has run. */
  before(info) {
    if (info.batchesDone === 0 && this.#lastStep !== 0) this.#record(info);
  }

  /** After a batch ran with loss `loss`: an entry at every `every` batches and after the last. */
  after(info, loss) {
    this.#lossSum += loss;
    this.#lossCount += 1;
    if (info.batchesDone % this.#every === 0 || info.done) this.#record(info);
  }

  /** After a restore: the batches counted so far belong to another point of the run. */
  restored() {
    this.#lossSum = 0;
    this.#lossCount = 0;
    this.#lastStep = -1;
  }

  #record(info) {
    const step = info.batchesDone;
    const trainLoss = this.#lossCount > 0 ? this.#lossSum / this.#lossCount : null;
    this.#lossSum = 0;
    this.#lossCount = 0;
    this.#lastStep = step;
    const { probes, probe } = this.#prepared;
    const attention = probeAttention(this.#model, probe.ids);
    const tokens = tokensAfter(step, info, this.#batchSize);
    this.#onSnapshot(timelineEntry(this.#model, probes, { step, tokens, trainLoss }, { attention, T: probe.ids.length }));
  }
}
