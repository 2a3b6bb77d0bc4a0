// Tables and keyboards, in headless Chromium: the skip link ("跳到矩阵" /
// "Skip to the matrix") is the first Tab stop and takes the focus to the
// matrix; the canvas's focus ring is drawn whole (no scrolling box clips it,
// and it is on screen) on a desktop, a phone-sized window and the embed view;
// the table form reads "—" in every masked cell with one legend for them, and
// fits its panel or scrolls inside it with a cue; the .pth head-count row is
// there only when a .pth needs it (a generation-2 .pth without config.json,
// whose head count its tensors cannot tell). Screenshots go to test-artifacts/.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { translate } from '../../web/i18n.mjs';
import { loadCase } from '../node/helpers.mjs';
import { ARTIFACTS, afterFrames, openPage, useServedBrowser } from './browser.mjs';

const LANGUAGES = { 'zh-CN': ['zh-CN', 'zh'], en: ['en-US', 'en'] };

const site = useServedBrowser();

async function openPlayground(query = '', { lang = 'en', width = 1280, height = 800 } = {}) {
  const { page, errors } = await openPage(site.context);
  await page.setViewportSize({ width, height });
  await page.addInitScript((list) => Object.defineProperty(navigator, 'languages', { get: () => list }), LANGUAGES[lang]);
  await page.goto(`${site.url}${query}`);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 60000 });
  await page.waitForFunction(() => document.querySelectorAll('#matrix-table tbody tr').length > 0);
  return { page, errors };
}

// The focus ring's box (the canvas's border box grown by outline-offset + outline-width), and
// every box that could clip it: each scrolling or clipping ancestor's padding box, and the window.
function focusRing(page) {
  return page.evaluate(() => {
    const canvas = document.getElementById('heatmap');
    const style = getComputedStyle(canvas);
    const grow = parseFloat(style.outlineOffset) + parseFloat(style.outlineWidth);
    const r = canvas.getBoundingClientRect();
    const ring = { left: r.left - grow, top: r.top - grow, right: r.right + grow, bottom: r.bottom + grow };
    const clips = [];
    for (let p = canvas.parentElement; p && p !== document.documentElement; p = p.parentElement) {
      const s = getComputedStyle(p);
      if (s.overflowX === 'visible' && s.overflowY === 'visible') continue;
      const b = p.getBoundingClientRect();
      clips.push({
        what: `${p.tagName.toLowerCase()}.${p.className}`,
        left: b.left + parseFloat(s.borderLeftWidth),
        top: b.top + parseFloat(s.borderTopWidth),
        right: b.right - parseFloat(s.borderRightWidth),
        bottom: b.bottom - parseFloat(s.borderBottomWidth),
      });
    }
    // On screen too, unless the matrix is taller than the window (a long sentence's, at its smallest cells).
    if (ring.bottom - ring.top <= innerHeight) clips.push({ what: 'the window', left: 0, top: 0, right: innerWidth, bottom: innerHeight });
    return { focused: document.activeElement === canvas, style: style.outlineStyle, width: parseFloat(style.outlineWidth), ring, clips };
  });
}

function assertRingVisible({ focused, style, width, ring, clips }, what) {
  assert.ok(focused, `${what}: the canvas has the focus`);
  assert.notEqual(style, 'none', `${what}: the canvas shows a focus ring`);
  assert.ok(width >= 2, `${what}: a ring of ${width} px`);
  for (const clip of clips) {
    const inside =
      ring.left >= clip.left - 0.5 && ring.top >= clip.top - 0.5 && ring.right <= clip.right + 0.5 && ring.bottom <= clip.bottom + 0.5;
    assert.ok(inside, `${what}: ${clip.what} clips the focus ring (ring ${JSON.stringify(ring)}, box ${JSON.stringify(clip)})`);
  }
}

for (const lang of Object.keys(LANGUAGES)) {
  test(`the skip link (${lang}) is the first Tab stop and reaches the matrix`, async () => {
    const { page, errors } = await openPlayground('', { lang });
    const hidden = await page.$eval('.skip-link', (a) => a.getBoundingClientRect().bottom);
    assert.ok(hidden <= 0, 'out of sight until focused');
    await page.keyboard.press('Tab');
    const link = await page.evaluate(() => {
      const a = document.activeElement;
      const r = a.getBoundingClientRect();
      return { skip: a.classList.contains('skip-link'), text: a.textContent, top: r.top, bottom: r.bottom, width: r.width };
    });
    assert.equal(link.skip, true, 'the first Tab stop is the skip link');
    assert.equal(link.text, translate(lang, 'skip.matrix'));
    assert.equal(link.text, lang === 'en' ? 'Skip to the matrix' : '跳到矩阵');
    assert.ok(link.top >= 0 && link.bottom <= 800 && link.width > 20, `shown when focused: ${JSON.stringify(link)}`);
    await page.screenshot({ path: `${ARTIFACTS}skip-link-${lang}.png`, clip: { x: 0, y: 0, width: 640, height: 160 } });
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.activeElement?.id === 'heatmap');
    // The first cell is read out, and the arrow keys move from there.
    const first = await page.textContent('#cell-info');
    const tokens = await page.$$eval('#matrix-table tbody th', (ths) => ths.map((th) => th.textContent));
    assert.ok(first.startsWith(`${tokens[0]} → ${tokens[0]}`), first);
    await page.keyboard.press('ArrowDown');
    assert.ok((await page.textContent('#cell-info')).startsWith(`${tokens[1]} → ${tokens[0]}`));
    assertRingVisible(await focusRing(page), 'after the skip link');
    await page.screenshot({ path: `${ARTIFACTS}skip-link-matrix-${lang}.png` });
    assert.deepEqual(errors, []);
    await page.close();
  });
}

test('the canvas focus ring is drawn whole: desktop, a phone-sized window, the embed view', async () => {
  for (const [what, query, width, height] of [
    ['desktop', '', 1280, 800],
    ['phone-sized', '', 390, 844],
    ['embed', '?embed=1', 600, 500],
    ['long sentence', `?preset=lab-a&text=${encodeURIComponent(Array.from({ length: 60 }, (_, k) => `w${k}`).join(' '))}`, 1280, 800],
  ]) {
    const { page, errors } = await openPlayground(query, { width, height });
    await page.focus('#heatmap');
    // Keyboard focus: the ring the stylesheet draws for :focus-visible.
    await page.keyboard.press('ArrowRight');
    await page.$eval('#heatmap', (canvas) => canvas.scrollIntoView({ block: 'nearest' }));
    assert.equal(await page.$eval('#heatmap', (canvas) => canvas.matches(':focus-visible')), true);
    assertRingVisible(await focusRing(page), what);
    assert.deepEqual(errors, []);
    await page.close();
  }
});

for (const lang of Object.keys(LANGUAGES)) {
  test(`the table (${lang}): masked cells read "—" with one legend; it fits its panel or scrolls inside it`, async () => {
    const masked = translate(lang, 'matrix.masked');
    for (const [text, stage] of [
      ['a b c d', 'attn_weights'],
      ['a b c d', 'scores_masked'],
      [Array.from({ length: 40 }, (_, k) => `w${k}`).join(' '), 'attn_weights'],
    ]) {
      const { page, errors } = await openPlayground(`?preset=lab-a&text=${encodeURIComponent(text)}&stage=${stage}`, { lang });
      await page.click('.view > .table-details summary');
      // The scroll cue follows the opened table's size on the next frame.
      await afterFrames(page);
      const table = await page.evaluate(() => {
        const table = document.getElementById('matrix-table');
        const box = table.parentElement;
        const hint = box.previousElementSibling;
        const view = document.querySelector('section.view').getBoundingClientRect();
        return {
          T: table.tBodies[0].rows.length,
          maskedCells: [...table.querySelectorAll('td[data-masked]')].map((td) => td.textContent),
          cells: [...table.querySelectorAll('td')].map((td) => td.textContent),
          legend: table.caption.querySelector('.table-legend')?.textContent ?? null,
          whole: table.textContent,
          boxInside: box.getBoundingClientRect().left >= view.left && box.getBoundingClientRect().right <= view.right,
          scrolls: box.scrollWidth > box.clientWidth,
          overflow: box.dataset.overflow ?? null,
          hint: hint?.classList.contains('scroll-hint') && !hint.hidden && hint.getBoundingClientRect().height > 0,
          pageWidth: document.documentElement.scrollWidth,
        };
      });
      const T = table.T;
      assert.equal(table.maskedCells.length, (T * (T - 1)) / 2, `${stage}: the future is masked`);
      assert.ok(
        table.maskedCells.every((cell) => cell === '—'),
        `${stage}: masked cells read "—": ${[...new Set(table.maskedCells)].join(' | ')}`,
      );
      assert.ok(table.legend?.startsWith('—') && table.legend.includes(masked), `${stage}: one legend: ${table.legend}`);
      assert.equal(table.whole.split(masked).length - 1, 1, `${stage}: "${masked}" is written once in the table, in its legend`);
      assert.ok(!table.cells.some((cell) => cell.includes(masked)), `${stage}: no cell spells it out`);
      // It fits its panel, or scrolls inside it and says so.
      assert.ok(table.boxInside, 'the table’s box stays in its panel');
      assert.ok(table.pageWidth <= 1280, `the page is ${table.pageWidth} px wide`);
      assert.equal(table.hint, table.scrolls, `the "scroll" hint shows exactly when the table is wider than its box (T = ${T})`);
      assert.equal(table.overflow, table.scrolls ? 'right' : null, 'the side with more to see is faded');
      if (T > 20) assert.equal(table.scrolls, true, `${T} tokens scroll inside the box`);
      if (T > 20) await page.screenshot({ path: `${ARTIFACTS}table-scroll-${lang}.png`, fullPage: true });
      assert.deepEqual(errors, []);
      await page.close();
    }
  });
}

async function giveFiles(page, paths, expected) {
  await page.setInputFiles('#file-input', paths);
  await page.waitForFunction(
    (source) => new RegExp(source).test(document.getElementById('files-status').textContent) && document.body.dataset.ready === 'true',
    expected.source,
    { timeout: 30000 },
  );
}

const headOptions = (page) => page.$$eval('#head option', (options) => options.length);

test('the .pth head-count row: hidden unless a .pth needs the head count', async () => {
  const gen2 = fileURLToPath(loadCase('gen2_dense').dir); // 4 heads, no q_norm: the head count is not in the tensors
  const gen3 = fileURLToPath(loadCase('gen3_dense').dir); // 4 heads, q_norm gives head_dim and so the head count
  const { page, errors } = await openPlayground('?input=ids&text=5%206%207');
  assert.equal(await page.isVisible('#pth-hints'), false, 'no row before any file');
  assert.equal(await page.$eval('#pth-hints', (row) => getComputedStyle(row).display), 'none');

  await giveFiles(page, [join(gen3, 'model.pth')], /^Loaded model\.pth/);
  assert.doesNotMatch(await page.textContent('#files-status'), /num_attention_heads/);
  assert.equal(await headOptions(page), 4, 'generation 3: the head count read from the tensors');
  assert.equal(await page.isVisible('#pth-hints'), false, 'a generation-3 .pth does not need it');

  await giveFiles(page, [join(gen2, 'model.pth')], /^Loaded model\.pth/);
  assert.match(await page.textContent('#files-status'), /assumed: num_attention_heads/);
  assert.equal(await headOptions(page), 8, 'MiniMind’s default, assumed');
  assert.equal(await page.isVisible('#pth-hints'), true, 'a generation-2 .pth alone needs it');
  await page.screenshot({ path: `${ARTIFACTS}pth-heads.png`, fullPage: true });

  await page.fill('#pth-heads', '4');
  await page.click('#pth-reload');
  await page.waitForFunction(() => document.querySelectorAll('#head option').length === 4, null, { timeout: 30000 });
  assert.equal(await page.isVisible('#pth-hints'), true, 'still there to change the count given');

  // A count the tensors cannot have: the load fails over it, and the row stays to fix it.
  await page.fill('#pth-heads', '3');
  await page.click('#pth-reload');
  await page.waitForFunction(() => /^Could not load/.test(document.getElementById('files-status').textContent), null, { timeout: 30000 });
  assert.match(await page.textContent('#files-status'), /num_attention_heads/);
  assert.equal(await page.isVisible('#pth-hints'), true);

  await giveFiles(page, [join(gen2, 'config.json'), join(gen2, 'model.pth')], /^Loaded model\.pth/);
  assert.equal(await headOptions(page), 4);
  assert.equal(await page.isVisible('#pth-hints'), false, 'a .pth with its config.json does not need it');
  assert.deepEqual(errors, []);
  await page.close();
});
