// The shipped module really uses WASM SIMD: disassemble the builds and count
// 128-bit vector instructions (the scalar build is the contrast); the relaxed
// build multiplies and adds the weight products in one instruction.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

import initWabt from 'wabt';

import { chooseVariant, defaultThreadCount, loadMiniMind, relaxedSimdSupported } from '../../js/minimind.mjs';
import { keepRuntimeParams, runtimeOptions, workerUrl } from '../../web/wasm_runtime.mjs';
import { VARIANTS } from './variants.mjs';

const wabt = await initWabt();

function vectorOps(file) {
  const bytes = readFileSync(new URL(`../../dist/wasm/${file}`, import.meta.url));
  const module = wabt.readWasm(bytes, { readDebugNames: false, simd: true, exceptions: true, relaxed_simd: true });
  const text = module.toText({});
  module.destroy();
  const counts = {};
  for (const op of text.match(/\b(?:v128|[fi](?:8x16|16x8|32x4|64x2))\.[a-z0-9_]+/g) ?? []) counts[op] = (counts[op] ?? 0) + 1;
  return counts;
}

test('the SIMD build multiplies and adds with f32x4 instructions; the scalar build has none', () => {
  const simd = vectorOps('minimind.wasm');
  const scalar = vectorOps('minimind-scalar.wasm');
  const total = (c) => Object.values(c).reduce((a, b) => a + b, 0);
  console.log(
    `# SIMD build: ${total(simd)} vector instructions (f32x4.mul ${simd['f32x4.mul'] ?? 0}, f32x4.add ${simd['f32x4.add'] ?? 0}); scalar build: ${total(scalar)}`,
  );
  assert.ok((simd['f32x4.mul'] ?? 0) >= 16, `f32x4.mul count ${simd['f32x4.mul']}`);
  assert.ok((simd['f32x4.add'] ?? 0) >= 16, `f32x4.add count ${simd['f32x4.add']}`);
  assert.equal(total(scalar), 0);
});

test('the SIMD and scalar builds compute the same logits; the relaxed build its own, close to them', async () => {
  const [simd, scalar, relaxed] = await Promise.all(['simd', 'scalar', 'relaxed'].map((variant) => loadMiniMind({ variant })));
  const ids = [3, 17, 99, 4, 56];
  const a = simd.createModel({ preset: 'lab-b', seed: 9 });
  const b = scalar.createModel({ preset: 'lab-b', seed: 9 });
  const logits = a.forward(ids).logits.data;
  assert.deepEqual(Array.from(logits), Array.from(b.forward(ids).logits.data));
  // Fused multiply-adds round once: other bits, within float32's precision of the sums.
  const c = relaxed.createModel({ preset: 'lab-b', seed: 9 });
  const fused = c.forward(ids).logits.data;
  const differ = logits.filter((v, i) => v !== fused[i]).length;
  const worst = Math.max(...logits.map((v, i) => Math.abs(v - fused[i]) / Math.max(1, Math.abs(v))));
  console.log(`# relaxed vs SIMD: ${differ} of ${logits.length} logits differ, by at most ${worst.toExponential(2)} (relative)`);
  assert.ok(differ > 0, 'the relaxed build rounds differently somewhere (x86 CPUs with FMA3; one without FMA would give the same bits)');
  assert.ok(worst < 1e-5, `relative difference ${worst}`);
  for (const model of [a, b, c]) model.dispose();
});

test('the relaxed build fuses the weight products into f32x4.relaxed_madd; the SIMD build has none', () => {
  const simd = vectorOps('minimind.wasm');
  const relaxed = vectorOps('minimind-relaxed.wasm');
  const fused = relaxed['f32x4.relaxed_madd'] ?? 0;
  console.log(`# relaxed build: ${fused} f32x4.relaxed_madd`);
  assert.equal(simd['f32x4.relaxed_madd'] ?? 0, 0);
  assert.ok(fused >= 16, `f32x4.relaxed_madd count ${fused}`);
  const others = Object.keys(relaxed).filter((op) => op.includes('relaxed') && op !== 'f32x4.relaxed_madd');
  assert.deepEqual(others, [], 'no other relaxed instruction');
});

test("lesson 11's lab record: the hand-written attention equals the module to the bit in every build", async () => {
  for (const variant of [...VARIANTS, 'scalar']) {
    const mm = await loadMiniMind({ variant });
    for (const preset of ['lab-a', 'lab-b']) {
      assert.match(mm.labRecord(preset), /^manual_vs_module_max_abs_diff=0\.0+$/m, `${variant} ${preset}`);
    }
  }
});

test("'auto' loads the relaxed build where the engine has relaxed SIMD, and the page's workers do too", async () => {
  assert.equal(relaxedSimdSupported(), true, 'tests/node/variants.mjs turned relaxed SIMD on');
  const auto = await loadMiniMind();
  assert.equal(auto.variant, defaultThreadCount() > 1 ? 'relaxed-threads' : 'relaxed');
  assert.deepEqual(
    [1, 2].flatMap((threads) => [true, false].map((relaxed) => chooseVariant(threads, relaxed))),
    ['relaxed', 'simd', 'relaxed-threads', 'threads'],
  );
  // A worker's options: its URL's ?threads and ?variant, and whether the engine has relaxed SIMD.
  const base = 'https://example.org/site/worker.js';
  const file = (options) => `${options.variant} ${options.threads ?? 1} ${options.moduleUrl.pathname}`;
  assert.equal(file(runtimeOptions(`${base}?threads=1`)), 'relaxed 1 /site/wasm/minimind-relaxed.mjs');
  assert.equal(file(runtimeOptions(`${base}?threads=2`)), 'relaxed-threads 2 /site/wasm/minimind-relaxed-threads.mjs');
  assert.equal(file(runtimeOptions(`${base}?threads=2&variant=simd`)), 'threads 2 /site/wasm/minimind-threads.mjs');
  assert.equal(file(runtimeOptions(`${base}?threads=1`, { relaxed: false })), 'simd 1 /site/wasm/minimind.mjs');
  assert.equal(file(runtimeOptions(`${base}?variant=relaxed&threads=1`, { relaxed: false })), 'simd 1 /site/wasm/minimind.mjs');
  assert.equal(file(runtimeOptions(base, { search: '?threads=4&variant=simd', threads: 1 })), 'simd 1 /site/wasm/minimind.mjs');
  // The page hands ?threads and ?variant to its workers, and keeps them in the URL it rewrites.
  assert.equal(
    workerUrl('./worker.js', 'https://example.org/site/app.js', '?text=a&threads=2&variant=simd').search,
    '?threads=2&variant=simd',
  );
  assert.equal(keepRuntimeParams('?text=a', '?text=b&variant=simd&threads=9&variant2=x'), '?text=a&threads=9&variant=simd');
  assert.equal(keepRuntimeParams('', '?variant=gpu'), '');
});

test("the relaxed threads build computes the relaxed build's bits on 2 threads: forward and a training step", async () => {
  const [one, two] = await Promise.all([loadMiniMind({ variant: 'relaxed' }), loadMiniMind({ variant: 'relaxed-threads', threads: 2 })]);
  assert.deepEqual([one.threads, two.threads, two.variant], [1, 2, 'relaxed-threads']);
  // Big enough that products split across the threads (the output head: 64 rows × 6400 × 128).
  const config = { hidden_size: 128, num_hidden_layers: 2, num_attention_heads: 4, num_key_value_heads: 2, vocab_size: 6400 };
  const data = Array.from({ length: 8 }, (_, k) => Array.from({ length: 65 }, (_, i) => 3 + ((i * 31 + k * 17) % 6397)));
  const [a, b] = [one, two].map((mm) => mm.createModel({ config, seed: 4 }));
  const ids = data[0].slice(0, 64);
  assert.deepEqual(Array.from(b.forward(ids).logits.data), Array.from(a.forward(ids).logits.data));
  const [ta, tb] = [a, b].map((m) => m.trainer({ data, maxSeqLen: 64, batchSize: 4, order: 'file' }));
  const [sa, sb] = [ta.step(), tb.step()];
  assert.deepEqual([sb.loss, sb.gradNorm], [sa.loss, sa.gradNorm]);
  assert.deepEqual(Array.from(b.forward(ids).logits.data), Array.from(a.forward(ids).logits.data), 'after the step');
  for (const x of [ta, tb, a, b]) x.dispose();
});
