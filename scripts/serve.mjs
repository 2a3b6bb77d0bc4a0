#!/usr/bin/env node
// A static file server for the playground and the browser tests: GET/HEAD
// only, files under one root, .wasm served as application/wasm (streaming
// compilation needs it), loopback only. Every response may be read from any
// origin (Access-Control-Allow-Origin: *, Cross-Origin-Resource-Policy:
// cross-origin), so that a course page served elsewhere can load
// <minimind-attention>, its Wasm module and the trained model from here:
// module scripts, dynamic imports and fetches across origins need CORS.
// Pages are also cross-origin isolated (COOP same-origin + COEP require-corp,
// and Document-Isolation-Policy for an embedded view where the browser has
// it), so that the page's workers may run the pthreads Wasm build;
// --no-isolation leaves those headers out (the one-thread build then runs).
//   node scripts/serve.mjs [root] [--port N] [--find-free-port] [--no-isolation]
//   (port 0: any free port; --find-free-port: N, or the next free one)
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createServer } from 'node:http';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

// Sent with every response (the files hold nothing private).
const EVERY = { 'Access-Control-Allow-Origin': '*', 'Cross-Origin-Resource-Policy': 'cross-origin' };

// What makes a page cross-origin isolated (SharedArrayBuffer, so Wasm threads).
const ISOLATION = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
  'Document-Isolation-Policy': 'isolate-and-require-corp',
};

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
  '.safetensors': 'application/octet-stream',
};

/** Starts serving `root`; resolves to {url, close()}. isolate: false leaves out the cross-origin isolation headers. */
export function serve(root, { port = 0, host = '127.0.0.1', isolate = true } = {}) {
  const base = resolve(root);
  const SHARED = isolate ? { ...EVERY, ...ISOLATION } : EVERY;
  const server = createServer(async (request, response) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.writeHead(405, { ...SHARED, Allow: 'GET, HEAD' }).end();
      return;
    }
    let path;
    try {
      path = decodeURIComponent(new URL(request.url, 'http://localhost').pathname);
    } catch {
      response.writeHead(400, SHARED).end('bad request');
      return;
    }
    let file = normalize(join(base, path));
    if (file !== base && !file.startsWith(base + sep)) {
      response.writeHead(403, SHARED).end('forbidden');
      return;
    }
    try {
      let info = await stat(file);
      if (info.isDirectory()) {
        file = join(file, 'index.html');
        info = await stat(file);
      }
      // no-cache: the browser asks every time, and an unchanged file is
      // answered 304 (by its size and time), so a reload reuses the cached
      // bytes and the Wasm code the browser compiled from them.
      const etag = `"${info.size.toString(36)}-${Math.round(info.mtimeMs).toString(36)}"`;
      const headers = { ...SHARED, 'Cache-Control': 'no-cache', ETag: etag };
      if (request.headers['if-none-match'] === etag) {
        response.writeHead(304, headers).end();
        return;
      }
      response.writeHead(200, {
        ...headers,
        'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream',
        'Content-Length': info.size,
      });
      if (request.method === 'HEAD') response.end();
      else createReadStream(file).pipe(response);
    } catch {
      response.writeHead(404, { ...SHARED, 'Content-Type': 'text/plain; charset=utf-8' }).end(`not found: ${path}`);
    }
  });
  return new Promise((resolvePromise, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const { port: actual } = server.address();
      resolvePromise({ url: `http://${host}:${actual}/`, close: () => new Promise((done) => server.close(done)) });
    });
  });
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const portIndex = args.indexOf('--port');
  const port = portIndex >= 0 ? Number(args[portIndex + 1]) : 8080;
  const root = args.find((a, i) => !a.startsWith('--') && i !== portIndex + 1) ?? '.';
  const tries = args.includes('--find-free-port') ? 20 : 1;
  for (let k = 0; k < tries; k += 1) {
    try {
      const { url } = await serve(root, { port: port + k, isolate: !args.includes('--no-isolation') });
      console.log(`MiniMind Playground: ${url}  (Ctrl+C to stop)`);
      break;
    } catch (error) {
      if (error.code !== 'EADDRINUSE' || k === tries - 1) {
        console.error(`serve: cannot listen on port ${port + k}: ${error.message}`);
        process.exit(1);
      }
    }
  }
}
