// The one-thread builds the golden tests hold to PyTorch: the SIMD build and
// the relaxed one (fused multiply-adds in the weight products), which the
// page and the API pick wherever the engine has relaxed SIMD. Node 20 has it
// behind a V8 flag (on by default from Node 22); it is set here, before any
// module compiles, so that the relaxed build is tested however the tests run.
import v8 from 'node:v8';

import { loadMiniMind, relaxedSimdSupported } from '../../js/minimind.mjs';

if (!relaxedSimdSupported()) v8.setFlagsFromString('--experimental-wasm-relaxed-simd');

export const VARIANTS = ['simd', 'relaxed'];

/** Each variant's module: [[variant, MiniMind]], in VARIANTS' order. */
export async function loadVariants() {
  return Promise.all(VARIANTS.map(async (variant) => [variant, await loadMiniMind({ variant })]));
}
