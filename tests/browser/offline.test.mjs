// An offline course package: a lesson page and minimind-attention.single.js
// copied to a folder and opened from disk (file://), the script a classic
// <script src> (module scripts do not load from file:// pages). The figures
// must draw the JS API's numbers with nothing fetched but the two files, and
// "open in playground" must point next to the script (the classic script's
// own URL, which it finds without import.meta). Screenshots go to
// test-artifacts/.
import assert from 'node:assert/strict';
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, test } from 'node:test';

import { launchBrowser, openPage } from './browser.mjs';
import { trainedMatrix, trainedModel } from './demo.mjs';

const SINGLE = new URL('../../dist/site/minimind-attention.single.js', import.meta.url);
const ARTIFACTS = new URL('../../test-artifacts/', import.meta.url).pathname;
const LESSON = '小明把苹果给了小红，她很开心';

// The course package: lesson.html at the top, the script in figures/.
const PAGE = `<!doctype html>
<html lang="zh-CN">
  <head>
    <meta charset="utf-8" />
    <title>第 2.5 课（离线）</title>
    <link rel="icon" href="data:," />
    <script src="figures/minimind-attention.single.js"></script>
  </head>
  <body style="max-width: 900px; margin: 16px auto">
    <h1>第 2.5 课：Attention</h1>
    <minimind-attention id="trained" lang="zh-CN"></minimind-attention>
    <minimind-attention id="weather" text="今天天气很好" head="1" stage="scores_scaled" lang="en"></minimind-attention>
  </body>
</html>
`;

let dir;
let browser;

before(async () => {
  await mkdir(ARTIFACTS, { recursive: true });
  dir = await mkdtemp(join(tmpdir(), 'minimind-offline-'));
  await mkdir(join(dir, 'figures'));
  await copyFile(SINGLE, join(dir, 'figures/minimind-attention.single.js'));
  await writeFile(join(dir, 'lesson.html'), PAGE);
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

test('the single file is a classic script: no import.meta, no import or export statements', async () => {
  const source = await readFile(SINGLE, 'latin1');
  assert.doesNotMatch(source, /import\.meta/);
  assert.doesNotMatch(source, /(^|[;}\n])\s*(import\s*[{*\w'"]|export\s*[{*\w])/, 'no static import or export');
});

test('a lesson page opened from disk draws the figures from the classic single-file script', async () => {
  const { page, errors } = await openPage(browser.context);
  await page.setViewportSize({ width: 1000, height: 1200 });
  const requests = [];
  page.on('request', (request) => requests.push(request.url()));
  const url = pathToFileURL(join(dir, 'lesson.html')).href;
  await page.goto(url);
  await page.waitForFunction(() => [...document.querySelectorAll('minimind-attention')].every((e) => e.dataset.state === 'ready'), null, {
    timeout: 60000,
  });

  // The numbers are the JS API's, with the SIMD build the single file carries.
  const { heads } = await trainedModel();
  const { layer, head } = heads.pronounHead;
  const want = {
    trained: await trainedMatrix({ text: LESSON, layer, head, variant: 'simd' }),
    weather: await trainedMatrix({ text: '今天天气很好', layer, head: 1, stage: 'scores_scaled', variant: 'simd' }),
  };
  for (const [id, { rows }] of Object.entries(want)) {
    const weights = await page.evaluate((elementId) => document.getElementById(elementId).weights, id);
    assert.equal(weights.length, rows.length, `${id}: rows`);
    rows.forEach((row, i) => row.forEach((w, j) => assert.ok(Math.abs(weights[i][j] - w) <= 1e-6, `${id}: cell ${i},${j}`)));
  }

  // The canvases have a size and pixels drawn.
  for (const id of Object.keys(want)) {
    const drawn = await page.evaluate((elementId) => {
      const canvas = document.getElementById(elementId).shadowRoot.querySelector('canvas');
      const { data } = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
      let painted = 0;
      for (let k = 3; k < data.length; k += 4) if (data[k] > 0) painted += 1;
      const box = canvas.getBoundingClientRect();
      return { width: canvas.width, height: canvas.height, shown: box.width * box.height, painted: painted / (data.length / 4) };
    }, id);
    assert.ok(drawn.width > 100 && drawn.height > 100 && drawn.shown > 0, `${id}: the canvas has a size (${JSON.stringify(drawn)})`);
    assert.ok(drawn.painted > 0.2, `${id}: the canvas is drawn (${(drawn.painted * 100).toFixed(1)} % of its pixels)`);
  }

  // Nothing but the page and the script was fetched: no .wasm, no model, no network.
  const fetched = requests.filter((r) => !r.startsWith('data:'));
  assert.deepEqual(fetched.sort(), [url, pathToFileURL(join(dir, 'figures/minimind-attention.single.js')).href].sort());
  // "Open in playground" is index.html next to the script, found without import.meta.
  const link = await page.evaluate(() => document.getElementById('trained').shadowRoot.querySelector('a.open').href);
  assert.ok(link.startsWith(pathToFileURL(join(dir, 'figures/index.html')).href + '?'), link);
  assert.equal(
    await page.evaluate(() => document.getElementById('weather').shadowRoot.querySelector('.caption .title').textContent.includes('÷ √d')),
    true,
  );
  await page.screenshot({ path: `${ARTIFACTS}offline-single-file.png`, fullPage: true });
  assert.deepEqual(errors, []);
  await page.close();
});
