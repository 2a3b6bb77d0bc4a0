// Nothing lost: a training run saved mid-way (js/train_run_state.mjs) and
// resumed in a fresh session, or through the training worker's protocol
// (web/train_host.mjs, as the page runs it), goes on to the very losses and
// weights of the run that never stopped, bit for bit. And MiniMind's own
// resume checkpoint (js/resume_pth.mjs) both ways: a run written as
// *_resume.pth holds its exact AdamW state in MiniMind's parameter order
// (checked by PyTorch itself when /usr/bin/python3 has torch), and the
// checkpoint PyTorch wrote (tests/resume_reference.py) continues in the
// trainer as MiniMind's train_pretrain.py --from_resume 1 continued it.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

import { makeCorpusLines } from '../../js/corpus.mjs';
import { loadMiniMind } from '../../js/minimind.mjs';
import { halfBits, minimindParameterOrder, safetensorsTensors, trainerStateFromCheckpoint, writeResumePth } from '../../js/resume_pth.mjs';
import { tokenizeTexts, trainingSamples } from '../../js/train_data.mjs';
import { SnapshotStore, StepHistory } from '../../js/train_history.mjs';
import {
  captureRun,
  historyState,
  loadRunModel,
  packSamples,
  restoreHistory,
  restoreSnapshots,
  resumeSession,
  runSummary,
  snapshotSummaries,
  unpackSamples,
} from '../../js/train_run_state.mjs';
import { DEFAULT_CONFIG, LESSON_PROBE, TrainSession } from '../../js/train_session.mjs';
import { createTrainHost } from '../../web/train_host.mjs';
import { FIXTURES, readSafetensors, recipeTrainerOptions } from './helpers.mjs';

const ROOT = new URL('../../', import.meta.url);
const TOKENIZER = readFileSync(new URL('models/minimind-tokenizer/tokenizer.json', ROOT), 'utf8');
const mm = await loadMiniMind();

// Two epochs of ~20 batches; accumulation 2, so a save after an odd batch holds a pending gradient.
const OPTIONS = { batchSize: 8, maxSeqLen: 32, learningRate: 5e-3, accumulationSteps: 2, gradClip: 1.0, epochs: 2, seed: 3 };
const DATA = { source: 'corpus', lines: 300, seed: 1 };
const SETTINGS = {
  model: { kind: 'new', config: DEFAULT_CONFIG, seed: 42 },
  data: DATA,
  pack: true,
  probe: LESSON_PROBE,
  snapshotEvery: 13,
  maxSteps: null,
};

async function corpusSamples(tokenizer) {
  const ids = await tokenizeTexts(makeCorpusLines(DATA.lines, DATA.seed), (text) => tokenizer.encode(text));
  return trainingSamples(ids, { maxSeqLen: OPTIONS.maxSeqLen });
}

// Runs a session as the worker does (slices, which stop at snapshots) until `until` batches or the end.
function runUntil(session, history, snapshots, until = Infinity) {
  const steps = [];
  while (!session.done && session.info().batchesDone < until) {
    const slice = session.runSlice(1e9);
    history?.push(slice.steps);
    if (slice.snapshot) snapshots?.add(slice.snapshot);
    steps.push(...slice.steps);
  }
  return steps;
}

const numbers = (steps) => steps.map((s) => [s.step, s.loss, s.lr, s.gradNorm]);

test('samples pack into one typed array and back', () => {
  const samples = [
    [1, 5, 2],
    [1, 70000, 9, 2],
    [1, 2],
  ];
  const packed = packSamples(samples);
  assert.ok(packed.ids instanceof Int32Array, 'an id past 65535: 32-bit');
  assert.deepEqual(Array.from(packed.offsets), [0, 3, 7, 9]);
  assert.deepEqual(unpackSamples(packed), samples);
  assert.ok(packSamples([[1, 6399, 2]]).ids instanceof Uint16Array);
});

test('a run saved after 13 batches and resumed in a new session ends bit-identical to the run that never stopped', async () => {
  const tokenizer = mm.loadTokenizer(TOKENIZER);
  const samples = await corpusSamples(tokenizer);
  const fresh = () => mm.createModel({ config: DEFAULT_CONFIG, seed: 42, init: 'minimind' });
  const sessionOf = (model) => new TrainSession({ model, tokenizer, samples, options: OPTIONS, probe: LESSON_PROBE, snapshotEvery: 13 });

  const wholeModel = fresh();
  const whole = sessionOf(wholeModel);
  const reference = runUntil(whole, null, null);
  const N = whole.info().totalBatches;
  assert.equal(reference.length, N);
  assert.ok(N > 30, `two epochs of batches, got ${N}`);
  const referenceWeights = wholeModel.safetensors({ dtype: 'F32' }).slice();

  // Saved after batch 13 (odd: a gradient is pending), through what IndexedDB does to it (structured clone).
  const firstModel = fresh();
  const first = sessionOf(firstModel);
  const history = new StepHistory();
  const snapshots = new SnapshotStore(200);
  snapshots.add(first.snapshot());
  const before = runUntil(first, history, snapshots, 13);
  assert.equal(before.length, 13, 'the slice stopped at the snapshot of batch 13');
  const run = captureRun({ session: first, samples, settings: { ...SETTINGS, options: OPTIONS }, stats: { texts: DATA.lines } });
  run.history = historyState(history);
  run.snapshots = snapshotSummaries(snapshots);
  assert.equal(run.trainer.epoch * Math.ceil(samples.length / 8) + run.trainer.batch, 13);
  assert.ok(
    run.trainer.parameters.every((p) => p.grad instanceof Float32Array),
    'the pending gradient is saved',
  );
  assert.equal(runSummary(run).step, 13);
  assert.equal(runSummary(run).totalBatches, N);
  const saved = structuredClone(run);
  first.dispose();
  firstModel.dispose();

  const model = loadRunModel(mm, saved);
  const { session } = resumeSession({ model, tokenizer, run: saved });
  assert.equal(session.info().batchesDone, 13);
  assert.equal(session.info().positions, history.positions, 'the positions counted so far go on');
  assert.equal(session.lastSnapshotStep, 13);
  const resumedHistory = new StepHistory();
  restoreHistory(resumedHistory, saved.history);
  assert.deepEqual(
    Array.from(resumedHistory.loss),
    reference.slice(0, 13).map((s) => s.loss),
  );
  assert.equal(resumedHistory.positions, history.positions);
  const resumedSnapshots = new SnapshotStore(200);
  restoreSnapshots(resumedSnapshots, saved.snapshots);
  assert.deepEqual(resumedSnapshots.steps(), [0, 13]);
  assert.deepEqual(resumedSnapshots.latest().attention, snapshots.latest().attention);

  const after = runUntil(session, resumedHistory, resumedSnapshots);
  assert.deepEqual(numbers([...before, ...after]), numbers(reference), 'every batch: loss, learning rate, gradient norm');
  assert.deepEqual(model.safetensors({ dtype: 'F32' }), referenceWeights, 'the final weights');
  assert.equal(session.info().positions, whole.info().positions);
  // Snapshots every 13 batches and at the end, as the run that never stopped took them.
  const snapshotSteps = [0];
  for (let k = 13; k < N; k += 13) snapshotSteps.push(k);
  assert.deepEqual(resumedSnapshots.steps(), [...snapshotSteps, N]);

  // The test can fail: without AdamW's moments the same resume goes elsewhere.
  const blank = structuredClone(run);
  for (const p of blank.trainer.parameters) {
    p.expAvg.fill(0);
    p.expAvgSq.fill(0);
  }
  const blankModel = loadRunModel(mm, blank);
  const { session: lost } = resumeSession({ model: blankModel, tokenizer, run: blank, roles: false });
  const lostSteps = runUntil(lost, null, null, 15);
  assert.notEqual(lostSteps[1].loss, reference[14].loss);
  for (const s of [whole, session, lost]) s.dispose();
  for (const m of [wholeModel, model, blankModel]) m.dispose();
  tokenizer.dispose();
});

// A host whose answers are collected; next(predicate) waits for the next answer that passes.
function host() {
  const answers = [];
  let waiting = [];
  const post = (message) => {
    answers.push(message);
    waiting = waiting.filter(({ test: passes, resolve }) => (passes(message) ? (resolve(message), false) : true));
  };
  const h = createTrainHost({
    post,
    loadRuntime: () => loadMiniMind(),
    fetchText: (path) => readFile(new URL(path, ROOT), 'utf8'),
    sliceMs: 5,
  });
  const next = (passes) => new Promise((resolve) => waiting.push({ test: passes, resolve }));
  const losses = () => answers.filter((a) => a.type === 'steps').flatMap((a) => a.steps.map((s) => [s.step, s.loss, s.lr]));
  return { handle: h.handle, answers, next, losses };
}

// The paused worker `a` goes on to the end (the reference: its losses and its
// exported weights); a second worker (a reloaded page) then resumes `run`
// (a capture taken while paused) to the end. Returns that worker, its
// ready message, and the reference weights.
async function finishThenResume(a, run) {
  const done = a.next((m) => m.type === 'state' && m.state === 'done');
  await a.handle({ type: 'resume' });
  await done;
  const exported = a.next((m) => m.type === 'exported');
  await a.handle({ type: 'export', id: 3, dtype: 'F32' });
  const reference = await exported;
  const b = host();
  const ready = b.next((m) => m.type === 'ready');
  const bDone = b.next((m) => m.type === 'state' && m.state === 'done');
  await b.handle({ type: 'prepare', id: 1, resume: structuredClone(run), start: true });
  const readyMessage = await ready;
  await bDone;
  return { b, ready: readyMessage, reference };
}

/** The weights worker `b` exports now equal `reference`'s. */
async function assertSameWeights(b, reference) {
  const again = b.next((m) => m.type === 'exported');
  await b.handle({ type: 'export', id: 2, dtype: 'F32' });
  assert.deepEqual(new Uint8Array((await again).weights), new Uint8Array(reference.weights));
}

const prepare = (id, extra) => ({ type: 'prepare', id, ...SETTINGS, snapshotEvery: 100, options: OPTIONS, start: true, ...extra });

test("through the worker's protocol: pause, capture, resume in a new worker: the step and the losses go on", async () => {
  const a = host();
  const paused = a.next((m) => m.type === 'state' && m.state === 'paused');
  const tenth = a.next((m) => m.type === 'steps' && m.trainer.batchesDone >= 10);
  await a.handle(prepare(1));
  await tenth;
  await a.handle({ type: 'pause' });
  const { step: savedStep } = await paused;
  assert.ok(savedStep >= 10);
  const captured = a.next((m) => m.type === 'captured');
  await a.handle({ type: 'capture', id: 2 });
  const { run } = await captured;
  assert.equal(run.settings.data.source, 'corpus');
  assert.equal(run.settings.options.epochs, 2);
  assert.equal(run.trainer.epoch * Math.ceil(run.data.count / OPTIONS.batchSize) + run.trainer.batch, savedStep);

  // The first worker goes on to the end (the reference); a second one resumes the capture.
  const { b, ready, reference } = await finishThenResume(a, run);
  assert.equal(ready.resumed.step, savedStep, 'the step continues from the saved one');
  assert.equal(ready.trainer.batchesDone, savedStep);
  assert.equal(b.losses()[0][0], savedStep + 1);
  assert.deepEqual(b.losses(), a.losses().slice(savedStep));
  await assertSameWeights(b, reference);

  // A resumed run captures again (its samples as saved).
  const recaptured = b.next((m) => m.type === 'captured');
  await b.handle({ type: 'capture', id: 3 });
  const second = (await recaptured).run;
  assert.deepEqual(second.data.ids, run.data.ids);
  assert.equal(second.trainer.epoch, 2, 'done: past the last epoch');

  // Prepared without starting (the panel opening a saved run after a reload): an unfinished run
  // waits, paused at its batch; a finished one is done. Neither trains a batch.
  for (const [saved, state, step] of [
    [run, 'paused', savedStep],
    [second, 'done', ready.trainer.totalBatches],
  ]) {
    const c = host();
    const settled = c.next((m) => m.type === 'state' && m.state !== 'preparing');
    await c.handle({ type: 'prepare', id: 1, resume: structuredClone(saved), start: false });
    assert.deepEqual(await settled, { type: 'state', state, step });
    assert.equal(c.losses().length, 0);
  }
});

test('a stream run (fresh corpus lines for a number of batches) resumes in a new worker bit for bit', async () => {
  const data = { source: 'stream', seed: 1, mix: null, batches: 24 };
  const options = { ...OPTIONS, epochs: null }; // a stream's: one epoch, in stream order
  const a = host();
  const ready = a.next((m) => m.type === 'ready');
  const paused = a.next((m) => m.type === 'state' && m.state === 'paused');
  const tenth = a.next((m) => m.type === 'steps' && m.trainer.batchesDone >= 10);
  await a.handle(prepare(1, { data, options }));
  const { trainer, data: stats } = await ready;
  assert.equal(trainer.totalBatches, data.batches);
  assert.equal(stats.samples, data.batches * OPTIONS.batchSize);
  assert.ok(stats.texts > stats.samples, `packed lines: ${stats.texts}`);
  assert.ok(a.answers.some((m) => m.type === 'progress' && m.phase === 'tokenize' && m.done === stats.samples));
  await tenth;
  await a.handle({ type: 'pause' });
  const { step: savedStep } = await paused;
  const captured = a.next((m) => m.type === 'captured');
  await a.handle({ type: 'capture', id: 2 });
  const { run } = await captured;
  assert.deepEqual(run.settings.data, data, 'the data as asked');
  assert.deepEqual([run.settings.options.epochs, run.settings.options.order], [1, 'file']);
  const { b, reference } = await finishThenResume(a, run);
  assert.deepEqual(b.losses(), a.losses().slice(savedStep));
  assert.equal(a.losses().length, data.batches);
  await assertSameWeights(b, reference);
});

test('float16 rounding as torch .half(): ties to even, overflow to infinity', () => {
  const cases = [
    [0, 0x0000],
    [-0, 0x8000],
    [1, 0x3c00],
    [65504, 0x7bff],
    [65519.99, 0x7bff],
    [65520, 0x7c00],
    [-1e6, 0xfc00],
    [2 ** -24, 0x0001],
    [2 ** -25, 0x0000],
    [3 * 2 ** -25, 0x0002],
    [2 ** -14, 0x0400],
    [1 + 2 ** -11, 0x3c00],
    [1 + 3 * 2 ** -11, 0x3c02],
    [Infinity, 0x7c00],
  ];
  for (const [value, bits] of cases) assert.equal(halfBits(value), bits, `${value}`);
  assert.equal(halfBits(NaN) & 0x7c00, 0x7c00);
  assert.notEqual(halfBits(NaN) & 0x3ff, 0);
});

test("MiniMind's parameter order: per layer attention, norms, then gate, down, up", () => {
  const keys = JSON.parse(readFileSync(new URL('train/gen3_r1_untied/state_dict_keys.json', FIXTURES), 'utf8'));
  const shuffled = [...keys.parameters].reverse();
  assert.deepEqual(minimindParameterOrder(shuffled), keys.parameters);
  const tied = JSON.parse(readFileSync(new URL('train/gen2_r4_tied/state_dict_keys.json', FIXTURES), 'utf8'));
  assert.deepEqual(minimindParameterOrder([...tied.parameters].sort()), tied.parameters);
  assert.throws(() => minimindParameterOrder(['model.layers.0.mlp.gate.weight']), /not a parameter of a dense MiniMind/);
});

// A short run of the trainer, to write out.
function shortRun() {
  const c = JSON.parse(readFileSync(new URL('train/gen3_r2_tied/config.json', FIXTURES), 'utf8'));
  const data = JSON.parse(readFileSync(new URL('train/gen3_r2_tied/data.json', FIXTURES), 'utf8'));
  const model = mm.loadModel({ config: c, weights: readFileSync(new URL('train/gen3_r2_tied/model.safetensors', FIXTURES)) });
  const options = {
    data: data.sequences,
    maxSeqLen: 12,
    batchSize: 2,
    accumulationSteps: 1,
    epochs: 2,
    learningRate: 5e-3,
    gradClip: 0.5,
    order: 'file',
  };
  const trainer = model.trainer(options);
  let last = null;
  for (let i = 0; i < 7; i += 1) last = trainer.step();
  return { config: c, data, model, trainer, options, lr: last.lr };
}

test('a run written as *_resume.pth: weights, AdamW state by MiniMind index, epoch and step read back exactly', () => {
  const { config, model, trainer, lr } = shortRun();
  const state = trainer.state();
  const weights = model.safetensors({ dtype: 'F32' }).slice();
  const order = minimindParameterOrder(state.parameters.map((p) => p.name));
  for (const dtype of ['F16', 'F32']) {
    const bytes = writeResumePth({ weights, trainer: state, lr, dtype, archive: 'pretrain_32_resume' });
    const read = mm.trainingState(bytes, { name: 'pretrain_32_resume.pth' });
    assert.equal(read.epoch, 0);
    assert.equal(read.step, 7);
    assert.equal(read.worldSize, 1);
    assert.equal(read.optimizerProblem, null);
    assert.equal(read.optimizer.groups.length, 1);
    assert.deepEqual(
      read.optimizer.groups[0].params,
      order.map((_, i) => i),
    );
    assert.equal(read.optimizer.groups[0].lr, lr);
    assert.deepEqual(read.optimizer.groups[0].betas, [0.9, 0.999]);
    for (const p of state.parameters) {
      const entry = read.optimizer.state[order.indexOf(p.name)];
      assert.equal(entry.step, 7);
      assert.deepEqual(entry.shape, p.shape, p.name);
      assert.deepEqual(entry.expAvg, p.expAvg, p.name);
      assert.deepEqual(entry.expAvgSq, p.expAvgSq, p.name);
    }
    // The weights: exact in F32; in F16 what the core's own float16 export rounds them to.
    const loaded = mm.loadModel({ config, weights: bytes, name: 'pretrain_32_resume.pth' });
    assert.match(loaded.info().file, /MiniMind's resume checkpoint/);
    const expected = safetensorsTensors(model.safetensors({ dtype }).slice());
    const got = safetensorsTensors(loaded.safetensors({ dtype }).slice());
    for (const [name, t] of expected) assert.deepEqual(got.get(name).data, t.data, `${dtype} ${name}`);
    loaded.dispose();
  }
  trainer.dispose();
  model.dispose();
});

const python = spawnSync('/usr/bin/python3', ['-c', 'import torch'], { encoding: 'utf8' });
const noTorch = python.status === 0 ? false : 'needs /usr/bin/python3 with torch (python3-torch)';

test("PyTorch loads the written checkpoint as train_pretrain.py does, AdamW's state bit for bit", { skip: noTorch }, () => {
  const { config, model, trainer, lr } = shortRun();
  const state = trainer.state();
  const dir = mkdtempSync(join(tmpdir(), 'resume-'));
  try {
    const file = join(dir, 'pretrain_32_resume.pth');
    writeFileSync(
      file,
      writeResumePth({ weights: model.safetensors({ dtype: 'F32' }).slice(), trainer: state, lr, archive: 'pretrain_32_resume' }),
    );
    const parameters = Object.fromEntries(
      state.parameters.map((p) => [p.name, { exp_avg: Array.from(p.expAvg), exp_avg_sq: Array.from(p.expAvgSq) }]),
    );
    const expected = { config, epoch: state.epoch, step: state.batch, optimizer_steps: state.optimizerSteps, parameters };
    writeFileSync(join(dir, 'expected.json'), JSON.stringify(expected));
    const run = spawnSync(
      '/usr/bin/python3',
      [new URL('../resume_reference.py', import.meta.url).pathname, 'check', file, join(dir, 'expected.json')],
      {
        encoding: 'utf8',
      },
    );
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.stdout.trim(), 'ok');
  } finally {
    rmSync(dir, { recursive: true, force: true });
    trainer.dispose();
    model.dispose();
  }
});

test("MiniMind's checkpoint (written by PyTorch) continues in the trainer as train_pretrain.py --from_resume 1 continued it", () => {
  const dir = new URL('resume/', FIXTURES);
  const expected = readSafetensors(readFileSync(new URL('expected.safetensors', dir)));
  assert.equal(expected.metadata.resume_format_version, '1', 're-run /usr/bin/python3 tests/resume_reference.py write');
  const record = JSON.parse(readFileSync(new URL('resume.json', dir), 'utf8'));
  const bytes = new Uint8Array(readFileSync(new URL(record.checkpoint, dir)));
  const config = JSON.parse(readFileSync(new URL(`train/${record.case}/config.json`, FIXTURES), 'utf8'));
  const data = JSON.parse(readFileSync(new URL(`train/${record.case}/data.json`, FIXTURES), 'utf8'));
  const r = record.recipe;

  const model = mm.loadModel({ config, weights: bytes, name: record.checkpoint });
  const trainer = model.trainer(recipeTrainerOptions(r, data));
  const { batchesPerEpoch } = trainer.info();
  const checkpoint = mm.trainingState(bytes, { name: record.checkpoint });
  const parameterNames = trainer.parameters().map((p) => p.name);
  const { state, positionKept, notes } = trainerStateFromCheckpoint({ checkpoint, parameterNames, epochs: r.epochs, batchesPerEpoch });
  assert.equal(positionKept, true);
  assert.deepEqual(notes, []);
  assert.equal(state.epoch * batchesPerEpoch + state.batch, record.resumed_after);
  for (const p of state.parameters) {
    assert.deepEqual(p.expAvg, expected.tensors[`exp_avg.${p.name}`].data, p.name);
    assert.deepEqual(p.expAvgSq, expected.tensors[`exp_avg_sq.${p.name}`].data, p.name);
  }
  trainer.restore(state);
  assert.equal(trainer.info().batchesDone, record.resumed_after);
  for (const b of record.batches) {
    const s = trainer.step();
    const where = `epoch ${b.epoch} batch ${b.batch}`;
    assert.equal(s.epoch, b.epoch, where);
    assert.equal(s.batch, b.batch, where);
    assert.equal(s.optimizerStep, b.optimizer_step, where);
    assert.ok(Math.abs(s.lr - b.lr) <= 1e-12 * b.lr, `${where}: lr ${s.lr} vs ${b.lr}`);
    assert.ok(Math.abs(s.loss - b.loss) <= 1e-5 * b.loss, `${where}: loss ${s.loss} vs ${b.loss}`);
  }
  assert.equal(trainer.done, true);
  // The final weights, as test_train.cpp compares the recipe runs (float32 sums in another order).
  const final = safetensorsTensors(model.safetensors({ dtype: 'F32' }).slice());
  for (const name of parameterNames) {
    const ours = new Float32Array(final.get(name).data.slice().buffer);
    const theirs = expected.tensors[`final.${name}`].data;
    const scale = theirs.reduce((m, x) => Math.max(m, Math.abs(x)), 0);
    for (let i = 0; i < ours.length; i += 1)
      assert.ok(Math.abs(ours[i] - theirs[i]) <= 2e-3 * scale, `${name}[${i}]: ${ours[i]} vs ${theirs[i]}`);
  }

  // A checkpoint whose position is outside the tab's schedule keeps its optimizer and starts the schedule.
  const elsewhere = trainerStateFromCheckpoint({
    checkpoint: { ...checkpoint, epoch: 5 },
    parameterNames,
    epochs: r.epochs,
    batchesPerEpoch,
  });
  assert.equal(elsewhere.positionKept, false);
  assert.deepEqual(elsewhere.notes, ['position']);
  assert.equal(elsewhere.state.batch, 0);
  assert.throws(
    () =>
      trainerStateFromCheckpoint({ checkpoint: { optimizer: null, optimizerProblem: 'x' }, parameterNames, epochs: 2, batchesPerEpoch }),
    /x/,
  );
  trainer.dispose();
  model.dispose();
});
