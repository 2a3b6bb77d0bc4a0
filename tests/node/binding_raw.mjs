// Loads a build through loadMiniMind and keeps its raw Emscripten module, so
// tests can call the bindings directly, past the JS API's own checks.
import { existsSync, readFileSync } from 'node:fs';

import { loadMiniMind } from '../../js/minimind.mjs';

const BASE_NAMES = { simd: 'minimind', scalar: 'minimind-scalar', threads: 'minimind-threads' };

export function builtVariant(variant) {
  return existsSync(new URL(`../../dist/wasm/${BASE_NAMES[variant]}.wasm`, import.meta.url));
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
  const mm = await loadMiniMind({
    variant,
    threads: variant === 'threads' ? 2 : 1,
    moduleFactory,
    wasmBinary: readFileSync(new URL(`${base.href}.wasm`)),
  });
  return { mm, raw };
}
