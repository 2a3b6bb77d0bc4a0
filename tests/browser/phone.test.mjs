// The pages on a phone (390 × 844, touch, a mobile browser's viewport), in
// zh-CN and en as the browser's language picks them: the playground, its
// embed view, its lab and lesson views and the gallery are never wider than
// the screen (long lines wrap, wide tables scroll inside their box and say
// so); the playground's text box and then its attention matrix start within
// the first 1.5 screens, above the side controls, with Step and Play right
// under it; tapping a cell shows its numbers (q·k, ÷√d, weight: the table's)
// by the cell, above or below the tapped and the selected row (never over
// them), and selects its row; the "why" section's grids scroll sideways with
// the table's cue, scrolled to the positions they are about. Everything is
// measured on the page's real layout. Screenshots go to test-artifacts/.
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { after, before, test } from 'node:test';

import { chromium } from 'playwright-core';

import { serve } from '../../scripts/serve.mjs';
import { SECTIONS } from '../../web/gallery.mjs';
import { CHROMIUM, afterFrames } from './browser.mjs';

const SITE = new URL('../../dist/site/', import.meta.url).pathname;
const ARTIFACTS = new URL('../../test-artifacts/', import.meta.url).pathname;
const PHONE = { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true };
const WIDTH = PHONE.viewport.width;
const HEIGHT = PHONE.viewport.height;
const LANGUAGES = ['zh-CN', 'en'];
const FIGURE_COUNT = SECTIONS.flatMap((s) => s.examples).reduce((n, e) => n + (e.figures?.length ?? 0), 0);

// What each language prints (web/messages/*.mjs).
const TEXT = {
  'zh-CN': {
    cell: /^(.+) → (.+)：q·k = (-?\d+\.\d{3})，÷√d = (-?\d+\.\d{3})，权重 = (\d\.\d{3})$/,
    scroll: '左右滑动查看更多 →',
    hint: /^点一下格子/,
  },
  en: {
    cell: /^(.+) → (.+): q·k = (-?\d+\.\d{3}), ÷√d = (-?\d+\.\d{3}), weight = (\d\.\d{3})$/,
    scroll: 'Scroll sideways for more →',
    hint: /^Tap a cell/,
  },
};

let server;
let browser;

before(async () => {
  await mkdir(ARTIFACTS, { recursive: true });
  server = await serve(SITE);
  // A browser of its own: phone contexts (touch, a mobile viewport) in each language.
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

async function openPhone(path, lang) {
  const context = await browser.newContext({ ...PHONE, locale: lang });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (error) => errors.push(String(error)));
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  await page.goto(`${server.url}${path}`);
  return { page, errors, close: () => context.close() };
}

async function openPlayground(query, lang) {
  const opened = await openPhone(query, lang);
  await opened.page.waitForSelector('body[data-ready="true"]', { timeout: 60000 });
  await opened.page.waitForFunction(() => document.querySelectorAll('#matrix-table tbody tr').length > 0);
  return opened;
}

// How wide the page is, and its widest boxes that nothing clips (for the message of a failure).
function pageWidth(page) {
  return page.evaluate(() => {
    const clipped = (element) => {
      for (let p = element.parentElement; p; p = p.parentElement) if (getComputedStyle(p).overflowX !== 'visible') return true;
      return false;
    };
    const widest = [...document.body.querySelectorAll('*')]
      .filter((e) => e.getBoundingClientRect().right > document.documentElement.clientWidth + 0.5 && !clipped(e))
      .slice(0, 5)
      .map((e) => `${e.tagName.toLowerCase()}${e.id ? `#${e.id}` : ''}.${e.className} (${Math.round(e.getBoundingClientRect().right)} px)`);
    return { scrollWidth: document.documentElement.scrollWidth, innerWidth, widest };
  });
}

async function assertNoSidewaysScroll(page, what) {
  const { scrollWidth, innerWidth, widest } = await pageWidth(page);
  assert.ok(
    scrollWidth <= WIDTH && innerWidth <= WIDTH,
    `${what}: the page is ${scrollWidth} px wide on a ${WIDTH} px phone (${widest.join(', ')})`,
  );
}

// The heatmap's cells as drawn (its layout, which the canvas carries as data-layout), scrolled into view.
function matrixGeometry(page) {
  return page.evaluate(() => {
    const canvas = document.getElementById('heatmap');
    canvas.scrollIntoView({ block: 'center' });
    const rect = canvas.getBoundingClientRect();
    const { T, left, top, cell } = JSON.parse(canvas.dataset.layout);
    return { T, left, cell, top, rect: { x: rect.x, y: rect.y, width: rect.width, height: rect.height } };
  });
}

function tableValue(page, i, j) {
  return page.evaluate(
    ([i, j]) => Number(document.querySelectorAll('#matrix-table tbody tr')[i].querySelectorAll('td')[j].dataset.value),
    [i, j],
  );
}

async function tapCell(page, geometry, i, j) {
  const { rect, left, top, cell } = geometry;
  await page.touchscreen.tap(rect.x + left + (j + 0.5) * cell, rect.y + top + (i + 0.5) * cell);
}

// The tooltip's box, and whether it covers any of the matrix's `rows` (each across the whole matrix).
async function tipOver(page, geometry, rows) {
  const tip = await page.evaluate(() => {
    const r = document.getElementById('cell-info').getBoundingClientRect();
    return { top: r.top, bottom: r.bottom, left: r.left, right: r.right };
  });
  const { rect, left, top, cell, T } = geometry;
  const covered = rows.filter((i) => {
    const row = {
      top: rect.y + top + i * cell,
      bottom: rect.y + top + (i + 1) * cell,
      left: rect.x + left,
      right: rect.x + left + T * cell,
    };
    return tip.top < row.bottom && tip.bottom > row.top && tip.left < row.right && tip.right > row.left;
  });
  return { tip, covered };
}

for (const lang of LANGUAGES) {
  test(`playground on a phone (${lang}): no sideways scrolling, the text box then the matrix within 1.5 screens, above the controls`, async () => {
    const { page, errors, close } = await openPlayground('', lang);
    await assertNoSidewaysScroll(page, 'the playground');
    const layout = await page.evaluate(() => {
      const box = (selector) => {
        const r = document.querySelector(selector).getBoundingClientRect();
        return { top: r.top + scrollY, bottom: r.bottom + scrollY, left: r.left, right: r.right };
      };
      const wrap = document.querySelector('.matrix-wrap');
      return {
        text: box('#text'),
        matrix: box('#heatmap'),
        controls: box('.controls'),
        view: box('.view'),
        step: box('#gen-step'),
        play: box('#gen-play'),
        wrapScrolls: wrap.scrollWidth > wrap.clientWidth,
      };
    });
    console.log(
      `# ${lang}: matrix top ${Math.round(layout.matrix.top)} px, bottom ${Math.round(layout.matrix.bottom)} px, controls top ${Math.round(layout.controls.top)} px`,
    );
    // The text box first, then the matrix: both start within the first 1.5 screens, and the whole matrix fits one screen.
    assert.ok(layout.text.top < layout.matrix.top, 'the text box comes before the matrix');
    assert.ok(layout.matrix.top < 1.5 * HEIGHT, `the matrix starts at ${layout.matrix.top} px, below the first 1.5 screens`);
    assert.ok(
      layout.matrix.bottom - layout.matrix.top <= HEIGHT,
      `the whole matrix fits one screen (${layout.matrix.bottom - layout.matrix.top} px)`,
    );
    assert.ok(layout.matrix.bottom < layout.controls.top, 'the matrix comes before the side controls');
    assert.ok(layout.matrix.right <= layout.view.right && !layout.wrapScrolls, 'the matrix fits its panel');
    // Step and Play right under the matrix (its hint and legend between), not among the controls below.
    for (const button of [layout.step, layout.play]) {
      const gap = button.top - layout.matrix.bottom;
      assert.ok(gap > 0 && gap < HEIGHT / 4, `a generation button starts ${Math.round(gap)} px under the matrix`);
      assert.ok(button.bottom < layout.controls.top, 'the generation buttons come before the side controls');
    }
    // The cells are big enough to tap, and the hint says to tap them.
    const geometry = await matrixGeometry(page);
    assert.ok(geometry.cell >= 14, `cells of ${geometry.cell} px`);
    assert.match(await page.innerText('#matrix-hint'), TEXT[lang].hint);
    await page.screenshot({ path: `${ARTIFACTS}phone-playground-${lang}.png` });
    assert.deepEqual(errors, []);
    await close();
  });

  test(`playground on a phone (${lang}): tapping a cell shows its numbers and selects its row`, async () => {
    const { page, errors, close } = await openPlayground('', lang);
    const geometry = await matrixGeometry(page);
    const { T } = geometry;
    const tokens = await page.$$eval('#matrix-table tbody th', (ths) => ths.map((th) => th.textContent));
    const read = async () => ({ cell: await page.textContent('#cell-info'), row: await page.textContent('#row-explanation') });
    const expectCell = async (text, i, j) => {
      const m = TEXT[lang].cell.exec(text);
      assert.ok(m, `the numbers of cell ${i}, ${j}: "${text}"`);
      assert.deepEqual([m[1], m[2]], [tokens[i], tokens[j]]);
      assert.equal(m[5], (await tableValue(page, i, j)).toFixed(3), 'the weight is the table’s');
    };
    // The last row: its last cell, then another of its cells (the row stays selected), then that cell again.
    // The numbers hide neither the tapped row nor the selected one, and stay on the screen.
    const expectClear = async (rows, what) => {
      const { tip, covered } = await tipOver(page, geometry, rows);
      assert.deepEqual(covered, [], `${what}: the numbers (${Math.round(tip.top)}–${Math.round(tip.bottom)} px) cover row ${covered}`);
      assert.ok(
        tip.top >= 0 && tip.bottom <= HEIGHT,
        `${what}: the numbers are on screen (${Math.round(tip.top)}–${Math.round(tip.bottom)} px)`,
      );
    };
    await tapCell(page, geometry, T - 1, T - 1);
    let shown = await read();
    await expectCell(shown.cell, T - 1, T - 1);
    assert.ok(shown.row.startsWith(`output(${tokens[T - 1]})`), shown.row);
    await expectClear([T - 1], 'the last row, selected');
    await tapCell(page, geometry, T - 1, 1);
    shown = await read();
    await expectCell(shown.cell, T - 1, 1);
    assert.ok(shown.row.startsWith(`output(${tokens[T - 1]})`), 'tapping another cell of the selected row keeps it selected');
    await expectClear([T - 1], 'another cell of the selected row');
    await tapCell(page, geometry, T - 1, 1);
    // Tapping it again keeps the row selected: deselecting would leave the outline on the note's row.
    assert.ok((await read()).row.startsWith(`output(${tokens[T - 1]})`), 'tapping the same cell again keeps the row selected');
    // The scores of a future cell are masked.
    await tapCell(page, geometry, 0, T - 1);
    assert.match((await read()).cell, /−∞/);
    await expectClear([0], 'the top row, selected');
    await page.screenshot({ path: `${ARTIFACTS}phone-tap-${lang}.png` });
    assert.deepEqual(errors, []);
    await close();
  });

  test(`playground on a phone (${lang}): wide tables scroll inside their box with a cue; the lab and lesson views fit`, async () => {
    const { page, errors, close } = await openPlayground('', lang);
    await page.click('.view > .table-details summary');
    await page.waitForFunction(() => document.querySelector('.view > .table-details .table-scroll').dataset.overflow !== undefined);
    const table = await page.evaluate(() => {
      const box = document.querySelector('.view > .table-details .table-scroll');
      const hint = box.previousElementSibling;
      return {
        overflow: box.dataset.overflow,
        wider: box.scrollWidth > box.clientWidth,
        hint: hint.hidden ? null : hint.textContent,
        hintShown: hint.getBoundingClientRect().height > 0,
      };
    });
    assert.deepEqual(table, { overflow: 'right', wider: true, hint: TEXT[lang].scroll, hintShown: true });
    await page.$eval('.view > .table-details .table-scroll', (box) => box.scrollTo({ left: box.scrollWidth }));
    await page.waitForFunction(() => document.querySelector('.view > .table-details .table-scroll').dataset.overflow === 'left');
    await assertNoSidewaysScroll(page, 'the playground with its table open');

    // "Why": the lens map and the residual grid (a column per position) are wider than a phone; each
    // says so as the table does and is scrolled to its columns: the lens map to the row it reads
    // (its marked cells), the residual to the last position and the one restoring the most before it.
    await page.waitForFunction(
      () =>
        document.querySelectorAll('.why-lens-map .value-cell.marked').length > 0 &&
        document.querySelectorAll('.why-patch-residual .value-cell[data-value]').length > 0,
      null,
      { timeout: 60000 },
    );
    await afterFrames(page);
    const grids = await page.evaluate(() => {
      const inView = (box, col) => {
        const b = box.getBoundingClientRect();
        const c = box.querySelector(`.value-cell[data-row="0"][data-col="${col}"]`).getBoundingClientRect();
        return c.left >= b.left - 0.5 && c.right <= b.right + 0.5;
      };
      const read = (selector, columns) => {
        const box = document.querySelector(selector);
        const hint = box.previousElementSibling;
        return {
          wider: box.scrollWidth > box.clientWidth + 1,
          cue: box.dataset.overflow !== undefined,
          hint: hint?.classList.contains('scroll-hint') && !hint.hidden ? hint.textContent : null,
          columns: Object.fromEntries(columns(box).map((col) => [col, inView(box, col)])),
        };
      };
      const lens = read('.why-lens-map', (box) => [Number(box.querySelector('.value-cell.marked').dataset.col)]);
      const residual = read('.why-patch-residual', (box) => {
        const cells = [...box.querySelectorAll('.value-cell[data-value]')].filter((c) => c.dataset.value !== 'null');
        const T = Math.max(...cells.map((c) => Number(c.dataset.col))) + 1;
        const before = cells.filter((c) => Number(c.dataset.col) < T - 1);
        const best = before.reduce((a, c) => (Number(c.dataset.value) > Number(a.dataset.value) ? c : a));
        return [T - 1, Number(best.dataset.col)];
      });
      return { lens, residual };
    });
    for (const [name, grid] of Object.entries(grids)) {
      assert.deepEqual(
        { wider: grid.wider, cue: grid.cue, hint: grid.hint },
        { wider: true, cue: true, hint: TEXT[lang].scroll },
        `${name}: scrolls with the table's cue`,
      );
      for (const [col, seen] of Object.entries(grid.columns)) assert.ok(seen, `${name}: position ${col} is in view`);
    }
    assert.ok(Number(Object.keys(grids.lens.columns)[0]) > 4, 'the lens map’s row is one a phone starts off-screen');
    await page.locator('.why-patch-residual').scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${ARTIFACTS}phone-why-residual-${lang}.png` });
    assert.deepEqual(errors, []);
    await close();

    // Lesson 11's lab record: its long lines wrap, the table scrolls in its box and says so.
    const lab = await openPlayground('?lab=lab-a&preset=lab-a', lang);
    await lab.page.waitForSelector('#lab-record');
    await lab.page.waitForFunction(() => document.querySelector('.lab-record-scroll')?.dataset.overflow === 'right');
    const record = await lab.page.evaluate(() => {
      const box = document.querySelector('.lab-record-scroll');
      const command = document.querySelector('.lab-command');
      const key = [...document.querySelectorAll('#lab-record td.code')].find((td) => td.textContent.length > 30);
      const style = getComputedStyle(key);
      const line = Number.isFinite(parseFloat(style.lineHeight)) ? parseFloat(style.lineHeight) : 1.2 * parseFloat(style.fontSize);
      return {
        hint: box.previousElementSibling.hidden ? null : box.previousElementSibling.textContent,
        boxFits: box.getBoundingClientRect().right <= document.documentElement.clientWidth,
        commandWraps: command.scrollWidth <= command.clientWidth,
        keyWraps: key.scrollWidth <= key.clientWidth && key.getBoundingClientRect().height > 1.5 * line,
      };
    });
    assert.deepEqual(record, { hint: TEXT[lang].scroll, boxFits: true, commandWraps: true, keyWraps: true });
    await assertNoSidewaysScroll(lab.page, 'the lab view');
    await lab.page.screenshot({ path: `${ARTIFACTS}phone-lab-${lang}.png` });
    assert.deepEqual(lab.errors, []);
    await lab.close();

    // Lesson 2.5 by hand: its tables of numbers and the lesson's lines fit too.
    const lesson = await openPhone('?input=manual', lang);
    await lesson.page.waitForSelector('#lesson-checks');
    await assertNoSidewaysScroll(lesson.page, 'lesson mode');
    assert.deepEqual(lesson.errors, []);
    await lesson.close();
    assert.deepEqual(errors, []);
  });

  test(`embed view on a phone (${lang}): no sideways scrolling, the matrix on the first screen, taps read cells`, async () => {
    const { page, errors, close } = await openPlayground('?embed=1', lang);
    await assertNoSidewaysScroll(page, 'the embed view');
    const matrix = await page.evaluate(() => {
      const r = document.getElementById('heatmap').getBoundingClientRect();
      return { top: r.top + scrollY, bottom: r.bottom + scrollY };
    });
    console.log(`# ${lang} embed: matrix top ${Math.round(matrix.top)} px`);
    assert.ok(matrix.top < HEIGHT && matrix.bottom <= HEIGHT, `the matrix spans ${matrix.top}–${matrix.bottom} px`);
    const geometry = await matrixGeometry(page);
    await tapCell(page, geometry, geometry.T - 1, 0);
    assert.match(await page.textContent('#cell-info'), TEXT[lang].cell);
    await page.screenshot({ path: `${ARTIFACTS}phone-embed-${lang}.png` });
    assert.deepEqual(errors, []);
    await close();
    const lab = await openPlayground('?embed=1&lab=lab-a&preset=lab-a', lang);
    await lab.page.waitForSelector('#lab-record');
    await assertNoSidewaysScroll(lab.page, 'the embedded lab');
    await lab.close();
  });

  test(`gallery on a phone (${lang}): no sideways scrolling with every figure drawn`, async () => {
    const { page, errors, close } = await openPhone('gallery.html', lang);
    await page.waitForFunction((n) => document.querySelectorAll('minimind-attention').length === n, FIGURE_COUNT);
    assert.equal(await page.getAttribute('html', 'lang'), lang);
    for (let i = 0; i < FIGURE_COUNT; i += 1) {
      await page.evaluate((k) => document.querySelectorAll('minimind-attention')[k].scrollIntoView(), i);
      await page.waitForFunction((k) => document.querySelectorAll('minimind-attention')[k].dataset.state === 'ready', i, {
        timeout: 30000,
      });
    }
    await page.evaluate(() => document.querySelector('iframe').scrollIntoView());
    await page.waitForFunction(() => document.querySelector('iframe').contentDocument?.body?.dataset.ready === 'true', null, {
      timeout: 30000,
    });
    await assertNoSidewaysScroll(page, 'the gallery');
    // The lab figures' records scroll inside their box, which fades on the
    // side with more to see and shows the hint, in the page's language
    // (the cue follows each box's size on the frame after it changes).
    await afterFrames(page);
    const records = await page.$$eval('minimind-attention', (figures) =>
      figures
        .map((f) => f.shadowRoot?.querySelector('.record-box'))
        .filter(Boolean)
        .map((box) => ({
          wider: box.scrollWidth > box.clientWidth + 1,
          overflow: box.dataset.overflow ?? '',
          hint: box.parentElement.querySelector('.scroll-hint'),
        }))
        .map(({ wider, overflow, hint }) => ({ wider, overflow, hintShown: !!hint && !hint.hidden, hintText: hint?.textContent })),
    );
    assert.ok(records.length >= 1, 'the gallery has lab records');
    for (const r of records) {
      assert.equal(r.wider, true, 'a record is wider than a phone');
      assert.equal(r.overflow, 'right');
      assert.equal(r.hintShown, true);
      assert.match(r.hintText, lang === 'en' ? /Scroll sideways/ : /左右滑动/);
    }
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: `${ARTIFACTS}phone-gallery-${lang}.png` });
    assert.deepEqual(errors, []);
    await close();
  });
}
