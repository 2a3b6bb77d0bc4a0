// Where the component's Wasm module comes from: wasm/minimind.mjs next to
// the component's own script (dist/site/minimind-attention.js), fetched on
// first use, or wasm/minimind-threads.mjs in a cross-origin isolated page
// that loads the script from its own origin, or their relaxed twins where
// the browser has relaxed SIMD (web/wasm_runtime.mjs). The
// single-file build replaces this file with module_source_single.mjs
// (scripts/build_site.mjs), which has one thread.
import { plainTwin, runtimeOptions } from '../wasm_runtime.mjs';

/** Options for loadMiniMind(). */
export function moduleSource() {
  return runtimeOptions(import.meta.url);
}

/**
 * Where the files the figure fetches live, for the messages when they do not
 * load: {module: wasm/minimind.mjs (or -threads), wasm: its .wasm, model:
 * models/minimind-demo/} next to the script, as URLs; null for what is inlined.
 */
export function sourceUrls() {
  // The SIMD build's files, the ones a host must serve: a relaxed build that does not load falls back to them.
  const options = moduleSource();
  const module = (plainTwin(options) ?? options).moduleUrl.href;
  return { module, wasm: module.replace(/\.mjs$/, '.wasm'), model: new URL('./models/minimind-demo/', import.meta.url).href };
}
