// Where the trained model's files come from: models/minimind-demo/ next to
// the script that imports this (dist/site/: the page's worker, the element),
// fetched once. The single-file element replaces this file with
// component/demo_source_single.mjs, which has them inlined
// (scripts/build_site.mjs).

const FOLDER = new URL('./models/minimind-demo/', import.meta.url);
let loading = null;

async function fetchOk(name) {
  const response = await fetch(new URL(name, FOLDER));
  if (!response.ok) throw new Error(`models/minimind-demo/${name}: HTTP ${response.status}`);
  return response;
}

// The weights with their progress (about 5 MB; a compressed response's
// length is not the bytes', so the fraction is capped).
async function readWeights(onProgress) {
  const response = await fetchOk('model.safetensors');
  const size = Number(response.headers.get('content-length')) || 0;
  if (!response.body || !size || !onProgress) return new Uint8Array(await response.arrayBuffer());
  const chunks = [];
  let received = 0;
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    received += value.length;
    onProgress(Math.min(1, received / size));
  }
  const bytes = new Uint8Array(received);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.length;
  }
  return bytes;
}

/**
 * {config: text, weights: Uint8Array, tokenizer: text, heads: object} of the
 * trained model; onProgress(fraction) while the weights arrive.
 */
export function demoFiles(onProgress) {
  loading ??= Promise.all([
    fetchOk('config.json').then((r) => r.text()),
    readWeights(onProgress),
    fetchOk('tokenizer.json').then((r) => r.text()),
    fetchOk('heads.json').then((r) => r.json()),
  ])
    .then(([config, weights, tokenizer, heads]) => ({ config, weights, tokenizer, heads }))
    .catch((error) => {
      loading = null; // a failed download can be tried again
      throw error;
    });
  return loading;
}
