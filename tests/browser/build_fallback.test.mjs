// The build that runs is said, and why: on a host that serves only the SIMD
// build's files (a copy of the site without minimind-relaxed*), a browser with
// relaxed SIMD asks for the relaxed build, does not get it, and runs its SIMD
// twin; the status line names that build and says why the relaxed one did not
// load, in the page's language, and the reason is logged once; the trained
// model's card says the same, with the CLI flag that gives the same bits. On
// the full site the same browser runs the relaxed build and gives no reason.
// Screenshots (1400×1000 and 390×844, zh and en) go to test-artifacts/.
import assert from 'node:assert/strict';
import { cp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { after, before, test } from 'node:test';

import { serve } from '../../scripts/serve.mjs';
import { ARTIFACTS, SITE, openPage, useServedBrowser } from './browser.mjs';

const SIMD_ONLY = join(tmpdir(), `minimind-simd-only-${process.pid}`);
before(async () => {
  await cp(SITE, SIMD_ONLY, { recursive: true, filter: (path) => !basename(path).startsWith('minimind-relaxed') });
});
after(() => rm(SIMD_ONLY, { recursive: true, force: true }));
const site = useServedBrowser(SIMD_ONLY);

// The status line under the model once the model is ready: {text, variant, fallback}, and the page's console.
async function statusOf(url) {
  const { page, errors } = await openPage(site.context);
  const warnings = [];
  page.on('console', (message) => message.type() === 'warning' && warnings.push(message.text()));
  await page.goto(url);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 30000 });
  await page.waitForFunction(() => document.getElementById('model-threads').dataset.variant);
  const status = await page.evaluate(() => {
    const line = document.getElementById('model-threads');
    const card = document.getElementById('model-card-build');
    return {
      text: line.textContent,
      variant: line.dataset.variant,
      fallback: line.dataset.fallback,
      card: card.hidden ? null : card.textContent,
    };
  });
  return { page, errors, warnings, status };
}

for (const [lang, missing, card] of [
  [
    'en',
    /WebAssembly SIMD without fused multiply-add: the relaxed SIMD build is not on this host/,
    'Computed here by the SIMD build, as the relaxed SIMD build is not on this host (its files did not load); the CLI gives the same bits with --build simd.',
  ],
  [
    'zh-CN',
    /未用融合乘加：relaxed SIMD 版本不在这个网站上/,
    '这里的数字由 SIMD 版本计算，因为 relaxed SIMD 版本不在这个网站上（它的文件没能载入）；命令行加 --build simd 得到完全相同的结果。',
  ],
]) {
  test(`${lang}: a host without the relaxed build's files runs the SIMD build and says why`, async () => {
    const { page, errors, warnings, status } = await statusOf(`${site.url}index.html?lang=${lang}`);
    assert.ok(['simd', 'threads'].includes(status.variant), status.variant);
    assert.equal(status.fallback, 'missing');
    assert.match(status.text, missing);
    assert.equal(status.card, card, 'the model card says the build, why, and the CLI flag for the same bits');
    const said = warnings.filter((w) => /relaxed.* build did not load/.test(w));
    assert.equal(said.length, 1, `logged once: ${said.join(' | ')}`);
    // The relaxed files' 404s are the browser's own console errors; nothing else went wrong.
    assert.deepEqual(
      errors.filter((e) => !/404|Failed to load resource|Failed to fetch dynamically imported module/.test(e)),
      [],
    );
    // The page computes on it: the matrix is drawn.
    await page.waitForFunction(() => document.querySelectorAll('#matrix-table td').length > 0);
    for (const [width, height] of [
      [1400, 1000],
      [390, 844],
    ]) {
      await page.setViewportSize({ width, height });
      await page.locator('#model-card').scrollIntoViewIfNeeded();
      await page.screenshot({ path: `${ARTIFACTS}build-fallback-${lang}-${width}.png` });
    }
    await page.close();
  });
}

test('the full site runs the relaxed build in the same browser, with no reason given', async () => {
  const full = await serve(SITE);
  try {
    const { page, errors, status } = await statusOf(`${full.url}index.html?lang=en`);
    assert.ok(status.variant.startsWith('relaxed'), `${status.variant}: this browser has relaxed SIMD`);
    assert.equal(status.fallback, '');
    assert.match(status.text, /fused multiply-add \(relaxed SIMD\)/);
    assert.equal(status.card, 'Computed here by the relaxed SIMD build; the CLI gives the same bits with --build relaxed.');
    assert.deepEqual(errors, []);
    await page.close();
  } finally {
    await full.close();
  }
});
