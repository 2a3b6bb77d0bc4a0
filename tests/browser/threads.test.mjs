// Threads in the page: npm start's server makes the page cross-origin
// isolated, so its workers run the pthreads build (?threads=N, or
// min(4, ceil(cores / 2))); a host without those headers gets the
// one-thread build with no error, only a note under the model's status line.
// Chromium has relaxed SIMD, so both are the relaxed twins (?variant=simd:
// the SIMD builds), and the line says so.
// The matrix is the same, number for number, either way. The same for the
// <minimind-attention> element (its script's ?threads=N), which keeps one
// thread when its script comes from another origin.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { serve } from '../../scripts/serve.mjs';
import { launchBrowser, openPage, SITE } from './browser.mjs';

let isolated, plain, browser;
before(async () => {
  isolated = await serve(SITE);
  plain = await serve(SITE, { isolate: false });
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await isolated?.close();
  await plain?.close();
});

async function view(server, query) {
  const { page, errors } = await openPage(browser.context);
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(`${server.url}${query}`);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 60000 });
  await page.waitForFunction(() => document.querySelectorAll('#matrix-table tbody tr').length > 0, null, { timeout: 60000 });
  // The threads line is written when the model is ready.
  await page.waitForFunction(() => /thread|线程/.test(document.getElementById('model-threads').textContent), null, { timeout: 30000 });
  const result = {
    isolated: await page.evaluate(() => crossOriginIsolated),
    status: await page.textContent('#model-threads'),
    variant: await page.getAttribute('#model-threads', 'data-variant'),
    cells: await page.$$eval('#matrix-table tbody td', (tds) => tds.map((td) => td.textContent)),
    errors,
  };
  await page.close();
  return result;
}

test('an isolated page computes on the threads asked for, a plain host on one thread, with the same matrix', async () => {
  // Chromium has relaxed SIMD: the relaxed builds, whose numbers are the same bits on any thread count.
  const fused = 'Weight products use fused multiply-add (relaxed SIMD).';
  const two = await view(isolated, '?lang=en&threads=2');
  assert.equal(two.isolated, true);
  assert.equal(two.status, `Computed on 2 threads. ${fused}`);
  assert.equal(two.variant, 'relaxed-threads');
  const one = await view(isolated, '?lang=en&threads=1');
  assert.equal(one.status, `Computed on 1 thread. ${fused}`);
  assert.equal(one.variant, 'relaxed');
  const fallback = await view(plain, '?lang=en&threads=2');
  assert.equal(fallback.isolated, false);
  assert.match(fallback.status, /^Computed on 1 thread: this page is not cross-origin isolated.* Weight products use fused multiply-add/);
  assert.equal(fallback.variant, 'relaxed');
  // ?variant=simd: the SIMD builds, and the line says so.
  const simd = await view(isolated, '?lang=en&threads=2&variant=simd');
  assert.equal(simd.status, 'Computed on 2 threads. Weight products use WebAssembly SIMD without fused multiply-add.');
  assert.equal(simd.variant, 'threads');
  assert.deepEqual(simd.errors, []);
  assert.ok(two.cells.length > 100, `a whole matrix (${two.cells.length} cells)`);
  assert.deepEqual(two.cells, one.cells);
  assert.deepEqual(fallback.cells, one.cells);
  for (const r of [two, one, fallback]) assert.deepEqual(r.errors, []);
  const zh = await view(plain, '?lang=zh-CN');
  assert.match(zh.status, /^用 1 个线程计算：本页面未跨源隔离.*权重乘法使用融合乘加（relaxed SIMD）。$/);
});

// A course page holding one element (tests/browser/element_threads_host.html,
// served from the repository as `host` serves it: isolated or not), whose
// element script is `script`.
async function element(host, script) {
  const { page, errors } = await openPage(browser.context);
  await page.goto(`${host.url}tests/browser/element_threads_host.html?script=${encodeURIComponent(script)}`);
  await page.waitForFunction(() => document.querySelector('minimind-attention')?.getAttribute('data-state') === 'ready', null, {
    timeout: 60000,
  });
  const result = await page.evaluate(() => {
    const e = document.querySelector('minimind-attention');
    return {
      isolated: crossOriginIsolated,
      threads: e.getAttribute('data-threads'),
      variant: e.getAttribute('data-variant'),
      weights: e.weights,
    };
  });
  await page.close();
  return { ...result, errors };
}

test('the element computes on the threads its script asks for in an isolated page, on one thread elsewhere, with the same matrix', async () => {
  const ROOT = new URL('../../', import.meta.url).pathname;
  const [own, other, notIsolatedRoot] = await Promise.all([serve(ROOT), serve(ROOT), serve(ROOT, { isolate: false })]);
  const script = (server, query) => `${server.url}dist/site/minimind-attention.js${query}`;
  try {
    const two = await element(own, script(own, '?threads=2'));
    assert.equal(two.isolated, true);
    assert.deepEqual([two.threads, two.variant], ['2', 'relaxed-threads']);
    const one = await element(own, script(own, '?threads=1'));
    assert.deepEqual([one.threads, one.variant], ['1', 'relaxed']);
    const simd = await element(own, script(own, '?threads=1&variant=simd'));
    assert.deepEqual([simd.threads, simd.variant], ['1', 'simd']);
    const notIsolated = await element(notIsolatedRoot, script(notIsolatedRoot, '?threads=2'));
    assert.equal(notIsolated.isolated, false);
    assert.equal(notIsolated.threads, '1');
    // an isolated course page whose element script is another origin's: its threads' workers could not start there
    const otherOrigin = await element(own, script(other, '?threads=2'));
    assert.equal(otherOrigin.isolated, true);
    assert.equal(otherOrigin.threads, '1');
    assert.ok(one.weights.length > 5, `${one.weights.length} rows`);
    for (const r of [two, notIsolated, otherOrigin]) assert.deepEqual(r.weights, one.weights);
    for (const r of [two, one, notIsolated, otherOrigin]) assert.deepEqual(r.errors, []);
  } finally {
    await Promise.all([own.close(), other.close(), notIsolatedRoot.close()]);
  }
});
