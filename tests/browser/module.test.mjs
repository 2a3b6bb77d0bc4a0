// The Wasm module and the JS API in a real browser (headless Chromium): it
// loads from a plain static server with no options and computes what it
// computes under Node.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { loadMiniMind } from '../../js/minimind.mjs';
import { serve } from '../../scripts/serve.mjs';
import { launchBrowser, openPage } from './browser.mjs';

let server;
let browser;

before(async () => {
  server = await serve(new URL('../../', import.meta.url).pathname);
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.close();
});

test('the module loads in Chromium and gives the same logits and attention as in Node', async () => {
  const { page, errors } = await openPage(browser.context, `${server.url}tests/browser/blank.html`);
  const inBrowser = await page.evaluate(async () => {
    const { loadMiniMind } = await import('/js/minimind.mjs');
    const mm = await loadMiniMind();
    const model = mm.createModel({ preset: 'lab-b', seed: 3 });
    const { logits, trace } = model.forward([3, 4, 5, 6, 7], { trace: { layers: [1], stages: ['attn_weights'] } });
    let caught = null;
    try {
      model.forward([1000]);
    } catch (error) {
      caught = `${error.constructor.name} (${error.kind}): ${error.message}`;
    }
    const after = model.forward([3]).logits.shape;
    model.dispose();
    return { logits: Array.from(logits.data), attention: Array.from(trace.get(1, 'attn_weights').data), caught, after };
  });
  const mm = await loadMiniMind();
  const model = mm.createModel({ preset: 'lab-b', seed: 3 });
  const { logits, trace } = model.forward([3, 4, 5, 6, 7], { trace: { layers: [1], stages: ['attn_weights'] } });
  model.dispose();
  assert.deepEqual(inBrowser.logits, Array.from(logits.data));
  assert.deepEqual(inBrowser.attention, Array.from(trace.get(1, 'attn_weights').data));
  assert.equal(inBrowser.caught, 'MiniMindError (token_id.out_of_range): token id 1000 at position 0 is outside the vocabulary (0..127)');
  assert.deepEqual(inBrowser.after, [1, 1, 128]);
  assert.deepEqual(errors, []);
  await page.close();
});

test('.wasm is served as application/wasm (streaming compilation)', async () => {
  const response = await fetch(`${server.url}dist/wasm/minimind.wasm`);
  assert.equal(response.headers.get('content-type'), 'application/wasm');
  assert.equal((await fetch(`${server.url}../etc/passwd`)).status, 404);
});
