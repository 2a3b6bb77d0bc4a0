// A run's timeline saved with the run (js/train_run_state.mjs timelineState,
// restoreTimeline): a run saved mid-way, through what IndexedDB does to it
// (structured clone), and resumed in a new session as the training worker
// resumes it (a first snapshot that redraws the saved moment) ends with the
// very entries of the run that never stopped, bit for bit; and the saved
// timeline of a 2M-token run stays within TIMELINE_BUDGET, at the default
// spacing and at a snapshot every batch, keeping every entry's numbers.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

import { makeCorpusLines } from '../../js/corpus.mjs';
import { loadMiniMind } from '../../js/minimind.mjs';
import { defaultSnapshotEvery, entryJson, timelineEntry, timelineProbes } from '../../js/timeline.mjs';
import { TimelineStore } from '../../js/timeline_store.mjs';
import { tokenizeTexts, trainingSamples } from '../../js/train_data.mjs';
import { TRAIN_RECIPES } from '../../js/train_recipes.mjs';
import {
  TIMELINE_BUDGET,
  captureRun,
  loadRunModel,
  restoreTimeline,
  resumeSession,
  stateBytes,
  timelineState,
} from '../../js/train_run_state.mjs';
import { DEFAULT_CONFIG, LESSON_PROBE, TrainSession } from '../../js/train_session.mjs';

const TOKENIZER = readFileSync(new URL('../../models/minimind-tokenizer/tokenizer.json', import.meta.url), 'utf8');
const mm = await loadMiniMind();
const tokenizer = mm.loadTokenizer(TOKENIZER);

const OPTIONS = { batchSize: 8, maxSeqLen: 32, learningRate: 5e-3, accumulationSteps: 1, gradClip: 1.0, epochs: 1, seed: 3 };
const EVERY = 5;
const DATA = { source: 'corpus', lines: 200, seed: 1 };
const SETTINGS = {
  model: { kind: 'new', config: DEFAULT_CONFIG, seed: 42 },
  data: DATA,
  pack: true,
  probe: LESSON_PROBE,
  snapshotEvery: EVERY,
  maxSteps: null,
};

const samples = trainingSamples(await tokenizeTexts(makeCorpusLines(DATA.lines, DATA.seed), (text) => tokenizer.encode(text)), {
  maxSeqLen: OPTIONS.maxSeqLen,
});
const sessionOf = (model) => new TrainSession({ model, tokenizer, samples, options: OPTIONS, snapshotEvery: EVERY });
const fresh = () => mm.createModel({ config: DEFAULT_CONFIG, seed: 42, init: 'minimind' });

// Runs a session a batch a slice (as the worker does when a batch takes its whole slice), entries into `timeline`,
// until `until` batches or the end.
function runUntil(session, timeline, until = Infinity) {
  while (!session.done && session.info().batchesDone < until) {
    const { snapshot } = session.runSlice(0);
    if (snapshot?.entry) timeline.add(snapshot.entry);
  }
}

// Every entry as JSON text, attention included: equal texts are equal entries, bit for bit (numbers as the shortest round trip).
const asJson = (entries) => JSON.stringify(entries.map((e) => entryJson(e)));

test('a run saved between two snapshots and resumed ends with the timeline of the run that never stopped, bit for bit', () => {
  const straightModel = fresh();
  const straight = sessionOf(straightModel);
  const expected = new TimelineStore();
  expected.add(straight.snapshot().entry);
  runUntil(straight, expected);
  const N = straight.info().totalBatches;
  assert.ok(N > 3 * EVERY, `enough batches for several snapshots, got ${N}`);
  // Batch 0, every EVERY batches, and the last.
  const steps = [...new Set([...Array.from({ length: Math.floor(N / EVERY) + 1 }, (_, k) => k * EVERY), N])];
  assert.deepEqual(
    expected.entries().map((e) => e.step),
    steps,
  );

  const savedAt = 2 * EVERY + 2; // two batches past a snapshot: their losses count towards the next entry
  const firstModel = fresh();
  const first = sessionOf(firstModel);
  const timeline = new TimelineStore();
  timeline.add(first.snapshot().entry);
  runUntil(first, timeline, savedAt);
  assert.equal(first.info().batchesDone, savedAt);
  const run = captureRun({ session: first, samples, settings: { ...SETTINGS, options: OPTIONS }, stats: { texts: DATA.lines } });
  run.timeline = timelineState(timeline);
  const saved = structuredClone(run);
  first.dispose();
  firstModel.dispose();
  assert.ok(
    saved.timeline.every((e) => e.attention instanceof Uint16Array),
    'a short run keeps every attention',
  );

  const model = loadRunModel(mm, saved);
  const { session } = resumeSession({ model, tokenizer, run: saved });
  const resumed = new TimelineStore();
  restoreTimeline(resumed, saved.timeline);
  assert.equal(resumed.length, 3);
  const redraw = session.snapshot(); // what the worker shows at once, where the run was saved
  assert.equal(redraw.step, savedAt);
  assert.equal(redraw.entry, null, 'the redraw is no entry of the timeline');
  runUntil(session, resumed);
  assert.equal(asJson(resumed.entries()), asJson(expected.entries()));
  // The entry after the save averages the batches before it too (a loss of those batches alone would differ).
  const next = resumed.entries().find((e) => e.step === 3 * EVERY);
  assert.equal(next.trainLoss, expected.entries().find((e) => e.step === 3 * EVERY).trainLoss);

  for (const s of [straight, session]) s.dispose();
  straightModel.dispose();
  model.dispose();
});

test('a run saved before the timeline existed resumes with an empty one', () => {
  const store = new TimelineStore();
  store.add({ step: 3, tokens: 1, attention: null });
  restoreTimeline(store, undefined);
  assert.equal(store.length, 0);
});

// A 2M-token run's timeline: the induction recipe (3906 batches), its model, and the longest probe the panel takes (64 tokens).
function inductionEntry() {
  const recipe = TRAIN_RECIPES.induction;
  const model = mm.createModel({ config: recipe.config, seed: recipe.modelSeed, init: 'minimind' });
  const { num_hidden_layers: L, num_attention_heads: H } = model.info();
  const T = 64;
  const ids = [1, ...Array.from({ length: T - 1 }, (_, i) => 100 + ((i * 37) % 3000))];
  const { trace } = model.forward(ids, { trace: { layers: 'all', stages: ['attn_weights'] } });
  const attention = new Float32Array(L * H * T * T);
  for (let layer = 0; layer < L; layer += 1) attention.set(trace.get(layer, 'attn_weights').data, layer * H * T * T);
  const entry = timelineEntry(model, timelineProbes(tokenizer), { step: 0, tokens: 0, trainLoss: 2.5 }, { attention, T });
  model.dispose();
  return { entry, L, H, T, batches: recipe.batches };
}

// Entries at every `every` batches of a run of `batches` (and at its last), each a copy of `entry` at its step.
function timelineOf(entry, batches, every) {
  const store = new TimelineStore();
  for (let step = 0; ; step += every) {
    const at = Math.min(step, batches);
    store.add({ ...entry, step: at, tokens: at * 512 });
    if (at === batches) break;
  }
  return store;
}

test("a 2M-token run's saved timeline stays within its budget: whole at the default spacing, evenly thinned at every batch", () => {
  const { entry, L, H, T, batches } = inductionEntry();
  assert.equal(entry.attention.byteLength, L * H * T * T * 2, 'half floats: 2 bytes a weight');

  const every = defaultSnapshotEvery(batches);
  assert.equal(every, Math.floor(batches / 100));
  const usual = timelineOf(entry, batches, every);
  const usualState = timelineState(usual);
  const usualBytes = stateBytes(usualState);
  assert.ok(usualBytes <= TIMELINE_BUDGET, `${usualBytes} bytes at every ${every}`);
  assert.ok(
    usualState.every((e) => e.attention !== null),
    'at the default spacing every entry keeps its attention',
  );
  assert.equal(usualState.length, Math.ceil(batches / every) + 1);

  const dense = timelineOf(entry, batches, 1);
  assert.equal(dense.length, batches + 1);
  const whole = dense.length * entry.attention.byteLength;
  assert.ok(whole > TIMELINE_BUDGET, `every attention kept would take ${whole} bytes, more than the budget`);
  const state = timelineState(dense);
  const bytes = stateBytes(state);
  assert.ok(bytes <= TIMELINE_BUDGET, `${bytes} bytes saved at a snapshot every batch`);
  // Every entry's numbers are kept.
  assert.equal(state.length, dense.length);
  state.forEach((e, k) => assert.deepEqual(entryJson(e, { attention: false }), entryJson(dense.get(k), { attention: false })));
  // The attention of the first, the last and evenly spaced ones in between; the budget is used, not wasted.
  assert.ok(dense.bytes <= TIMELINE_BUDGET, `${dense.bytes} bytes held in memory`);
  const kept = state.flatMap((e, k) => (e.attention ? [k] : []));
  assert.equal(kept[0], 0);
  assert.equal(kept.at(-1), batches);
  const gaps = new Set(kept.slice(1, -1).map((k, i) => k - kept[i]));
  assert.equal(gaps.size, 1, `one spacing between kept attentions, got ${[...gaps]}`);
  const [gap] = gaps;
  const numbers = stateBytes(state.map((e) => ({ ...e, attention: null })));
  const perEntry = entry.attention.byteLength;
  // The store halves its attention as it grows past the budget (js/timeline_store.mjs): half the spacing would not fit.
  assert.ok(numbers + (Math.ceil((batches + 1) / (gap / 2)) + 1) * perEntry > TIMELINE_BUDGET, 'half the spacing would not fit');
  for (const k of kept) assert.deepEqual(state[k].attention, dense.get(k).attention);
  assert.notEqual(state[0].attention, dense.get(0).attention, 'a copy: the saved arrays are transferable');
});

test('an empty timeline saves as none; a budget below the numbers keeps no attention', () => {
  assert.deepEqual(timelineState(new TimelineStore()), []);
  const store = new TimelineStore();
  store.add({ step: 0, tokens: 0, loss: 1, attention: new Uint16Array(8) });
  store.add({ step: 5, tokens: 10, loss: 0.5, attention: new Uint16Array(8) });
  assert.deepEqual(
    timelineState(store, 10).map((e) => e.attention),
    [null, null],
  );
  const roomy = timelineState(store, 10000);
  assert.deepEqual(
    roomy.map((e) => e.attention.length),
    [8, 8],
  );
});
