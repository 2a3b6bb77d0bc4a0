// Generation at its limits, in headless Chromium on a preset: a prompt that
// fills the matrix (128 tokens) ends at Step with 128 rows, not 129, and the
// line says the matrix is full; Play from 125 tokens stops at 128 rows after 3
// steps; a model with 8 positions (max_position_embeddings, from the URL's
// config) stops when they run out, the chosen token unfed, and the line names
// the limit. In English and Chinese. The expected counts come from the limits
// themselves (128, the config's positions), the rows from the page's table.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { openPage, useServedBrowser } from './browser.mjs';

const ROOT = new URL('../../', import.meta.url).pathname;
const site = useServedBrowser(ROOT);
const MATRIX = 128;

const LINES = {
  en: { tokens: `The matrix holds at most ${MATRIX} tokens: generation ends here.`, positions: 'The model has no position after 8 tokens' },
  'zh-CN': { tokens: `矩阵最多容纳 ${MATRIX} 个 token：生成到此结束。`, positions: '模型在 8 个 token 之后没有位置了' },
};

const idsText = (n) => Array.from({ length: n }, (_, i) => 3 + (i % 120)).join(',');

async function openPlayground(query) {
  const { page, errors } = await openPage(site.context);
  await page.setViewportSize({ width: 1400, height: 1000 });
  await page.goto(`${site.url}dist/site/index.html${query}`);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 30000 });
  await page.waitForFunction(() => document.querySelectorAll('#matrix-table tbody tr').length > 0);
  return { page, errors };
}

// Clicks `button` and waits for the line to say generation ended: what the page shows then.
async function runToTheEnd(page, button) {
  await page.click(button);
  await page.waitForFunction(() => document.getElementById('gen-status').dataset.end !== '', null, { timeout: 120000 });
  await page.waitForFunction(() => document.getElementById('run-status').hidden);
  return page.evaluate(() => ({
    end: document.getElementById('gen-status').dataset.end,
    status: document.getElementById('gen-status').textContent,
    rows: document.querySelectorAll('#matrix-table tbody tr').length,
    stepDisabled: document.getElementById('gen-step').disabled,
  }));
}

const query = (lang, ids, extra = '') => `?lang=${lang}&preset=lab-a&input=ids&text=${encodeURIComponent(ids)}${extra}`;

for (const lang of ['en', 'zh-CN']) {
  test(`${lang}: a prompt that fills the matrix ends at Step with ${MATRIX} rows, and says why`, async () => {
    const { page, errors } = await openPlayground(query(lang, idsText(MATRIX + 2))); // the input keeps 128
    assert.equal(await page.$$eval('#matrix-table tbody tr', (r) => r.length), MATRIX);
    const shown = await runToTheEnd(page, '#gen-step');
    assert.equal(shown.end, 'tokens');
    assert.equal(shown.rows, MATRIX, 'no row past the matrix');
    assert.ok(shown.status.includes(LINES[lang].tokens), shown.status);
    assert.equal(shown.stepDisabled, true);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test(`${lang}: Play from ${MATRIX - 3} tokens stops at ${MATRIX} rows; 8 positions stop at the model's limit`, async () => {
    const { page, errors } = await openPlayground(query(lang, idsText(MATRIX - 3)));
    const full = await runToTheEnd(page, '#gen-play');
    assert.equal(full.end, 'tokens');
    assert.equal(full.rows, MATRIX);
    assert.match(full.status, lang === 'en' ? /^Step 3: / : /^第 3 步：/);
    assert.ok(full.status.includes(LINES[lang].tokens), full.status);
    await page.close();

    const config = `&config=${encodeURIComponent(JSON.stringify({ max_position_embeddings: 8 }))}`;
    const small = await openPlayground(query(lang, '3,4,5,6,7', config));
    const ended = await runToTheEnd(small.page, '#gen-play');
    assert.equal(ended.end, 'positions');
    assert.equal(ended.rows, 7, 'positions 5 and 6 fed; the token chosen for the last one has no row');
    assert.match(ended.status, lang === 'en' ? /^Step 3: / : /^第 3 步：/);
    assert.ok(ended.status.includes(LINES[lang].positions), ended.status);
    assert.deepEqual([...errors, ...small.errors], []);
    await small.page.close();
  });
}
