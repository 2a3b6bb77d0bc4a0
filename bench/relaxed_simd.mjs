// Relaxed SIMD for the benches. The relaxed builds (dist/wasm/minimind-relaxed.*,
// build/bench-wasm's *_relaxed.js) use f32x4.relaxed_madd, which Node 22 runs
// as shipped and Node 20 only behind a V8 flag. Importing this module turns
// the flag on in this process where it is needed, before any module
// compiles; NODE_FLAGS are the flags a child node process needs for the same.
import v8 from 'node:v8';

import { relaxedSimdSupported } from '../js/minimind.mjs';

const FLAG = '--experimental-wasm-relaxed-simd';
const native = relaxedSimdSupported();
if (!native) v8.setFlagsFromString(FLAG);

/** Whether this process can now run the relaxed builds. */
export const RELAXED_AVAILABLE = relaxedSimdSupported();

/** Node flags a child process needs to run the relaxed builds (none where Node has relaxed SIMD on). */
export const NODE_FLAGS = Object.freeze(native ? [] : [FLAG]);
