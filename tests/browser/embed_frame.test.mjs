// What a teacher copies, where the course page puts it, in headless Chromium:
// the copy-embed dialog's iframe snippet for the default sentence, pasted into
// a course page served on another origin, shows every row label of the matrix
// whole inside the frame (none dropped, none clipped, drawn at 9 px or more),
// on a desktop (1400 × 1000) and a phone (390 × 844), in en and zh-CN; the
// dialog's preview is that frame. And <minimind-attention> without `lang`
// follows the host page's `lang` (the nearest ancestor's) before the
// browser's: a zh course page read in an English browser is in Chinese, an en
// page in a Chinese browser in English; an explicit `lang` still wins.
// Screenshots go to test-artifacts/.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';

import { chromium } from 'playwright-core';

import { serve } from '../../scripts/serve.mjs';
import { LABEL_SIZE } from '../../web/views/matrix_layout.mjs';
import { ARTIFACTS, CHROMIUM } from './browser.mjs';

const DESKTOP = { viewport: { width: 1400, height: 1000 } };
const PHONE = { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true };
const SITE = new URL('../../dist/site/', import.meta.url).pathname;

let files; // dist/site/: the playground the dialog is opened on, and the element's files
let course; // the course pages, on another origin
let courseDir;
let browser;

before(async () => {
  courseDir = await mkdtemp(join(tmpdir(), 'minimind-frame-'));
  files = await serve(SITE);
  course = await serve(courseDir);
  // A browser of its own: contexts with a viewport and a browser language each.
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking'],
  });
});

after(async () => {
  await browser?.close();
  await Promise.all([files?.close(), course?.close()]);
  if (courseDir) await rm(courseDir, { recursive: true, force: true });
});

async function open(url, { size = DESKTOP, locale = 'en-US' } = {}) {
  const context = await browser.newContext({ ...size, locale });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (error) => errors.push(String(error)));
  page.on('console', (message) => message.type() === 'error' && errors.push(message.text()));
  await page.goto(url);
  return { page, errors, close: () => context.close() };
}

function coursePage(lang, title, body) {
  return `<!doctype html>
<html lang="${lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title><link rel="icon" href="data:,">
<style>body { max-width: 900px; margin: 16px auto; padding: 0 8px; font-family: serif }</style></head>
<body><h1>${title}</h1>
${body}
</body></html>`;
}

// The embedded playground's matrix once drawn: its rows (the table's), the
// labels drawn, and each row label's box in the frame's viewport.
// The frame of an <iframe> once it has navigated to `url` (a loaded machine may not have started yet).
async function frameAt(iframe, url) {
  const frame = await (await iframe.elementHandle()).contentFrame();
  await frame.waitForURL(url, { timeout: 60000 });
  return frame;
}

async function frameLabels(frame) {
  await frame.waitForSelector('body[data-ready="true"]', { timeout: 60000 });
  await frame.waitForFunction(
    () => document.querySelectorAll('#matrix-table tbody tr').length > 0 && document.getElementById('heatmap').dataset.layout,
  );
  return frame.evaluate(() => {
    const canvas = document.getElementById('heatmap');
    const layout = JSON.parse(canvas.dataset.layout);
    const rect = canvas.getBoundingClientRect();
    const scale = rect.width / (canvas.width / devicePixelRatio); // CSS px per drawn px
    const boxes = layout.boxes.slice(0, layout.rows.length).map(([x, y, w, h]) => ({
      left: rect.left + x * scale,
      top: rect.top + y * scale,
      right: rect.left + (x + w) * scale,
      bottom: rect.top + (y + h) * scale,
    }));
    const clipped = boxes
      .map((b, k) => ({ row: layout.rows[k], ...b }))
      .filter((b) => b.left < 0 || b.top < 0 || b.right > innerWidth || b.bottom > innerHeight);
    return {
      T: document.querySelectorAll('#matrix-table tbody tr').length,
      labelled: layout.rows,
      scale,
      clipped: clipped.map((b) => `${b.row}: ${Math.round(b.top)}–${Math.round(b.bottom)} of ${innerHeight}`),
    };
  });
}

function assertEveryRowLabel(shown, what) {
  assert.ok(shown.T >= 10, `${what}: the default sentence has ${shown.T} tokens`);
  assert.deepEqual(
    shown.labelled,
    Array.from({ length: shown.T }, (_, i) => i),
    `${what}: every row is labelled`,
  );
  assert.deepEqual(shown.clipped, [], `${what}: no row label is cut by the frame`);
  assert.ok(LABEL_SIZE * shown.scale >= 9, `${what}: labels drawn at ${LABEL_SIZE * shown.scale} px`);
}

for (const lang of ['en', 'zh-CN']) {
  test(`the dialog's iframe snippet (${lang}) on a course page of another origin labels every row, desktop and phone; the preview too`, async () => {
    const playground = await open(`${files.url}index.html?lang=${lang}`);
    const { page } = playground;
    await page.waitForSelector('body[data-ready="true"]', { timeout: 60000 });
    await page.waitForFunction(() => document.querySelectorAll('#matrix-table tbody tr').length > 0);
    await page.click('#embed-code');
    await page.waitForSelector('#embed-dialog[open]');
    const snippet = await page.inputValue('#embed-iframe');
    const height = Number(/ height="(\d+)"/.exec(snippet)[1]);
    assert.ok(height > 420, `the frame is ${height} px high`);
    // The preview is the snippet's frame: its address and height.
    const preview = await page.$eval('#embed-preview', (frame) => ({ src: frame.src, height: frame.height }));
    const snippetSrc = await page.evaluate(
      (html) => new DOMParser().parseFromString(html, 'text/html').querySelector('iframe').src,
      snippet,
    );
    assert.deepEqual(preview, { src: snippetSrc, height: String(height) });
    assert.match(await page.textContent('#embed-preview-title'), new RegExp(`${height}`));
    const previewFrame = await frameAt(page.locator('#embed-preview'), snippetSrc);
    assertEveryRowLabel(await frameLabels(previewFrame), 'the preview');
    await page.locator('#embed-preview').scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${ARTIFACTS}embed-dialog-preview-${lang}.png` });
    assert.deepEqual(playground.errors, []);
    await playground.close();

    // The snippet as copied, on a course page of another origin.
    const name = `frame-${lang}.html`;
    await writeFile(join(courseDir, name), coursePage(lang, 'Lesson 2.5 · attention', snippet));
    assert.notEqual(new URL(course.url).origin, new URL(snippetSrc).origin, 'the page and the frame are on different origins');
    for (const [sizeName, size] of [
      ['desktop', DESKTOP],
      ['phone', PHONE],
    ]) {
      const host = await open(`${course.url}${name}`, { size, locale: lang });
      await host.page.locator('iframe').scrollIntoViewIfNeeded();
      const frame = await frameAt(host.page.locator('iframe'), snippetSrc);
      assertEveryRowLabel(await frameLabels(frame), `${sizeName} ${lang}`);
      await host.page.screenshot({ path: `${ARTIFACTS}embed-frame-${sizeName}-${lang}.png` });
      assert.deepEqual(host.errors, []);
      await host.close();
    }
  });
}

test('<minimind-attention> without lang follows the page’s lang (the nearest ancestor’s), then the browser’s', async () => {
  const script = `<script type="module" src="${files.url}minimind-attention.js"></script>`;
  const figure = (id, attributes = '') =>
    `<minimind-attention id="${id}" view="lesson" example="softmax"${attributes}></minimind-attention>`;
  await writeFile(
    join(courseDir, 'lang-zh.html'),
    coursePage('zh-CN', '第 2.5 课', `${script}${figure('page')}<div lang="en">${figure('nested')}</div>${figure('own', ' lang="en"')}`),
  );
  await writeFile(
    join(courseDir, 'lang-en.html'),
    coursePage('en', 'Lesson 2.5', `${script}${figure('page')}${figure('own', ' lang="zh-CN"')}`),
  );
  const cases = [
    ['lang-zh.html', 'en-US', { page: 'zh-CN', nested: 'en', own: 'en' }],
    ['lang-en.html', 'zh-CN', { page: 'en', own: 'zh-CN' }],
  ];
  for (const [name, locale, expected] of cases) {
    const { page, errors, close } = await open(`${course.url}${name}`, { locale });
    assert.equal(await page.evaluate(() => navigator.language), locale);
    await page.waitForFunction(
      (n) => {
        const figures = [...document.querySelectorAll('minimind-attention')];
        return figures.length === n && figures.every((f) => f.dataset.state === 'ready');
      },
      Object.keys(expected).length,
      { timeout: 60000 },
    );
    const shown = await page.evaluate(() =>
      Object.fromEntries(
        [...document.querySelectorAll('minimind-attention')].map((f) => {
          const frame = f.shadowRoot.querySelector('figure.frame');
          const text = frame.innerText;
          return [f.id, { lang: frame.lang, han: /\p{Script=Han}/u.test(text) }];
        }),
      ),
    );
    const wanted = Object.fromEntries(Object.entries(expected).map(([id, lang]) => [id, { lang, han: lang === 'zh-CN' }]));
    assert.deepEqual(shown, wanted, `${name} in a ${locale} browser`);
    await page.screenshot({ path: `${ARTIFACTS}embed-lang-${name.replace('.html', '')}.png`, fullPage: true });
    assert.deepEqual(errors, []);
    await close();
  }
});
