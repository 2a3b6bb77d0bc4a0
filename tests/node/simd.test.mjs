// The shipped module really uses WASM SIMD: disassemble the builds and count
// 128-bit vector instructions (the scalar build is the contrast); the relaxed
// build multiplies and adds the weight products in one instruction.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

import initWabt from 'wabt';

import { loadMiniMind } from '../../js/minimind.mjs';
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

test('both builds compute the same logits', async () => {
  const [simd, scalar] = await Promise.all([loadMiniMind(), loadMiniMind({ variant: 'scalar' })]);
  const ids = [3, 17, 99, 4, 56];
  const a = simd.createModel({ preset: 'lab-b', seed: 9 });
  const b = scalar.createModel({ preset: 'lab-b', seed: 9 });
  assert.deepEqual(Array.from(a.forward(ids).logits.data), Array.from(b.forward(ids).logits.data));
  a.dispose();
  b.dispose();
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
