// <minimind-attention> where its users put it: a course page on one origin,
// the element's files on another. The teachers' page's snippet (docs/embed.md), its URL pointed at
// the files' server (scripts/serve.mjs, which lets any origin read them),
// must draw its figures; and when the Wasm module, the .wasm or the trained
// model cannot be loaded (unreachable, broken, not hosted) or the page's
// Content-Security-Policy stops the single file's WebAssembly, each element
// shows a message in its own box, in its language (en, zh-CN), naming the URL
// it tried. Screenshots go to test-artifacts/.
import assert from 'node:assert/strict';
import { copyFile, cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';

import { serve } from '../../scripts/serve.mjs';
import { embedText } from '../../web/component/messages.mjs';
import { launchBrowser } from './browser.mjs';
import { trainedMatrix, trainedModel } from './demo.mjs';

const ROOT = new URL('../../', import.meta.url).pathname;
const SITE = join(ROOT, 'dist/site');
const ARTIFACTS = new URL('../../test-artifacts/', import.meta.url).pathname;
const LESSON = '小明把苹果给了小红，她很开心';
const PLACEHOLDER = 'https://your.site/minimind/'; // where docs/embed.md's snippets say the files are

let files; // dist/site/, as a course site's CDN would host it
let broken; // copies of dist/site/ with a file missing or damaged
let course; // the course pages, on another origin
let courseDir;
let brokenDir;
let browser;

before(async () => {
  await mkdir(ARTIFACTS, { recursive: true });
  courseDir = await mkdtemp(join(tmpdir(), 'minimind-course-'));
  brokenDir = await mkdtemp(join(tmpdir(), 'minimind-broken-'));
  // bad-wasm/: the .wasm is not WebAssembly; no-model/: the trained model is not hosted.
  await cp(SITE, join(brokenDir, 'bad-wasm'), { recursive: true });
  // Both one-thread builds: where the relaxed one fails, the element falls back to the SIMD one.
  for (const file of ['minimind.wasm', 'minimind-relaxed.wasm']) {
    await writeFile(join(brokenDir, 'bad-wasm/wasm', file), 'not WebAssembly at all');
  }
  await mkdir(join(brokenDir, 'no-model/wasm'), { recursive: true });
  // Only the SIMD build, as an earlier version's hosting instructions had it: the element falls back to it.
  for (const file of ['minimind-attention.js', 'wasm/minimind.mjs', 'wasm/minimind.wasm']) {
    await copyFile(join(SITE, file), join(brokenDir, 'no-model', file));
  }
  await copyFile(join(SITE, 'minimind-attention.single.js'), join(brokenDir, 'minimind-attention.single.js'));
  files = await serve(SITE);
  broken = await serve(brokenDir);
  course = await serve(courseDir);
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await Promise.all([files?.close(), broken?.close(), course?.close()]);
  for (const dir of [courseDir, brokenDir]) if (dir) await rm(dir, { recursive: true, force: true });
});

// The first element snippet of docs/embed.md (its section on the element), as a course page pastes it.
async function embedSnippet() {
  const page = await readFile(join(ROOT, 'docs/embed.md'), 'utf8');
  const start = page.indexOf('## The element');
  assert.ok(start >= 0, 'docs/embed.md has its section on the element');
  const section = page.slice(start);
  const [, snippet] = /```html\n([\s\S]*?)```/.exec(section);
  assert.ok(snippet.includes(`<script type="module" src="${PLACEHOLDER}minimind-attention.js"></script>`), snippet);
  return snippet;
}

function coursePage(title, body, head = '') {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${title}</title><link rel="icon" href="data:,">${head}
<style>body { max-width: 900px; margin: 16px auto; font-family: serif }</style></head>
<body><h1>${title}</h1>
${body}
</body></html>`;
}

async function open(name) {
  const page = await browser.context.newPage();
  await page.setViewportSize({ width: 1000, height: 900 });
  const uncaught = [];
  const consoleErrors = [];
  page.on('pageerror', (error) => uncaught.push(String(error)));
  page.on('console', (message) => message.type() === 'error' && consoleErrors.push(message.text()));
  await page.addInitScript(() => {
    window.figureErrors = [];
    document.addEventListener('minimind-error', (event) => window.figureErrors.push({ id: event.target.id, detail: event.detail }));
  });
  const responses = [];
  page.on('response', (response) => responses.push(response));
  return { page, uncaught, consoleErrors, responses, url: `${course.url}${name}` };
}

function settled(page, state) {
  return page.waitForFunction(
    (wanted) => {
      const elements = [...document.querySelectorAll('minimind-attention')];
      return elements.length > 0 && elements.every((e) => e.dataset.state === wanted);
    },
    state,
    { timeout: 60000 },
  );
}

test('the teachers’ snippet (docs/embed.md) on a page of another origin than the files draws every figure', async () => {
  const snippet = (await embedSnippet()).replaceAll(PLACEHOLDER, files.url);
  await writeFile(join(courseDir, 'readme.html'), coursePage('Lesson 2.5 · another origin', snippet));
  const { page, uncaught, consoleErrors, responses, url } = await open('readme.html');
  assert.notEqual(new URL(url).origin, new URL(files.url).origin, 'the page and the files are on different origins');
  await page.goto(url);
  await settled(page, 'ready');

  const figures = await page.evaluate(() =>
    [...document.querySelectorAll('minimind-attention')].map((element) => {
      const canvas = element.shadowRoot.querySelector('canvas');
      const { data } = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
      let painted = 0;
      for (let k = 3; k < data.length; k += 4) if (data[k] > 0) painted += 1;
      return { width: canvas.width, height: canvas.height, painted: painted / (data.length / 4), weights: element.weights };
    }),
  );
  assert.equal(figures.length, 3, 'the snippet has three figures');
  for (const [i, figure] of figures.entries()) {
    assert.ok(figure.width > 100 && figure.height > 100, `figure ${i}: the canvas has a size (${figure.width}×${figure.height})`);
    assert.ok(figure.painted > 0.2, `figure ${i}: the canvas is drawn (${(figure.painted * 100).toFixed(1)} %)`);
  }
  // The bare element: the trained model at its pronoun head, the JS API's numbers.
  const { heads } = await trainedModel();
  const { rows } = await trainedMatrix({ text: LESSON, layer: heads.pronounHead.layer, head: heads.pronounHead.head });
  assert.equal(figures[0].weights.length, rows.length);
  rows.forEach((row, i) => row.forEach((w, j) => assert.ok(Math.abs(figures[0].weights[i][j] - w) <= 1e-6, `cell ${i},${j}`)));

  // The script, the Wasm module and the model came from the files' origin, readable by any origin.
  const fromFiles = responses.filter((r) => r.url().startsWith(files.url));
  const paths = fromFiles.map((r) => new URL(r.url()).pathname);
  // Chromium has relaxed SIMD: the relaxed build.
  for (const path of [
    '/minimind-attention.js',
    '/wasm/minimind-relaxed.mjs',
    '/wasm/minimind-relaxed.wasm',
    '/models/minimind-demo/model.safetensors',
  ]) {
    assert.ok(paths.includes(path), `${path} was loaded from ${files.url} (${paths.join(', ')})`);
  }
  for (const response of fromFiles) {
    const headers = await response.allHeaders();
    assert.equal(headers['access-control-allow-origin'], '*', response.url());
    assert.equal(headers['cross-origin-resource-policy'], 'cross-origin', response.url());
  }
  await page.screenshot({ path: `${ARTIFACTS}cross-origin-readme.png`, fullPage: true });
  assert.deepEqual([...uncaught, ...consoleErrors], []);
  await page.close();
});

test('the single file as a module script from another origin: drawn, nothing else fetched, its link next to it', async () => {
  const body = `<script type="module" src="${files.url}minimind-attention.single.js"></script>
<minimind-attention id="single" text="今天天气很好" head="1" lang="zh-CN"></minimind-attention>`;
  await writeFile(join(courseDir, 'single.html'), coursePage('One script file', body));
  const { page, uncaught, consoleErrors, responses, url } = await open('single.html');
  await page.goto(url);
  await settled(page, 'ready');
  const shown = await page.evaluate(() => {
    const element = document.getElementById('single');
    const canvas = element.shadowRoot.querySelector('canvas');
    const { data } = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
    let painted = 0;
    for (let k = 3; k < data.length; k += 4) if (data[k] > 0) painted += 1;
    return { weights: element.weights, painted, link: element.shadowRoot.querySelector('a.open').href };
  });
  const { heads } = await trainedModel();
  const { rows } = await trainedMatrix({ text: '今天天气很好', layer: heads.pronounHead.layer, head: 1 });
  assert.equal(shown.weights.length, rows.length);
  rows.forEach((row, i) => row.forEach((w, j) => assert.ok(Math.abs(shown.weights[i][j] - w) <= 1e-6, `cell ${i},${j}`)));
  assert.ok(shown.painted > 0, 'the canvas is drawn');
  // Without import.meta (a classic-script bundle) the script still knows its URL: the link is next to it, not to the page.
  assert.ok(shown.link.startsWith(`${files.url}index.html?`), shown.link);
  assert.deepEqual(
    responses.filter((r) => r.url().startsWith(files.url)).map((r) => new URL(r.url()).pathname),
    ['/minimind-attention.single.js'],
  );
  assert.deepEqual([...uncaught, ...consoleErrors], []);
  await page.close();
});

// A page whose figures (one in English, one in Chinese) cannot load what they
// need; expected(lang) is the message in the element's box, from its catalogue.
async function assertMessages({ name, script, route, expected, hint }) {
  const body = `<minimind-attention id="en" lang="en"><span class="fallback">a figure (needs JavaScript)</span></minimind-attention>
<p>Between the figures.</p>
<minimind-attention id="zh" lang="zh-CN"><span class="fallback">注意力图（需要 JavaScript）</span></minimind-attention>`;
  await writeFile(join(courseDir, `${name}.html`), coursePage(name, body, script));
  const { page, uncaught, url } = await open(`${name}.html`);
  for (const url of route ?? []) await page.route(url, (r) => r.abort('connectionrefused'));
  await page.goto(url);
  await settled(page, 'error');
  for (const lang of ['en', 'zh-CN']) {
    const id = lang === 'en' ? 'en' : 'zh';
    const shown = await page.evaluate((elementId) => {
      const element = document.getElementById(elementId);
      const status = element.shadowRoot.querySelector('.status');
      const box = element.getBoundingClientRect();
      const inner = status.getBoundingClientRect();
      return {
        message: status.querySelector('.message').textContent,
        hint: status.querySelector('.hint').textContent,
        visible: getComputedStyle(status).display !== 'none' && inner.height > 0,
        inside: inner.top >= box.top && inner.bottom <= box.bottom && inner.left >= box.left && inner.right <= box.right,
        height: box.height,
        fallbackShown: element.querySelector('.fallback').getClientRects().length > 0,
        events: window.figureErrors.filter((e) => e.id === elementId).map((e) => e.detail),
      };
    }, id);
    const message = embedText(lang, 'embed.error', { message: expected(lang) });
    assert.equal(shown.message, message, `${name}, ${lang}`);
    assert.equal(shown.hint, embedText(lang, hint), `${name}, ${lang}: the hint`);
    assert.ok(shown.visible && shown.inside, `${name}, ${lang}: the message is shown inside the element's box`);
    assert.ok(shown.height >= 100, `${name}, ${lang}: the box is ${shown.height} px tall`);
    assert.equal(shown.fallbackShown, false, `${name}, ${lang}: the tag's own content is hidden once the element runs`);
    assert.equal(shown.events.length, 1, `${name}, ${lang}: one minimind-error`);
    assert.equal(shown.events[0].message, message);
    assert.ok(shown.events[0].cause, 'the browser’s own words are in the event');
  }
  // The Chinese box has the Chinese message, the English one the English message.
  assert.match(
    await page.evaluate(() => document.getElementById('zh').shadowRoot.querySelector('.message').textContent),
    /[\u4e00-\u9fff]/,
  );
  assert.doesNotMatch(
    await page.evaluate(() => document.getElementById('en').shadowRoot.querySelector('.message').textContent),
    /[\u4e00-\u9fff]/,
  );
  await page.screenshot({ path: `${ARTIFACTS}load-error-${name}.png`, fullPage: true });
  assert.deepEqual(uncaught, [], 'nothing is thrown into the host page');
  await page.close();
}

test('the Wasm module’s URL unreachable: each figure says so in its box, in its language', async () => {
  const moduleUrl = `${files.url}wasm/minimind.mjs`;
  await assertMessages({
    name: 'module-unreachable',
    script: `<script type="module" src="${files.url}minimind-attention.js"></script>`,
    route: [moduleUrl, `${files.url}wasm/minimind-relaxed.mjs`], // the message names the SIMD build, the fallback
    expected: (lang) => embedText(lang, 'embed.moduleFailed', { url: moduleUrl }),
    hint: 'embed.hostHint',
  });
});

test('a .wasm that is not WebAssembly: each figure names it in its box, in its language', async () => {
  await assertMessages({
    name: 'bad-wasm',
    script: `<script type="module" src="${broken.url}bad-wasm/minimind-attention.js"></script>`,
    expected: (lang) => embedText(lang, 'embed.moduleFailed', { url: `${broken.url}bad-wasm/wasm/minimind.wasm` }),
    hint: 'embed.hostHint',
  });
});

test('the trained model not hosted: each figure names its folder in its box, in its language', async () => {
  await assertMessages({
    name: 'no-model',
    script: `<script type="module" src="${broken.url}no-model/minimind-attention.js"></script>`,
    expected: (lang) => embedText(lang, 'embed.modelFailed', { url: `${broken.url}no-model/models/minimind-demo/` }),
    hint: 'embed.hostHint',
  });
});

test('the single file on a page whose Content-Security-Policy forbids compiling: the message in its box', async () => {
  const origin = new URL(broken.url).origin;
  await assertMessages({
    name: 'single-csp',
    script: `<meta http-equiv="Content-Security-Policy" content="script-src ${origin}"><script src="${broken.url}minimind-attention.single.js"></script>`,
    expected: (lang) => embedText(lang, 'embed.moduleInlineFailed'),
    hint: 'embed.inlineHint',
  });
});

test('the element’s own script unreachable: what the tag holds is shown instead', async () => {
  const body = `<script type="module" src="${broken.url}nowhere/minimind-attention.js"></script>
<minimind-attention id="figure"><span class="fallback">注意力图（需要 JavaScript）</span></minimind-attention>`;
  await writeFile(join(courseDir, 'no-script.html'), coursePage('no script', body));
  const { page, uncaught, url } = await open('no-script.html');
  const script = page.waitForResponse((response) => response.url().endsWith('/nowhere/minimind-attention.js'));
  await page.goto(url); // the load event comes after the module script failed
  assert.equal((await script).status(), 404);
  const shown = await page.evaluate(() => {
    const fallback = document.querySelector('#figure .fallback').getBoundingClientRect();
    return { defined: customElements.get('minimind-attention') !== undefined, width: fallback.width, height: fallback.height };
  });
  assert.equal(shown.defined, false);
  assert.ok(shown.width > 0 && shown.height > 0, 'the fallback text is shown');
  assert.deepEqual(uncaught, []);
  await page.close();
});
