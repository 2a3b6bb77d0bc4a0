// One training run of a MiniMind in the page, independent of where it runs
// (the Train panel's worker, web/train_worker.mjs; the <minimind-attention
// train> element): the model, MiniMind's trainer over id-array samples
// (train_data.mjs), and what the learner watches form, all read from the
// real model:
//   - every batch's loss, learning rate, gradient norm and positions;
//   - snapshots every `snapshotEvery` batches (and at batch 0): the attention
//     of every layer and head on the probe sentence, the five most likely next
//     tokens after every probe position, head-role scores
//     (js/head_roles.mjs lightHeadProbes: previous-token, induction, pronoun,
//     and the sink), and the run's timeline entry (js/timeline.mjs: the
//     held-out loss, the ICL score, K-composition, the attention in half floats).
// runSlice(ms) runs batches for about `ms` milliseconds (at least one), so
// its caller can handle messages (pause, stop) between slices.
import { argmax } from './argmax.mjs';
import { scoreHeadRoles } from './head_roles.mjs';
import { defaultSnapshotEvery, timelineEntry, timelineProbes } from './timeline.mjs';
import { continuePrompts, repeatedSpanPrompt } from './snapshot_generation.mjs';
import { encodeText } from './text_encoding.mjs';
import { predictedLabel, tokenLabels } from './token_text.mjs';
import { softmax } from './softmax.mjs';
import { topK } from './top_k.mjs';
import { argumentError } from './minimind_error.mjs';

/** The probe sentence of the lessons: 她 refers to 小红. */
export const LESSON_PROBE = '小明把苹果给了小红，她很开心';

/** The page's default model: generation 3 with MiniMind's 6400-token vocabulary, small enough to train in a minute. */
export const DEFAULT_CONFIG = Object.freeze({
  hidden_size: 64,
  num_hidden_layers: 2,
  num_attention_heads: 4,
  num_key_value_heads: 2,
  vocab_size: 6400,
});

/** The seed of a new model's weights. */
export const DEFAULT_MODEL_SEED = 42;

/** Page-scaled hyperparameters (MiniMind's own are for 26M+ parameters and hours). */
export const DEFAULT_OPTIONS = Object.freeze({
  batchSize: 16,
  maxSeqLen: 64,
  learningRate: 5e-3,
  accumulationSteps: 1,
  gradClip: 1.0,
  epochs: 3,
  seed: 42,
});

const TOP = 5;
// Candidates that are a character's first bytes are read on (greedily) to the
// character they make; at most this many such readings per snapshot.
const MAX_WHOLE = 24;
const MAX_WHOLE_STEPS = 3;

/** The `k` most likely next tokens of a logits row: [{id, p, logit}], p the softmax at temperature 1. */
export function topTokens(logits, k = TOP) {
  const p = softmax(logits);
  return topK(logits, k).map(({ id, value: logit }) => ({ id, logit, p: p[id] }));
}

export class TrainSession {
  #model;
  #tokenizer;
  #trainer;
  #options;
  #samples;
  #snapshotEvery;
  #probe = null; // {text, ids, tokens}
  #prompts = null; // the prompts written on after the probe at each snapshot (null: none)
  #timelineProbes = null; // js/timeline.mjs timelineProbes (its roles: the head-role probes)
  #timeline = true; // record a timeline entry at each snapshot
  #resumedAt = -1; // the batch a saved run resumed at, until the snapshot there (a redraw, not an entry)
  #lossSum = 0; // the training losses since the last snapshot
  #lossCount = 0;
  #trainMs = 0;
  #trainLoss = null; // the mean training loss of the newest snapshot's batches
  #positions = 0;
  #lastSnapshotStep = -1;
  #limit = Infinity;

  /**
   * model: a Model of js/minimind.mjs (trained in place); tokenizer: MiniMind's;
   * samples: id arrays (train_data.mjs trainingSamples); options: the
   * trainer's hyperparameters; probe: the probe sentence; snapshotEvery:
   * batches between snapshots (null: js/timeline.mjs defaultSnapshotEvery of
   * the run's batches, about 100 snapshots a run); roles: false to skip head-role scores (and
   * the timeline); timeline: false to keep the role scores but skip the
   * timeline entry (what it costs: bench/training/timeline_overhead.mjs);
   * prompts: texts the model continues at each snapshot after the probe
   * (js/snapshot_generation.mjs; null in the list: a repeated random span),
   * or null to write nothing;
   * maxSteps: stop after that many batches (the learning rate still follows
   * the schedule of every epoch's batches); resume: {trainer, session} of
   * captureState() (js/train_run_state.mjs) to go on from a saved run, with
   * `model` holding the saved weights and the same samples and options
   * (trainer may also be a function of the new trainer that gives the state:
   * a checkpoint matched to its parameters; session may be null).
   */
  constructor({
    model,
    tokenizer,
    samples,
    options,
    probe = LESSON_PROBE,
    snapshotEvery = null,
    roles = true,
    timeline = true,
    prompts = null,
    maxSteps = null,
    resume = null,
  }) {
    this.#timeline = timeline;
    if (maxSteps !== null) this.#limit = Math.max(1, Math.floor(maxSteps));
    this.#model = model;
    this.#tokenizer = tokenizer;
    this.#samples = samples.length;
    this.#options = { ...DEFAULT_OPTIONS, ...options };
    this.#trainer = model.trainer({ data: samples, ...this.#options });
    this.#snapshotEvery = Math.max(1, Math.floor(snapshotEvery ?? defaultSnapshotEvery(this.info().totalBatches)));
    if (resume) {
      this.#trainer.restore(typeof resume.trainer === 'function' ? resume.trainer(this.#trainer) : resume.trainer);
      if (resume.session) {
        this.#trainMs = resume.session.trainMs;
        this.#positions = resume.session.positions;
        this.#lastSnapshotStep = resume.session.lastSnapshotStep;
        this.#lossSum = resume.session.lossSum ?? 0;
        this.#lossCount = resume.session.lossCount ?? 0;
        this.#trainLoss = resume.session.trainLoss ?? null;
        this.#resumedAt = this.#trainer.info().batchesDone;
      }
    }
    if (roles) {
      const info = model.info();
      this.#timelineProbes = timelineProbes(tokenizer, { bos: info.bos_token_id ?? 1, eos: info.eos_token_id ?? 2 });
    }
    this.setProbe(probe);
    this.setPrompts(prompts);
  }

  get model() {
    return this.#model;
  }

  get options() {
    return { ...this.#options };
  }

  /** trainer.info() with the wall time spent training and the positions processed (batch rows × max_seq_len, as the CLI counts them). */
  info() {
    const info = this.#trainer.info();
    const totalBatches = Math.min(info.totalBatches, this.#limit);
    return {
      ...info,
      scheduledBatches: info.totalBatches,
      totalBatches,
      done: info.done || info.batchesDone >= totalBatches,
      trainMs: this.#trainMs,
      positions: this.#positions,
    };
  }

  /** The run is over: every batch done, or maxSteps. */
  get done() {
    return this.#trainer.done || this.#trainer.info().batchesDone >= this.#limit;
  }

  /** Sets the prompts written on after the probe (see the constructor); returns them with the spans filled in. */
  setPrompts(prompts) {
    if (prompts === null || prompts === undefined) return (this.#prompts = null);
    const span = () => repeatedSpanPrompt(this.#tokenizer).text;
    this.#prompts = prompts.map((p) => (p === null ? span() : String(p))).filter((p) => p.trim() !== '');
    return [...this.#prompts];
  }

  /** Sets the probe sentence (read after the bos, as the playground reads text); returns its tokens. */
  setProbe(text) {
    const ids = encodeText(this.#tokenizer, text).slice(0, 64);
    if (ids.length < 2) throw argumentError(Error, 'train.probe_empty', {}, 'the probe sentence needs at least one token');
    const tokens = tokenLabels(this.#tokenizer.display(ids)).map((t) => t.label); // a byte token by its character
    this.#probe = { text, ids, tokens };
    return tokens;
  }

  /**
   * Runs batches for about `budgetMs` (at least one; it stops early at a
   * snapshot, so that the snapshot is posted at once). Returns {steps:
   * [{step, epoch, batch, loss, lr, gradNorm, positions, ms}], snapshot: a
   * snapshot or null, done}.
   */
  runSlice(budgetMs = 40) {
    const started = performance.now();
    const steps = [];
    let snapshot = null;
    const B = this.#options.batchSize;
    const L = this.#trainer.info().maxSeqLen;
    while (!this.done) {
      const batchStart = performance.now();
      const s = this.#trainer.step();
      const rows = Math.min(B, this.#samples - (s.batch - 1) * B);
      this.#positions += rows * L;
      this.#trainMs += performance.now() - batchStart;
      const step = this.#trainer.info().batchesDone;
      steps.push({ step, epoch: s.epoch, batch: s.batch, loss: s.loss, lr: s.lr, gradNorm: s.gradNorm, positions: rows * L, ms: s.ms });
      this.#lossSum += s.loss;
      this.#lossCount += 1;
      if (step % this.#snapshotEvery === 0 || this.done) {
        snapshot = this.snapshot();
        break;
      }
      if (performance.now() - started >= budgetMs) break;
    }
    return { steps, snapshot, done: this.done };
  }

  /**
   * What the model does now on the probe: {step, text, ids, tokens, layers,
   * heads, kvHeads, T, attention: Float32Array [L, H, T, T], top: per position
   * the next-token candidates [{id, label, raw, kind, p, logit}] (a byte
   * token labelled by the character the model goes on to make, 唱…, or by
   * its bytes, E5 94: js/token_text.mjs), scores: {previousToken,
   * induction, pronoun, sink} as [L][H] (or null), generated: the model's greedy
   * continuation of the probe and of each prompt (snapshot_generation.mjs
   * continuePrompt; null without prompts), entry: the run's timeline entry
   * at this step (js/timeline.mjs timelineEntry; null with roles or timeline
   * off, and at a resumed run's first snapshot where it was saved), ms}.
   * Its time counts as training time.
   */
  snapshot() {
    const started = performance.now();
    const info = this.#model.info();
    const L = info.num_hidden_layers;
    const H = info.num_attention_heads;
    const { ids, tokens, text } = this.#probe;
    const T = ids.length;
    const { logits, trace } = this.#model.forward(ids, { trace: { layers: 'all', stages: ['attn_weights'] } });
    const attention = new Float32Array(L * H * T * T);
    for (let layer = 0; layer < L; layer += 1) attention.set(trace.get(layer, 'attn_weights').data, layer * H * T * T);
    const V = logits.shape[2];
    const top = [];
    let wholeBudget = MAX_WHOLE;
    for (let t = T - 1; t >= 0; t -= 1) {
      const row = topTokens(logits.data.subarray(t * V, (t + 1) * V));
      const labels = this.#tokenizer.display(row.map((c) => c.id));
      top[t] = row.map((c, k) => {
        const whole = labels[k].partial && wholeBudget > 0 ? (wholeBudget--, this.#whole(ids, t, c.id)) : null;
        return { ...c, ...predictedLabel(labels[k], whole) };
      });
    }
    const probes = this.#timelineProbes;
    const scores = probes ? scoreHeadRoles(this.#model, probes.roles) : null;
    const generated = this.#prompts ? continuePrompts(this.#model, this.#tokenizer, [text, ...this.#prompts]) : null;
    const step = this.#trainer.info().batchesDone;
    // The first snapshot of a resumed run, where it was saved, redraws what the run was: the saved
    // timeline already has its entries, and the batches since the last entry still count towards the next.
    const redraw = step === this.#resumedAt;
    this.#resumedAt = -1;
    let entry = null;
    if (!redraw) {
      // A new probe at the same step keeps the batches' mean loss of the entry it replaces.
      if (this.#lossCount > 0 || step !== this.#lastSnapshotStep)
        this.#trainLoss = this.#lossCount > 0 ? this.#lossSum / this.#lossCount : null;
      this.#lossSum = 0;
      this.#lossCount = 0;
      if (probes && this.#timeline)
        entry = timelineEntry(this.#model, probes, { step, tokens: this.#positions, trainLoss: this.#trainLoss }, { scores, attention, T });
      this.#lastSnapshotStep = step;
    }
    const ms = performance.now() - started;
    this.#trainMs += ms;
    return {
      step,
      text,
      ids,
      tokens,
      layers: L,
      heads: H,
      kvHeads: info.num_key_value_heads,
      T,
      attention,
      top,
      scores,
      generated,
      entry,
      ms,
    };
  }

  // The character a partial token (<0xE5><0x94>) goes on to make when the
  // model reads on greedily after it, or null.
  #whole(ids, row, id) {
    const sequence = [...ids.slice(0, row + 1), id];
    for (let k = 0; k < MAX_WHOLE_STEPS; k += 1) {
      const { logits } = this.#model.forward(sequence);
      const V = logits.shape[2];
      sequence.push(argmax(logits.data, (sequence.length - 1) * V, sequence.length * V));
      const shown = this.#tokenizer.display(sequence.slice(row + 1));
      const bytes = shown.filter((s) => s.group === shown[0].group).map((s) => s.text);
      if (shown[0].groupText !== bytes.join('')) return shown[0].groupText;
    }
    return null;
  }

  /** The step of the newest snapshot (-1: none yet). */
  get lastSnapshotStep() {
    return this.#lastSnapshotStep;
  }

  /**
   * What going on with this run later needs (js/train_run_state.mjs):
   * {config: config.json text, weights: model.safetensors bytes (float32,
   * the trainer's weights exactly), trainer: Trainer.state(), session:
   * {trainMs, positions, lastSnapshotStep, lossSum, lossCount, trainLoss}}
   * (the last three: the batches' mean loss the next timeline entry records). Copies.
   */
  captureState() {
    return {
      config: this.#model.configJson(),
      weights: this.#model.safetensors({ dtype: 'F32' }).slice(),
      trainer: this.#trainer.state(),
      session: {
        trainMs: this.#trainMs,
        positions: this.#positions,
        lastSnapshotStep: this.#lastSnapshotStep,
        lossSum: this.#lossSum,
        lossCount: this.#lossCount,
        trainLoss: this.#trainLoss,
      },
    };
  }

  /** {config: config.json text, weights: model.safetensors bytes} of the model as trained so far. */
  files(dtype = 'F32') {
    return { config: this.#model.configJson(), weights: this.#model.safetensors({ dtype }) };
  }

  dispose() {
    this.#trainer?.dispose();
    this.#trainer = null;
  }
}
