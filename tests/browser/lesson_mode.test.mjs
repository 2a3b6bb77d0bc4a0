// Lesson mode and the labs, in and out, in headless Chromium: entering
// lesson 2.5 ("by hand") or a lab of lesson 11 and leaving it again (its
// button a second time, the lab's Close, the input-mode select) brings back
// the playground's own state: its text, model, input mode and its causal and
// √d switches, not the lesson's. The URL follows: reloading it after leaving
// shows the playground. A page opened on a lesson's link leaves it for the
// playground's defaults.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { encodeText } from '../../js/text_encoding.mjs';
import { ARTIFACTS, openPage, useServedBrowser } from './browser.mjs';
import { trainedModel } from './demo.mjs';

const ROOT = new URL('../../', import.meta.url).pathname;
const site = useServedBrowser(ROOT);

const TEXT = '小明喜欢踢球';

async function tokenCount(text) {
  const { tokenizer } = await trainedModel();
  return encodeText(tokenizer, text).length;
}

async function open(query) {
  const { page, errors } = await openPage(site.context);
  await page.setViewportSize({ width: 1400, height: 1000 });
  await page.goto(`${site.url}dist/site/index.html${query}`);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 30000 });
  return { page, errors };
}

// What the playground's own state looks like on the page now.
function playground(page) {
  return page.evaluate(() => ({
    mode: document.body.dataset.mode,
    input: document.getElementById('input-mode').value,
    text: document.getElementById('text').value,
    preset: document.getElementById('preset').value,
    causal: document.getElementById('causal').checked,
    scale: document.getElementById('scale').checked,
    lessonPressed: document.getElementById('open-lesson').getAttribute('aria-pressed'),
    labsPressed: [...document.querySelectorAll('[data-lab]')].map((b) => b.getAttribute('aria-pressed')),
    labShown: !document.getElementById('lab-view').hidden,
  }));
}

// The matrix drawn for `rows` tokens by a ready model.
function matrixOf(page, rows) {
  return page.waitForFunction((n) => document.querySelectorAll('#matrix-table tbody tr').length === n, rows, { timeout: 60000 });
}

// The query string's keys (the language aside).
function urlKeys(page) {
  return [...new URL(page.url()).searchParams.keys()].filter((k) => k !== 'lang').sort();
}

test('lesson 2.5 in and out: its button toggles, and the playground’s text and switches come back, in the URL too', async () => {
  const T = await tokenCount(TEXT);
  const { page, errors } = await open('?lang=en');
  await page.fill('#text', TEXT);
  await matrixOf(page, T);
  // Typing selects the row the note talks about: here (no pronoun) the last token's.
  await page.waitForFunction((row) => new URLSearchParams(location.search).get('row') === row, String(T - 1));
  await page.uncheck('#scale'); // the learner's own choice, which the lesson must not undo
  const mine = await playground(page);
  assert.deepEqual(mine, {
    mode: 'model',
    input: 'text',
    text: TEXT,
    preset: 'minimind-demo',
    causal: true,
    scale: false,
    lessonPressed: 'false',
    labsPressed: ['false', 'false'],
    labShown: false,
  });

  // In: the lesson's example sets its own switches (她 → 小红: no mask, no ÷√d).
  await page.click('#open-lesson');
  await page.waitForSelector('#lesson-panels');
  const inLesson = await playground(page);
  assert.equal(inLesson.mode, 'lesson');
  assert.equal(inLesson.input, 'manual');
  assert.equal(inLesson.lessonPressed, 'true');
  assert.equal(inLesson.causal, false);
  assert.match(page.url(), /[?&]input=manual(&|$)/);
  await page.click('[data-example="causal"]');
  await page.waitForFunction(() => document.getElementById('causal').checked && document.getElementById('scale').checked);

  // Out, by pressing the same button: the playground as it was.
  await page.click('#open-lesson');
  await matrixOf(page, T);
  assert.deepEqual(await playground(page), mine);
  assert.deepEqual(urlKeys(page), ['row', 'scale', 'text']);
  assert.equal(new URL(page.url()).searchParams.get('row'), String(T - 1), 'the selected row comes back');
  assert.equal(await page.isVisible('#lesson-view'), false);

  // Reloading the URL shows the playground, not the lesson.
  await page.goto(page.url());
  await page.waitForSelector('body[data-ready="true"]', { timeout: 30000 });
  await matrixOf(page, T);
  assert.deepEqual(await playground(page), mine);

  // In and out through the input-mode select.
  await page.selectOption('#input-mode', 'manual');
  await page.waitForSelector('#lesson-panels');
  assert.equal((await playground(page)).causal, false, 'the lesson’s example switches the mask off');
  await page.selectOption('#input-mode', 'text');
  await matrixOf(page, T);
  assert.deepEqual(await playground(page), mine);
  assert.deepEqual(errors, []);
  await page.close();
});

test('the labs in and out: their buttons toggle, Close leaves, and the playground’s model comes back', async () => {
  const T = await tokenCount(TEXT);
  const { page, errors } = await open(`?lang=zh-CN&text=${encodeURIComponent(TEXT)}&causal=0`);
  await matrixOf(page, T);
  const mine = await playground(page);
  assert.equal(mine.causal, false);
  assert.equal(mine.preset, 'minimind-demo');

  await page.click('[data-lab="lab-a"]');
  await page.waitForSelector('#lab-record');
  await matrixOf(page, 5);
  const inLab = await playground(page);
  assert.deepEqual([inLab.preset, inLab.input, inLab.text, inLab.causal], ['lab-a', 'ids', '3 4 5 6 7', true]);
  assert.deepEqual(inLab.labsPressed, ['true', 'false']);

  // Pressing lab A again leaves it: the trained model, the text and the mask switch as they were.
  await page.click('[data-lab="lab-a"]');
  await matrixOf(page, T);
  await page.waitForFunction(() => document.getElementById('preset').value === 'minimind-demo');
  assert.deepEqual(await playground(page), mine);
  assert.deepEqual(urlKeys(page), ['causal', 'text']);
  await page.goto(page.url());
  await page.waitForSelector('body[data-ready="true"]', { timeout: 30000 });
  await matrixOf(page, T);
  assert.deepEqual(await playground(page), mine);

  // From one lab to the other, to the lesson, and out: the playground, not a lab.
  await page.click('[data-lab="lab-a"]');
  await matrixOf(page, 5);
  await page.click('[data-lab="lab-b"]');
  await page.waitForFunction(() => document.getElementById('head').options.length === 6);
  await page.click('#open-lesson');
  await page.waitForSelector('#lesson-panels');
  await page.click('#open-lesson');
  await matrixOf(page, T);
  await page.waitForFunction(() => document.getElementById('preset').value === 'minimind-demo');
  assert.deepEqual(await playground(page), mine);

  // The lab's Close leaves it too.
  await page.click('[data-lab="lab-b"]');
  await page.waitForSelector('#lab-close');
  await page.click('#lab-close');
  await matrixOf(page, T);
  await page.waitForFunction(() => document.getElementById('preset').value === 'minimind-demo');
  assert.deepEqual(await playground(page), mine);
  assert.deepEqual(urlKeys(page), ['causal', 'text']);
  await page.screenshot({ path: `${ARTIFACTS}lesson-mode-left-zh-CN.png`, fullPage: true });
  assert.deepEqual(errors, []);
  await page.close();
});

test('a page opened on a lesson’s link leaves it for the playground’s defaults', async () => {
  const { page, errors } = await open('?lang=en&input=manual&example=she&causal=0&scale=0');
  await page.waitForSelector('#lesson-panels');
  assert.equal(await page.isChecked('#causal'), false);
  await page.click('#open-lesson');
  const T = await tokenCount('小明把苹果给了小红，她很开心');
  await matrixOf(page, T);
  const back = await playground(page);
  assert.deepEqual([back.mode, back.input, back.causal, back.scale], ['model', 'text', true, true]);
  assert.deepEqual(urlKeys(page), []);
  assert.deepEqual(errors, []);
  await page.close();
});
