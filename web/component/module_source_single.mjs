// The single-file build's Wasm module: the Emscripten module with the .wasm
// inlined (dist/wasm/minimind-single.mjs, SINGLE_FILE), bundled into the
// component's script, so nothing else has to be hosted.
import createMiniMindModule from '../../dist/wasm/minimind-single.mjs';

/** Options for loadMiniMind(). */
export function moduleSource() {
  return { moduleFactory: createMiniMindModule };
}

/** As module_source.mjs: nothing is fetched, the module and the model are inside the script. */
export function sourceUrls() {
  return { module: null, wasm: null, model: null };
}
