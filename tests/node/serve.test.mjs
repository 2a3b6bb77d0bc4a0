// scripts/serve.mjs, the server of npm start and the browser tests: its
// headers, its refusals, and the 304 that lets a reload reuse what the
// browser cached (the bytes and the Wasm code compiled from them).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';

import { serve } from '../../scripts/serve.mjs';

let root;
let server;

before(async () => {
  root = mkdtempSync(join(tmpdir(), 'minimind-serve-'));
  writeFileSync(join(root, 'index.html'), '<!doctype html><title>x</title>');
  writeFileSync(join(root, 'm.wasm'), Buffer.from([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]));
  server = await serve(root);
});

after(async () => {
  await server?.close();
  if (root) rmSync(root, { recursive: true, force: true });
});

test('a file comes with its type, length, CORS and isolation headers, and a validator', async () => {
  const response = await fetch(`${server.url}m.wasm`);
  assert.equal(response.status, 200);
  assert.equal(response.headers.get('content-type'), 'application/wasm');
  assert.equal(response.headers.get('content-length'), '8');
  assert.equal(response.headers.get('access-control-allow-origin'), '*');
  assert.equal(response.headers.get('cross-origin-opener-policy'), 'same-origin');
  assert.equal(response.headers.get('cross-origin-embedder-policy'), 'require-corp');
  assert.equal(response.headers.get('cache-control'), 'no-cache');
  assert.match(response.headers.get('etag'), /^"[0-9a-z]+-[0-9a-z]+"$/);
  assert.equal((await response.arrayBuffer()).byteLength, 8);
});

test('an unchanged file is answered 304 with no body; a changed one 200 with its new bytes', async () => {
  const first = await fetch(`${server.url}index.html`);
  const etag = first.headers.get('etag');
  await first.text();
  const again = await fetch(`${server.url}index.html`, { headers: { 'If-None-Match': etag } });
  assert.equal(again.status, 304);
  assert.equal(again.headers.get('etag'), etag);
  assert.equal(again.headers.get('cross-origin-opener-policy'), 'same-origin', 'a 304 keeps the isolation headers');
  assert.equal(await again.text(), '');
  // Same length, new bytes and a new time: the validator changes.
  writeFileSync(join(root, 'index.html'), '<!doctype html><title>y</title>');
  const later = new Date(Date.now() + 5000);
  utimesSync(join(root, 'index.html'), later, later);
  const changed = await fetch(`${server.url}index.html`, { headers: { 'If-None-Match': etag } });
  assert.equal(changed.status, 200);
  assert.notEqual(changed.headers.get('etag'), etag);
  assert.equal(await changed.text(), '<!doctype html><title>y</title>');
});

test('a folder serves its index.html; missing files, paths out of the root and other methods are refused', async () => {
  const index = await fetch(server.url);
  assert.equal(index.status, 200);
  assert.equal(index.headers.get('content-type'), 'text/html; charset=utf-8');
  await index.text();
  const missing = await fetch(`${server.url}nothing.js`);
  assert.equal(missing.status, 404);
  assert.match(await missing.text(), /not found: \/nothing\.js/);
  const outside = await fetch(`${server.url}%2e%2e/%2e%2e/etc/passwd`);
  assert.ok([403, 404].includes(outside.status), `${outside.status}`);
  await outside.text();
  const post = await fetch(`${server.url}index.html`, { method: 'POST', body: 'x' });
  assert.equal(post.status, 405);
  assert.equal(post.headers.get('allow'), 'GET, HEAD');
});

test('--no-isolation leaves the isolation headers out and keeps CORS', async () => {
  const plain = await serve(root, { isolate: false });
  try {
    const response = await fetch(`${plain.url}index.html`);
    await response.text();
    assert.equal(response.headers.get('cross-origin-opener-policy'), null);
    assert.equal(response.headers.get('access-control-allow-origin'), '*');
  } finally {
    await plain.close();
  }
});
