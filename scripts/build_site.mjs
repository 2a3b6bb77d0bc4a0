#!/usr/bin/env node
// Writes the static site to dist/site/: the page and its worker bundled by
// esbuild (npm dependencies included), the stylesheet, the Wasm module, the
// trained model (models/minimind-demo/: config, weights, tokenizer, heads.json, corpus_stats.json, see
// siteDemoFile; MODEL_CARD.md and loss_curve.svg as they are)
// and the embeddable <minimind-attention> component twice:
//   minimind-attention.js         loads wasm/minimind.mjs (or its relaxed or threads twin) and models/minimind-demo/
//                                 next to itself on first use
//   minimind-attention.single.js  the Wasm (dist/wasm/minimind-single.mjs) and the trained model inlined: one file to host,
//                                 a classic script (an IIFE without import.meta) that also works as type="module"
//                                 and from a page opened from disk (file://); the package's "./element"
// and the gallery (gallery.html, gallery.js, gallery.css): every lesson example as a live figure.
// The Train panel's worker is train_worker.js; its "lessons' sentences" are examples/pretrain_tiny.jsonl.
// The folder works from any static host (serve .wasm as application/wasm).
import { copyFile, mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const out = `${root}dist/site/`;

const DEMO_FILES = ['config.json', 'model.safetensors', 'tokenizer.json', 'heads.json', 'corpus_stats.json'];
// The model card the page links (its corpus and training, with its loss curve), copied as they are.
const DEMO_CARD = ['MODEL_CARD.md', 'loss_curve.svg'];
// The demo model's training timeline (scripts/demo_timeline.mjs), which the Train panel opens as "how this model learned".
const DEMO_TIMELINE = 'timeline.json';
// The induction recipe's run's timeline (scripts/recipe_timeline.mjs), which the panel opens beside it.
const RECIPE_TIMELINE = 'models/timelines/induction.json';
// The pthreads builds, which the page's workers load when the page is cross-origin isolated.
const THREADS_FILES = ['minimind-threads', 'minimind-relaxed-threads'].flatMap((name) => [
  `${name}.mjs`,
  `${name}.wasm`,
  `${name}.worker.js`,
]);
// The one-thread builds: SIMD, and its relaxed twin where the browser has relaxed SIMD.
const ONE_THREAD_FILES = ['minimind.mjs', 'minimind.wasm', 'minimind-relaxed.mjs', 'minimind-relaxed.wasm'];
const inputs = {
  ...Object.fromEntries(ONE_THREAD_FILES.map((name) => [`dist/wasm/${name}`, 'npm run build:wasm'])),
  'dist/wasm/minimind-single.mjs': 'bash scripts/build.sh wasm minimind_wasm_single',
  ...Object.fromEntries(THREADS_FILES.map((name) => [`dist/wasm/${name}`, 'npm run build:wasm-threads'])),
  ...Object.fromEntries([...DEMO_FILES, ...DEMO_CARD].map((name) => [`models/minimind-demo/${name}`, 'npm run train:demo'])),
  [`models/minimind-demo/${DEMO_TIMELINE}`]: 'node scripts/replay_demo.mjs --all --write-timeline',
  [RECIPE_TIMELINE]: 'node scripts/recipe_timeline.mjs --write',
};
for (const [file, command] of Object.entries(inputs)) {
  try {
    await stat(`${root}${file}`);
  } catch {
    console.error(`build_site: ${file} is missing; run "${command}" first`);
    process.exit(1);
  }
}

const common = {
  bundle: true,
  format: 'esm',
  target: 'es2022',
  minify: true,
  logLevel: 'warning',
  external: ['node:*'], // js/minimind.mjs reads the .wasm file only under Node
};

// The trained model's files as the site and the single-file bundle hold
// them: JSON without its whitespace, and model.safetensors without
// lm_head.weight when it is the tied embedding's byte-for-byte copy
// (MiniMind's state_dict keeps both; the core ties them itself): the same
// model, a third fewer bytes for every reader to download.
async function siteDemoFile(name) {
  const bytes = await readFile(`${root}models/minimind-demo/${name}`);
  if (name.endsWith('.json')) return JSON.stringify(JSON.parse(bytes.toString('utf8')));
  const config = JSON.parse(await readFile(`${root}models/minimind-demo/config.json`, 'utf8'));
  const headerLength = Number(bytes.readBigUInt64LE(0));
  const header = JSON.parse(bytes.subarray(8, 8 + headerLength).toString('utf8'));
  const data = (entry) => bytes.subarray(8 + headerLength + entry.data_offsets[0], 8 + headerLength + entry.data_offsets[1]);
  const head = header['lm_head.weight'];
  const embedding = header['model.embed_tokens.weight'];
  if (config.tie_word_embeddings === false || !head || !embedding || !data(head).equals(data(embedding))) return bytes;
  const kept = {};
  const chunks = [];
  let offset = 0;
  for (const [key, entry] of Object.entries(header)) {
    if (key === 'lm_head.weight') continue;
    if (key === '__metadata__') {
      kept[key] = entry;
      continue;
    }
    const chunk = data(entry);
    kept[key] = { ...entry, data_offsets: [offset, offset + chunk.length] };
    chunks.push(chunk);
    offset += chunk.length;
  }
  const json = Buffer.from(JSON.stringify(kept));
  const length = Buffer.alloc(8);
  length.writeBigUInt64LE(BigInt(json.length));
  return Buffer.concat([length, json, ...chunks]);
}

// The single-file component takes its module and the trained model from the
// bundle, not from URLs: `demo-file:NAME` is models/minimind-demo/NAME, the
// weights as bytes (base64 in the bundle), the rest as text.
const inlineFiles = {
  name: 'inline-files',
  setup(pluginBuild) {
    pluginBuild.onResolve({ filter: /\/module_source\.mjs$/ }, () => ({ path: `${root}web/component/module_source_single.mjs` }));
    pluginBuild.onResolve({ filter: /\/demo_source\.mjs$/ }, () => ({ path: `${root}web/component/demo_source_single.mjs` }));
    pluginBuild.onResolve({ filter: /^demo-file:/ }, ({ path }) => ({ path: path.slice('demo-file:'.length), namespace: 'demo-file' }));
    pluginBuild.onLoad({ filter: /.*/, namespace: 'demo-file' }, async ({ path }) => {
      if (!DEMO_FILES.includes(path)) return { errors: [{ text: `models/minimind-demo/${path} is not one of the trained model's files` }] };
      return { contents: await siteDemoFile(path), loader: path.endsWith('.safetensors') ? 'binary' : 'text' };
    });
  },
};

await rm(out, { recursive: true, force: true });
await mkdir(`${out}wasm`, { recursive: true });
await build({
  ...common,
  entryPoints: {
    app: `${root}web/app.mjs`,
    worker: `${root}web/worker.mjs`,
    train_worker: `${root}web/train_worker.mjs`,
    gallery: `${root}web/gallery.mjs`,
  },
  outdir: out,
  sourcemap: true,
});
const component = `${root}web/component/minimind_attention.mjs`;
await build({ ...common, entryPoints: [component], outfile: `${out}minimind-attention.js`, sourcemap: true });
// The single file is a classic script, so that `<script src>` works where
// module scripts do not (a page opened from disk: file:// gives module scripts
// no origin to load from) and in any host page; it runs as type="module" too.
// A classic script has no import.meta: script_url.mjs gives the script's URL
// instead.
const single = `${out}minimind-attention.single.js`;
await build({
  ...common,
  format: 'iife',
  entryPoints: [component],
  outfile: single,
  plugins: [inlineFiles],
  inject: [`${root}web/component/script_url.mjs`],
  define: { 'import.meta.url': 'scriptUrl' },
});
if ((await readFile(single, 'latin1')).includes('import.meta')) {
  console.error('build_site: minimind-attention.single.js still uses import.meta, which a classic script cannot');
  process.exit(1);
}
await copyFile(`${root}web/index.html`, `${out}index.html`);
await copyFile(`${root}web/theme.css`, `${out}theme.css`);
await copyFile(`${root}web/style.css`, `${out}style.css`);
await copyFile(`${root}web/gallery.html`, `${out}gallery.html`);
await copyFile(`${root}web/gallery.css`, `${out}gallery.css`);
for (const name of ONE_THREAD_FILES) await copyFile(`${root}dist/wasm/${name}`, `${out}wasm/${name}`);
for (const name of THREADS_FILES) await copyFile(`${root}dist/wasm/${name}`, `${out}wasm/${name}`);
await mkdir(`${out}models/minimind-demo`, { recursive: true });
for (const name of DEMO_FILES) await writeFile(`${out}models/minimind-demo/${name}`, await siteDemoFile(name));
for (const name of DEMO_CARD) await copyFile(`${root}models/minimind-demo/${name}`, `${out}models/minimind-demo/${name}`);
await writeFile(`${out}models/minimind-demo/${DEMO_TIMELINE}`, await siteDemoFile(DEMO_TIMELINE));
await mkdir(`${out}models/timelines`, { recursive: true });
await writeFile(`${out}${RECIPE_TIMELINE}`, JSON.stringify(JSON.parse(await readFile(`${root}${RECIPE_TIMELINE}`, 'utf8'))));
await mkdir(`${out}examples`, { recursive: true });
await copyFile(`${root}docs/examples/pretrain_tiny.jsonl`, `${out}examples/pretrain_tiny.jsonl`);

const kib = (bytes) => (bytes >= 1 << 20 ? `${(bytes / 2 ** 20).toFixed(1)} MiB` : `${(bytes / 1024).toFixed(0)} KiB`);
for (const file of ['minimind-attention.js', 'minimind-attention.single.js', 'gallery.js']) {
  const bytes = await readFile(`${out}${file}`);
  console.log(`build_site: ${file} ${kib(bytes.length)} (gzip ${kib(gzipSync(bytes, { level: 9 }).length)})`);
}
console.log(`build_site: wrote ${out}`);
