// The shipped module really uses WASM SIMD: disassemble both builds and count
// 128-bit vector instructions (the scalar build is the contrast).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

import initWabt from 'wabt';

const wabt = await initWabt();

function vectorOps(file) {
  const bytes = readFileSync(new URL(`../../dist/wasm/${file}`, import.meta.url));
  const module = wabt.readWasm(bytes, { readDebugNames: false, simd: true, exceptions: true });
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
  const { loadMiniMind } = await import('../../js/minimind.mjs');
  const [simd, scalar] = await Promise.all([loadMiniMind(), loadMiniMind({ variant: 'scalar' })]);
  const ids = [3, 17, 99, 4, 56];
  const a = simd.createModel({ preset: 'lab-b', seed: 9 });
  const b = scalar.createModel({ preset: 'lab-b', seed: 9 });
  assert.deepEqual(Array.from(a.forward(ids).logits.data), Array.from(b.forward(ids).logits.data));
  a.dispose();
  b.dispose();
});
