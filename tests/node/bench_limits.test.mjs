// bench/speed/flops.mjs and bench/limits/limits.mjs: the weight count a decode step
// streams matches the module's own parameter count, and the floors and
// verdicts of the "Limits" section follow from the measured rates.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { cpuModel } from '../../bench/cpu_model.mjs';
import { forwardFlops, matrixWeights } from '../../bench/speed/flops.mjs';
import { bestTile, f16Limit, limitRows, limitsBlocks, limitsSection, relaxedPart, trainingAmdahl } from '../../bench/limits/limits.mjs';
import { medianFields } from '../../bench/median.mjs';
import { loadMiniMind } from '../../js/minimind.mjs';

const mm = await loadMiniMind();

// bench/speed/make_onnx.py's names for a config, from the module's info().
function benchConfig(info) {
  return {
    D: info.hidden_size,
    H: info.num_attention_heads,
    Hkv: info.num_key_value_heads,
    Dh: info.head_dim,
    F: info.intermediate_size,
    V: info.vocab_size,
    L: info.num_hidden_layers,
  };
}

for (const preset of ['lab-a', 'minimind2-small', 'minimind-3']) {
  test(`matrixWeights is ${preset}'s parameter count less its norm weights`, () => {
    const model = mm.createModel({ preset, seed: 0 });
    const info = model.info();
    const c = benchConfig(info);
    // Per layer two RMSNorms over D, and q/k norms over head_dim where the config has them; one final norm.
    const norms = c.L * (2 * c.D + (info.use_qk_norm ? 2 * c.Dh : 0)) + c.D;
    assert.equal(matrixWeights(c) + norms, info.parameters);
    model.dispose();
  });
}

test('forwardFlops counts 2·m·n·k per product, attention over the cached keys too', () => {
  const c = { D: 4, H: 2, Hkv: 1, Dh: 2, F: 6, V: 10, L: 1 };
  // q 2·1·4·4, k and v 2·2·1·4·2, o 2·1·4·4; attention 2·(2·2·1·3·2) with 3 keys; SwiGLU 3·2·4·6; lm_head 2·4·10.
  assert.equal(forwardFlops(c, 1, 2), 32 + 32 + 32 + 48 + 144 + 80);
});

// A measurement as measureLimits returns it, with round numbers.
function fakeResult({
  ortDecode,
  f32Decode,
  f16Decode,
  stream = 10,
  widen16 = 2,
  widenStream,
  arithmetic = 20,
  ortPrefill = 100,
  oursPrefill = 50,
}) {
  const configs = {
    'minimind2-small': { D: 8, H: 2, Hkv: 1, Dh: 4, F: 16, V: 32, L: 2 },
    'minimind-3': { D: 8, H: 2, Hkv: 1, Dh: 4, F: 16, V: 32, L: 2 },
  };
  const work = (decode, prefill) => ({ prefill64: prefill, prefill256: prefill * 4, decode });
  const machine = { isa: 'x', threads: 1, arithmetic, widen16, stream: { 1: stream } };
  if (widenStream !== undefined) machine.widen16Stream = { 1: widenStream };
  const medians = {
    'machine-wasm': machine,
    'machine-sse-1': machine,
    'machine-sse-2': {
      ...machine,
      threads: 2,
      arithmetic: arithmetic * 1.5,
      widen16: widen16 * 1.5,
      stream: { 1: stream * 1.2 },
      ...(widenStream === undefined ? {} : { widen16Stream: { 1: widenStream * 1.8 } }),
    },
    'train-native-1': { tokensPerSecond: 1000 },
    'train-native-2': { tokensPerSecond: 1500 },
  };
  for (const p of Object.keys(configs)) {
    medians[`product64:${p}`] = { gflops: arithmetic * 0.9 };
    medians[`product256:${p}`] = { gflops: arithmetic * 0.9 };
    medians[`ort:${p}`] = work(ortDecode, ortPrefill);
    medians[`f16:${p}`] = work(f16Decode, oursPrefill);
    medians[`f32:${p}`] = work(f32Decode, oursPrefill);
  }
  return { cpu: 'test CPU', cores: 2, date: 'today', load: [0, 0], rounds: 1, configs, samples: {}, medians };
}

test('the floors are the weight bytes at the stream rate, the weights at the widening rate, the FLOPs at the tile rate', () => {
  const r = fakeResult({ ortDecode: 1, f32Decode: 1, f16Decode: 1, stream: 10, widen16: 2, arithmetic: 20 });
  const c = r.configs['minimind-3'];
  const w = matrixWeights(c);
  const decode = limitRows(r).find((row) => row.preset === 'minimind-3' && row.work.startsWith('decode'));
  assert.ok(Math.abs(decode.floor32 - ((4 * w) / 10e9) * 1e3) < 1e-12);
  // Widening w weights at 2 G/s takes longer than streaming 2w bytes at 10 GB/s.
  assert.equal(decode.bound, 'widening');
  assert.ok(Math.abs(decode.floor16 - (w / 2e9) * 1e3) < 1e-12);
  const prefill = limitRows(r).find((row) => row.preset === 'minimind-3' && row.work === 'prefill 256');
  assert.ok(Math.abs(prefill.floor32 - (forwardFlops(c, 256) / 20e9) * 1e3) < 1e-12);
});

test('with register tiles measured, the prefill floor is at the fastest tile and the section names it', () => {
  // Ours as fast as ORT-web at prefill: missed, so the verdict names the tile.
  const r = fakeResult({ ortDecode: 1, f32Decode: 1, f16Decode: 1, arithmetic: 20, oursPrefill: 100 });
  r.medians['machine-wasm'] = { ...r.medians['machine-wasm'], tiles: { '4x8': 20, '2x16': 25, '8x8': 12 } };
  assert.deepEqual(bestTile(r.medians['machine-wasm']), { shape: '2x16', gflops: 25 });
  // Without tiles (an older run): the kernel's 4x8 at the arithmetic rate.
  assert.deepEqual(bestTile({ arithmetic: 20 }), { shape: '4x8', gflops: 20 });
  const c = r.configs['minimind-3'];
  const prefill = limitRows(r).find((row) => row.preset === 'minimind-3' && row.work === 'prefill 64');
  assert.ok(Math.abs(prefill.floor16 - (forwardFlops(c, 64) / 25e9) * 1e3) < 1e-12);
  const text = limitsSection(r);
  assert.match(text, /\| arithmetic: the best of 3 register tiles, data in L1 \(GFLOP\/s\) \| 25\.0 \(2 × 16\) \|/);
  assert.match(text, /Wasm, 1 thread, GFLOP\/s: 4 × 8 20\.0, 2 × 16 25\.0, 8 × 8 12\.0\./);
  assert.match(text, /missed; arithmetic: at the best tile's 25\.0 GFLOP\/s \(2 × 16\)/);
});

test('a goal is met or missed by the measured ratio, and a miss names its bound', () => {
  const fast = limitsSection(fakeResult({ ortDecode: 10, f32Decode: 5, f16Decode: 2 }));
  assert.match(fast, /minimind-3 decode, per step, float32: ≥ 1\.43× ORT-web \| 2\.00× \| met \|/);
  assert.match(fast, /minimind-3 decode, float16 ≥ 1\.6× float32 \| 2\.50× \| met \|/);
  const slow = limitsSection(fakeResult({ ortDecode: 10, f32Decode: 9, f16Decode: 8 }));
  assert.match(slow, /minimind-3 decode, per step, float32: ≥ 1\.43× ORT-web \| 1\.11× \| missed; memory: /);
  assert.match(slow, /minimind-3 decode, float16 ≥ 1\.6× float32 \| 1\.13× \| missed; (memory|widening): /);
  // Prefill: 100 ms of ORT-web against ours at 50 ms (2×): met; a floor of FLOPs at the tile's rate.
  assert.match(slow, /minimind-3 prefill 64, float16: ≥ 1\.43× ORT-web \| 2\.00× \| met \|/);
  // Ours as fast as ORT-web: missed, and the share of the tile's rate 1.43× would need.
  const tied = limitsSection(fakeResult({ ortDecode: 10, f32Decode: 9, f16Decode: 8, oursPrefill: 100 }));
  const c = fakeResult({ ortDecode: 1, f32Decode: 1, f16Decode: 1 }).configs['minimind-3'];
  const floor = (forwardFlops(c, 64) / 20e9) * 1e3;
  const needed = ((1.43 * floor * 100) / 100).toFixed(0);
  assert.match(
    tied,
    new RegExp(
      `minimind-3 prefill 64, float16: ≥ 1\\.43× ORT-web \\| 1\\.00× \\| missed; arithmetic: .* needs the whole prefill at ${needed}% of that rate, and its largest product alone \\(64·D·F, float16\\) runs at 90%`,
    ),
  );
  assert.match(slow, /training, 2 threads ≥ 1\.7× 1 thread \(native\) \| 1\.50× \| missed; /);
});

test('a float16 decode miss names the floor, what it allows against our float32 step, and how far ours is from it', () => {
  const r = fakeResult({ ortDecode: 10, f32Decode: 9, f16Decode: 8, widen16: 2 });
  const decode = limitRows(r).find((row) => row.preset === 'minimind-3' && row.work.startsWith('decode'));
  const text = f16Limit(decode);
  assert.match(text, /^widening: the step's \d+ M float16 weights take [\d.]+ ms to widen at 2\.00 G\/s \(the core's rate in L1\)/);
  assert.ok(
    text.includes(`allows ${(9 / decode.floor16).toFixed(2)}×; ours takes 8.00 ms, ${(8 / decode.floor16).toFixed(2)}× the floor`),
    text,
  );
  assert.match(limitsSection(r), /minimind-3 decode, float16 ≥ 1\.6× float32 \| 1\.13× \| missed; widening: the step's/);
});

test('a float16 decode step is floored by widening its weights while re-reading them, where that is slowest', () => {
  // 2 G/s in L1 but 1.25 G/s from memory: the streamed widening bounds the step.
  const r = fakeResult({ ortDecode: 10, f32Decode: 9, f16Decode: 8, widen16: 2, widenStream: 1.25 });
  const w = matrixWeights(r.configs['minimind-3']);
  const decode = limitRows(r).find((row) => row.preset === 'minimind-3' && row.work.startsWith('decode'));
  assert.equal(decode.bound, 'widening from memory');
  assert.ok(Math.abs(decode.floor16 - (w / 1.25e9) * 1e3) < 1e-12);
  assert.ok(Math.abs(decode.widen16 - (w / 2e9) * 1e3) < 1e-12);
  const text = f16Limit(decode);
  assert.match(
    text,
    /^widening from memory: the step's \d+ M float16 weights take [\d.]+ ms to widen at 2\.00 G\/s \(the core's rate in L1\), [\d.]+ ms at 1\.25 G\/s while re-reading them from memory,/,
  );
  const section = limitsSection(r);
  // The machine table has the streamed widening per size, 2 threads against 1 too.
  assert.match(section, /\| float16 widening \+ multiply-add, re-reading 1 MiB \(G weights\/s\) \| 1\.25 \| 1\.25 \| 2\.25 \(1\.80×\) \|/);
  // With the step's products measured alone, the verdict splits the step into them and the rest.
  r.medians['products16:minimind-3'] = { ms: 6 };
  r.medians['products32:minimind-3'] = { ms: 7.5 };
  const split = f16Limit(limitRows(r).find((row) => row.preset === 'minimind-3' && row.work.startsWith('decode')));
  assert.ok(
    split.endsWith(
      `; its 1-row products alone take 6.00 ms (${(6 / decode.floor16).toFixed(2)}× the floor; float32's 7.50 ms, 1.25× as long), the rest of the step (attention, norms, sampling, the JS API) 2.00 ms`,
    ),
    split,
  );
  assert.ok(!text.includes('products alone'), 'without the products measured, no split');
  // Faster from memory than in L1 (not seen, but possible): the L1 widening stays the floor.
  const quick = fakeResult({ ortDecode: 10, f32Decode: 9, f16Decode: 8, widen16: 2, widenStream: 3 });
  assert.equal(limitRows(quick).find((row) => row.work.startsWith('decode')).bound, 'widening');
});

test('the relaxed build: its goals against the faster tile, decode against the SIMD build, training against 1.4×', () => {
  const r = fakeResult({ ortDecode: 10, f32Decode: 9, f16Decode: 8, arithmetic: 20, ortPrefill: 100, oursPrefill: 80 });
  // Without the relaxed measurements (an older run, or no relaxed SIMD): no relaxed rows at all.
  assert.equal(relaxedPart(r, limitRows(r)), null);
  assert.doesNotMatch(limitsSection(r), /arithmetic, fused|relaxed build \(float16\)|The relaxed build/);
  r.medians['machine-wasm-relaxed'] = {
    ...r.medians['machine-wasm'],
    fused: true,
    arithmetic: 22,
    tiles: { '4x8': 22, '2x16': 24 },
    widen16: 3,
  };
  for (const p of Object.keys(r.configs)) {
    r.medians[`product64-relaxed:${p}`] = { gflops: 18 };
    r.medians[`product256-relaxed:${p}`] = { gflops: 18 };
    // Side by side: prefill 64 at 60 ms: 1.67× ORT-web (met); prefill 256 at 300 ms against ORT's 400: 1.33× (missed);
    // the SIMD build beside it at 80 / 320 / 8 ms; the paired speed-ups as the pairs gave them.
    r.medians[`pair:${p}`] = {
      simd: { prefill64: 80, prefill256: 320, decode: 8 },
      relaxed: { prefill64: 60, prefill256: 300, decode: 7.5 },
      ratio: { prefill64: 1.3, prefill256: 1.05, decode: 1.07 },
    };
  }
  r.medians['recipe:default'] = { simd: 1000, relaxed: 1500 };
  r.medians['recipe:induction'] = { simd: 1000, relaxed: 1100 };
  const rows = limitRows(r);
  const c = r.configs['minimind-3'];
  const prefill = rows.find((row) => row.preset === 'minimind-3' && row.work === 'prefill 256');
  // The floor at the faster tile: the fused 2 × 16's 24 GFLOP/s against the unfused 20.
  assert.ok(Math.abs(prefill.floorRelaxed - (forwardFlops(c, 256) / 24e9) * 1e3) < 1e-12);
  const text = limitsSection(r);
  assert.match(text, /\| arithmetic, fused: the best of 2 register tiles, data in L1 \(GFLOP\/s\) \| 24\.0 \(2 × 16\) \| – \| – \|/);
  assert.match(text, /Fused \(f32x4\.relaxed_madd\), the same tiles: 4 × 8 22\.0, 2 × 16 24\.0\./);
  assert.match(text, /\| minimind-3 prefill 64, relaxed build \(float16\): ≥ 1\.43× ORT-web \| 1\.67× \| met \|/);
  assert.match(
    text,
    /\| minimind-3 prefill 256, relaxed build \(float16\): ≥ 1\.43× ORT-web \| 1\.33× \| missed; arithmetic: the fused tiles' best, 24\.0 GFLOP\/s \(2 × 16\), is 1\.20× the unfused tiles' best \(20\.0, 4 × 8\);.* runs at 75%/,
  );
  assert.match(text, /\| minimind-3 decode, relaxed build no slower than the SIMD build \(float16\) \| 1\.07× \| met \|/);
  assert.match(text, /\| minimind-3 prefill 256 \| 400 ms \| 320 ms \(1\.25×\) \| 300 ms \(1\.33×\) \| 1\.05× \|/);
  assert.match(text, /\| training, the panel's default run: relaxed build ≥ 1\.4× the SIMD build \(1 thread\) \| 1\.50× \| met \|/);
  assert.match(
    text,
    /\| training, the panel's induction run: relaxed build ≥ 1\.4× the SIMD build \(1 thread\) \| 1\.10× \| missed; arithmetic: .* would gain 1\.20× \|/,
  );
  assert.match(
    text,
    /default run: SIMD build 1000 tokens\/s, relaxed build 1500 \(1\.50×\); induction run: SIMD build 1000 tokens\/s, relaxed build 1100 \(1\.10×\)\./,
  );
  // A slower relaxed decode (by the paired ratio) is a miss that names the two widening rates.
  r.medians['pair:minimind-3'].ratio.decode = 0.89;
  assert.match(
    limitsSection(r),
    /minimind-3 decode, relaxed build no slower than the SIMD build \(float16\) \| 0\.89× \| missed; widening: fused 3\.00 G weights\/s in L1 against 2\.00 unfused \|/,
  );
});

test('medianFields takes the median of every numeric field, one object deep too', () => {
  const samples = {
    a: [
      { ms: 3, isa: 'x', stream: { 49: 10, 99: 1 } },
      { ms: 1, isa: 'x', stream: { 49: 30, 99: 2 } },
      { ms: 2, isa: 'x', stream: { 49: 20, 99: 4 } },
    ],
  };
  assert.deepEqual(medianFields(samples), { a: { ms: 2, isa: 'x', stream: { 49: 20, 99: 2 } } });
});

test("a run replaces its own x86 kind's block of the section and keeps the other kinds'", () => {
  const intel = { ...fakeResult({ ortDecode: 10, f32Decode: 9, f16Decode: 8 }), cpu: 'Intel Xeon' };
  const amd = { ...fakeResult({ ortDecode: 10, f32Decode: 5, f16Decode: 2 }), cpu: 'AMD EPYC' };
  const first = limitsSection(intel);
  assert.deepEqual([...limitsBlocks(first).keys()], ['Intel Xeon']);
  const both = limitsSection(amd, first);
  assert.deepEqual([...limitsBlocks(both).keys()], ['AMD EPYC', 'Intel Xeon']);
  assert.equal(limitsBlocks(both).get('Intel Xeon'), limitsBlocks(first).get('Intel Xeon'));
  assert.match(limitsBlocks(both).get('AMD EPYC'), /minimind-3 decode, per step, float32: ≥ 1\.43× ORT-web \| 2\.00× \| met \|/);
  // The same kind again: its block replaced, not doubled.
  const again = limitsSection({ ...amd, date: 'tomorrow' }, both);
  assert.equal(limitsBlocks(again).size, 2);
  assert.match(limitsBlocks(again).get('AMD EPYC'), /tomorrow/);
  assert.doesNotMatch(limitsBlocks(again).get('AMD EPYC'), /today/);
  // Named with its family and model, a run replaces the block of its bare model name and keeps the others.
  const zen3 = limitsSection({ ...amd, cpu: 'AMD EPYC (family 25, model 1)', date: 'later' }, again);
  assert.deepEqual([...limitsBlocks(zen3).keys()], ['AMD EPYC (family 25, model 1)', 'Intel Xeon']);
  // Another generation of the same line keeps a block of its own.
  const zen4 = limitsSection({ ...amd, cpu: 'AMD EPYC (family 25, model 17)' }, zen3);
  assert.deepEqual([...limitsBlocks(zen4).keys()], ['AMD EPYC (family 25, model 1)', 'AMD EPYC (family 25, model 17)', 'Intel Xeon']);
});

test('cpuModel names the model with its family and model numbers where /proc/cpuinfo has them', () => {
  const zen3 = 'processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 25\nmodel\t\t: 1\nmodel name\t: AMD EPYC\nflags\t\t: fpu sse2\n';
  assert.equal(cpuModel(zen3), 'AMD EPYC (family 25, model 1)');
  // Without the numbers (another architecture): the name alone.
  assert.equal(cpuModel('model name\t: Some CPU\n'), 'Some CPU');
});

test("the training verdict splits the 2-thread step into work on one thread and split work (Amdahl's law)", () => {
  // All split and twice as fast: nothing on one thread, the split work 2× faster.
  const ideal = trainingAmdahl(1000, 2000, 1, 1.9);
  assert.ok(Math.abs(ideal.serial1) < 1e-12 && Math.abs(ideal.splitScale - 2) < 1e-12 && Math.abs(ideal.atTwo - 2) < 1e-12);
  // 1000 → 1500 tokens/s with 60% split: per token T1 = 1 ms, T2 = 0.667 ms, of which
  // 0.267 ms on one thread; the split work took 0.733 ms on one thread and 0.4 ms on two.
  const a = trainingAmdahl(1000, 1500, 0.6, 1.9);
  assert.ok(Math.abs(a.serial1 - 0.8 / 3) < 1e-12);
  assert.ok(Math.abs(a.splitScale - 2.2 / 1.2) < 1e-12);
  assert.ok(Math.abs(a.atTwo - 1 / (0.8 / 3 + 2.2 / 6)) < 1e-12);
  assert.ok(Math.abs(a.atMachine - 1 / (0.8 / 3 + 2.2 / 3 / 1.9)) < 1e-12);
  assert.equal(trainingAmdahl(1000, 1500, undefined, 1.9), null);
  const r = fakeResult({ ortDecode: 10, f32Decode: 9, f16Decode: 8 });
  r.medians['train-native-2'].splitShare = 0.6;
  assert.match(
    limitsSection(r),
    /training, 2 threads ≥ 1\.7× 1 thread \(native\) \| 1\.50× \| missed; one thread's share: on 2 threads 40% of the step's wall time is work that is not split \(27% of the 1-thread step\), and the split work runs 1\.83× faster/,
  );
});
