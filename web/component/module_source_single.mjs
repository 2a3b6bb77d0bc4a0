// The single-file build's Wasm module: the Emscripten module with the .wasm
// inlined (dist/wasm/minimind-single.mjs, SINGLE_FILE), bundled into the
// component's script, so nothing else has to be hosted.
import createMiniMindModule from '../../dist/wasm/minimind-single.mjs';

/** Options for loadMiniMind(). */
export function moduleSource() {
  return { moduleFactory: createMiniMindModule };
}
