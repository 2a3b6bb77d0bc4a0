#!/usr/bin/env node
// Writes the static site to dist/site/: the page and its worker bundled by
// esbuild (npm dependencies included), the stylesheet, and the Wasm module.
// The folder works from any static host (serve .wasm as application/wasm).
import { copyFile, mkdir, rm, stat } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const out = `${root}dist/site/`;

for (const file of ['dist/wasm/minimind.mjs', 'dist/wasm/minimind.wasm']) {
  try {
    await stat(`${root}${file}`);
  } catch {
    console.error(`build_site: ${file} is missing; run "npm run build:wasm" first`);
    process.exit(1);
  }
}

await rm(out, { recursive: true, force: true });
await mkdir(`${out}wasm`, { recursive: true });
await build({
  entryPoints: { app: `${root}web/app.mjs`, worker: `${root}web/worker.mjs` },
  outdir: out,
  bundle: true,
  format: 'esm',
  target: 'es2022',
  minify: true,
  sourcemap: true,
  logLevel: 'warning',
  external: ['node:*'], // js/minimind.mjs reads the .wasm file only under Node
});
await copyFile(`${root}web/index.html`, `${out}index.html`);
await copyFile(`${root}web/style.css`, `${out}style.css`);
await copyFile(`${root}dist/wasm/minimind.mjs`, `${out}wasm/minimind.mjs`);
await copyFile(`${root}dist/wasm/minimind.wasm`, `${out}wasm/minimind.wasm`);
console.log(`build_site: wrote ${out}`);
