// The training timeline's pieces (js/timeline.mjs, js/half_float.mjs,
// js/timeline_store.mjs): half floats against a slow reference written here
// (every finite half round-trips; float32 values round to nearest, ties to
// even), the store's order and replacement, an entry's loss and ICL score
// against a log-softmax of the forward's logits (written here), its
// composition against model.keyComposition (shares and the embed/ffn parts
// make up the gap; null below COMPOSITION_MIN_GAP), and determinism: two
// sessions of the same seed record the same entries, bit for bit.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { floatsFromHalf, fromHalf, halfFromFloats, toHalf } from '../../js/half_float.mjs';
import { loadMiniMind } from '../../js/minimind.mjs';
import {
  COMPOSITION_MIN_GAP,
  ICL_EARLY,
  ICL_LENGTH,
  ICL_SEQUENCES,
  defaultSnapshotEvery,
  entryJson,
  timelineEntry,
  timelineProbes,
} from '../../js/timeline.mjs';
import { TimelineStore } from '../../js/timeline_store.mjs';
import { TRAIN_RECIPES, recipeSamples } from '../../js/train_recipes.mjs';
import { TrainSession } from '../../js/train_session.mjs';

const DEMO = fileURLToPath(new URL('../../models/minimind-demo/', import.meta.url));
const mm = await loadMiniMind();
const tokenizer = mm.loadTokenizer(readFileSync(join(DEMO, 'tokenizer.json'), 'utf8'));

// ---------------------------------------------------------------- half floats

const f32 = (x) => Math.fround(x);

// Every finite half's value, from its fields (sign, 5 exponent bits, 10 mantissa bits), independently of fromHalf.
function halfValue(bits) {
  const sign = bits >> 15 ? -1 : 1;
  const e = (bits >> 10) & 31;
  const m = bits & 1023;
  return sign * (e === 0 ? m / 1024 : 1 + m / 1024) * 2 ** ((e === 0 ? 1 : e) - 15);
}

// The non-negative finite halves in increasing order: bits 0 .. 0x7bff.
const POSITIVE = Array.from({ length: 0x7c00 }, (_, bits) => halfValue(bits));
const MAX = POSITIVE.at(-1); // 65504

// The slow reference: the nearest half by binary search over every half's value; a tie goes to the even bits;
// past MAX, anything at least halfway to the next power (2^16) rounds to infinity.
function referenceHalf(x) {
  if (Number.isNaN(x)) return null;
  const sign = x < 0 || Object.is(x, -0) ? 0x8000 : 0;
  const a = Math.abs(x);
  if (a >= MAX + (2 ** 16 - MAX) / 2) return sign | 0x7c00;
  let lo = 0;
  let hi = POSITIVE.length - 1;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (POSITIVE[mid] <= a) lo = mid;
    else hi = mid;
  }
  if (a >= MAX) return sign | (a - MAX < 2 ** 16 - a ? 0x7bff : 0x7c00);
  const below = a - POSITIVE[lo];
  const above = POSITIVE[hi] - a;
  const bits = below < above ? lo : above < below ? hi : lo % 2 === 0 ? lo : hi;
  return sign | bits;
}

test('every finite half float round-trips, with the value of its fields', () => {
  for (let bits = 0; bits < 0x10000; bits += 1) {
    if ((bits & 0x7c00) === 0x7c00) continue; // inf and NaN below
    const value = fromHalf(bits);
    assert.equal(value, halfValue(bits), `bits ${bits.toString(16)}`);
    assert.equal(toHalf(value), bits, `bits ${bits.toString(16)}: ${value}`);
  }
  assert.equal(fromHalf(0x7c00), Infinity);
  assert.equal(fromHalf(0xfc00), -Infinity);
  assert.ok(Number.isNaN(fromHalf(0x7e00)));
  assert.equal(toHalf(Infinity), 0x7c00);
  assert.equal(toHalf(-Infinity), 0xfc00);
  assert.equal(toHalf(NaN) & 0x7c00, 0x7c00);
  assert.notEqual(toHalf(NaN) & 0x3ff, 0, 'NaN stays NaN');
});

test('float32 values round to the nearest half, ties to even, as the slow reference does', () => {
  const values = [];
  // Every midpoint between two neighbouring halves (a tie, exact in float32), and the float32s just either side.
  for (let k = 0; k + 1 < POSITIVE.length; k += 1) {
    const mid = f32((POSITIVE[k] + POSITIVE[k + 1]) / 2);
    values.push(mid);
    const bits = new Uint32Array(new Float32Array([mid]).buffer)[0];
    values.push(new Float32Array(new Uint32Array([bits + 1]).buffer)[0], new Float32Array(new Uint32Array([bits - 1]).buffer)[0]);
  }
  // Past the largest half, underflow, and seeded random float32 bit patterns of every magnitude.
  values.push(MAX, 65519, 65520, 65521, 1e6, 2 ** -25, f32(2 ** -25 * 1.0000001), 2 ** -26, 1e-10, 0, -0);
  let seed = 12345;
  const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0);
  for (let i = 0; i < 100000; i += 1) {
    const x = new Float32Array(new Uint32Array([next()]).buffer)[0];
    if (!Number.isNaN(x)) values.push(x);
  }
  for (const x of values) {
    for (const v of [x, -x]) {
      const expected = referenceHalf(v);
      assert.equal(toHalf(v), expected, `${v}: got ${toHalf(v).toString(16)}, the reference ${expected.toString(16)}`);
    }
  }
  // Ties went both ways: to the lower neighbour when its bits are even, else up.
  assert.equal(toHalf(f32((POSITIVE[2] + POSITIVE[3]) / 2)), 2);
  assert.equal(toHalf(f32((POSITIVE[3] + POSITIVE[4]) / 2)), 4);
  // Arrays: the same bits one by one, and back.
  const floats = Float32Array.from(values.slice(0, 1000));
  const bits = halfFromFloats(floats);
  assert.ok(bits instanceof Uint16Array);
  bits.forEach((b, i) => assert.equal(b, toHalf(floats[i])));
  floatsFromHalf(bits).forEach((v, i) => assert.equal(v, Math.fround(fromHalf(bits[i]))));
});

// ---------------------------------------------------------------- the store

test('the timeline store keeps one entry per step, in step order, and finds the one at a step', () => {
  const store = new TimelineStore();
  assert.equal(store.at(5), null);
  for (const step of [10, 0, 30, 20]) store.add({ step, tag: `first ${step}` });
  store.add({ step: 20, tag: 'again 20' }); // a new probe at the same step replaces it
  assert.equal(store.length, 4);
  assert.deepEqual(
    store.entries().map((e) => [e.step, e.tag]),
    [
      [0, 'first 0'],
      [10, 'first 10'],
      [20, 'again 20'],
      [30, 'first 30'],
    ],
  );
  assert.equal(store.get(1).step, 10);
  assert.equal(store.get(4), null);
  assert.equal(store.at(-1).step, 0, 'before all: the first');
  assert.equal(store.at(19).step, 10);
  assert.equal(store.at(20).tag, 'again 20');
  assert.equal(store.at(99).step, 30);
  const copy = store.entries();
  copy.pop();
  assert.equal(store.length, 4, 'entries() is a copy');
  store.clear();
  assert.equal(store.length, 0);
  assert.deepEqual(store.entries(), []);
});

test('past its budget the store drops attention from every other entry, never the first nor the newest, and keeps every number', () => {
  const attentionBytes = 1000; // 500 half floats an entry
  const entry = (step) => ({ step, loss: step / 7, attention: new Uint16Array(attentionBytes / 2).fill(step) });
  const numbers = JSON.stringify({ ...entry(0), attention: null }).length;
  // Room for the numbers of 40 entries and the attention of about 10.
  const budget = 40 * (numbers + 2) + 10 * attentionBytes;
  const store = new TimelineStore({ budget });
  for (let step = 0; step < 40; step += 1) {
    store.add(entry(step));
    assert.ok(store.bytes <= budget, `${store.bytes} bytes after step ${step}, budget ${budget}`);
  }
  const entries = store.entries();
  assert.equal(entries.length, 40, 'every entry stays');
  entries.forEach((e, k) => assert.equal(e.loss, k / 7, `entry ${k} keeps its numbers`));
  assert.ok(entries[0].attention && entries[39].attention, 'the first and the newest keep their attention');
  const kept = entries.filter((e) => e.attention).map((e) => e.step);
  assert.ok(kept.length >= 5 && kept.length <= 10, `kept ${kept.join(',')}`);
  for (const e of entries.filter((x) => x.attention)) assert.equal(e.attention[0], e.step, 'an entry keeps its own attention');
  // Evenly spread: no gap between kept entries more than twice another.
  const gaps = kept.slice(1).map((s, k) => s - kept[k]);
  assert.ok(Math.max(...gaps) <= 2 * Math.min(...gaps) + 1, `gaps ${gaps.join(',')}`);
  // Under the budget nothing is dropped.
  const roomy = new TimelineStore();
  for (let step = 0; step < 40; step += 1) roomy.add(entry(step));
  assert.equal(roomy.entries().filter((e) => e.attention).length, 40);
});

// ---------------------------------------------------------------- an entry's measures

const demo = mm.loadModel({
  config: readFileSync(join(DEMO, 'config.json'), 'utf8'),
  weights: new Uint8Array(readFileSync(join(DEMO, 'model.safetensors'))),
});
const probes = timelineProbes(tokenizer);

test("an entry's loss and ICL score are those of a log-softmax of the forward's logits on the held-out sequences", () => {
  assert.equal(probes.icl.length, ICL_SEQUENCES);
  for (const ids of probes.icl) assert.equal(ids.length, ICL_LENGTH);
  const entry = timelineEntry(demo, probes, { step: 7, tokens: 123, trainLoss: 1.5 });
  // The loss of predicting token t from those before it, per position, averaged over the sequences.
  const T = ICL_LENGTH;
  const perPosition = new Float64Array(T);
  for (const ids of probes.icl) {
    const { logits } = demo.forward(ids);
    const V = logits.shape[2];
    for (let t = 1; t < T; t += 1) {
      const row = logits.data.subarray((t - 1) * V, t * V);
      let max = -Infinity;
      for (const x of row) max = Math.max(max, x);
      let sum = 0;
      for (const x of row) sum += Math.exp(x - max);
      perPosition[t] += (max + Math.log(sum) - row[ids[t]]) / probes.icl.length;
    }
  }
  const meanOf = (positions) => positions.reduce((s, t) => s + perPosition[t], 0) / positions.length;
  const range = (from, to) => Array.from({ length: to - from }, (_, k) => from + k);
  const loss = meanOf(range(1, T));
  const lastQuarter = range(T - T / 4, T); // positions 48..63 of 64
  const early = range(4, 8);
  assert.deepEqual(ICL_EARLY, [4, 8]);
  const icl = meanOf(lastQuarter) - meanOf(early);
  assert.ok(Math.abs(entry.loss - loss) <= 1e-5 * loss, `loss ${entry.loss} against ${loss}`);
  assert.ok(Math.abs(entry.icl - icl) <= 1e-4, `icl ${entry.icl} against ${icl}`);
  assert.ok(entry.icl < 0, 'the trained demo predicts later tokens better: the context helps');
  assert.equal(entry.step, 7);
  assert.equal(entry.tokens, 123);
  assert.equal(entry.trainLoss, 1.5);
  assert.equal(entry.attention, null, 'no attention given: none kept');
});

// The composition recomputed here: each head's gap and parts, means over the induction probe's cells.
function composition(model) {
  const total = probes.induction.reduce((n, s) => n + s.cells.length, 0);
  const heads = new Map();
  for (const { ids, cells } of probes.induction)
    for (const layer of model.keyComposition({ ids, cells }))
      for (const h of layer.heads) {
        const name = `L${layer.layer}H${h.head}`;
        const sum = heads.get(name) ?? { gap: 0, parts: new Array(h.parts.length).fill(0), components: layer.components };
        sum.gap += (h.gap * cells.length) / total;
        h.parts.forEach((p, c) => (sum.parts[c] += (p * cells.length) / total));
        heads.set(name, sum);
      }
  return heads;
}

test("an entry's composition: each earlier head's share of the gap, with the embedding's and the MLPs' the whole gap; null below the threshold", () => {
  const entry = timelineEntry(demo, probes, { step: 0, tokens: 0 });
  const expected = composition(demo);
  const { num_hidden_layers: L, num_attention_heads: H } = demo.info();
  assert.deepEqual(Object.keys(entry.composition).sort(), [...expected.keys()].sort());
  assert.equal(expected.size, (L - 1) * H, 'every head of blocks 1 and up');
  let shown = 0;
  let hidden = 0;
  for (const [name, { gap, parts, components }] of expected) {
    assert.ok(Math.abs(entry.gaps[name] - gap) <= 1e-9 * (1 + Math.abs(gap)), `${name}: gap ${entry.gaps[name]} against ${gap}`);
    const shares = entry.composition[name];
    if (gap < COMPOSITION_MIN_GAP) {
      assert.equal(shares, null, `${name}: gap ${gap} below ${COMPOSITION_MIN_GAP}`);
      hidden += 1;
      continue;
    }
    shown += 1;
    const layer = Number(/^L(\d+)/.exec(name)[1]);
    const earlier = components.filter((c) => /^L\d+H\d+$/.test(c));
    assert.deepEqual(Object.keys(shares), earlier, `${name}: a share for each head of blocks 0..${layer - 1}`);
    assert.equal(earlier.length, layer * H);
    let whole = 0;
    components.forEach((c, k) => {
      if (c in shares) assert.ok(Math.abs(shares[c] - parts[k] / gap) <= 1e-9, `${name} ${c}`);
      whole += c in shares ? shares[c] : parts[k] / gap; // embed and L{k}ffn: not shares, but part of the gap
    });
    assert.ok(Math.abs(whole - 1) <= 1e-6, `${name}: shares and the embed/ffn parts make ${whole} of the gap`);
  }
  assert.ok(shown > 0, 'the trained demo has heads above the threshold');
  // The untrained model: no head's key stands out, every share is null.
  const fresh = mm.createModel({ config: JSON.parse(readFileSync(join(DEMO, 'config.json'), 'utf8')), seed: 5, init: 'minimind' });
  const untrained = timelineEntry(fresh, probes, { step: 0, tokens: 0 });
  for (const [name, gap] of Object.entries(untrained.gaps)) {
    assert.ok(gap < COMPOSITION_MIN_GAP, `${name}: an untrained gap ${gap}`);
    assert.equal(untrained.composition[name], null);
  }
  fresh.dispose();
  assert.ok(shown + hidden === expected.size);
});

// ---------------------------------------------------------------- determinism

test('two sessions of the same seed record the same timeline, bit for bit', () => {
  const recipe = { ...TRAIN_RECIPES.default, batches: 30, options: { ...TRAIN_RECIPES.default.options, batchSize: 4, maxSeqLen: 32 } };
  const samples = recipeSamples(recipe, (text) => tokenizer.encode(text));
  const run = () => {
    const model = mm.createModel({ config: recipe.config, seed: recipe.modelSeed, init: 'minimind' });
    const session = new TrainSession({ model, tokenizer, samples, options: recipe.options, snapshotEvery: 6 });
    const entries = [session.snapshot().entry];
    while (!session.done) {
      const { snapshot } = session.runSlice(1e9);
      if (snapshot?.entry) entries.push(snapshot.entry);
    }
    session.dispose();
    model.dispose();
    return entries;
  };
  const a = run();
  const b = run();
  assert.deepEqual(
    a.map((e) => e.step),
    [0, 6, 12, 18, 24, 30],
  );
  for (const e of a) assert.ok(e.attention instanceof Uint16Array && e.attention.length > 0);
  assert.equal(JSON.stringify(a.map((e) => entryJson(e))), JSON.stringify(b.map((e) => entryJson(e))));
  // The JSON holds what differs between moments: the first and last entries are not alike.
  assert.notEqual(JSON.stringify(entryJson(a[0])), JSON.stringify(entryJson({ ...a.at(-1), step: 0, tokens: 0, trainLoss: null })));
});

test('the default spacing is about 100 snapshots a run, at least one batch apart', () => {
  assert.equal(defaultSnapshotEvery(TRAIN_RECIPES.default.batches), 7);
  assert.equal(defaultSnapshotEvery(TRAIN_RECIPES.induction.batches), 39);
  assert.equal(defaultSnapshotEvery(40), 1);
  assert.equal(defaultSnapshotEvery(0), 1);
  for (const batches of [100, 199, 200, 12345]) {
    const every = defaultSnapshotEvery(batches);
    const snapshots = Math.floor(batches / every);
    assert.ok(snapshots >= 100 && snapshots < 200, `${batches} batches: ${snapshots} snapshots`);
  }
});
