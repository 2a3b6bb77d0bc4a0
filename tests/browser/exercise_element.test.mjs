// <minimind-exercise> on a course page of another origin than the element's
// files (as cross_origin.test.mjs serves them): it loads the trained model,
// a wrong answer is refused and the `minimind-exercise` event arrives with
// solved false, a right one (computed in Node by js/exercises.mjs on the same
// model) gives solved true with the tries counted; an unknown name is said
// inside the element in its language, and nothing is thrown into the page.
import assert from 'node:assert/strict';
import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';

import { exercise, textScreen } from '../../js/exercises.mjs';
import { LESSON_PROBE } from '../../js/train_session.mjs';
import { translate } from '../../web/i18n.mjs';
import { embedText } from '../../web/component/messages.mjs';
import { LENS_TERMS } from '../../web/component/minimind_exercise.mjs';
import { EXERCISE_TERMS } from '../../web/messages/exercise_terms.mjs';
import { WHY_TERMS } from '../../web/messages/why_terms.mjs';
import { serve } from '../../scripts/serve.mjs';
import { launchBrowser, openPage } from './browser.mjs';
import { trainedModel } from './demo.mjs';

const ROOT = new URL('../../', import.meta.url).pathname;
const ARTIFACTS = join(ROOT, 'test-artifacts');
let files;
let noModel; // the element's files without the trained model
let noModelDir;
let course;
let courseDir;
let browser;

before(async () => {
  await mkdir(ARTIFACTS, { recursive: true });
  courseDir = await mkdtemp(join(tmpdir(), 'minimind-exercise-course-'));
  files = await serve(join(ROOT, 'dist/site'));
  noModelDir = await mkdtemp(join(tmpdir(), 'minimind-exercise-no-model-'));
  await cp(join(ROOT, 'dist/site/minimind-attention.js'), join(noModelDir, 'minimind-attention.js'));
  await cp(join(ROOT, 'dist/site/wasm'), join(noModelDir, 'wasm'), { recursive: true });
  noModel = await serve(noModelDir);
  course = await serve(courseDir);
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await Promise.all([files?.close(), noModel?.close(), course?.close()]);
  for (const dir of [courseDir, noModelDir]) if (dir) await rm(dir, { recursive: true, force: true });
});

// A course page with the element's script from the files' origin; every event the page receives is kept in window.results.
async function coursePage(name, body, from = files) {
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Course</title><link rel="icon" href="data:,">
<script type="module" src="${from.url}minimind-attention.js"></script></head>
<body><h1>Exercise</h1>${body}
<script>window.results = []; document.addEventListener('minimind-exercise', (e) => window.results.push(e.detail));</script>
</body></html>`;
  await writeFile(join(courseDir, `${name}.html`), html);
  return `${course.url}${name}.html`;
}

test("the lens rows' names the element carries are the page's", () => {
  for (const lang of ['zh-CN', 'en'])
    for (const [key, text] of Object.entries(LENS_TERMS[lang])) assert.equal(text, WHY_TERMS[lang][key], `${lang} ${key}`);
});

const ready = (page, selector) =>
  page.waitForFunction((s) => document.querySelector(s)?.shadowRoot?.querySelector('.exercise[data-available="true"]'), selector, {
    timeout: 60000,
  });

test('a pronoun-head exercise on another origin: a wrong head is refused, a right one solves it, each check an event', async () => {
  assert.notEqual(new URL(files.url).origin, new URL(course.url).origin);
  const url = await coursePage('heads', '<minimind-exercise id="ex" name="pronoun-head"></minimind-exercise>');
  const { page, errors } = await openPage(browser.context, url);
  await page.setViewportSize({ width: 1400, height: 1000 });
  await ready(page, '#ex');
  // The right heads and a wrong one of block 0, from the same model in Node.
  const { model, tokenizer } = await trainedModel();
  const e = exercise('pronoun-head');
  const right = e.answers(model, textScreen(tokenizer, LESSON_PROBE));
  const wrong = [0, 1, 2, 3].find((h) => !right.some((r) => r.head === h));
  assert.ok(right.length > 0 && wrong !== undefined);
  const ex = page.locator('#ex');
  await ex.locator('select[name="layer"]').selectOption('0');
  await ex.locator('select[name="head"]').selectOption(String(wrong));
  await ex.locator('.exercise-check').click();
  await page.waitForFunction(() => window.results.length === 1);
  assert.deepEqual(await page.evaluate(() => window.results[0]), { name: 'pronoun-head', solved: false, tries: 1 });
  const hint = await ex.locator('.exercise-verdict').innerText();
  assert.match(hint, new RegExp(`L0H${wrong}`));
  await ex.locator('select[name="head"]').selectOption(String(right[0].head));
  await ex.locator('.exercise-check').click();
  await page.waitForFunction(() => window.results.length === 2);
  assert.deepEqual(await page.evaluate(() => window.results[1]), { name: 'pronoun-head', solved: true, tries: 2 });
  assert.equal(await ex.locator('.exercise-verdict').innerText(), translate('en', 'exercise.solved'));
  await ex.screenshot({ path: join(ARTIFACTS, 'exercise-element-en.png') });
  assert.deepEqual(errors, []);
  await page.close();
});

test('in zh-CN: the lens exercise takes the block the model computes, after a wrong one; an unknown name is said in the element', async () => {
  const url = await coursePage(
    'lens',
    '<div lang="zh-CN"><minimind-exercise id="lens" name="lens-block"></minimind-exercise></div><minimind-exercise id="bad" name="no-such" lang="zh-CN"></minimind-exercise>',
  );
  const { page, errors } = await openPage(browser.context, url);
  await page.setViewportSize({ width: 390, height: 844 });
  await ready(page, '#lens');
  const { model, tokenizer } = await trainedModel();
  const [first] = exercise('lens-block').answers(model, textScreen(tokenizer, LESSON_PROBE));
  const lens = page.locator('#lens');
  const select = lens.locator('.exercise-answer select');
  await select.selectOption(String(first === 0 ? 1 : first - 1));
  await lens.locator('.exercise-check').click();
  await page.waitForFunction(() => window.results.length === 1);
  assert.equal(await page.evaluate(() => window.results[0].solved), false);
  assert.equal(await lens.locator('.exercise-check').innerText(), '检查');
  await select.selectOption(String(first));
  await lens.locator('.exercise-check').click();
  await page.waitForFunction(() => window.results.length === 2);
  assert.deepEqual(await page.evaluate(() => window.results[1]), { name: 'lens-block', solved: true, tries: 2 });
  // No sideways scrolling on a phone.
  assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth));
  const bad = await page.locator('#bad .ex-status').innerText();
  assert.ok(bad.startsWith(EXERCISE_TERMS['zh-CN']['exercise.el.failed'].split('{')[0]), bad);
  assert.match(bad, /no-such/);
  await lens.screenshot({ path: join(ARTIFACTS, 'exercise-element-zh.png') });
  assert.deepEqual(errors, []);
  await page.close();
});

test("the circuit's edge in the element: its own list of EAP's top edges, a weaker one refused, the strongest patched solves it", async () => {
  const url = await coursePage('circuit', '<minimind-exercise id="edge" name="circuit-edge" lang="en"></minimind-exercise>');
  const { page, errors } = await openPage(browser.context, url);
  await page.setViewportSize({ width: 1400, height: 1000 });
  await ready(page, '#edge');
  const { model, tokenizer } = await trainedModel();
  const screen = textScreen(tokenizer, LESSON_PROBE);
  const e = exercise('circuit-edge');
  const offered = e.choices(model, screen);
  const right = e.answers(model, screen);
  const edge = page.locator('#edge');
  const select = edge.locator('.exercise-answer select');
  // The list is the exercise's: the empty choice, then EAP's top edges in order.
  assert.deepEqual((await select.locator('option').allInnerTexts()).slice(1), offered);
  await select.selectOption(offered.find((name) => !right.includes(name)));
  await edge.locator('.exercise-check').click();
  await page.waitForFunction(() => window.results.length === 1);
  assert.deepEqual(await page.evaluate(() => window.results[0]), { name: 'circuit-edge', solved: false, tries: 1 });
  await select.selectOption(right[0]);
  await edge.locator('.exercise-check').click();
  await page.waitForFunction(() => window.results.length === 2);
  assert.deepEqual(await page.evaluate(() => window.results[1]), { name: 'circuit-edge', solved: true, tries: 2 });
  await edge.screenshot({ path: join(ARTIFACTS, 'exercise-element-circuit-en.png') });
  assert.deepEqual(errors, []);
  await page.close();
});

test('the trained model not hosted: the element says so in its box, in its language, and the page goes on', async () => {
  const url = await coursePage('no-model', '<minimind-exercise id="ex" name="switch-off" lang="zh-CN"></minimind-exercise>', noModel);
  const { page, errors } = await openPage(browser.context, url);
  await page.waitForFunction(() => document.getElementById('ex').dataset.state === 'error', null, { timeout: 120000 });
  const said = await page.locator('#ex .ex-status').innerText();
  const expected = embedText('zh-CN', 'embed.modelFailed', { url: `${noModel.url}models/minimind-demo/` });
  assert.ok(said.includes(expected), `${said} names ${expected}`);
  assert.equal(await page.evaluate(() => window.results.length), 0);
  // Only the failed fetches of the model's files are logged; nothing is thrown into the page.
  assert.ok(
    errors.every((e) => /Failed to load resource/.test(e)),
    errors.join('\n'),
  );
  await page.close();
});
