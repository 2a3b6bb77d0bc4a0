#!/usr/bin/env node
// Writes the static site to dist/site/: the page and its worker bundled by
// esbuild (npm dependencies included), the stylesheet, the Wasm module, and
// the embeddable <minimind-attention> component twice:
//   minimind-attention.js         loads wasm/minimind.mjs next to itself on first use
//   minimind-attention.single.js  the Wasm inlined (dist/wasm/minimind-single.mjs): one file to host
// and the gallery (gallery.html, gallery.js, gallery.css): every lesson example as a live figure.
// The folder works from any static host (serve .wasm as application/wasm).
import { copyFile, mkdir, readFile, rm, stat } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const out = `${root}dist/site/`;

const inputs = {
  'dist/wasm/minimind.mjs': 'npm run build:wasm',
  'dist/wasm/minimind.wasm': 'npm run build:wasm',
  'dist/wasm/minimind-single.mjs': 'bash scripts/build.sh wasm minimind_wasm_single',
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

// The single-file component takes its module from the bundle, not from a URL.
const inlineWasm = {
  name: 'inline-wasm',
  setup(pluginBuild) {
    pluginBuild.onResolve({ filter: /\/module_source\.mjs$/ }, () => ({ path: `${root}web/component/module_source_single.mjs` }));
  },
};

await rm(out, { recursive: true, force: true });
await mkdir(`${out}wasm`, { recursive: true });
await build({
  ...common,
  entryPoints: { app: `${root}web/app.mjs`, worker: `${root}web/worker.mjs`, gallery: `${root}web/gallery.mjs` },
  outdir: out,
  sourcemap: true,
});
const component = `${root}web/component/minimind_attention.mjs`;
await build({ ...common, entryPoints: [component], outfile: `${out}minimind-attention.js`, sourcemap: true });
await build({ ...common, entryPoints: [component], outfile: `${out}minimind-attention.single.js`, plugins: [inlineWasm] });
await copyFile(`${root}web/index.html`, `${out}index.html`);
await copyFile(`${root}web/theme.css`, `${out}theme.css`);
await copyFile(`${root}web/style.css`, `${out}style.css`);
await copyFile(`${root}web/gallery.html`, `${out}gallery.html`);
await copyFile(`${root}web/gallery.css`, `${out}gallery.css`);
await copyFile(`${root}dist/wasm/minimind.mjs`, `${out}wasm/minimind.mjs`);
await copyFile(`${root}dist/wasm/minimind.wasm`, `${out}wasm/minimind.wasm`);

const kib = (bytes) => `${(bytes / 1024).toFixed(0)} KiB`;
for (const file of ['minimind-attention.js', 'minimind-attention.single.js', 'gallery.js']) {
  const bytes = await readFile(`${out}${file}`);
  console.log(`build_site: ${file} ${kib(bytes.length)} (gzip ${kib(gzipSync(bytes, { level: 9 }).length)})`);
}
console.log(`build_site: wrote ${out}`);
