// The bench's agreement check (bench/speed/agreement.mjs) on real models: it refuses
// the presets' U(-1, 1) embedding (every position predicts its own token),
// accepts the same preset seeded at MiniMind's scale, and fails on logits
// that differ by more than its tolerance.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { LOGIT_TOLERANCE, checkAgreement, selfPrediction } from '../../bench/speed/agreement.mjs';
import { loadMiniMind } from '../../js/minimind.mjs';
import './variants.mjs'; // relaxed SIMD on in Node 20

const mm = await loadMiniMind({ variant: 'simd' });

function logitsOf(init, weightStorage, ids) {
  const model = mm.createModel({ preset: 'lab-a', seed: 0, init, weightStorage });
  try {
    const { logits } = model.forward(ids);
    return { data: Float32Array.from(logits.data), V: logits.shape[2] };
  } finally {
    model.dispose();
  }
}

const maxAbs = (a) => a.reduce((m, x) => Math.max(m, Math.abs(x)), 0);
const maxAbsDiff = (a, b) => a.reduce((m, x, i) => Math.max(m, Math.abs(x - b[i])), 0);

function check(ours, other, ids, V) {
  const diff = maxAbsDiff(ours, other);
  return {
    T: ids.length,
    ortVsSimd: diff,
    nativeVsSimd: diff,
    scalarVsSimd: 0,
    f32VsSimd: 0,
    logitScale: maxAbs(ours),
    selfPrediction: selfPrediction(ours, ids, V),
  };
}

test('the presets’ U(-1, 1) embedding is refused: each position predicts its own token', () => {
  const ids = Array.from({ length: 64 }, (_, i) => (i * 37 + 5) % 128);
  const { data, V } = logitsOf('playground', 'narrowest', ids);
  assert.ok(selfPrediction(data, ids, V) > 0.9, `${selfPrediction(data, ids, V)}`);
  assert.throws(() => checkAgreement('lab-a', check(data, data, ids, V)), /own token at \d+% of the positions/);
});

test('MiniMind’s scale passes; float32 storage is bit-identical; a logit moved past the tolerance fails', () => {
  const ids = Array.from({ length: 64 }, (_, i) => (i * 37 + 5) % 128);
  const f16 = logitsOf('minimind', 'narrowest', ids);
  const f32 = logitsOf('minimind', 'float32', ids);
  const base = check(f16.data, f32.data, ids, f16.V);
  assert.equal(base.ortVsSimd, 0);
  assert.ok(base.selfPrediction <= 0.5, `${base.selfPrediction}`);
  checkAgreement('lab-a', base);
  const moved = Float32Array.from(f16.data);
  moved[1234] += 2 * LOGIT_TOLERANCE * base.logitScale;
  assert.throws(() => checkAgreement('lab-a', check(f16.data, moved, ids, f16.V)), /ort-web's logits differ/);
  const within = Float32Array.from(f16.data);
  within[1234] += 0.5 * LOGIT_TOLERANCE * base.logitScale;
  checkAgreement('lab-a', check(f16.data, within, ids, f16.V));
  assert.throws(() => checkAgreement('lab-a', { ...base, scalarVsSimd: 1e-7 }), /not bit-identical/);
});

test('the relaxed build passes within the tolerance on real logits and fails past it', async () => {
  const ids = Array.from({ length: 64 }, (_, i) => (i * 37 + 5) % 128);
  const simd = logitsOf('minimind', 'narrowest', ids);
  const relaxedModule = await loadMiniMind({ variant: 'relaxed' });
  const model = relaxedModule.createModel({ preset: 'lab-a', seed: 0, init: 'minimind' });
  const relaxed = Float32Array.from(model.forward(ids).logits.data);
  model.dispose();
  const base = { ...check(simd.data, simd.data, ids, simd.V), relaxedVsSimd: maxAbsDiff(simd.data, relaxed) };
  // Fused multiply-adds round once: close to the SIMD build, not the same bits.
  assert.ok(base.relaxedVsSimd > 0, 'the relaxed build differs somewhere');
  checkAgreement('lab-a', base);
  assert.throws(
    () => checkAgreement('lab-a', { ...base, relaxedVsSimd: 2 * LOGIT_TOLERANCE * base.logitScale }),
    /wasm-relaxed's logits differ from wasm-simd's/,
  );
});
