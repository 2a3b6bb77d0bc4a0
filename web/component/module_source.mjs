// Where the component's Wasm module comes from: wasm/minimind.mjs next to
// the component's own script (dist/site/minimind-attention.js), fetched on
// first use. The single-file build replaces this file with
// module_source_single.mjs (scripts/build_site.mjs).

/** Options for loadMiniMind(). */
export function moduleSource() {
  return { moduleUrl: new URL('./wasm/minimind.mjs', import.meta.url) };
}

/**
 * Where the files the figure fetches live, for the messages when they do not
 * load: {module: wasm/minimind.mjs, wasm: wasm/minimind.wasm, model:
 * models/minimind-demo/} next to the script, as URLs; null for what is inlined.
 */
export function sourceUrls() {
  const url = (path) => new URL(path, import.meta.url).href;
  return { module: url('./wasm/minimind.mjs'), wasm: url('./wasm/minimind.wasm'), model: url('./models/minimind-demo/') };
}
