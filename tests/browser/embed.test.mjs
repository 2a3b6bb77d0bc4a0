// The embeddable figure, <minimind-attention>, on a course page of its own
// (embed_host.html, with hostile global styles): the numbers are the JS
// API's, the host page's styles and the figures' do not mix, the module is
// fetched once, attributes redraw, bad ones show a message and recover,
// HTML stays text; the single-file bundle works with no .wasm to host; the
// iframe form loads the playground; the copy-embed dialog says where the
// snippets' URLs must point. Screenshots go to test-artifacts/.
import assert from 'node:assert/strict';
import { copyFile, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';

import { loadMiniMind } from '../../js/minimind.mjs';
import { serve } from '../../scripts/serve.mjs';
import { CATALOGUES, PAGE_TERMS } from '../../web/component/messages.mjs';
import { hostingNote, isLocalUrl } from '../../web/embed_code.mjs';
import { LANGUAGES } from '../../web/i18n.mjs';
import { tokenize } from '../../js/preset_tokens.mjs';
import { readUrlState } from '../../web/url_state.mjs';
import { MASKED_MARK } from '../../web/views/matrix_table.mjs';
import { launchBrowser, openPage } from './browser.mjs';
import { trainedMatrix, trainedModel } from './demo.mjs';

const ROOT = new URL('../../', import.meta.url).pathname;
const ARTIFACTS = new URL('../../test-artifacts/', import.meta.url).pathname;
const HOST = 'tests/browser/embed_host.html';
const LESSON = '小明把苹果给了小红，她很开心'; // the element's default text
const DEMO = 'minimind-demo'; // the element's default model: the project's trained MiniMind
const WEATHER = '今天 天气 很 好 ！';
// The host page's own elements and the properties its styles set.
const HOST_ELEMENTS = ['body', '#title', '#intro', '#host-cell', '#host-canvas', '.figures'];
const HOST_PROPERTIES = [
  'font-family',
  'font-size',
  'color',
  'line-height',
  'letter-spacing',
  'border-top-width',
  'border-top-color',
  'margin-top',
  'padding-top',
  'background-color',
  'display',
];

let server; // the repository: the host page and dist/site/
let browser;
let singleDir; // only the single-file bundle and its host page
let singleServer;

before(async () => {
  await mkdir(ARTIFACTS, { recursive: true });
  server = await serve(ROOT);
  browser = await launchBrowser();
  singleDir = await mkdtemp(join(tmpdir(), 'minimind-embed-'));
  await copyFile(join(ROOT, 'dist/site/minimind-attention.single.js'), join(singleDir, 'minimind-attention.single.js'));
  await copyFile(join(ROOT, 'tests/browser/embed_single_host.html'), join(singleDir, 'index.html'));
  singleServer = await serve(singleDir);
});

after(async () => {
  await browser?.close();
  await server?.close();
  await singleServer?.close();
  if (singleDir) await rm(singleDir, { recursive: true, force: true });
});

// The matrix the JS API computes for what an element shows, as rows. Without
// a layer and head: the trained model's pronoun head (heads.json), a preset's 0 and 0.
// variant: the build the figure runs ('auto': the relaxed build, as in Chromium; the single file: 'simd').
async function expected({ text = LESSON, preset = DEMO, config = null, layer, head, stage = 'attn_weights', causal = true, variant }) {
  if (preset === DEMO) {
    const { pronounHead } = (await trainedModel()).heads;
    return trainedMatrix({ text, layer: layer ?? pronounHead.layer, head: head ?? pronounHead.head, stage, causal, variant });
  }
  layer ??= 0;
  head ??= 0;
  const mm = await loadMiniMind({ variant });
  const model = mm.createModel(config ? { config: { ...mm.presetConfig(preset), ...config }, seed: 0 } : { preset, seed: 0 });
  const { tokens, ids } = tokenize(text, model.info().vocab_size, 128);
  const { trace } = model.forward(ids, { trace: { layers: [layer], stages: [stage] }, causalMask: causal });
  const data = trace.get(layer, stage).data;
  model.dispose();
  const T = ids.length;
  return { tokens, rows: Array.from({ length: T }, (_, i) => Array.from(data.subarray((head * T + i) * T, (head * T + i + 1) * T))) };
}

function assertClose(actual, want, what) {
  assert.equal(actual.length, want.length, `${what}: rows`);
  want.forEach((row, i) =>
    row.forEach((w, j) => {
      const a = actual[i][j];
      assert.ok(a === w || Math.abs(a - w) <= 1e-6, `${what}: cell ${i},${j} is ${a}, the JS API gives ${w}`);
    }),
  );
}

// Every 'minimind-ready' of the page, in order: {id, tokens, matrix}.
function recordEvents(page) {
  return page.addInitScript(() => {
    window.figureEvents = [];
    for (const type of ['minimind-ready', 'minimind-error']) {
      document.addEventListener(type, (event) => window.figureEvents.push({ type, id: event.target.id, detail: event.detail }));
    }
  });
}

async function openHost({ languages = ['en-US', 'en'] } = {}) {
  const { page, errors } = await openPage(browser.context);
  await page.setViewportSize({ width: 1200, height: 1000 });
  await page.addInitScript((list) => Object.defineProperty(navigator, 'languages', { get: () => list }), languages);
  await recordEvents(page);
  const wasmRequests = [];
  page.on('request', (request) => {
    let fromHost;
    try {
      fromHost = request.frame() === page.mainFrame();
    } catch {
      fromHost = false; // a worker's request
    }
    if (fromHost && /\.wasm$/.test(new URL(request.url()).pathname)) wasmRequests.push(request.url());
  });
  await page.goto(`${server.url}${HOST}`);
  return { page, errors, wasmRequests };
}

function waitForState(page, ids, state) {
  return page.waitForFunction(([list, wanted]) => list.every((id) => document.getElementById(id).dataset.state === wanted), [ids, state], {
    timeout: 30000,
  });
}

// Sets attributes (null removes one) and resolves, once the element drew
// again or failed, to {type, message, weights}.
function update(page, id, attributes) {
  return page.evaluate(
    ([elementId, changes]) =>
      new Promise((resolve) => {
        const element = document.getElementById(elementId);
        const done = (event) => {
          element.removeEventListener('minimind-ready', done);
          element.removeEventListener('minimind-error', done);
          resolve({ type: event.type, message: event.detail.message ?? null, weights: element.weights });
        };
        element.addEventListener('minimind-ready', done);
        element.addEventListener('minimind-error', done);
        for (const [name, value] of Object.entries(changes)) {
          if (value === null) element.removeAttribute(name);
          else element.setAttribute(name, value);
        }
      }),
    [id, attributes],
  );
}

function hostStyles(page) {
  return page.evaluate(
    ([selectors, properties]) =>
      Object.fromEntries(
        selectors.map((selector) => {
          const style = getComputedStyle(document.querySelector(selector));
          return [selector, Object.fromEntries(properties.map((p) => [p, style.getPropertyValue(p)]))];
        }),
      ),
    [HOST_ELEMENTS, HOST_PROPERTIES],
  );
}

function shadowText(page, id, selector) {
  return page.evaluate(([elementId, s]) => document.getElementById(elementId).shadowRoot.querySelector(s).textContent, [id, selector]);
}

test('two figures on a course page: the JS API’s numbers, the host’s styles untouched, the module fetched once', async () => {
  // The host page as it looks without the component.
  const { page: bare } = await openPage(browser.context);
  await bare.setViewportSize({ width: 1200, height: 1000 });
  await bare.route('**/minimind-attention.js', (route) => route.abort());
  await bare.goto(`${server.url}${HOST}`);
  const stylesWithout = await hostStyles(bare);
  await bare.close();

  const { page, errors, wasmRequests } = await openHost();
  await waitForState(page, ['first', 'second'], 'ready');
  assert.deepEqual(await hostStyles(page), stylesWithout);
  assert.equal(stylesWithout['#host-canvas']['border-top-width'], '7px', 'the host page’s canvas rule applies to its own canvas');
  assert.deepEqual(
    await page.evaluate(() => ({ sheets: document.styleSheets.length, adopted: document.adoptedStyleSheets.length })),
    { sheets: 1, adopted: 0 },
    'no stylesheet was added to the document',
  );
  const inside = await page.evaluate(() => {
    const root = document.getElementById('first').shadowRoot;
    const canvas = getComputedStyle(root.querySelector('canvas'));
    const frame = getComputedStyle(root.querySelector('.frame'));
    return {
      border: canvas.borderTopWidth,
      font: frame.fontFamily,
      letterSpacing: frame.letterSpacing,
      lineHeight: frame.lineHeight,
      color: frame.color,
    };
  });
  assert.equal(inside.border, '0px', 'the host’s canvas rule does not reach the figure’s canvas');
  assert.doesNotMatch(inside.font, /Georgia/, 'the host’s font is not inherited');
  assert.equal(inside.letterSpacing, 'normal');
  assert.notEqual(inside.color, 'rgb(20, 40, 60)');

  // The numbers: the JS API in Node, tokenized as the page does.
  const first = await expected({});
  const second = await expected({ text: WEATHER, head: 1, stage: 'scores_scaled' });
  const weights = await page.evaluate(() => ({
    first: document.getElementById('first').weights,
    second: document.getElementById('second').weights,
  }));
  assertClose(weights.first, first.rows, 'first');
  assertClose(weights.second, second.rows, 'second');
  weights.first.forEach((row, i) => {
    row.forEach((w, j) => j > i && assert.equal(w, 0, `the future ${i},${j} gets exactly 0`));
    assert.ok(Math.abs(row.reduce((a, b) => a + b, 0) - 1) < 1e-6, `row ${i} sums to 1`);
  });
  assert.ok(
    weights.second.some((row, i) => row.some((w, j) => j > i && w !== 0)),
    '÷√d comes before the mask: the future is still there',
  );
  const events = await page.evaluate(() => window.figureEvents);
  const readyFirst = events.find((e) => e.type === 'minimind-ready' && e.id === 'first');
  assert.deepEqual(readyFirst.detail.tokens, first.tokens);
  assert.deepEqual(readyFirst.detail.matrix, weights.first);

  // Captions and links, in each element's language: the trained model at its pronoun head, unless told otherwise.
  const { heads, kvHeadOf } = await trainedModel();
  const { pronounHead } = heads;
  const kv = kvHeadOf(pronounHead.head);
  assert.equal(
    await shadowText(page, 'first', '.title'),
    `Layer ${pronounHead.layer} · head ${pronounHead.head} (reads kv head ${kv}) · softmax`,
  );
  assert.equal(await shadowText(page, 'first', '.model'), 'minimind-demo (trained)');
  assert.equal(await shadowText(page, 'second', '.title'), `第 ${pronounHead.layer} 层 · 第 1 个头（读取 kv 头 ${kvHeadOf(1)}）· ÷ √d`);
  assert.equal(await shadowText(page, 'second', 'a'), '在 Playground 中打开 ↗');
  const link = new URL(await page.evaluate(() => document.getElementById('second').shadowRoot.querySelector('a').href));
  assert.equal(link.pathname, '/dist/site/index.html');
  const state = readUrlState(link.search);
  // No layer attribute: the link leaves it to the page, which opens the same model's own.
  assert.deepEqual(
    [state.text, state.preset, state.layer, state.head, state.stage, state.lang],
    [WEATHER, DEMO, null, 1, 'scores_scaled', 'zh-CN'],
  );

  // The element far below the fold waits until it is scrolled to; the module still loads once.
  assert.equal(await page.getAttribute('#below', 'data-state'), 'loading');
  await page.evaluate(() => document.getElementById('below').scrollIntoView());
  await waitForState(page, ['below'], 'ready');
  await page.evaluate(() => window.scrollTo(0, 0));
  assert.equal(wasmRequests.length, 1, wasmRequests.join(', '));
  await page.screenshot({ path: `${ARTIFACTS}embed-host.png` });
  assert.deepEqual(errors, []);
  await page.close();
});

test('the playground the link opens shows the same numbers', async () => {
  const { page } = await openHost();
  await waitForState(page, ['second'], 'ready');
  const href = await page.evaluate(() => document.getElementById('second').shadowRoot.querySelector('a').href);
  const weights = await page.evaluate(() => document.getElementById('second').weights);
  const { page: playground } = await openPage(browser.context, href);
  await playground.waitForSelector('body[data-ready="true"]', { timeout: 30000 });
  await playground.waitForFunction((n) => document.querySelectorAll('#matrix-table tbody tr').length === n, weights.length);
  const values = await playground.$$eval('#matrix-table tbody tr', (rows) =>
    rows.map((row) => [...row.querySelectorAll('td')].map((td) => Number(td.dataset.value))),
  );
  assert.deepEqual(values, weights);
  await playground.close();
  await page.close();
});

test('attributes redraw; a bad one shows its message in the element and fixing it recovers; HTML stays text', async () => {
  const { page, errors } = await openHost();
  let dialogs = 0;
  page.on('dialog', async (dialog) => {
    dialogs += 1;
    await dialog.dismiss();
  });
  await waitForState(page, ['first', 'second'], 'ready');

  let result = await update(page, 'first', { layer: '1', head: '3' });
  assert.equal(result.type, 'minimind-ready');
  assertClose(result.weights, (await expected({ layer: 1, head: 3 })).rows, 'layer 1 head 3');

  result = await update(page, 'first', { layer: '99' });
  assert.equal(result.type, 'minimind-error');
  assert.equal(await page.getAttribute('#first', 'data-state'), 'error');
  assert.equal(result.weights, null);
  const layers = (await trainedModel()).model.info().num_hidden_layers;
  assert.match(
    await shadowText(page, 'first', '.status'),
    new RegExp(`layer 99 does not exist: minimind-demo has ${layers} layers \\(0–${layers - 1}\\)`),
  );
  result = await update(page, 'first', { layer: '1' });
  assert.equal(result.type, 'minimind-ready');
  assert.equal(await page.getAttribute('#first', 'data-state'), 'ready');

  for (const [attributes, message] of [
    [{ config: '{"num_attention_heads": 6' }, /config is not valid JSON/],
    [{ config: '{"num_attention_heads": 8}' }, /config changes a preset’s shapes; the trained model’s are fixed/],
    [
      { preset: 'lab-a', config: '{"num_attention_heads": 6, "head_dim": null}' },
      /hidden_size 64 is not divisible by num_attention_heads 6/,
    ],
    [{ config: null, preset: 'lab-z' }, /unknown preset "lab-z"/],
    [{ preset: null, stage: 'softmax' }, /stage must be one of scores_raw, scores_scaled, scores_masked, attn_weights/],
    [{ stage: null, seed: '-1' }, /seed must be a whole number/],
    [{ seed: null, text: '   ' }, /text has no tokens/],
  ]) {
    result = await update(page, 'first', attributes);
    assert.equal(result.type, 'minimind-error', JSON.stringify(attributes));
    assert.match(await shadowText(page, 'first', '.status'), message);
  }
  // A config on top of the preset, as the page applies it.
  const config = { hidden_size: 96, num_attention_heads: 6, num_key_value_heads: 3 };
  result = await update(page, 'first', { text: null, preset: 'lab-a', config: JSON.stringify(config), head: '5' });
  assert.equal(result.type, 'minimind-ready');
  assertClose(result.weights, (await expected({ preset: 'lab-a', config, layer: 1, head: 5 })).rows, 'config');
  assert.equal(await shadowText(page, 'first', '.model'), 'lab-a + config (untrained: random weights) · seed 0');

  // Switches: without the causal mask the future gets weight.
  result = await update(page, 'first', { config: null, head: '0', causal: 'false' });
  assertClose(result.weights, (await expected({ preset: 'lab-a', layer: 1, causal: false })).rows, 'causal off');
  assert.ok(result.weights[0][1] > 0);

  // Hostile text is drawn and tabled as text.
  const hostile = '<img src=x onerror=alert(1)> <b>bold</b> "quoted"';
  result = await update(page, 'first', { causal: null, text: hostile, view: 'table', lang: 'zh-CN' });
  assert.equal(result.type, 'minimind-ready');
  const table = await page.evaluate(() => {
    const root = document.getElementById('first').shadowRoot;
    return {
      heads: [...root.querySelectorAll('thead th')].slice(1).map((th) => th.textContent),
      masked: root.querySelector('td[data-masked]').textContent,
      legend: root.querySelector('caption').textContent,
      tdColor: getComputedStyle(root.querySelector('td')).color,
      injected: root.querySelectorAll('img, b').length + document.querySelectorAll('img, b').length,
    };
  });
  assert.deepEqual(table.heads, hostile.split(' '));
  // A masked cell is the table's mark; its caption says once what the mark stands for.
  assert.equal(table.masked, MASKED_MARK);
  assert.ok(table.legend.includes(`${MASKED_MARK} = 0.000 (被掩码（−∞ → 0）)`), table.legend);
  assert.notEqual(table.tdColor, 'rgb(1, 2, 3)', 'the host’s td rule does not reach the figure’s table');
  assert.equal(table.injected, 0);
  assert.equal(dialogs, 0);
  await page.screenshot({ path: `${ARTIFACTS}embed-attributes.png` });
  result = await update(page, 'first', { view: 'heatmap', lang: 'en' });
  assert.equal(result.type, 'minimind-ready');
  assert.deepEqual(errors, []);
  await page.close();
});

test('view="lesson": typed Q, K, V are computed as the JS API computes them; bad input shows lesson mode’s message and recovers', async () => {
  const { page, errors } = await openHost();
  await waitForState(page, ['first'], 'ready');
  const typed = { q: '1 0 2; 0 1 -1', k: '1 1 0\n0 2 1\n1 0 1', v: '1,2; 3,4; 5,6' };
  const stage = 'scores_raw scaled masked weights output';
  let result = await update(page, 'first', { ...typed, labels: 'A B <i>C</i>', stage, decimals: '3' });
  assert.equal(result.type, 'minimind-ready');
  const mm = await loadMiniMind();
  const want = mm.lessonAttention({
    q: [
      [1, 0, 2],
      [0, 1, -1],
    ],
    k: [
      [1, 1, 0],
      [0, 2, 1],
      [1, 0, 1],
    ],
    v: [
      [1, 2],
      [3, 4],
      [5, 6],
    ],
    causal: true,
    scale: true,
  });
  const rows = ({ shape, data }) => Array.from({ length: shape[0] }, (_, i) => Array.from(data.subarray(i * shape[1], (i + 1) * shape[1])));
  const matrices = await page.evaluate(() => document.getElementById('first').matrices);
  for (const name of ['raw', 'scaled', 'masked', 'weights', 'output']) assert.deepEqual(matrices[name], rows(want[name]), name);
  assert.deepEqual(result.weights, rows(want.raw), 'weights is the first step drawn');
  // Under the causal mask the 2 queries are the last 2 of the 3 keys; −∞ is printed as the lesson writes it; labels stay text.
  const masked = await page.evaluate(() => {
    const panel = document.getElementById('first').shadowRoot.querySelector('.panel[data-stage="masked"]');
    return {
      cols: [...panel.querySelectorAll('thead th')].slice(1).map((th) => th.textContent),
      rows: [...panel.querySelectorAll('tbody th')].map((th) => th.textContent),
      text: [...panel.querySelectorAll('tbody tr')].map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)),
      stages: [...document.getElementById('first').shadowRoot.querySelectorAll('.panel')].map((p) => p.dataset.stage),
      injected: document.getElementById('first').shadowRoot.querySelectorAll('i').length,
    };
  });
  assert.deepEqual(masked.stages, ['raw', 'scaled', 'masked', 'weights', 'output']);
  assert.deepEqual(masked.cols, ['A', 'B', '<i>C</i>']);
  assert.deepEqual(masked.rows, ['B', '<i>C</i>']);
  assert.equal(masked.text[0][2], '−∞');
  assert.equal(masked.injected, 0);
  assert.match(await shadowText(page, 'first', '.model'), /^Q \[2, 3\] · K \[3, 3\] · V \[3, 2\] · d = 3 · causal mask on · ÷ √d on$/);
  // Its link opens lesson mode on the same matrices and switches.
  const link = await page.evaluate(() => document.getElementById('first').shadowRoot.querySelector('a').href);
  const state = readUrlState(new URL(link).search);
  assert.equal(state.inputMode, 'manual');
  assert.deepEqual([state.lesson.q, state.lesson.k, state.lesson.v, state.lesson.decimals], [typed.q, typed.k, typed.v, 3]);
  assert.deepEqual([state.causal, state.scale], [true, true]);

  // An example takes the lesson's switches unless told otherwise.
  result = await update(page, 'first', { q: null, k: null, v: null, labels: null, decimals: null, stage: 'weights', example: 'she' });
  assert.equal(result.type, 'minimind-ready');
  assert.deepEqual(
    result.weights[2].map((x) => x.toFixed(3)),
    ['0.493', '0.128', '0.380'],
  );
  assert.equal(await shadowText(page, 'first', '.title'), '她 → 小红 (Q·Kᵀ, softmax)');

  for (const [attributes, message] of [
    [{ example: null, q: '0.1 abc', k: '1 2' }, /Q, row 1, column 2: “abc” is not a number\./],
    [{ q: '1 2 3' }, /Q has 3 columns and K has 2/],
    [{ q: '1 2', stage: 'output' }, /stage "output" is weights · V/],
    [{ stage: 'softmax' }, /stage must be one of raw, scaled, masked, weights, output, got "softmax"/],
    [{ stage: null, example: 'nope' }, /example must be one of she, flow, softmax, random, masked-softmax, causal/],
    [{ example: null, scores: '1 2' }, /give either q and k \(and v\), or scores, not both/],
    [{ q: null, k: null, scores: null, view: 'lab', preset: 'minimind2' }, /preset must be lab-a or lab-b, got "minimind2"/],
  ]) {
    result = await update(page, 'first', attributes);
    assert.equal(result.type, 'minimind-error', JSON.stringify(attributes));
    assert.match(await shadowText(page, 'first', '.status'), message);
  }
  // view="lab": the core's record of the lab.
  result = await update(page, 'first', { preset: 'lab-b' });
  assert.equal(result.type, 'minimind-ready');
  const record = await page.evaluate(() =>
    Object.fromEntries(
      [...document.getElementById('first').shadowRoot.querySelectorAll('table.record tr[data-key]')].map((tr) => [
        tr.dataset.key,
        tr.querySelector('.ours').textContent,
      ]),
    ),
  );
  assert.equal(record['scores.shape'], '(2, 6, 5, 5)');
  const lines = mm.labRecord('lab-b', 0).split('\n');
  const printed = lines.slice(lines.indexOf('attention weights for batch 0, head 0 =') + 1, -1).slice(0, 5);
  assert.deepEqual(
    result.weights.map((row) => `  [${row.map((x) => x.toFixed(4)).join(', ')}]`),
    printed,
  );
  assert.deepEqual(
    readUrlState(new URL(await page.evaluate(() => document.getElementById('first').shadowRoot.querySelector('a').href)).search).lab,
    'lab-b',
  );
  // Back to the model's heatmap.
  result = await update(page, 'first', { view: null, preset: null, example: null });
  assert.equal(result.type, 'minimind-ready');
  assertClose(result.weights, (await expected({})).rows, 'back to the heatmap');
  assert.equal(await page.evaluate(() => document.getElementById('first').matrices), null);
  assert.deepEqual(errors, []);
  await page.close();
});

test('a large preset shows "building" while it builds, then its numbers', async () => {
  const { page, errors } = await openHost();
  await waitForState(page, ['second'], 'ready');
  // Every status the element shows on its way, as [data-state, message, progress bar shown].
  const seen = await page.evaluate(
    () =>
      new Promise((resolve) => {
        const element = document.getElementById('second');
        const root = element.shadowRoot;
        const statuses = [];
        const note = () =>
          statuses.push([
            element.dataset.state,
            root.querySelector('.status .message').textContent,
            !root.querySelector('progress').hidden,
          ]);
        const observer = new MutationObserver(note);
        observer.observe(root, { subtree: true, childList: true, characterData: true, attributes: true });
        observer.observe(element, { attributes: true });
        element.addEventListener('minimind-ready', () => {
          observer.disconnect();
          resolve({ statuses, weights: element.weights });
        });
        element.setAttribute('preset', 'minimind2-small');
      }),
  );
  assert.ok(
    seen.statuses.some(
      ([state, message, progress]) => state === 'loading' && /^正在构建 minimind2-small（25,829,888 个参数/.test(message) && progress,
    ),
    JSON.stringify(seen.statuses),
  );
  assertClose(
    seen.weights,
    (await expected({ preset: 'minimind2-small', text: WEATHER, head: 1, stage: 'scores_scaled' })).rows,
    'minimind2-small',
  );
  assert.equal(await page.getAttribute('#second', 'data-state'), 'ready');
  assert.deepEqual(errors, []);
  await page.close();
});

test('the terms the figure shares with the page are the page’s', () => {
  for (const lang of ['en', 'zh-CN']) {
    for (const key of PAGE_TERMS) assert.equal(CATALOGUES[lang][key], LANGUAGES[lang][key], `${lang} ${key}`);
  }
});

test('the single-file bundle draws the same figure with no .wasm to fetch', async () => {
  const { page, errors } = await openPage(browser.context);
  const requests = [];
  page.on('request', (request) => requests.push(request.url()));
  await page.goto(singleServer.url);
  await waitForState(page, ['single'], 'ready');
  const weights = await page.evaluate(() => document.getElementById('single').weights);
  assertClose(weights, (await expected({ text: WEATHER, head: 1, stage: 'scores_scaled', variant: 'simd' })).rows, 'single file');
  assert.deepEqual(
    requests.filter((url) => url.includes('.wasm') || url.includes('/wasm/')),
    [],
  );
  assert.deepEqual(
    requests.filter((url) => url.startsWith('http')).map((url) => new URL(url).pathname),
    ['/', '/minimind-attention.single.js'],
  );
  assert.deepEqual(errors, []);
  await page.close();
});

test('the iframe embed loads the playground and draws its matrix', async () => {
  const { page, errors } = await openHost();
  const frame = page.frames().find((f) => f.url().includes('embed=1'));
  assert.ok(frame, 'the iframe is there');
  await frame.waitForSelector('body[data-ready="true"]', { timeout: 30000 });
  assert.ok(await frame.evaluate(() => document.querySelector('canvas').width > 0));
  assert.deepEqual(errors, []);
  await page.close();
});

test('the copy-embed dialog says that the URLs must point to where the files are hosted, in the page’s language', async () => {
  for (const lang of ['en', 'zh-CN']) {
    const { page, errors } = await openPage(browser.context);
    await page.goto(`${server.url}dist/site/index.html?lang=${lang}`);
    await page.waitForSelector('body[data-ready="true"]', { timeout: 30000 });
    await page.click('#embed-code');
    await page.waitForSelector('#embed-dialog[open]');
    const note = await page.textContent('#embed-hosting');
    const base = `${server.url}dist/site/`;
    assert.equal(note, hostingNote(lang, base), lang);
    assert.ok(note.includes(base), `${lang}: the note names this page's address`);
    assert.ok(await page.isVisible('#embed-hosting'), `${lang}: the note is shown`);
    // The component's script is at that address: what the note says to replace.
    assert.ok((await page.inputValue('#embed-component')).includes(`src="${base}minimind-attention.js"`));
    assert.match(note, lang === 'en' ? /cannot reach 127\.0\.0\.1:\d+/ : /无法访问 127\.0\.0\.1:\d+/, `${lang}: served from this computer`);
    if (lang === 'en') await page.screenshot({ path: `${ARTIFACTS}embed-dialog-hosting.png` });
    assert.deepEqual(errors, []);
    await page.close();
  }
  // A public address gets no "this computer" sentence.
  assert.equal(isLocalUrl('https://course.example.org/minimind/'), false);
  assert.equal(isLocalUrl('http://localhost:8080/'), true);
  assert.ok(!hostingNote('en', 'https://course.example.org/minimind/').includes('this computer'));
});
