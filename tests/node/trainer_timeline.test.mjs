// The JS API's trainer with onSnapshot (js/trainer_timeline.mjs): entries at
// batch 0, every snapshotEvery batches and after the last, tokens and the
// batches' mean loss as counted here, the last entry's measures equal to the
// tools run again on the final weights, a restored run going on with the same
// entries, and bad options refused with the model still usable.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

import { halfFromFloats } from '../../js/half_float.mjs';
import { scoreHeadRoles } from '../../js/head_roles.mjs';
import { loadMiniMind } from '../../js/minimind.mjs';
import { encodeText } from '../../js/text_encoding.mjs';
import { headScores, timelineEntry, timelineProbes } from '../../js/timeline.mjs';
import { LESSON_PROBE, TrainSession } from '../../js/train_session.mjs';

const mm = await loadMiniMind({ variant: 'simd' });
const ROOT = new URL('../../', import.meta.url);
const tokenizer = mm.loadTokenizer(readFileSync(new URL('models/minimind-tokenizer/tokenizer.json', ROOT), 'utf8'));
// lab-a's shapes with MiniMind's vocabulary, and the lessons' small corpus (docs/examples/).
const CONFIG = readFileSync(new URL('docs/examples/lab-a-6400.json', ROOT), 'utf8');
const DATA = readFileSync(new URL('docs/examples/pretrain_tiny.jsonl', ROOT), 'utf8');
const SAMPLES = DATA.split('\n').filter((line) => line.trim() !== '').length;
const OPTIONS = { maxSeqLen: 24, batchSize: 50, accumulationSteps: 1, learningRate: 5e-3, epochs: 2, seed: 7 };

const newModel = () => mm.createModel({ config: CONFIG, seed: 42, init: 'minimind' });

// The probe sentence's attention, every layer and head, from a traced forward: Float32Array [L, H, T, T].
function attentionOf(model, ids) {
  const { num_hidden_layers: L } = model.info();
  const { trace } = model.forward(ids, { trace: { layers: 'all', stages: ['attn_weights'] } });
  const parts = Array.from({ length: L }, (_, layer) => Array.from(trace.get(layer, 'attn_weights').data));
  return Float32Array.from(parts.flat());
}

// Runs the whole schedule; returns {entries, losses: every step's loss, at: entries' count after each step() call}.
function run(model, options) {
  const entries = [];
  const trainer = model.trainer({ data: DATA, tokenizer, ...OPTIONS, ...options, onSnapshot: (e) => entries.push(e) });
  assert.equal(entries.length, 0, 'nothing before the first step() call');
  const losses = [];
  const at = [];
  while (!trainer.done) {
    losses.push(trainer.step().loss);
    at.push(entries.length);
  }
  const info = trainer.info();
  trainer.dispose();
  return { entries, losses, at, info };
}

test('onSnapshot gets an entry at batch 0, every snapshotEvery batches and after the last; tokens and trainLoss as counted', () => {
  const model = newModel();
  const initial = newModel(); // the same weights, untrained
  const { entries, losses, at, info } = run(model, { snapshotEvery: 4 });
  const batchesPerEpoch = Math.ceil(SAMPLES / OPTIONS.batchSize);
  const total = batchesPerEpoch * OPTIONS.epochs;
  assert.equal(info.totalBatches, total);
  const steps = [0];
  for (let s = 4; s < total; s += 4) steps.push(s);
  if (steps.at(-1) !== total) steps.push(total);
  assert.deepEqual(
    entries.map((e) => e.step),
    steps,
  );
  // The batch-0 entry comes with the first step() call, before its batch: the untrained weights' scores.
  at.forEach((count, k) => assert.equal(count, steps.filter((s) => s <= k + 1).length, `entries after step() call ${k + 1}`));
  const probes = timelineProbes(tokenizer);
  assert.deepEqual(entries[0].heads, headScores(scoreHeadRoles(initial, probes.roles)));
  assert.equal(entries[0].trainLoss, null);
  // tokens: each batch's rows (the last batch of an epoch has what is left) × maxSeqLen.
  const rows = [];
  for (let epoch = 0; epoch < OPTIONS.epochs; epoch += 1)
    for (let b = 0; b < batchesPerEpoch; b += 1) rows.push(Math.min(OPTIONS.batchSize, SAMPLES - b * OPTIONS.batchSize));
  for (const e of entries) {
    const done = rows.slice(0, e.step);
    assert.equal(e.tokens, done.reduce((a, r) => a + r, 0) * OPTIONS.maxSeqLen, `tokens at step ${e.step}`);
  }
  // trainLoss: the mean of the step losses since the entry before.
  for (let k = 1; k < entries.length; k += 1) {
    const since = losses.slice(entries[k - 1].step, entries[k].step);
    assert.equal(entries[k].trainLoss, since.reduce((a, l) => a + l, 0) / since.length, `trainLoss at step ${entries[k].step}`);
  }
  initial.dispose();
  model.dispose();
});

test("the last entry's scores equal scoreHeadRoles on the final weights, its attention the probe's traced forward", () => {
  const model = newModel();
  const probe = '小红把球给了小明，他很开心';
  const { entries } = run(model, { snapshotEvery: 100, probe });
  assert.deepEqual(
    entries.map((e) => e.step),
    [0, 10],
  );
  const last = entries.at(-1);
  const probes = timelineProbes(tokenizer); // made again, here
  const scores = scoreHeadRoles(model, probes.roles);
  const { num_hidden_layers: L, num_attention_heads: H } = model.info();
  assert.equal(Object.keys(last.heads).length, L * H);
  for (const kind of ['previousToken', 'induction', 'pronoun', 'sink'])
    for (let l = 0; l < L; l += 1)
      for (let h = 0; h < H; h += 1) assert.equal(last.heads[`L${l}H${h}`][kind], scores[kind][l][h], `${kind} L${l}H${h}`);
  const ids = encodeText(tokenizer, probe);
  assert.equal(last.T, ids.length);
  assert.ok(last.attention instanceof Uint16Array);
  assert.deepEqual(last.attention, halfFromFloats(attentionOf(model, ids)));
  assert.notDeepEqual(last.attention, entries[0].attention, 'training moved the attention');
  // The held-out loss, ICL score and composition: the same entry made again on the final weights.
  const again = timelineEntry(model, probes, { step: last.step, tokens: last.tokens, trainLoss: last.trainLoss });
  for (const key of ['loss', 'icl', 'composition', 'gaps']) assert.deepEqual(last[key], again[key], key);
  assert.ok(last.loss < entries[0].loss, `held-out loss ${entries[0].loss} -> ${last.loss}`);
  model.dispose();
});

test('the default probe is the lessons’ sentence and the default spacing about 100 entries a run', () => {
  const model = newModel();
  const entries = [];
  const trainer = model.trainer({ data: DATA, tokenizer, ...OPTIONS, epochs: 1, onSnapshot: (e) => entries.push(e) });
  trainer.step();
  trainer.step();
  // 5 batches: max(1, floor(5 / 100)) = 1, an entry after every batch.
  assert.deepEqual(
    entries.map((e) => e.step),
    [0, 1, 2],
  );
  assert.equal(entries[0].T, encodeText(tokenizer, LESSON_PROBE).length);
  trainer.dispose();
  model.dispose();
});

test("the API's entries are the page's: a TrainSession's over the same samples and options, bit for bit", () => {
  const samples = DATA.split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => [1, ...tokenizer.encode(JSON.parse(line).text), 2]);
  const options = { ...OPTIONS, epochs: 1, gradClip: 1.0 };
  const api = newModel();
  const entries = [];
  const trainer = api.trainer({ data: samples, tokenizer, ...options, snapshotEvery: 2, onSnapshot: (e) => entries.push(e) });
  while (!trainer.done) trainer.step();
  trainer.dispose();
  const page = newModel();
  const session = new TrainSession({ model: page, tokenizer, samples, options, snapshotEvery: 2 });
  const pageEntries = [session.snapshot().entry]; // the panel's batch-0 snapshot
  while (!session.done) {
    const { snapshot } = session.runSlice(1e9);
    if (snapshot) pageEntries.push(snapshot.entry);
  }
  session.dispose();
  assert.deepEqual(
    entries.map((e) => e.step),
    [0, 2, 4, 5],
  );
  assert.deepEqual(entries, pageEntries);
  api.dispose();
  page.dispose();
});

test('a restored trainer goes on with the same entries (trainLoss counts its own batches)', () => {
  const whole = newModel();
  const { entries: expected } = run(whole, { snapshotEvery: 4 });
  const first = newModel();
  const trainer = first.trainer({ data: DATA, tokenizer, ...OPTIONS });
  for (let k = 0; k < 6; k += 1) trainer.step();
  const state = trainer.state();
  const resumed = mm.loadModel({ config: first.configJson(), weights: first.safetensors({ dtype: 'F32' }) });
  const entries = [];
  const next = resumed.trainer({ data: DATA, tokenizer, ...OPTIONS, snapshotEvery: 4, onSnapshot: (e) => entries.push(e) });
  next.restore(state);
  const losses = [];
  while (!next.done) losses.push(next.step().loss);
  assert.deepEqual(
    entries.map((e) => e.step),
    [8, 10],
  );
  const [at8, at10] = [expected.find((e) => e.step === 8), expected.find((e) => e.step === 10)];
  const { trainLoss, ...rest } = entries[0];
  assert.deepEqual({ ...rest, trainLoss: at8.trainLoss }, at8);
  assert.equal(trainLoss, (losses[0] + losses[1]) / 2, 'the batches 7 and 8 this trainer ran');
  assert.deepEqual(entries[1], at10);
  for (const m of [trainer, next, whole, first, resumed]) m.dispose();
});

test('bad timeline options are refused by kind before training; a throwing onSnapshot stops step(); the model stays usable', () => {
  const model = newModel();
  const ids = [1, 300, 301, 302];
  const before = model.forward(ids).logits.data;
  const refused = (options, Type, kind) =>
    assert.throws(
      () => model.trainer({ data: DATA, tokenizer, ...OPTIONS, onSnapshot: () => {}, ...options }),
      (e) => e instanceof Type && e.kind === kind,
      kind,
    );
  refused({ onSnapshot: 'yes' }, TypeError, 'api.not_function');
  refused({ snapshotEvery: 0 }, RangeError, 'api.out_of_range');
  refused({ snapshotEvery: 1.5 }, TypeError, 'api.not_integer');
  refused({ probe: 42 }, TypeError, 'api.not_string');
  refused({ probe: '   ' }, Error, 'train.probe_empty');
  assert.throws(
    () => model.trainer({ data: [[1, 5, 6, 2]], onSnapshot: () => {} }),
    (e) => e instanceof TypeError && e.kind === 'api.snapshot_needs_tokenizer' && /tokenizer/.test(e.message),
  );
  // A model whose vocabulary cannot hold the probes' ids (lab-a: 128).
  const small = mm.createModel({ preset: 'lab-a' });
  assert.throws(
    () => small.trainer({ data: [[1, 5, 6, 2]], tokenizer, onSnapshot: () => {} }),
    (e) => e instanceof RangeError && e.kind === 'api.timeline_vocab' && e.values.vocab === 128,
  );
  small.dispose();
  assert.deepEqual(model.forward(ids).logits.data, before, 'the refusals left the model as it was');
  // What onSnapshot throws comes out of step(); training goes on after it.
  let calls = 0;
  const trainer = model.trainer({
    data: DATA,
    tokenizer,
    ...OPTIONS,
    snapshotEvery: 2,
    onSnapshot: () => {
      calls += 1;
      if (calls === 2) throw new Error('full disk');
    },
  });
  trainer.step(); // batch 0's entry, then batch 1
  assert.throws(() => trainer.step(), /full disk/);
  assert.equal(trainer.info().batchesDone, 2, 'the batch ran before its entry');
  trainer.step();
  assert.equal(calls, 2, 'no entry after batch 3');
  trainer.step();
  assert.equal(calls, 3, 'the entry after batch 4');
  trainer.dispose();
  assert.notDeepEqual(model.forward(ids).logits.data, before, 'trained by its four batches');
  model.dispose();
});
