// The project's trained MiniMind (models/minimind-demo/) as a new learner
// meets it, in headless Chromium: the playground and a bare
// <minimind-attention> open on the lesson's sentence, read by MiniMind's
// tokenizer after the bos, at the pronoun head that heads.json measured,
// where 她 puts its largest weight on 小红's tokens; the overview labels each
// head with its measured role and score; switching the pronoun head off
// there changes the next-token prediction; the presets say they are
// untrained. Every expected number comes from the JS API in Node or from
// heads.json. Screenshots (desktop 1280×800, phone 390×844) go to test-artifacts/.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { LANGUAGES } from '../../web/i18n.mjs';
import { readUrlState } from '../../web/url_state.mjs';
import { ARTIFACTS, openPage, useServedBrowser } from './browser.mjs';
import { trainedMatrix, trainedModel } from './demo.mjs';

const ROOT = new URL('../../', import.meta.url).pathname;
const SENTENCE = '小明把苹果给了小红，她很开心'; // the lesson's sentence, as MiniMind's tokenizer reads it
const ZH = LANGUAGES['zh-CN'];

const site = useServedBrowser(ROOT); // the repository: dist/site/ and a blank page for the element

// A new learner's browser: Chinese, nothing in the URL.
async function openPlayground(query = '', { width = 1280, height = 800, languages = ['zh-CN', 'zh'] } = {}) {
  const { page, errors } = await openPage(site.context);
  await page.setViewportSize({ width, height });
  await page.addInitScript((list) => Object.defineProperty(navigator, 'languages', { get: () => list }), languages);
  await page.goto(`${site.url}dist/site/index.html${query}`);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 30000 });
  return { page, errors };
}

function readTable(page) {
  return page.evaluate(() => {
    const table = document.getElementById('matrix-table');
    return {
      keys: [...table.querySelectorAll('thead th')].slice(1).map((th) => th.textContent),
      rows: [...table.querySelectorAll('tbody tr')].map((r) =>
        [...r.querySelectorAll('td')].map((td) => (td.dataset.value === undefined ? null : Number(td.dataset.value))),
      ),
    };
  });
}

// The position of a row's largest weight.
function argmax(row) {
  let best = 0;
  row.forEach((w, j) => {
    if (w !== null && w > row[best]) best = j;
  });
  return best;
}

// The prediction panel once it answers what is on screen: the text of each candidate.
async function prediction(page) {
  await page.waitForFunction(() => {
    const box = document.getElementById('prediction-box');
    return !box.hidden && box.dataset.pending === 'false' && document.querySelectorAll('#prediction li').length > 0;
  });
  return page.$$eval('#prediction li', (items) => items.map((li) => li.textContent));
}

// The softmax of the trained model's logits after position `row` (as MiniMind's generate at temperature 1).
async function nextProbabilities(ids, row, ablate) {
  const { model } = await trainedModel();
  const { logits } = model.forward(ids.slice(0, row + 1), ablate ? { ablate } : {});
  const V = logits.shape[2];
  const last = Array.from(logits.data.subarray(row * V, (row + 1) * V));
  const max = Math.max(...last);
  const e = last.map((x) => Math.exp(x - max));
  const sum = e.reduce((a, b) => a + b, 0);
  return e.map((x) => x / sum);
}

test('a new learner’s first view (zh-CN): the lesson’s sentence after the bos, the pronoun head, 她’s largest weight on 小红’s tokens', async () => {
  const { heads, sentence, kvHeadOf } = await trainedModel();
  const { layer, head } = heads.pronounHead;
  const { page, errors } = await openPlayground();
  assert.equal(await page.inputValue('#text'), SENTENCE);
  assert.equal(await page.inputValue('#preset'), 'minimind-demo');
  assert.equal(await page.inputValue('#layer'), String(layer));
  assert.equal(await page.inputValue('#head'), String(head));
  const expected = await trainedMatrix({ text: SENTENCE, layer, head });

  // The chips: MiniMind's tokens, the bos first and marked.
  await page.waitForFunction((n) => document.querySelectorAll('#chips .chip').length === n, expected.tokens.length);
  const chips = await page.$$eval('#chips .chip', (items) =>
    items.map((li) => [
      li.querySelector('.chip-text').textContent,
      li.querySelector('.chip-id').textContent,
      li.classList.contains('special'),
    ]),
  );
  assert.deepEqual(
    chips.map(([text]) => text),
    expected.tokens,
  );
  assert.deepEqual(chips[0], ['<|im_start|>', '#1', true]);
  assert.equal(chips.filter(([, , special]) => special).length, 1, 'only the bos is a special token');
  assert.deepEqual(
    chips.map(([, id]) => id),
    expected.ids.map((id) => `#${id}`),
  );
  assert.deepEqual(expected.tokens.slice(sentence.referent[0], sentence.referent.at(-1) + 1), ['小', '红']);

  // The matrix: the JS API's, at the pronoun head; 她's row is selected and its largest weight is on 小红's tokens.
  const table = await readTable(page);
  assert.deepEqual(table.keys, expected.tokens);
  table.rows.forEach((row, i) => row.forEach((w, j) => assert.equal(w, j > i ? null : expected.rows[i][j], `cell ${i},${j}`)));
  assert.equal(expected.tokens[sentence.pronoun], '她');
  const she = table.rows[sentence.pronoun];
  assert.ok(sentence.referent.includes(argmax(she)), `她's largest weight is on ${expected.tokens[argmax(she)]}`);
  assert.match(await page.textContent('#row-explanation'), /^output\(她\) = \d\.\d\d×V\((小|红)\)/);
  assert.equal(await page.textContent('#view-title'), `第 ${layer} 层 · 第 ${head} 个头（读取 kv 头 ${kvHeadOf(head)}）· softmax`);

  // What the learner sees: the head's measured role (heads.json), and where 她 looks on screen (the table's weights, 小红's tokens summed).
  const note = await page.textContent('#head-note');
  const entry = heads.heads.find((h) => h.layer === layer && h.head === head);
  const onName = sentence.referent.reduce((sum, j) => sum + table.rows[sentence.pronoun][j], 0);
  assert.match(note, new RegExp(`^第 ${layer} 层第 ${head} 个头：代词头`));
  for (const part of [`代词 ${entry.pronoun.toFixed(2)}`, `“她”（第 ${sentence.pronoun} 行）→ 小红 ${onName.toFixed(2)}`])
    assert.ok(note.includes(part), `"${part}" in: ${note}`);
  // Above the overview: what switching that head off did to the model's predictions when it was measured.
  const invitation = await page.textContent('#ablate-note');
  const { on, off, allOff, pronounHeads } = heads.referentAccuracy;
  for (const x of pronounHeads.length > 1 ? [on, off, allOff] : [on, off])
    assert.ok(invitation.includes(`${(100 * x).toFixed(1)}%`), invitation);
  if (pronounHeads.length > 1) for (const [l, h] of pronounHeads) assert.ok(invitation.includes(`第 ${l} 层第 ${h} 个头`), invitation);
  assert.ok(invitation.includes(`第 ${layer} 层第 ${head} 个头`), invitation);
  // The next token after 她, as the model predicts it.
  assert.match(await page.textContent('#prediction-title'), /^“她”之后/);
  assert.equal((await prediction(page)).length, 5);

  // The trained model is the default: the URL says nothing of it.
  const state = new URL(page.url()).searchParams;
  for (const key of ['preset', 'layer', 'head', 'row', 'text']) assert.equal(state.has(key), false, `${key} in ${page.url()}`);
  // The selector: the trained model first, every preset labelled as untrained; the subtitle promises nothing of random weights.
  const options = await page.$$eval('#preset option', (list) => list.map((o) => [o.value, o.textContent]));
  assert.deepEqual(options[0], ['minimind-demo', 'minimind-demo（已训练）']);
  for (const [value, label] of options.slice(1, -1)) assert.equal(label, `${value}（随机权重，未训练）`);
  assert.match(await page.textContent('#model-status'), /^minimind-demo：[\d,]+ 个参数，4 层 × 4 个头，本项目训练的权重$/);
  assert.match(await page.textContent('.subtitle'), /预设是随机权重（未训练）/);
  await page.screenshot({ path: `${ARTIFACTS}demo-desktop-zh-CN.png` });
  await page.screenshot({ path: `${ARTIFACTS}demo-desktop-zh-CN-full.png`, fullPage: true });
  assert.deepEqual(errors, []);
  await page.close();
});

test('the overview labels every head with its measured role and score; presets have none and say they are untrained', async () => {
  const { heads } = await trainedModel();
  const { page, errors } = await openPlayground();
  await page.waitForSelector('.thumb .thumb-role');
  const labels = await page.$$eval('.thumb', (buttons) =>
    buttons.map((b) => ({
      layer: Number(b.dataset.layer),
      head: Number(b.dataset.head),
      role: b.querySelector('.thumb-role')?.textContent,
      score: b.querySelector('.thumb-score')?.textContent,
    })),
  );
  assert.equal(labels.length, heads.heads.length);
  const ROLE_SCORE = { pronoun: 'pronoun', induction: 'induction', 'previous-token': 'previousToken', sink: 'sink' };
  for (const entry of heads.heads) {
    const shown = labels.find((l) => l.layer === entry.layer && l.head === entry.head);
    assert.equal(shown.role, ZH[`role.${entry.role}`], `layer ${entry.layer} head ${entry.head}`);
    // A role's own score; a mixed head's largest.
    const key = ROLE_SCORE[entry.role] ?? ['previousToken', 'induction', 'pronoun', 'sink'].reduce((a, b) => (entry[b] > entry[a] ? b : a));
    assert.equal(shown.score, `${ZH[`score.${key}`]} ${entry[key].toFixed(2)}`, `layer ${entry.layer} head ${entry.head}`);
  }
  const pronoun = labels.find((l) => l.layer === heads.pronounHead.layer && l.head === heads.pronounHead.head);
  assert.equal(pronoun.role, '代词头');

  // A preset: random weights, labelled so in the model line and the note; no roles.
  await page.selectOption('#preset', 'lab-a');
  await page.waitForFunction(() => document.getElementById('model-status').textContent.startsWith('lab-a：'));
  assert.match(await page.textContent('#model-status'), /随机权重（未训练，种子 0）$/);
  assert.match(await page.textContent('#head-note'), /^随机权重（未训练）/);
  assert.equal(await page.$$eval('.thumb .thumb-role', (found) => found.length), 0);
  assert.equal(await page.inputValue('#layer'), '0');
  assert.equal(await page.inputValue('#head'), '0');
  assert.deepEqual(errors, []);
  await page.close();
});

test('switching the pronoun head off in the overview changes the prediction after 她, and later layers, as the JS API computes', async () => {
  const { heads, sentence } = await trainedModel();
  const { layer, head } = heads.pronounHead;
  const { page, errors } = await openPlayground();
  const before = await prediction(page);
  const { ids } = await trainedMatrix({ text: SENTENCE, layer, head });
  const on = await nextProbabilities(ids, sentence.pronoun);
  const off = await nextProbabilities(ids, sentence.pronoun, [[layer, head]]);
  const best = on.indexOf(Math.max(...on));
  assert.match(before[0], new RegExp(`\\(#${best}\\): ${on[best].toFixed(3)}$`), 'the page predicts what the model does');

  await page.click(`.head-switch[data-layer="${layer}"][data-head="${head}"]`);
  await page.waitForFunction((pair) => new URLSearchParams(location.search).get('ablate') === pair, `${layer}:${head}`);
  await page.waitForFunction(
    (b) => JSON.stringify([...document.querySelectorAll('#prediction li')].map((li) => li.textContent)) !== b,
    JSON.stringify(before),
  );
  const after = await prediction(page);
  assert.notDeepEqual(after, before, 'the prediction changed');
  // The model's own top token loses probability without the head: shown next to its value with every head on.
  const shownBest = after.find((text) => text.includes(`(#${best})`));
  if (shownBest) assert.ok(shownBest.includes(`${off[best].toFixed(3)}（所有头打开时 ${on[best].toFixed(3)}）`), shownBest);
  assert.ok(off[best] < on[best], `p(#${best}) ${on[best]} -> ${off[best]}`);
  const offBest = off.indexOf(Math.max(...off));
  assert.match(after[0], new RegExp(`\\(#${offBest}\\): ${off[offBest].toFixed(3)}`));
  assert.match(await page.textContent('#prediction-note'), new RegExp(`^关掉 第 ${layer} 层第 ${head} 个头 之后`));
  // The head is marked as off; its own attention is still drawn, a later layer's changes as the JS API's does.
  const cell = `.thumb-cell:has(.thumb[data-layer="${layer}"][data-head="${head}"])`;
  assert.equal(await page.$eval(cell, (c) => c.classList.contains('off')), true);
  assert.equal(await page.getAttribute(`.head-switch[data-layer="${layer}"][data-head="${head}"]`, 'aria-pressed'), 'true');
  assert.match(await page.textContent('#ablate-note'), /^已关掉：第 \d 层第 \d 个头/);
  const later = Math.min(layer + 1, heads.heads.at(-1).layer);
  await page.selectOption('#layer', String(later));
  await page.selectOption('#head', '1');
  const ablated = await trainedMatrix({ text: SENTENCE, layer: later, head: 1, ablate: [[layer, head]] });
  const intact = await trainedMatrix({ text: SENTENCE, layer: later, head: 1 });
  const table = await readTable(page);
  table.rows.forEach((row, i) => row.forEach((w, j) => assert.equal(w, j > i ? null : ablated.rows[i][j], `cell ${i},${j}`)));
  assert.notDeepEqual(ablated.rows, intact.rows, 'switching a head off reaches the later layers');
  await page.screenshot({ path: `${ARTIFACTS}demo-ablated-zh-CN.png`, fullPage: true });

  // A link keeps the heads off; "all heads on" brings the prediction back.
  assert.deepEqual(readUrlState(new URL(page.url()).search).ablate, [[layer, head]]);
  await page.click('#ablate-reset');
  await page.waitForFunction(() => !new URLSearchParams(location.search).has('ablate'));
  assert.equal(await page.$eval(cell, (c) => c.classList.contains('off')), false);
  await page.waitForFunction(
    (b) => JSON.stringify([...document.querySelectorAll('#prediction li')].map((li) => li.textContent)) === b,
    JSON.stringify(before),
  );
  assert.equal(await page.textContent('#prediction-note'), '');
  assert.deepEqual(errors, []);
  await page.close();
});

test('an element with no attributes shows the trained model on the lesson’s sentence at the pronoun head; preset="lab-a" says it is untrained', async () => {
  const { heads, sentence, kvHeadOf } = await trainedModel();
  const { layer, head } = heads.pronounHead;
  const { page, errors } = await openPage(site.context, `${site.url}tests/browser/blank.html`);
  await page.setViewportSize({ width: 900, height: 900 });
  await page.addInitScript(() => Object.defineProperty(navigator, 'languages', { get: () => ['zh-CN', 'zh'] }));
  await page.reload();
  await page.setContent(
    `<h1>第 11 课</h1><script type="module" src="${site.url}dist/site/minimind-attention.js"></script><minimind-attention id="bare"></minimind-attention>`,
  );
  await page.waitForFunction(() => document.getElementById('bare').dataset.state === 'ready', null, { timeout: 30000 });
  const expected = await trainedMatrix({ text: SENTENCE, layer, head });
  const weights = await page.evaluate(() => document.getElementById('bare').weights);
  assert.deepEqual(weights, expected.rows);
  const she = weights[sentence.pronoun];
  assert.ok(sentence.referent.includes(argmax(she)), `她's largest weight is on ${expected.tokens[argmax(she)]}`);
  const shadow = (selector) => page.evaluate((s) => document.getElementById('bare').shadowRoot.querySelector(s).textContent, selector);
  assert.equal(await shadow('.title'), `第 ${layer} 层 · 第 ${head} 个头（读取 kv 头 ${kvHeadOf(head)}）· softmax`);
  assert.equal(await shadow('.model'), 'minimind-demo（已训练）');
  // Its note reads the weights drawn: 她's row, 小红's tokens summed.
  const onName = sentence.referent.reduce((sum, j) => sum + weights[sentence.pronoun][j], 0);
  assert.ok((await shadow('.note')).includes(`“她”（第 ${sentence.pronoun} 行）→ 小红 ${onName.toFixed(2)}`), await shadow('.note'));
  // Table view: the bos is the first token.
  await page.evaluate(() => document.getElementById('bare').setAttribute('view', 'table'));
  await page.waitForFunction(() => document.getElementById('bare').shadowRoot.querySelector('table:not([hidden]) thead th:nth-child(2)'));
  assert.equal(await shadow('thead th:nth-child(2)'), '<|im_start|>');
  await page.screenshot({ path: `${ARTIFACTS}demo-element-zh-CN.png` });
  // Its link opens the playground on the same view.
  const link = new URL(await page.evaluate(() => document.getElementById('bare').shadowRoot.querySelector('a').href));
  const linked = readUrlState(link.search);
  assert.deepEqual([linked.preset, linked.text, linked.layer, linked.head], ['minimind-demo', SENTENCE, null, null]);

  // A preset: random weights, and the element says so.
  const ready = () =>
    page.evaluate(
      () =>
        new Promise((resolve) =>
          document.getElementById('bare').addEventListener('minimind-ready', (e) => resolve(e.detail), { once: true }),
        ),
    );
  const drawn = ready();
  await page.evaluate(() => {
    const element = document.getElementById('bare');
    element.setAttribute('view', 'heatmap');
    element.setAttribute('preset', 'lab-a');
  });
  const detail = await drawn;
  assert.deepEqual([detail.layer, detail.head], [0, 0]);
  assert.equal(await shadow('.model'), 'lab-a（随机权重，未训练）· 种子 0');
  assert.equal(await page.evaluate(() => document.getElementById('bare').shadowRoot.querySelector('.note').hidden), true);
  assert.deepEqual(errors, []);
  await page.close();
});

test('screenshots at desktop and phone sizes: nothing wider than the screen', async () => {
  for (const [name, width, height, languages] of [
    ['desktop-en', 1280, 800, ['en-US', 'en']],
    ['phone-zh-CN', 390, 844, ['zh-CN', 'zh']],
    ['phone-en', 390, 844, ['en-US', 'en']],
  ]) {
    const { page, errors } = await openPlayground('', { width, height, languages });
    await prediction(page);
    await page.waitForSelector('.thumb .thumb-role');
    assert.ok((await page.evaluate(() => document.documentElement.scrollWidth)) <= width, `${name}: the page is no wider than ${width}px`);
    await page.screenshot({ path: `${ARTIFACTS}demo-${name}.png` });
    await page.screenshot({ path: `${ARTIFACTS}demo-${name}-full.png`, fullPage: true });
    await page.evaluate(() => document.getElementById('overview').scrollIntoView());
    await page.screenshot({ path: `${ARTIFACTS}demo-${name}-overview.png` });
    assert.deepEqual(errors, []);
    await page.close();
  }
});
