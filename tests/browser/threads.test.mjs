// Threads in the page: npm start's server makes the page cross-origin
// isolated, so its workers run the pthreads build (?threads=N, or
// min(4, ceil(cores / 2))); a host without those headers gets the
// one-thread build with no error, only a note under the model's status line.
// The matrix is the same, number for number, either way.
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
    cells: await page.$$eval('#matrix-table tbody td', (tds) => tds.map((td) => td.textContent)),
    errors,
  };
  await page.close();
  return result;
}

test('an isolated page computes on the threads asked for, a plain host on one thread, with the same matrix', async () => {
  const two = await view(isolated, '?lang=en&threads=2');
  assert.equal(two.isolated, true);
  assert.match(two.status, /^Computed on 2 threads\.$/);
  const one = await view(isolated, '?lang=en&threads=1');
  assert.match(one.status, /^Computed on 1 thread\.$/);
  const fallback = await view(plain, '?lang=en&threads=2');
  assert.equal(fallback.isolated, false);
  assert.match(fallback.status, /^Computed on 1 thread: this page is not cross-origin isolated/);
  assert.ok(two.cells.length > 100, `a whole matrix (${two.cells.length} cells)`);
  assert.deepEqual(two.cells, one.cells);
  assert.deepEqual(fallback.cells, one.cells);
  for (const r of [two, one, fallback]) assert.deepEqual(r.errors, []);
  const zh = await view(plain, '?lang=zh-CN');
  assert.match(zh.status, /^用 1 个线程计算：本页面未跨源隔离/);
});
