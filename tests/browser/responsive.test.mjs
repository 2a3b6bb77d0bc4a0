// The page stays fluid, in headless Chromium: a long run (building a big
// preset, a forward pass on a big model) shows its progress and a Cancel
// button; cancelling returns to a working page with the model used before;
// typing during a slow run supersedes it (a matrix for text that is no
// longer typed is never drawn, every request is answered, at most one
// forward pass runs per keystroke). What is asserted holds on a machine of
// any speed: how many keystrokes a forward pass covers is printed, and so is
// the keystroke-to-redraw median; timings belong to benchmarks. The tests name the
// presets they run on (the page opens on the trained model otherwise).
// Screenshots go to test-artifacts/.
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { loadMiniMind } from '../../js/minimind.mjs';
import { serve } from '../../scripts/serve.mjs';
import { splitTokens, tokenize } from '../../js/preset_tokens.mjs';
import { loadCase } from '../node/helpers.mjs';
import { launchBrowser, openPage } from './browser.mjs';

const SITE = new URL('../../dist/site/', import.meta.url).pathname;
const ARTIFACTS = new URL('../../test-artifacts/', import.meta.url).pathname;
const LESSON = '小明 把 苹果 给了 小红 ， 她 很 开心';
const KEYSTROKE_TO_REDRAW = 'minimind:keystroke-to-redraw';
const WORKER_FORWARD = 'minimind:worker-forward';
// Every wait is a guard against a hang, not a time limit: on a machine shared
// with other work, building minimind-3 or a forward pass on minimind2 takes
// several times longer than alone.
const HANG_MS = 180000;

let server;
let browser;
let mm;

before(async () => {
  await mkdir(ARTIFACTS, { recursive: true });
  server = await serve(SITE);
  browser = await launchBrowser();
  mm = await loadMiniMind();
});

after(async () => {
  await browser?.close();
  await server?.close();
});

async function openPlayground(query = '', { languages = ['en-US', 'en'] } = {}) {
  const { page, errors } = await openPage(browser.context);
  page.setDefaultTimeout(HANG_MS);
  await page.setViewportSize({ width: 1400, height: 1000 });
  await page.addInitScript((list) => Object.defineProperty(navigator, 'languages', { get: () => list }), languages);
  await page.addInitScript(countMainThreadModules);
  await page.goto(`${server.url}${query}`);
  await page.waitForSelector('body[data-ready="true"]');
  return { page, errors };
}

// Before the page's scripts: window.mainThreadModules counts the Wasm modules
// instantiated on the page's own thread (the keystroke twin of a tiny model
// is the only one; the workers' are in theirs).
function countMainThreadModules() {
  window.mainThreadModules = 0;
  for (const name of ['instantiate', 'instantiateStreaming']) {
    const original = WebAssembly[name];
    WebAssembly[name] = function (...args) {
      return original.apply(this, args).then((result) => {
        window.mainThreadModules += 1;
        return result;
      });
    };
  }
}

// The twin is built in the promise chain that follows its module's
// instantiation, with no task in between: by the next task it is ready.
async function waitForTwin(page) {
  await page.waitForFunction(() => window.mainThreadModules > 0);
  await page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 0)));
}

function tableHeads(page) {
  return page.$$eval('#matrix-table thead th', (ths) => ths.slice(1).map((th) => th.textContent));
}

async function waitForTokens(page, tokens) {
  await page.waitForFunction((expected) => {
    const heads = [...document.querySelectorAll('#matrix-table thead th')].slice(1).map((th) => th.textContent);
    return JSON.stringify(heads) === JSON.stringify(expected);
  }, tokens);
}

// Every cell of the accessible table against the module's attention weights
// (layer, head) for `text` on `preset`; masked cells must be exactly 0 there.
async function assertMatrixIsTheModules(page, { preset, text, layer, head }) {
  const info = mm.presetConfig(preset);
  const { ids, tokens } = tokenize(text, info.vocab_size, 128);
  await page.selectOption('#layer', String(layer));
  await page.selectOption('#head', String(head));
  const cells = await page.$$eval('#matrix-table tbody tr', (rows) =>
    rows.map((r) => [...r.querySelectorAll('td')].map((td) => (td.dataset.masked === 'true' ? 'masked' : Number(td.dataset.value)))),
  );
  const model = mm.createModel({ preset, seed: 0 });
  const expected = model.forward(ids, { trace: { layers: [layer], stages: ['attn_weights'] } }).trace.get(layer, 'attn_weights');
  model.dispose();
  const T = tokens.length;
  assert.equal(cells.length, T);
  for (let i = 0; i < T; i += 1) {
    for (let j = 0; j < T; j += 1) {
      const want = expected.data[(head * T + i) * T + j];
      if (j > i) assert.equal(want, 0, `cell ${i},${j} is masked`);
      assert.equal(cells[i][j], j > i ? 'masked' : want, `cell ${i},${j}`);
    }
  }
}

// The run bar as the learner sees it.
function readRunBar(page) {
  return page.evaluate(() => {
    const bar = document.getElementById('run-status');
    const progress = bar.querySelector('progress');
    const cancel = document.getElementById('run-cancel');
    return {
      visible: !bar.hidden,
      kind: bar.dataset.kind,
      text: bar.querySelector('[data-run="text"]').textContent,
      elapsed: bar.querySelector('[data-run="elapsed"]').textContent,
      progress: progress.hidden ? null : progress.hasAttribute('value') ? progress.value : 'indeterminate',
      cancel: cancel.hidden ? null : cancel.textContent,
    };
  });
}

test('a long build shows its progress and a Cancel button (取消 in Chinese)', async () => {
  const { page, errors } = await openPlayground(`?preset=lab-a&text=${encodeURIComponent(LESSON)}`, { languages: ['zh-CN', 'zh'] });
  // Every value the bar's progress takes while minimind-3 builds.
  await page.evaluate(() => {
    window.progressValues = [];
    const bar = document.getElementById('run-status');
    const progress = bar.querySelector('progress');
    // The build's values only: the forward pass after it may show the bar again, empty.
    new MutationObserver(() => bar.dataset.kind === 'build' && window.progressValues.push(progress.value)).observe(progress, {
      attributes: true,
      attributeFilter: ['value'],
    });
  });
  await page.selectOption('#preset', 'minimind-3');
  await page.waitForFunction(
    () => !document.getElementById('run-status').hidden && document.querySelector('#run-status progress').value >= 0.2,
  );
  const bar = await readRunBar(page);
  assert.equal(bar.kind, 'build');
  assert.match(bar.text, /^正在构建 minimind-3：\d+%$/);
  assert.equal(bar.cancel, '取消');
  assert.ok(bar.progress >= 0.2 && bar.progress < 1, `progress ${bar.progress}`);
  await page.screenshot({ path: `${ARTIFACTS}progress-cancel.png` });
  await page.waitForFunction(() => document.getElementById('model-status').textContent.startsWith('minimind-3'));
  await page.waitForFunction(() => document.getElementById('run-status').hidden);
  const values = await page.evaluate(() => window.progressValues);
  assert.ok(values.length >= 10, `the bar moved ${values.length} times`);
  for (let k = 1; k < values.length; k += 1) assert.ok(values[k] >= values[k - 1], `progress never goes back: ${values.join(', ')}`);
  assert.deepEqual(errors, []);
  await page.close();
});

test('cancelling a minimind-3 build returns to the previous model, whose matrix is the module’s', async () => {
  const { page, errors } = await openPlayground(`?preset=lab-a&text=${encodeURIComponent(LESSON)}&layer=1&head=2`);
  await waitForTokens(page, LESSON.split(' '));
  await page.selectOption('#preset', 'minimind-3');
  await page.waitForFunction(
    () => !document.getElementById('run-status').hidden && document.querySelector('#run-status progress').value > 0,
  );
  const bar = await readRunBar(page);
  assert.equal(bar.kind, 'build');
  assert.match(bar.text, /^Building minimind-3: \d+%$/);
  assert.equal(bar.cancel, 'Cancel');
  await page.click('#run-cancel');
  // The worker was stopped mid-build and lab-a is loaded again in a fresh one.
  await page.waitForFunction(() => document.getElementById('model-status').textContent.startsWith('lab-a:'));
  assert.equal(await page.inputValue('#preset'), 'lab-a');
  assert.match(page.url(), /[?&]preset=lab-a(&|$)/); // the URL names the model back in use, not minimind-3
  assert.match((await readRunBar(page)).text, /^Building minimind-3 was cancelled; back to lab-a\.$/);
  await waitForTokens(page, LESSON.split(' '));
  await assertMatrixIsTheModules(page, { preset: 'lab-a', text: LESSON, layer: 1, head: 2 });
  // The page keeps working: typing computes with the model that came back.
  await page.type('#text', ' 吗', { delay: 10 });
  await waitForTokens(page, [...LESSON.split(' '), '吗']);
  await assertMatrixIsTheModules(page, { preset: 'lab-a', text: `${LESSON} 吗`, layer: 0, head: 3 });
  assert.deepEqual(errors, []);
  await page.close();
});

test('cancelling a build after a model from files loads the same files again', async () => {
  const dir = fileURLToPath(loadCase('gen2_dense').dir);
  const { page, errors } = await openPlayground('?input=ids&text=3%204%205%206');
  await page.setInputFiles('#file-input', [join(dir, 'config.json'), join(dir, 'model.safetensors')]);
  await page.waitForFunction(() => /^Loaded /.test(document.getElementById('files-status').textContent));
  await waitForTokens(page, ['#3', '#4', '#5', '#6']);
  await page.selectOption('#layer', '1');
  const before = await page.$$eval('#matrix-table td', (tds) => tds.map((td) => td.dataset.value ?? 'masked'));
  await page.selectOption('#preset', 'minimind-3');
  await page.waitForFunction(
    () => !document.getElementById('run-status').hidden && document.querySelector('#run-status progress').value > 0,
  );
  await page.click('#run-cancel');
  await page.waitForFunction(() => /weights from your file$/.test(document.getElementById('model-status').textContent));
  assert.match(await page.textContent('#model-status'), /^model\.safetensors: /);
  assert.match((await readRunBar(page)).text, /^Building minimind-3 was cancelled; back to model\.safetensors\.$/);
  await waitForTokens(page, ['#3', '#4', '#5', '#6']);
  await page.selectOption('#layer', '1'); // choosing a preset went back to layer 0
  assert.deepEqual(await page.$$eval('#matrix-table td', (tds) => tds.map((td) => td.dataset.value ?? 'masked')), before);
  assert.deepEqual(errors, []);
  await page.close();
});

test('typing during a slow forward supersedes it: only the newest text is drawn, every request is answered', async () => {
  const { page, errors } = await openPlayground(`?preset=minimind2-small&text=${encodeURIComponent(LESSON)}`);
  await waitForTokens(page, LESSON.split(' '));
  // Each time the table changes: what it shows and what the textarea holds then.
  await page.evaluate(() => {
    window.draws = [];
    const table = document.getElementById('matrix-table');
    new MutationObserver(() =>
      window.draws.push({
        heads: [...table.querySelectorAll('thead th')].slice(1).map((th) => th.textContent),
        text: document.getElementById('text').value,
      }),
    ).observe(table, { subtree: true, childList: true, characterData: true, attributes: true });
  });
  const forwardsBefore = await page.evaluate((name) => performance.getEntriesByName(name).length, WORKER_FORWARD);
  const typed = ' 今天 天气 很 好 吗';
  const keystrokes = [...typed].length; // one input event each
  await page.type('#text', typed, { delay: 10 });
  const final = splitTokens(`${LESSON}${typed}`);
  await waitForTokens(page, final);
  // Every request answered (a result, or 'superseded'): no answer can come after this.
  await page.waitForFunction(() => document.body.dataset.pendingRequests === '0');
  assert.equal(await page.inputValue('#text'), `${LESSON}${typed}`);
  const draws = await page.evaluate(() => window.draws);
  assert.ok(draws.length > 0);
  for (const draw of draws) assert.deepEqual(draw.heads, splitTokens(draw.text), `drawn for "${draw.text}"`);
  assert.deepEqual(draws.at(-1).heads, final);
  const forwards = await page.evaluate((name) => performance.getEntriesByName(name).map((e) => e.detail), WORKER_FORWARD);
  const run = forwards.length - forwardsBefore;
  console.log(`# ${keystrokes} keystrokes on minimind2-small: ${run} forward passes ran in the worker`);
  // How many keystrokes one pass covers depends on the machine's speed; at most one pass per
  // keystroke (a request superseded in the queue is answered, not run) and at least one do not.
  assert.ok(run >= 1 && run <= keystrokes, `${run} forward passes for ${keystrokes} keystrokes`);
  // The last answer is the newest request's: nothing older is drawn after it.
  assert.equal(forwards.at(-1).stale, false);
  await assertMatrixIsTheModules(page, { preset: 'minimind2-small', text: `${LESSON}${typed}`, layer: 3, head: 1 });
  assert.deepEqual(errors, []);
  await page.close();
});

test("a tiny model answers keystrokes on the main thread (no worker round trip), with the worker's numbers", async () => {
  const { page, errors } = await openPlayground(`?preset=lab-a&text=${encodeURIComponent(LESSON)}`);
  await waitForTokens(page, LESSON.split(' '));
  await waitForTwin(page); // its module loads after the first matrix, in its own time
  const forwardsBefore = await page.evaluate((name) => performance.getEntriesByName(name).length, WORKER_FORWARD);
  const typed = ' 今天 天气';
  await page.type('#text', typed, { delay: 20 });
  const final = splitTokens(`${LESSON}${typed}`);
  await waitForTokens(page, final);
  const run = (await page.evaluate((name) => performance.getEntriesByName(name).length, WORKER_FORWARD)) - forwardsBefore;
  assert.equal(run, 0, `${run} keystrokes went to the worker`);
  await assertMatrixIsTheModules(page, { preset: 'lab-a', text: `${LESSON}${typed}`, layer: 1, head: 3 });
  // Another preset: the twin follows the worker's model.
  await page.selectOption('#preset', 'lab-b');
  // Loaded: the twin of lab-b is built from the module already there, before the next task.
  await page.waitForFunction(
    () =>
      document.getElementById('model-status').textContent.startsWith('lab-b:') &&
      document.body.dataset.pendingRequests === '0' &&
      document.querySelectorAll('#matrix-table thead th').length > 1,
  );
  const lastBefore = await page.evaluate((name) => performance.getEntriesByName(name).length, WORKER_FORWARD);
  await page.type('#text', ' 好', { delay: 20 });
  await waitForTokens(page, splitTokens(`${LESSON}${typed} 好`));
  assert.equal(
    await page.evaluate((name) => performance.getEntriesByName(name).length, WORKER_FORWARD),
    lastBefore,
    'answered by the twin',
  );
  await assertMatrixIsTheModules(page, { preset: 'lab-b', text: `${LESSON}${typed} 好`, layer: 1, head: 5 });
  assert.deepEqual(errors, []);
  await page.close();
});

test('the worker drops requests superseded while it computes, instead of queueing them', async () => {
  const { page } = await openPlayground();
  // The page's own worker script, driven directly: one slow forward pass,
  // then eight more requests while it runs; only the newest is worth doing.
  const answered = await page.evaluate(async (hangMs) => {
    const worker = new Worker('./worker.js', { type: 'module' });
    const answers = [];
    const loaded = new Promise((resolve) => {
      worker.onmessage = ({ data }) => {
        if (data.type === 'loaded') resolve();
        if (['result', 'error', 'superseded'].includes(data.type)) answers.push({ id: data.id, type: data.type, T: data.ids?.length });
      };
    });
    worker.postMessage({ type: 'load', id: 1, spec: { preset: 'minimind2-small', seed: 0 } });
    await loaded;
    const ids = (n) => Array.from({ length: n }, (_, k) => 3 + k);
    worker.postMessage({ type: 'forward', id: 2, ids: ids(120), causal: true, scale: true });
    await new Promise((resolve) => setTimeout(resolve, 20)); // the slow pass has (most likely) started
    for (let id = 3; id <= 10; id += 1) worker.postMessage({ type: 'forward', id, ids: ids(id), causal: true, scale: true });
    const deadline = performance.now() + hangMs;
    while (!answers.some((a) => a.id === 10) && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    await new Promise((resolve) => setTimeout(resolve, 300));
    worker.terminate();
    return answers;
  }, HANG_MS);
  // Every request answered once; the rest, a result or 'superseded', holds at any speed.
  assert.deepEqual(
    answered.map((a) => a.id).sort((a, b) => a - b),
    [2, 3, 4, 5, 6, 7, 8, 9, 10],
  );
  // Passes run: the slow one (unless the worker had not started it when the others came: then
  // the newest of those it saw) and the newest. The others were answered without running.
  const results = answered.filter((a) => a.type === 'result');
  assert.ok(results.length <= 2, JSON.stringify(answered));
  assert.deepEqual(results.at(-1), { id: 10, type: 'result', T: 10 });
  if (results.length === 2) assert.equal(results[0].T, results[0].id === 2 ? 120 : results[0].id, JSON.stringify(results[0]));
  await page.close();
});

test('a slow forward pass shows “computing” with its time and Cancel; the same model comes back', async () => {
  const { page, errors } = await openPlayground(`?preset=minimind2&text=${encodeURIComponent('a b c')}`);
  await waitForTokens(page, ['a', 'b', 'c']);
  const long = Array.from({ length: 128 }, (_, k) => `w${k}`).join(' ');
  await page.fill('#text', long);
  await page.waitForFunction(
    () => document.getElementById('run-status').dataset.kind === 'forward' && !document.getElementById('run-status').hidden,
  );
  const bar = await readRunBar(page);
  assert.equal(bar.text, 'Computing the attention of 128 tokens…');
  assert.match(bar.elapsed, /^\d+\.\d s$/);
  assert.equal(bar.progress, 'indeterminate');
  assert.equal(bar.cancel, 'Cancel');
  await page.click('#run-cancel');
  await page.waitForFunction(() => document.getElementById('model-status').textContent.startsWith('minimind2:'));
  // The matrix of the text before stays, and says it is not for the new text.
  assert.deepEqual(await tableHeads(page), ['a', 'b', 'c']);
  assert.match(await page.textContent('#compute-message'), /previous text/);
  assert.equal(await page.inputValue('#preset'), 'minimind2');
  // The same model answers the next change, without computing the cancelled one again.
  const forwardsBefore = await page.evaluate((name) => performance.getEntriesByName(name).length, WORKER_FORWARD);
  await page.fill('#text', 'a b c d');
  await waitForTokens(page, ['a', 'b', 'c', 'd']);
  assert.equal(await page.evaluate((name) => performance.getEntriesByName(name).length, WORKER_FORWARD), forwardsBefore + 1);
  assert.equal(await page.isHidden('#compute-message'), true);
  await assertMatrixIsTheModules(page, { preset: 'minimind2', text: 'a b c d', layer: 15, head: 7 });
  assert.deepEqual(errors, []);
  await page.close();
});

test('keystroke to redraw: one measure per keystroke, to the painted frame (lab-a, median printed)', async () => {
  const { page, errors } = await openPlayground(`?preset=lab-a&text=${encodeURIComponent(LESSON)}`);
  await waitForTokens(page, LESSON.split(' '));
  const last = [];
  let keystrokes = 0;
  for (const word of ['今天', '天气', '很', '好', '吗', '我们', '去', '公园', '吧']) {
    keystrokes += 1 + [...word].length;
    await page.type('#text', ` ${word}`, { delay: 20 });
    await page.waitForFunction((w) => [...document.querySelectorAll('#matrix-table thead th')].at(-1)?.textContent === w, word);
    // The measure ends after the frame that painted the matrix: wait for it.
    await page.waitForFunction(([name, n]) => performance.getEntriesByName(name).length >= n, [KEYSTROKE_TO_REDRAW, keystrokes]);
    last.push(await page.evaluate((name) => performance.getEntriesByName(name).at(-1).duration, KEYSTROKE_TO_REDRAW));
  }
  const all = await page.evaluate((name) => performance.getEntriesByName(name).map((e) => e.duration), KEYSTROKE_TO_REDRAW);
  assert.equal(all.length, keystrokes, 'one measure per keystroke');
  assert.ok(all.every((d) => d > 0));
  const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  console.log(
    `# lab-a keystroke to painted matrix: median ${median(all).toFixed(1)} ms over ${all.length} keystrokes; last keystroke of each word: median ${median(last).toFixed(1)} ms`,
  );
  assert.deepEqual(errors, []);
  await page.close();
});
