// Loads a build through loadMiniMind and keeps its raw Emscripten module, so
// tests can call the bindings directly, past the JS API's own checks.
import { existsSync, readFileSync } from 'node:fs';

import { loadMiniMind } from '../../js/minimind.mjs';

const BASE_NAMES = {
  simd: 'minimind',
  relaxed: 'minimind-relaxed',
  scalar: 'minimind-scalar',
  threads: 'minimind-threads',
  'relaxed-threads': 'minimind-relaxed-threads',
  single: 'minimind-single',
};
// The single-file component's build: the SIMD build with its Wasm inlined in
// the .mjs (no .wasm file), loaded as the SIMD variant.
const INLINED = new Set(['single']);

export function builtVariant(variant) {
  const extension = INLINED.has(variant) ? 'mjs' : 'wasm';
  return existsSync(new URL(`../../dist/wasm/${BASE_NAMES[variant]}.${extension}`, import.meta.url));
}

// -> {mm, raw}: the MiniMind object and the module whose bindings it calls.
export async function loadRaw(variant) {
  const base = new URL(`../../dist/wasm/${BASE_NAMES[variant]}`, import.meta.url);
  const factory = (await import(`${base.href}.mjs`)).default;
  let raw;
  const moduleFactory = async (options) => {
    raw = await factory(options);
    // The pool's workers must not keep the test process alive.
    for (const worker of raw.PThread?.unusedWorkers ?? []) worker.unref?.();
    return raw;
  };
  const threaded = variant === 'threads' || variant === 'relaxed-threads';
  const mm = await loadMiniMind({
    variant: INLINED.has(variant) ? 'simd' : variant,
    threads: threaded ? 2 : 1,
    moduleFactory,
    ...(INLINED.has(variant) ? {} : { wasmBinary: readFileSync(new URL(`${base.href}.wasm`)) }),
  });
  return { mm, raw };
}
