// Honest views: the page never passes a matrix off as something it is not.
//  - an empty text clears the matrix (nothing stale under the "empty" message);
//  - while another model loads, the matrix on screen is marked as the
//    previous model's (dimmed, with a caption), and exports wait;
//  - lesson 2.5's softmax of [1, 2, 3] against [10, 20, 30] has no "future"
//    to leak, so no leak warning; where a future gets weight, the warning
//    gives its share, computed from the weights shown;
//  - shapes are labelled next to the matrix, [H, T, T] = [4, 9, 9];
//  - hashed ids (no tokenizer) that two different words share are marked.
// Screenshots go to test-artifacts/.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { loadMiniMind } from '../../js/minimind.mjs';
import { tokenId } from '../../js/preset_tokens.mjs';
import { ARTIFACTS, openPage, useServedBrowser } from './browser.mjs';

const LESSON = '小明 把 苹果 给了 小红 ， 她 很 开心';

const site = useServedBrowser();

async function openPlayground(query, { ready = 'body[data-ready="true"]' } = {}) {
  const { page, errors } = await openPage(site.context);
  await page.setViewportSize({ width: 1400, height: 1000 });
  await page.goto(`${site.url}${query}`);
  if (ready) await page.waitForSelector(ready, { timeout: 30000 });
  return { page, errors };
}

const tableKeys = (page) => page.$$eval('#matrix-table thead th', (ths) => ths.slice(1).map((th) => th.textContent));
const matrixState = (page) => page.getAttribute('section.view', 'data-matrix');
const exportsDisabled = (page) =>
  page.$$eval('.export button', (buttons) => buttons.map((b) => [b.id, b.disabled]).sort((a, b) => a[0].localeCompare(b[0])));

test('an empty text clears the matrix: no stale numbers, canvas, legend or exports under the "empty" message', async () => {
  const { page, errors } = await openPlayground(`?preset=lab-a&lang=en&text=${encodeURIComponent(LESSON)}`);
  assert.deepEqual(await tableKeys(page), LESSON.split(' '));
  assert.equal(await matrixState(page), 'current');
  assert.equal(await page.isVisible('#heatmap'), true);
  await page.fill('#text', '');
  await page.waitForFunction(() => document.getElementById('input-message').textContent.length > 0);
  assert.match(await page.textContent('#input-message'), /at least one token/);
  assert.equal(await matrixState(page), 'empty');
  assert.equal(await page.$$eval('#matrix-table tr', (rows) => rows.length), 0, 'the table of the old text is gone');
  assert.equal(await page.isVisible('#heatmap'), false, 'the old heatmap is not shown');
  assert.equal(await page.$eval('#legend', (legend) => legend.childElementCount), 0);
  assert.equal(await page.isVisible('#overview'), false);
  assert.equal(await page.textContent('#row-explanation'), '');
  assert.equal(await page.textContent('#matrix-state'), 'No matrix: the text has no tokens.');
  assert.deepEqual(await exportsDisabled(page), [
    ['export-csv', true],
    ['export-json', true],
    ['export-png', true],
    ['export-svg', true],
  ]);
  // Text again: the matrix comes back, for that text.
  await page.type('#text', 'a b');
  await page.waitForFunction(() => document.querySelectorAll('#matrix-table tbody tr').length === 2);
  assert.deepEqual(await tableKeys(page), ['a', 'b']);
  assert.equal(await matrixState(page), 'current');
  assert.equal(await page.isVisible('#heatmap'), true);
  assert.equal(await page.isVisible('#matrix-state'), false);
  assert.deepEqual(
    (await exportsDisabled(page)).map(([, disabled]) => disabled),
    [false, false, false, false],
  );
  assert.deepEqual(errors, []);
  await page.close();
});

test('while another model loads, the matrix on screen is marked as the previous model’s (dimmed, captioned) until the new one is drawn', async () => {
  const { page, errors } = await openPlayground(`?preset=lab-a&lang=en&text=${encodeURIComponent(LESSON)}`);
  // The trained model's weights are held back until the test lets them through.
  let release;
  const held = new Promise((resolve) => (release = resolve));
  let asked = false;
  await page.route('**/models/minimind-demo/model.safetensors', async (route) => {
    asked = true;
    await held;
    await route.continue();
  });
  const before = await tableKeys(page);
  assert.deepEqual(before, LESSON.split(' '));
  await page.selectOption('#preset', 'minimind-demo');
  await page.waitForFunction(() => document.querySelector('section.view').dataset.matrix === 'previous');
  const caption = await page.textContent('#matrix-state');
  assert.equal(
    caption,
    'Previous model: lab-a (untrained: random weights), seed 0. This matrix is the previous model’s; minimind-demo (trained) is loading…',
  );
  assert.equal(await page.isVisible('#matrix-state'), true);
  assert.equal(await page.isVisible('#heatmap'), true, 'the previous matrix stays in view');
  const look = await page.$eval('#heatmap', (canvas) => ({
    opacity: Number(getComputedStyle(canvas.closest('.matrix-wrap')).opacity),
    filter: getComputedStyle(canvas.closest('.matrix-wrap')).filter,
  }));
  assert.ok(look.opacity < 0.5, `dimmed (opacity ${look.opacity})`);
  assert.match(look.filter, /grayscale/);
  assert.deepEqual(await tableKeys(page), before, 'what is dimmed is the previous model’s matrix');
  assert.ok(
    (await exportsDisabled(page)).every(([, disabled]) => disabled),
    'no export of a matrix that is not the model’s',
  );
  await page.locator('section.view').screenshot({ path: `${ARTIFACTS}previous-model.png` });
  // In Chinese too.
  await page.selectOption('#lang', 'zh-CN');
  await page.waitForFunction(() => document.getElementById('matrix-state').textContent.startsWith('上一个模型'));
  assert.equal(
    await page.textContent('#matrix-state'),
    '上一个模型：lab-a（随机权重，未训练），种子 0。这是上一个模型的矩阵；正在加载 minimind-demo（已训练）…',
  );
  assert.ok(asked, 'the page asked for the weights');
  release();
  await page.waitForFunction(() => document.querySelector('section.view').dataset.matrix === 'current', null, { timeout: 60000 });
  assert.equal(await page.isVisible('#matrix-state'), false);
  assert.equal(await page.$eval('#heatmap', (canvas) => getComputedStyle(canvas.closest('.matrix-wrap')).opacity), '1');
  const keys = await tableKeys(page);
  assert.equal(keys[0], '<|im_start|>', 'the new matrix is the trained model’s, bos first');
  assert.notDeepEqual(keys, before);
  assert.deepEqual(errors, []);
  await page.close();
});

test('lesson 2.5: softmax of [1, 2, 3] vs [10, 20, 30] warns of no future leak; 她 → 小红 without the mask gives the leak’s real share', async () => {
  const { page, errors } = await openPlayground('?input=manual&lang=en', { ready: '#lesson-panels' });
  const load = async (id) => {
    await page.click(`[data-example="${id}"]`);
    await page.waitForFunction(
      (example) =>
        document.getElementById('lesson-view').dataset.pending === 'false' &&
        document.querySelector('.lesson-title')?.textContent === document.querySelector(`[data-example="${example}"]`).textContent,
      id,
    );
  };
  await load('softmax');
  assert.equal(await page.isChecked('#causal'), false, 'the lesson computes this softmax without a mask');
  const note = await page.textContent('.lesson-switch-note');
  assert.doesNotMatch(note, /leak|reads the tokens after/, note);
  assert.match(note, /does not apply/, 'the √d note stays: it is about typed scores');
  const weights = await page.$$eval('#lesson-panels [data-lesson-stage="weights"] tbody tr', (rows) =>
    rows.map((r) => [...r.querySelectorAll('td')].map((td) => Number(td.dataset.value))),
  );
  assert.deepEqual(weights.length, 2, 'two separate score vectors of three, not a sequence');

  await load('she');
  assert.equal(await page.isChecked('#causal'), false);
  const she = await page.$$eval('#lesson-panels [data-lesson-stage="weights"] tbody tr', (rows) =>
    rows.map((r) => [...r.querySelectorAll('td')].map((td) => Number(td.dataset.value))),
  );
  let future = 0;
  she.forEach((row, i) => row.forEach((w, j) => (future += j > i ? w : 0)));
  const percent = ((100 * future) / she.length).toFixed(1);
  assert.ok(Number(percent) > 10, `她's example leaks (${percent}%)`);
  assert.match(
    await page.textContent('.lesson-switch-note'),
    new RegExp(`\\(${percent.replace('.', '\\.')}% of the weight goes to later tokens\\)`),
  );
  // Shapes are named by their axes.
  assert.match(await page.textContent('#lesson-panels [data-lesson-stage="raw"] .lesson-shape'), /\[Tq, Tk\] = \[3, 3\]/);
  assert.deepEqual(errors, []);
  await page.close();
});

test('shapes are labelled next to the matrix: [H, T, T] = [4, 9, 9], following the text, the head and the language', async () => {
  const { page, errors } = await openPlayground(`?preset=lab-a&lang=en&text=${encodeURIComponent(LESSON)}`);
  const mm = await loadMiniMind();
  const model = mm.createModel({ preset: 'lab-a', seed: 0 });
  const H = model.info().num_attention_heads;
  model.dispose();
  const T = LESSON.split(' ').length;
  await page.selectOption('#head', '2');
  await page.waitForFunction(() => document.getElementById('matrix-shape').textContent.includes('head 2'));
  assert.equal(await page.textContent('#matrix-shape'), `softmax [H, T, T] = [${H}, ${T}, ${T}] · head 2 shown: [T, T] = [${T}, ${T}]`);
  // Right above the matrix.
  const [shape, canvas] = await Promise.all([page.locator('#matrix-shape').boundingBox(), page.locator('#heatmap').boundingBox()]);
  assert.ok(canvas.y - (shape.y + shape.height) < 20, 'the label sits by the matrix');
  await page.fill('#text', '今天 天气 很');
  await page.waitForFunction(() => document.querySelectorAll('#matrix-table tbody tr').length === 3);
  await page.click('[data-stage="scores_raw"]');
  assert.equal(await page.textContent('#matrix-shape'), `QKᵀ [H, T, T] = [${H}, 3, 3] · head 2 shown: [T, T] = [3, 3]`);
  await page.selectOption('#lang', 'zh-CN');
  assert.equal(await page.textContent('#matrix-shape'), `QKᵀ [H, T, T] = [${H}, 3, 3] · 图中是第 2 个头：[T, T] = [3, 3]`);
  assert.deepEqual(errors, []);
  await page.close();
});

/** Two different words that lab-a's 128 hashed ids give the same id, and a word whose id neither has. */
function collidingWords(vocab) {
  const seen = new Map();
  for (let k = 0; ; k += 1) {
    const word = `w${k}`;
    const id = tokenId(word, vocab);
    if (seen.has(id)) {
      const other = [...seen.entries()].find(([otherId]) => otherId !== id)[1];
      return { a: seen.get(id), b: word, id, other };
    }
    seen.set(id, word);
  }
}

test('hashed ids: two different words with the same id are marked on their chips, with a note; the same word twice is not', async () => {
  const mm = await loadMiniMind();
  const model = mm.createModel({ preset: 'lab-a', seed: 0 });
  const vocab = model.info().vocab_size;
  model.dispose();
  const { a, b, id, other } = collidingWords(vocab);
  assert.notEqual(a, b);
  assert.equal(tokenId(a, vocab), tokenId(b, vocab));
  assert.notEqual(tokenId(other, vocab), id);
  const text = `${a} ${other} ${b} ${a}`;
  const { page, errors } = await openPlayground(`?preset=lab-a&lang=en&text=${encodeURIComponent(text)}`);
  const chips = () =>
    page.$$eval('#chips .chip', (items) =>
      items.map((li) => ({
        text: li.querySelector('.chip-text').textContent,
        id: li.querySelector('.chip-id').textContent,
        collision: li.classList.contains('collision') ? li.dataset.collision : null,
        title: li.title,
      })),
    );
  const shown = await chips();
  assert.deepEqual(
    shown.map((c) => [c.text, c.id, c.collision]),
    [
      [a, `#${id}`, String(id)],
      [other, `#${tokenId(other, vocab)}`, null],
      [b, `#${id}`, String(id)],
      [a, `#${id}`, String(id)],
    ],
  );
  assert.equal(shown[0].title, `${a} has the same id #${id} as ${b}: the model cannot tell them apart`);
  assert.equal(await page.isVisible('#chips-note'), true);
  assert.match(
    await page.textContent('#chips-note'),
    new RegExp(`^Same id for different words: ${a} / ${b} → #${id}\\. Without a tokenizer, ids are hashes`),
  );
  const [box, note] = await Promise.all([page.locator('#text').boundingBox(), page.locator('#chips-note').boundingBox()]);
  await page.screenshot({
    path: `${ARTIFACTS}collision-chips.png`,
    clip: { x: box.x - 8, y: box.y - 8, width: box.width + 16, height: note.y + note.height - box.y + 16 },
  });
  await page.selectOption('#lang', 'zh-CN');
  assert.match(await page.textContent('#chips-note'), new RegExp(`^不同的词得到了同一个 id：${a} / ${b} → #${id}。`));
  // The same word twice is one token, not a collision.
  await page.fill('#text', `${a} ${a} ${other}`);
  await page.waitForFunction(() => document.querySelectorAll('#chips .chip').length === 3);
  assert.equal(await page.$$eval('#chips .chip.collision', (items) => items.length), 0);
  assert.equal(await page.isVisible('#chips-note'), false);
  // Typed ids are what they are.
  await page.selectOption('#input-mode', 'ids');
  await page.fill('#text', `${id} ${id} 5`);
  await page.waitForFunction(() => document.querySelectorAll('#chips .chip').length === 3);
  assert.equal(await page.$$eval('#chips .chip.collision', (items) => items.length), 0);
  assert.deepEqual(errors, []);
  await page.close();
});
