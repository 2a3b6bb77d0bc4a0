// The JS API over the Wasm module: invariants, cached generation, argument
// checks (embind would coerce silently), errors that leave the module usable.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { loadMiniMind } from '../../js/minimind.mjs';

const mm = await loadMiniMind();

function matrix(entry, batch, head) {
  // entry: [B, H, T, Tk] -> rows of one head
  const [, H, T, Tk] = entry.shape;
  const base = (batch * H + head) * T * Tk;
  return Array.from({ length: T }, (_, i) => entry.data.subarray(base + i * Tk, base + (i + 1) * Tk));
}

test('loading twice returns the same module instance', async () => {
  assert.equal(await loadMiniMind(), mm);
});

test('attention rows sum to 1 and the upper triangle is exactly 0 (lab-a, lab-b)', () => {
  for (const preset of ['lab-a', 'lab-b']) {
    const model = mm.createModel({ preset, seed: 4 });
    const { trace } = model.forward([3, 9, 27, 81, 100, 7, 7], { trace: { layers: 'all', stages: ['attn_weights'] } });
    assert.equal(trace.length, 2);
    for (const entry of trace) {
      for (let h = 0; h < entry.shape[1]; h += 1) {
        matrix(entry, 0, h).forEach((row, i) => {
          const sum = row.reduce((a, b) => a + b, 0);
          assert.ok(Math.abs(sum - 1) < 1e-6, `${preset} layer ${entry.layer} head ${h} row ${i} sums to ${sum}`);
          for (let j = i + 1; j < row.length; j += 1) assert.equal(row[j], 0);
        });
      }
    }
    model.dispose();
  }
});

test('lesson 11 shapes come out of the trace: k_proj (2, 5, 32), scores (2, 4, 5, 5)', () => {
  const model = mm.createModel({ preset: 'lab-a' });
  const { trace } = model.forward(
    [
      [3, 4, 5, 6, 7],
      [8, 9, 10, 11, 12],
    ],
    { trace: { layers: [0], stages: ['attn_norm', 'k_proj', 'scores_scaled'] } },
  );
  assert.deepEqual(trace.get(0, 'attn_norm').shape, [2, 5, 64]);
  assert.deepEqual(trace.get(0, 'k_proj').shape, [2, 5, 2, 16]); // (2, 5, 32) viewed per kv head
  assert.deepEqual(trace.get(0, 'scores_scaled').shape, [2, 4, 5, 5]);
  assert.equal(trace.get(1, 'k_proj'), undefined);
  model.dispose();
  assert.match(mm.labRecord('lab-b'), /^xk after repeat shape=\(2, 5, 6, 16\)$/m);
});

test('the toggles change what they should: no mask leaks the future, no scaling sharpens softmax', () => {
  const model = mm.createModel({ preset: 'lab-a', seed: 1 });
  const ids = [5, 6, 7, 8, 9, 10];
  const stages = { layers: [0], stages: ['attn_weights', 'scores_raw', 'scores_scaled'] };
  const normal = model.forward(ids, { trace: stages }).trace;
  const leaked = model.forward(ids, { trace: stages, causalMask: false }).trace;
  const future = matrix(leaked.get(0, 'attn_weights'), 0, 0).reduce((sum, row, i) => sum + row.slice(i + 1).reduce((a, b) => a + b, 0), 0);
  assert.ok(future > 0.1, `future mass ${future}`);
  const unscaled = model.forward(ids, { trace: stages, scaleScores: false }).trace;
  assert.deepEqual(Array.from(unscaled.get(0, 'scores_scaled').data), Array.from(normal.get(0, 'scores_raw').data));
  const peak = (t) => Math.max(...matrix(t.get(0, 'attn_weights'), 0, 0)[5]);
  assert.ok(peak(unscaled) > peak(normal), 'without ÷√d the largest weight of a row grows');
  model.dispose();
});

test('step-by-step generation: each step returns the new token attention row, equal to recomputation', () => {
  const model = mm.createModel({ preset: 'lab-b', seed: 2 });
  const generator = model.generator([3, 4, 5, 6], { greedy: true }, { prefillTrace: { stages: ['attn_weights'] } });
  assert.deepEqual(generator.prefillTrace.get(0, 'attn_weights').shape, [1, 6, 4, 4]);
  for (let step = 0; step < 5; step += 1) {
    const before = generator.ids;
    const next = generator.nextProbabilities();
    const out = generator.step();
    assert.deepEqual(Array.from(out.probabilities), Array.from(next));
    const full = model.forward([...before, out.token], { trace: { layers: 'all', stages: ['attn_weights'] } });
    for (const layer of [0, 1]) {
      const row = out.trace.get(layer, 'attn_weights'); // [1, H, 1, Tk]
      const Tk = before.length + 1;
      assert.deepEqual(row.shape, [1, 6, 1, Tk]);
      const fullMatrix = full.trace.get(layer, 'attn_weights');
      for (let h = 0; h < 6; h += 1) {
        assert.deepEqual(Array.from(row.data.subarray(h * Tk, (h + 1) * Tk)), Array.from(matrix(fullMatrix, 0, h)[Tk - 1]));
      }
    }
    // Greedy: the token is the argmax of the logits it was chosen from.
    assert.equal(out.token, out.logits.indexOf(Math.max(...out.logits)));
    assert.ok(Math.abs(out.probabilities.reduce((a, b) => a + b, 0) - 1) < 1e-5);
  }
  const cache = generator.cache;
  assert.deepEqual(cache.shapePerLayer, [9, 3, 16]);
  assert.equal(cache.bytes, 2 * 9 * 3 * 16 * 4 * 2);
  generator.dispose();
  model.dispose();
});

test('sampling is reproducible from its seed', () => {
  const model = mm.createModel({ preset: 'lab-a', seed: 3 });
  const run = (seed) => {
    // Random tied weights make the current token dominate; a high
    // temperature spreads the distribution so that seeds matter.
    const g = model.generator([3, 4], { temperature: 20.0, topK: 40, topP: 0.99, seed });
    const out = Array.from({ length: 12 }, () => g.step({ trace: false }).token);
    g.dispose();
    return out;
  };
  assert.deepEqual(run(7), run(7));
  assert.notDeepEqual(run(7), run(8));
  model.dispose();
});

test('arguments are checked in JS, not coerced by embind', () => {
  const model = mm.createModel({ preset: 'lab-a' });
  assert.throws(() => model.forward([1, 2.5]), { name: 'TypeError', message: /ids\[1\] must be an integer/ });
  assert.throws(() => model.forward(['7']), { name: 'TypeError', message: /ids\[0\] must be an integer, got "7"/ });
  assert.throws(() => model.forward([]), { name: 'RangeError', message: /empty/ });
  assert.throws(() => model.forward('1 2 3'), { name: 'TypeError' });
  assert.throws(() => model.forward([[1, 2], [3]]), { name: 'RangeError', message: /same length/ });
  assert.throws(() => model.forward([1], { trace: { layers: [0.5] } }), { name: 'TypeError' });
  assert.throws(() => model.forward([1], { causalMask: 'no' }), { name: 'TypeError' });
  assert.throws(() => mm.createModel({ preset: 'lab-a', seed: -1 }), { name: 'RangeError' });
  assert.throws(() => mm.createModel({ preset: 'lab-a', seed: 1.5 }), { name: 'TypeError' });
  assert.throws(() => model.generator([1], { temperature: '0.5' }), { name: 'TypeError' });
  assert.throws(() => mm.loadModel({ config: '{}', weights: 'not bytes' }), { name: 'TypeError' });
  model.dispose();
});

test('C++ errors arrive as MiniMindError with the message, and the module keeps working', () => {
  const model = mm.createModel({ preset: 'lab-a' });
  // Every core error has a kind (tests/node/error_kinds.test.mjs checks them all).
  assert.throws(() => mm.createModel({ preset: 'gpt-5' }), {
    name: 'MiniMindError',
    kind: 'preset.unknown',
    message: /unknown preset "gpt-5"; known presets: lab-a/,
  });
  assert.throws(
    () => mm.createModel({ config: { hidden_size: 100, num_attention_heads: 8 } }),
    /hidden_size 100 is not divisible by num_attention_heads 8/,
  );
  assert.throws(() => mm.createModel({ config: '{"hidden_size": ' }), /config.json is not valid JSON/);
  assert.throws(() => mm.createModel({ config: { hidden_size: 4096, num_hidden_layers: 1000, vocab_size: 6400 } }), /over the 2 GiB limit/);
  assert.throws(() => mm.loadModel({ config: mm.presetConfig('lab-a'), weights: new Uint8Array([1, 2, 3]) }), /file is 3 bytes/);
  assert.throws(() => mm.loadModel({ config: mm.presetConfig('lab-a'), weights: new Uint8Array(16).fill(255) }), /header length/);
  assert.throws(() => model.forward([1, 2, 128]), /token id 128 at position 2 is outside the vocabulary/);
  assert.throws(() => model.forward([1], { trace: { layers: [5] } }), /trace layer 5 is out of range/);
  assert.throws(() => model.forward([1], { trace: { stages: ['attention'] } }), /unknown trace stage "attention"/);
  assert.throws(() => model.forward(Array(200).fill(3), { trace: { maxFloats: 1000 } }), /trace would hold more than/);
  assert.throws(() => model.generator([1], { temperature: 0 }), /temperature must be a positive number/);
  assert.deepEqual(mm.configProblems({ hidden_size: 64, num_attention_heads: 6, num_key_value_heads: 4 }), [
    'num_attention_heads 6 is not a multiple of num_key_value_heads 4 (each kv head must serve the same number of q heads)',
    'hidden_size 64 is not divisible by num_attention_heads 6 (head_dim = hidden_size / num_attention_heads)',
  ]);
  // Still usable, same numbers as before the errors.
  const { logits } = model.forward([1, 2, 3]);
  const again = mm.createModel({ preset: 'lab-a' }).forward([1, 2, 3]).logits;
  assert.deepEqual(Array.from(logits.data), Array.from(again.data));
  model.dispose();
});

test('info reports config, derived shapes, parameters and bytes', () => {
  const model = mm.createModel({ preset: 'minimind2-small' });
  const info = model.info();
  assert.equal(info.hidden_size, 512);
  assert.equal(info.use_qk_norm, false);
  assert.deepEqual(info.derived.k_proj, [128, 512]);
  assert.equal(info.derived.n_rep, 4);
  assert.ok(info.parameters > 25e6 && info.parameters < 27e6, `${info.parameters}`);
  assert.equal(info.weight_bytes, info.parameters * 4);
  model.dispose();
  assert.throws(() => model.info(), /disposed/);
  assert.throws(() => model.forward([1]), /disposed/);
});

test('weights are kept as float16 by default (half the memory), with the same logits as float32 storage', () => {
  const ids = [3, 200, 17, 4000, 9, 9, 6000];
  const narrow = mm.createModel({ preset: 'minimind2-small', seed: 3 });
  const wide = mm.createModel({ preset: 'minimind2-small', seed: 3, weightStorage: 'float32' });
  const a = narrow.info().stored_weights;
  const b = wide.info().stored_weights;
  assert.equal(a.tensors_by_storage.F32, 17); // the 2·8 + 1 norms
  assert.ok(a.tensors_by_storage.F16 > 50, JSON.stringify(a));
  assert.equal(b.tensors_by_storage.F16, undefined);
  assert.ok(a.bytes < 0.51 * b.bytes, `${a.bytes} vs ${b.bytes}`);
  assert.ok(b.bytes >= narrow.info().weight_bytes, `${b.bytes}`);
  assert.deepEqual(narrow.forward(ids).logits, wide.forward(ids).logits);
  const stepsA = narrow.generator(ids, { greedy: true });
  const stepsB = wide.generator(ids, { greedy: true });
  for (let i = 0; i < 4; i += 1) assert.deepEqual(stepsA.step().logits, stepsB.step().logits);
  for (const model of [narrow, wide]) model.dispose();
  assert.throws(() => mm.createModel({ preset: 'lab-a', weightStorage: 'f8' }), RangeError);
});

test('building a model reports progress, and describeConfig gives shapes without weights', () => {
  const fractions = [];
  const model = mm.createModel({ preset: 'lab-b', seed: 1, onProgress: (f) => fractions.push(f) });
  assert.ok(fractions.length > 10, `${fractions.length} reports`);
  assert.equal(fractions.at(-1), 1);
  assert.ok(
    fractions.every((f, i) => i === 0 || f >= fractions[i - 1]),
    'fractions never go back',
  );
  model.dispose();
  assert.throws(() => mm.createModel({ preset: 'lab-a', onProgress: 5 }), { name: 'TypeError' });
  const info = mm.describeConfig({
    hidden_size: 96,
    num_attention_heads: 6,
    num_key_value_heads: 3,
    vocab_size: 128,
    num_hidden_layers: 2,
  });
  assert.equal(info.derived.head_dim, 16);
  assert.deepEqual(info.derived.k_proj, [48, 96]);
  assert.equal(info.derived.n_rep, 2);
  assert.throws(() => mm.describeConfig({ hidden_size: 96, num_attention_heads: 5 }), /not divisible/);
});

test('lesson 2.5 by hand through the module: 她→小红 0.493, softmax [1,2,3] vs [10,20,30], the causal mask', () => {
  const q = [
    [0.1, 0.2, 0.3, 0.1],
    [0.0, 0.1, 0.0, 0.2],
    [0.9, 0.1, 0.8, 0.0],
  ];
  const k = [
    [0.8, 0.2, 0.9, 0.1],
    [0.0, 0.3, 0.1, 0.5],
    [0.7, 0.1, 0.7, 0.0],
  ];
  const a = mm.lessonAttention({ q, k, scale: false });
  assert.deepEqual(
    Array.from(a.raw.data, (x) => x.toFixed(4)),
    ['0.4000', '0.1400', '0.3000', '0.0400', '0.1300', '0.0100', '1.4600', '0.1100', '1.2000'],
  );
  assert.deepEqual(
    Array.from(a.weights.data.subarray(6), (x) => x.toFixed(3)),
    ['0.493', '0.128', '0.380'],
  );
  assert.deepEqual(
    Array.from(mm.lessonSoftmax([[1, 2, 3]]).weights.data, (x) => x.toFixed(2)),
    ['0.09', '0.24', '0.67'],
  );
  assert.deepEqual(
    Array.from(mm.lessonSoftmax([[10, 20, 30]]).weights.data, (x) => x.toFixed(2)),
    ['0.00', '0.00', '1.00'],
  );
  const masked = mm.lessonSoftmax(
    [
      [0.8, 0, 0],
      [0.5, 0.6, 0],
      [0.3, 0.7, 0.4],
    ],
    { causal: true },
  );
  assert.equal(masked.masked.data[1], -Infinity);
  assert.deepEqual(Array.from(masked.weights.data.subarray(0, 3)), [1, 0, 0]);
  assert.throws(() => mm.lessonAttention({ q, k: [[1, 2]] }), /same length/);
  assert.throws(() => mm.lessonAttention({ q: [[NaN]], k }), { name: 'TypeError' });
  assert.deepEqual(Array.from(mm.lessonSoftmax([[0, -Infinity]]).weights.data), [1, 0]);
});
