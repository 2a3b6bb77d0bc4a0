// Where the component's Wasm module comes from: wasm/minimind.mjs next to
// the component's own script (dist/site/minimind-attention.js), fetched on
// first use. The single-file build replaces this file with
// module_source_single.mjs (scripts/build_site.mjs).

/** Options for loadMiniMind(). */
export function moduleSource() {
  return { moduleUrl: new URL('./wasm/minimind.mjs', import.meta.url) };
}
