// The note under the matrix and the card by the model line, as a learner
// meets them in headless Chromium: the note is composed from what is on
// screen (the learner's own sentence, the head, the switches), the card's
// numbers are the corpus's, text outside the trained model's world gets a
// notice, a random preset gets no role claim. Every expected number is read
// from the page's table, heads.json or corpus_stats.json, never typed here.
// Screenshots (desktop 1400×1000, phone 390×844, zh-CN and en) go to test-artifacts/.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { test } from 'node:test';

import { FEMALE_NAMES, HABITS, MALE_NAMES } from '../../js/corpus.mjs';
import { nameSpans } from '../../js/head_note.mjs';
import { ARTIFACTS, openPage, useServedBrowser } from './browser.mjs';
import { trainedMatrix } from './demo.mjs';

const ROOT = new URL('../../', import.meta.url).pathname;
const LEARNER = '小红把书给了小明，他很高兴'; // 他 can only be 小明: the page's best teaching moment
const ENGLISH = 'She gave the book to him';
const site = useServedBrowser(ROOT);
const heads = JSON.parse(await readFile(new URL('models/minimind-demo/heads.json', `file://${ROOT}`), 'utf8'));
const stats = JSON.parse(await readFile(new URL('models/minimind-demo/corpus_stats.json', `file://${ROOT}`), 'utf8'));

async function openPlayground(query, { width = 1400, height = 1000 } = {}) {
  const { page, errors } = await openPage(site.context);
  await page.setViewportSize({ width, height });
  await page.goto(`${site.url}dist/site/index.html${query}`);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 30000 });
  return { page, errors };
}

async function typeText(page, text) {
  await page.fill('#text', '');
  await page.type('#text', text, { delay: 5 });
}

// The drawn table once its keys spell `text` after the bos: {keys, rows (numbers, null when masked)}.
async function tableFor(page, text) {
  await page.waitForFunction(
    (expected) =>
      [...document.querySelectorAll('#matrix-table thead th')]
        .slice(2)
        .map((th) => th.textContent)
        .join('') === expected,
    text,
    { timeout: 30000 },
  );
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

for (const lang of ['zh-CN', 'en']) {
  test(`${lang}: the learner’s 小红把书给了小明，他很高兴 at the pronoun head: the note names 他 and 小明 with the weight in the matrix`, async () => {
    const { layer, head } = heads.pronounHead;
    const { page, errors } = await openPlayground(`?lang=${lang}`);
    assert.deepEqual([await page.inputValue('#layer'), await page.inputValue('#head')], [String(layer), String(head)]);
    await typeText(page, LEARNER);
    const { keys, rows } = await tableFor(page, LEARNER);
    const he = keys.indexOf('他');
    // 小明 as the tokens spell it (one token, or two summed): the last such run before 他.
    const single = keys.findLastIndex((k, j) => j < he && k === '小明');
    const pair = keys.findLastIndex((k, j) => j + 1 < he && k + keys[j + 1] === '小明');
    const span = single >= 0 ? [single] : [pair, pair + 1];
    assert.ok(span[0] >= 0, `小明 in ${keys.join('|')}`);
    const sum = span.reduce((total, j) => total + rows[he][j], 0);
    const list = span.map((j) => `${keys[j]} ${rows[he][j].toFixed(2)}`).join(' + ');
    const parts = span.length > 1 ? (lang === 'en' ? ` (${list})` : `（${list}）`) : '';
    await page.waitForFunction((n) => document.getElementById('head-note').textContent.includes(n), `→ 小明 ${sum.toFixed(2)}`);
    const note = await page.textContent('#head-note');
    const expected =
      lang === 'en' ? `“他” (row ${he}) → 小明 ${sum.toFixed(2)}${parts}` : `“他”（第 ${he} 行）→ 小明 ${sum.toFixed(2)}${parts}`;
    assert.ok(note.includes(expected), `"${expected}" in: ${note}`);
    assert.ok(note.includes(HABITS['小明']), `小明's habit in: ${note}`);
    assert.ok(!note.includes('小红 0.'), 'the note does not claim the lesson’s 小红');
    assert.equal(await page.getAttribute('#head-note', 'data-row'), String(he));
    // Inside the world: no notice.
    assert.equal(await page.isHidden('#world-notice'), true);
    await page.screenshot({ path: `${ARTIFACTS}head-note-${lang}.png` });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: `${ARTIFACTS}head-note-phone-${lang}.png` });
    await page.$eval('#model-card', (card) => card.scrollIntoView());
    await page.screenshot({ path: `${ARTIFACTS}model-card-phone-${lang}.png` });
    assert.deepEqual(errors, []);
    await page.close();
  });
}

test('an English sentence on the trained model: a notice names what is outside the world, and the note makes no pronoun claim', async () => {
  const { page, errors } = await openPlayground('?lang=en');
  await typeText(page, ENGLISH);
  await page.waitForFunction(() => !document.getElementById('world-notice').hidden);
  const notice = await page.textContent('#world-notice');
  // The first five words outside the world, each quoted, and how many more were left out (six words: one).
  const words = ENGLISH.split(' ');
  assert.ok(
    notice.startsWith(
      `Outside the model’s world: ${words
        .slice(0, 5)
        .map((w) => `“${w}”`)
        .join(', ')} and ${words.length - 5} more.`,
    ),
    notice,
  );
  await page.waitForFunction(() => document.getElementById('head-note').textContent.includes('largest weights'));
  const note = await page.textContent('#head-note');
  assert.doesNotMatch(note, /→|In this text|habit/, note);
  assert.match(note, /^Layer \d, head \d: a pronoun head/, 'the head’s measured role, in general');
  await page.screenshot({ path: `${ARTIFACTS}head-note-english.png` });
  assert.deepEqual(errors, []);
  await page.close();
});

test('a random preset: no role claim and no card; only what the row shows', async () => {
  const { page, errors } = await openPlayground('?lang=en&preset=lab-a');
  await page.waitForFunction(() => document.getElementById('head-note').textContent.includes('largest weights'));
  const note = await page.textContent('#head-note');
  assert.match(note, /^Random weights \(untrained\)/);
  assert.doesNotMatch(note, /measured|pronoun head|→/, note);
  assert.equal(await page.isHidden('#model-card'), true);
  assert.equal(await page.isHidden('#world-notice'), true);
  assert.deepEqual(errors, []);
  await page.close();
});

for (const [lang, mark, noteStart] of [
  ['en', 'softmax · mask off', /^Causal mask off: the model was trained and measured/],
  ['zh-CN', 'softmax · 未加掩码', /^因果掩码已关掉：模型是在打开因果掩码/],
]) {
  test(`${lang}: mask off: the title says so and the note claims no trained behaviour`, async () => {
    const { page, errors } = await openPlayground(`?lang=${lang}`);
    assert.ok((await page.textContent('#view-title')).endsWith('softmax'));
    await page.click('#causal');
    await page.waitForFunction((m) => document.getElementById('view-title').textContent.endsWith(m), mark);
    const note = await page.textContent('#head-note');
    assert.match(note, noteStart);
    assert.doesNotMatch(note, /→/, note);
    await page.click('#causal');
    await page.waitForFunction(() => document.getElementById('view-title').textContent.endsWith('softmax'));
    assert.deepEqual(errors, []);
    await page.close();
  });
}

for (const lang of ['en', 'zh-CN']) {
  test(`${lang}: the card by the model line: the corpus’s numbers, the world’s names and habits, a link to the model card that loads`, async () => {
    const { page, errors } = await openPlayground(`?lang=${lang}`);
    await page.waitForFunction(
      () => !document.getElementById('model-card').hidden && /\d{3}/.test(document.getElementById('model-card-text').textContent),
    );
    const card = await page.textContent('#model-card-text');
    for (const n of [stats.texts, stats.lines, stats.tokens, MALE_NAMES.length + FEMALE_NAMES.length])
      assert.ok(card.includes(n.toLocaleString(lang)), `${n} in: ${card}`);
    assert.ok(card.includes(HABITS[FEMALE_NAMES[0]]), card);
    const href = await page.$eval('#model-card-link', (a) => a.href);
    const status = await page.evaluate((url) => fetch(url).then((r) => r.status), href);
    assert.equal(status, 200, href);
    // The column opens with the text box and chips; the tokens' explanation is folded.
    const order = await page.evaluate(() =>
      [...document.querySelector('#text').closest('section').children].slice(0, 3).map((e) => e.id || e.tagName),
    );
    assert.deepEqual(order, ['input-label', 'text', 'chips']);
    assert.equal(await page.$eval('#tokens-details', (d) => d.open), false);
    assert.equal(await page.textContent('#tokens-details summary'), lang === 'en' ? 'What are these tokens?' : '这些词元是什么？');
    assert.ok((await page.textContent('#input-hint')).length > 0);
    await page.screenshot({ path: `${ARTIFACTS}model-card-${lang}.png` });
    assert.deepEqual(errors, []);
    await page.close();
  });
}

test('the element: its note is composed from its weights (no fixed sentence), and its title says the mask is off', async () => {
  const { page, errors } = await openPage(site.context, `${site.url}tests/browser/blank.html`);
  await page.setContent(
    `<script type="module" src="${site.url}dist/site/minimind-attention.js"></script>` +
      `<minimind-attention id="a" lang="en" text="${LEARNER}"></minimind-attention>` +
      `<minimind-attention id="b" lang="en" text="${LEARNER}" causal="false"></minimind-attention>`,
  );
  await page.waitForFunction(() => ['a', 'b'].every((id) => document.getElementById(id).dataset.state === 'ready'), null, {
    timeout: 30000,
  });
  const shadow = (id, selector) =>
    page.evaluate(([i, s]) => document.getElementById(i).shadowRoot.querySelector(s).textContent, [id, selector]);
  // The tokens as the element reads them (the bos, then MiniMind's tokenizer), from the JS API in Node.
  const { tokens } = await trainedMatrix({ text: LEARNER, ...heads.pronounHead });
  const weights = await page.evaluate(() => document.getElementById('a').weights);
  const he = tokens.indexOf('他');
  const name = nameSpans(tokens).find((span) => span.name === '小明');
  const sum = name.positions.reduce((total, j) => total + weights[he][j], 0);
  const note = await shadow('a', '.note');
  assert.ok(note.includes(`“他” (row ${he}) → 小明 ${sum.toFixed(2)}`), note);
  assert.ok((await shadow('a', '.title')).endsWith('softmax'));
  assert.ok((await shadow('b', '.title')).endsWith('softmax · mask off'), await shadow('b', '.title'));
  assert.match(await shadow('b', '.note'), /^Causal mask off: the model was trained and measured/);
  assert.deepEqual(errors, []);
  await page.close();
});
