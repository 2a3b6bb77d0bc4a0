// The figure at the centre: the text box and the matrix on a phone's first
// screens, the mask and √d switches in the figure's toolbar on a desktop's
// first screen, the numbers of a hovered cell in a tooltip by that cell,
// the axis titles in both languages, axis labels that never overprint (a
// 128-token text labels every k-th token, every token still read in the
// tooltip), one row of thumbnails per layer in the overview, and the SVG
// export labelling the same tokens as the page. Positions are measured on
// the page's real layout; screenshots go to test-artifacts/.
import assert from 'node:assert/strict';
import { mkdir, readFile } from 'node:fs/promises';
import { after, before, test } from 'node:test';

import { chromium } from 'playwright-core';

import { serve } from '../../scripts/serve.mjs';
import { translate } from '../../web/i18n.mjs';
import { CHROMIUM } from './browser.mjs';

const SITE = new URL('../../dist/site/', import.meta.url).pathname;
const ARTIFACTS = new URL('../../test-artifacts/', import.meta.url).pathname;
const PHONE = { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true };
const DESKTOP = { viewport: { width: 1400, height: 1000 } };
const LANGUAGES = ['zh-CN', 'en'];
const LESSON = '小明 把 苹果 给了 小红 ， 她 很 开心';
// 128 tokens of different widths.
const WORDS = LESSON.split(' ');
const LONG = Array.from({ length: 128 }, (_, k) => `${WORDS[k % WORDS.length]}${k}`);

let server;
let browser;

before(async () => {
  await mkdir(ARTIFACTS, { recursive: true });
  server = await serve(SITE);
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking'],
  });
});

after(async () => {
  await browser?.close();
  await server?.close();
});

async function open(device, lang, query = '') {
  const context = await browser.newContext({ ...device, locale: lang, acceptDownloads: true });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (error) => errors.push(String(error)));
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  const sep = query ? '&' : '?';
  await page.goto(`${server.url}${query}${sep}lang=${lang}`);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 60000 });
  await page.waitForFunction(
    () => document.querySelectorAll('#matrix-table tbody tr').length > 0 && document.getElementById('heatmap').dataset.layout,
  );
  return { page, errors, close: () => context.close() };
}

// The heatmap's layout as the page drew it (its data-layout) and the canvas's box on the page.
function heatmapLayout(page) {
  return page.evaluate(() => {
    const canvas = document.getElementById('heatmap');
    const r = canvas.getBoundingClientRect();
    return { ...JSON.parse(canvas.dataset.layout), rect: { x: r.x, y: r.y, top: r.top + scrollY } };
  });
}

function tokensOf(page) {
  return page.$$eval('#matrix-table tbody th', (ths) => ths.map((th) => th.textContent));
}

const overlap = (a, b) => a[0] < b[0] + b[2] && b[0] < a[0] + a[2] && a[1] < b[1] + b[3] && b[1] < a[1] + a[3];

// For each layer, the tops of its thumbnails (page px).
function thumbnailRows(page) {
  return page.evaluate(() => {
    const rows = {};
    for (const thumb of document.querySelectorAll('#overview .thumb')) {
      (rows[thumb.dataset.layer] ??= []).push(Math.round(thumb.getBoundingClientRect().top + scrollY));
    }
    return rows;
  });
}

for (const lang of LANGUAGES) {
  test(`phone (${lang}): the text box and the matrix within the first 1.5 screens; a layer's heads on one row`, async () => {
    const { page, errors, close } = await open(PHONE, lang);
    const tops = await page.evaluate(() => {
      const top = (selector) => document.querySelector(selector).getBoundingClientRect().top + scrollY;
      return { text: top('#text'), matrix: top('#heatmap'), controls: top('.controls'), switches: top('#causal') };
    });
    console.log(
      `# phone ${lang}: text at ${Math.round(tops.text)} px, matrix at ${Math.round(tops.matrix)} px, controls at ${Math.round(tops.controls)} px`,
    );
    const limit = 1.5 * PHONE.viewport.height;
    assert.ok(tops.text < limit, `the text box starts at ${tops.text} px`);
    assert.ok(tops.matrix < limit, `the matrix starts at ${tops.matrix} px`);
    assert.ok(tops.text < tops.matrix && tops.matrix < tops.controls, 'text box, matrix, then the other controls');
    assert.ok(tops.switches < tops.matrix, 'the mask and √d switches come with the matrix');
    const rows = await thumbnailRows(page);
    assert.ok(Object.keys(rows).length > 0);
    for (const [layer, thumbTops] of Object.entries(rows)) {
      assert.ok(thumbTops.length > 1);
      assert.equal(Math.max(...thumbTops) - Math.min(...thumbTops), 0, `layer ${layer}'s thumbnails at ${thumbTops}`);
    }
    assert.equal(await page.evaluate(() => document.documentElement.scrollWidth), PHONE.viewport.width, 'no sideways scrolling');
    await page.screenshot({ path: `${ARTIFACTS}figure-phone-${lang}.png`, fullPage: true });
    assert.deepEqual(errors, []);
    await close();
  });

  test(`desktop (${lang}): the switches in the figure's toolbar on the first screen, axis titles, the tooltip by the cell`, async () => {
    const { page, errors, close } = await open(DESKTOP, lang, `?preset=lab-a&text=${encodeURIComponent(LESSON)}`);
    const switches = await page.evaluate(() =>
      ['causal', 'scale'].map((id) => {
        const input = document.getElementById(id);
        const r = input.getBoundingClientRect();
        return { bottom: r.bottom + scrollY, inToolbar: Boolean(input.closest('.view .view-bar')) };
      }),
    );
    for (const s of switches) {
      assert.ok(s.inToolbar, 'in the view’s toolbar');
      assert.ok(s.bottom <= DESKTOP.viewport.height, `a switch ends at ${s.bottom} px`);
    }
    const layout = await heatmapLayout(page);
    assert.deepEqual(layout.titles, [translate(lang, 'matrix.queryAxis'), translate(lang, 'matrix.keyAxis')]);
    assert.deepEqual(layout.titles, lang === 'en' ? ['query (looking) ↓', 'key (looked at) →'] : ['查询（在看的）↓', '被看的键 →']);
    const tokens = await tokensOf(page);
    assert.equal(layout.T, tokens.length);
    // Hover cells in the middle and at the right edge: the tooltip is by the cell and says its numbers.
    for (const [i, j] of [
      [6, 1],
      [layout.T - 1, layout.T - 1],
      [0, 0],
    ]) {
      const cell = { x: layout.rect.x + layout.left + j * layout.cell, y: layout.rect.y + layout.top + i * layout.cell };
      await page.mouse.move(cell.x + layout.cell / 2, cell.y + layout.cell / 2);
      await page.waitForFunction(
        ([q, k]) => document.getElementById('cell-info').textContent.startsWith(`${q} → ${k}`),
        [tokens[i], tokens[j]],
      );
      const tip = await page.evaluate(() => {
        const r = document.getElementById('cell-info').getBoundingClientRect();
        return { x: r.x, y: r.y, w: r.width, h: r.height, text: document.getElementById('cell-info').textContent };
      });
      const dx = Math.max(0, tip.x - (cell.x + layout.cell), cell.x - (tip.x + tip.w));
      const dy = Math.max(0, tip.y - (cell.y + layout.cell), cell.y - (tip.y + tip.h));
      assert.ok(tip.w > 0 && Math.max(dx, dy) <= 2 * layout.cell, `tooltip ${JSON.stringify(tip)} is ${dx}, ${dy} px from cell ${i}, ${j}`);
      assert.ok(
        !overlap([tip.x, tip.y, tip.w, tip.h], [cell.x + 2, cell.y + 2, layout.cell - 4, layout.cell - 4]),
        'beside the cell, not over it',
      );
      const value = await page.evaluate(
        ([i, j]) => document.querySelectorAll('#matrix-table tbody tr')[i].querySelectorAll('td')[j].dataset.value,
        [i, j],
      );
      if (j <= i) assert.ok(tip.text.endsWith(Number(value).toFixed(3)), `${tip.text} holds the weight ${value}`);
    }
    await page.screenshot({ path: `${ARTIFACTS}figure-desktop-${lang}.png` });
    assert.deepEqual(errors, []);
    await close();
  });
}

test('128 tokens: the drawn axis labels never overlap, every token is read in the tooltip, the SVG labels the same tokens', async () => {
  const { page, errors, close } = await open(DESKTOP, 'en', `?preset=lab-a&text=${encodeURIComponent(LONG.join(' '))}`);
  await page.waitForFunction((T) => document.querySelectorAll('#matrix-table tbody tr').length === T, LONG.length, { timeout: 60000 });
  const tokens = await tokensOf(page);
  assert.deepEqual(tokens, LONG);
  await page.waitForFunction((T) => JSON.parse(document.getElementById('heatmap').dataset.layout).T === T, LONG.length);
  const layout = await heatmapLayout(page);
  console.log(
    `# 128 tokens: cells of ${layout.cell} px, every ${layout.step}th token labelled (${layout.rows.length} rows, ${layout.cols.length} columns)`,
  );
  assert.ok(layout.step > 1, 'labels are thinned');
  assert.deepEqual(
    layout.rows,
    LONG.map((_, k) => k).filter((k) => k % layout.step === 0),
  );
  assert.deepEqual(layout.cols, layout.rows);
  for (let a = 0; a < layout.boxes.length; a += 1) {
    for (let b = a + 1; b < layout.boxes.length; b += 1) {
      assert.ok(!overlap(layout.boxes[a], layout.boxes[b]), `labels ${a} and ${b} overlap: ${layout.boxes[a]} / ${layout.boxes[b]}`);
    }
  }
  // Every query and every key is read in the tooltip (keyboard: down the first column, then along the last row).
  await page.focus('#heatmap');
  const read = () => page.textContent('#cell-info');
  assert.ok((await read()).startsWith(`${LONG[0]} → ${LONG[0]}`));
  for (let i = 1; i < LONG.length; i += 1) {
    await page.keyboard.press('ArrowDown');
    assert.ok((await read()).startsWith(`${LONG[i]} → ${LONG[0]}`), `query ${i}`);
  }
  for (let j = 1; j < LONG.length; j += 1) {
    await page.keyboard.press('ArrowRight');
    assert.ok((await read()).startsWith(`${LONG[LONG.length - 1]} → ${LONG[j]}`), `key ${j}`);
  }
  await page.screenshot({ path: `${ARTIFACTS}figure-128-tokens.png` });
  // The SVG export: the same cell size, the same labelled tokens, the same axis titles.
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#export-svg')]);
  const svg = await readFile(await download.path(), 'utf8');
  const parsed = await page.evaluate((text) => {
    const doc = new DOMParser().parseFromString(text, 'image/svg+xml');
    const indices = (selector) => [...doc.querySelectorAll(selector)].map((t) => Number(t.dataset.index));
    return {
      step: Number(doc.documentElement.dataset.labelStep),
      rows: indices('text.row-label'),
      cols: indices('text.col-label'),
      titles: [...doc.querySelectorAll('text.axis-title')].map((t) => t.textContent),
      cell: Number(doc.querySelector('rect.cell').getAttribute('width')),
    };
  }, svg);
  assert.equal(parsed.step, layout.step);
  assert.equal(parsed.cell, layout.cell);
  assert.deepEqual(parsed.rows, layout.rows);
  assert.deepEqual(parsed.cols, layout.cols);
  assert.deepEqual(parsed.titles, ['query (looking) ↓', 'key (looked at) →']);
  assert.deepEqual(errors, []);
  await close();
});

test('the overview: cards of a row as tall as each other; a switched-off head’s toggle says “switch on” / “打开”', async () => {
  for (const lang of LANGUAGES) {
    const { page, errors, close } = await open(DESKTOP, lang);
    const cards = await page.evaluate(() =>
      [...document.querySelectorAll('#overview .overview-layer')].map((row) =>
        [...row.querySelectorAll('.thumb-cell')].map((cell) => {
          const r = cell.getBoundingClientRect();
          const s = cell.querySelector('.head-switch').getBoundingClientRect();
          return { top: Math.round(r.top), height: Math.round(r.height), switchTop: Math.round(s.top) };
        }),
      ),
    );
    for (const row of cards) {
      assert.equal(new Set(row.map((c) => c.top)).size, 1, `a row's cards start together: ${JSON.stringify(row)}`);
      assert.equal(new Set(row.map((c) => c.height)).size, 1, `a row's cards are as tall: ${JSON.stringify(row)}`);
      assert.equal(new Set(row.map((c) => c.switchTop)).size, 1, `a row's switches line up: ${JSON.stringify(row)}`);
    }
    const toggle = '#overview .head-switch[data-layer="0"][data-head="1"]';
    const state = () =>
      page.$eval(toggle, (b) => ({ text: b.textContent, pressed: b.getAttribute('aria-pressed'), label: b.getAttribute('aria-label') }));
    assert.deepEqual(await state(), {
      text: translate(lang, 'overview.switchOff'),
      pressed: 'false',
      label: translate(lang, 'overview.switchOffLabel', { layer: 0, head: 1 }),
    });
    await page.click(toggle);
    await page.waitForFunction((selector) => document.querySelector(selector).getAttribute('aria-pressed') === 'true', toggle);
    assert.deepEqual(await state(), {
      text: lang === 'en' ? 'switch on' : '打开',
      pressed: 'true',
      label: translate(lang, 'overview.switchOnLabel', { layer: 0, head: 1 }),
    });
    await page.locator('#overview').screenshot({ path: `${ARTIFACTS}figure-overview-${lang}.png` });
    await page.click(toggle);
    await page.waitForFunction((selector) => document.querySelector(selector).getAttribute('aria-pressed') === 'false', toggle);
    assert.equal((await state()).text, translate(lang, 'overview.switchOff'));
    assert.deepEqual(errors, []);
    await close();
  }
});
