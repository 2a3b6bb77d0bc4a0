// Every exercise of the tour solved through the playground's own controls, as
// a learner solves it: the exercise opened by its link (#exercise/NAME, in the
// box above the matrix), a wrong answer first (refused, with a hint, the event
// solved false), then a right one: chosen in its answer control, or poked
// into the figure (a head chosen, a head switched off, a sentence typed). The
// right and wrong answers are computed in Node by js/exercises.mjs on the
// same model and screen. Half the exercises run in zh-CN, half in en; no page
// error. Screenshots go to test-artifacts/.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';

import { exercise, textScreen } from '../../js/exercises.mjs';
import { TRAIN_RECIPES, recipeTokens } from '../../js/train_recipes.mjs';
import { translate } from '../../web/i18n.mjs';
import { DEFAULTS } from '../../web/url_state.mjs';
import { ARTIFACTS, openPage, useServedBrowser } from './browser.mjs';
import { trainedModel } from './demo.mjs';

const ROOT = new URL('../../', import.meta.url).pathname;
const site = useServedBrowser(ROOT);

// The exercise of `name` on the page at `query`, ready to answer; every minimind-exercise event is kept in window.results.
async function openExercise(name, query, lang) {
  const { page, errors } = await openPage(site.context);
  await page.setViewportSize({ width: 1400, height: 1000 });
  await page.addInitScript(() => {
    window.results = [];
    document.addEventListener('minimind-exercise', (e) => window.results.push(e.detail));
  });
  await page.goto(`${site.url}dist/site/index.html?lang=${lang}${query}#exercise/${name}`);
  await page.waitForSelector(`.exercise[data-exercise="${name}"][data-available="true"]`, { timeout: 120000 });
  await page.waitForFunction(() => document.body.dataset.pendingRequests === '0');
  return { page, errors, box: page.locator(`.exercise[data-exercise="${name}"]`) };
}

// Presses Check and waits for its answer: the event's detail.
async function check(page, box) {
  const before = await page.evaluate(() => window.results.length);
  await box.locator('.exercise-check').click();
  await page.waitForFunction((n) => window.results.length === n + 1, before, { timeout: 120000 });
  return page.evaluate(() => window.results.at(-1));
}

async function refusedThenSolved({ name, lang, query = '', wrong, right }) {
  const { page, errors, box } = await openExercise(name, query, lang);
  await wrong(page, box);
  const refused = await check(page, box);
  assert.deepEqual(refused, { name, solved: false, tries: 1 }, name);
  const verdict = await box.locator('.exercise-verdict').innerText();
  assert.ok(
    verdict.startsWith(translate(lang, 'exercise.wrong')) && verdict.length > translate(lang, 'exercise.wrong').length + 2,
    `${name}: a hint`,
  );
  await right(page, box);
  const solved = await check(page, box);
  assert.deepEqual(solved, { name, solved: true, tries: 2 }, name);
  assert.equal(await box.locator('.exercise-verdict').innerText(), translate(lang, 'exercise.solved'));
  assert.equal(await box.getAttribute('data-tries'), '2');
  await box.screenshot({ path: join(ARTIFACTS, `exercise-${name}-${lang}.png`) });
  assert.deepEqual(errors, [], name);
  await page.close();
}

/** Clicks the matrix's cell (query i, key j), from the canvas's own layout: its key becomes the answer chosen. */
const clickCell = (i, j) => async (page, box) => {
  await page.waitForFunction(() => document.getElementById('heatmap').dataset.layout);
  const layout = JSON.parse(await page.getAttribute('#heatmap', 'data-layout'));
  await page.locator('#heatmap').scrollIntoViewIfNeeded();
  const canvas = await page.locator('#heatmap').boundingBox();
  await page.mouse.click(canvas.x + layout.left + (j + 0.5) * layout.cell, canvas.y + layout.top + (i + 0.5) * layout.cell);
  await page.waitForFunction((key) => document.querySelector('.exercise-answer select').value === String(key), j);
  await box.scrollIntoViewIfNeeded();
};
const choose = (value) => (page, box) => box.locator('.exercise-answer select').selectOption(String(value));
const type = (value) => (page, box) => box.locator('.exercise-answer input').fill(String(value));

// The page's screen in Node: the default text at (layer, head), row and cell as the URL sets them.
async function answersOf(name, rest) {
  const { model, tokenizer } = await trainedModel();
  const screen = textScreen(tokenizer, DEFAULTS.text, rest);
  return { answers: exercise(name).answers(model, screen), screen, model };
}

test('tokens, scores, the mask and √d: answered in the answer control, or by a cell clicked', async () => {
  const { screen } = await answersOf('tokens-count', {});
  const T = screen.ids.length;
  await refusedThenSolved({ name: 'tokens-count', lang: 'zh-CN', wrong: type(T - 1), right: type(T) });

  const at = { layer: 1, head: 2, row: 9 };
  const scores = await answersOf('scores-top', at);
  const notTop = [...Array(10).keys()].find((j) => !scores.answers.includes(j));
  await refusedThenSolved({
    name: 'scores-top',
    lang: 'en',
    query: '&layer=1&head=2&row=9&stage=scores_raw',
    wrong: choose(notTop),
    right: clickCell(9, scores.answers[0]), // a cell of the row clicked in the matrix
  });

  const mask = await answersOf('mask-cheat', at);
  const later = [...Array(T).keys()].find((j) => j > 1 && !mask.answers.includes(j));
  await refusedThenSolved({
    name: 'mask-cheat',
    lang: 'zh-CN',
    query: '&layer=1&head=2&row=9&causal=0',
    wrong: choose(later),
    right: choose(mask.answers[0]),
  });

  const scale = await answersOf('scale-sharper', at);
  const shrinks = [...Array(10).keys()].find((j) => !scale.answers.includes(j));
  await refusedThenSolved({
    name: 'scale-sharper',
    lang: 'en',
    query: '&layer=1&head=2&row=9&scale=0',
    wrong: choose(shrinks),
    right: choose(scale.answers[0]),
  });
});

test("GQA on lab A, the lens, the weight's source and the circuit's edge: ticked and chosen", async () => {
  // lab-a: 4 query heads read 2 K/V heads; head 1 shares head 0's.
  const tick = (heads) => async (page, box) => {
    for (const box2 of await box.locator('.exercise-heads input').all())
      await box2.setChecked(heads.includes(Number(await box2.getAttribute('value'))));
  };
  await refusedThenSolved({ name: 'forward-gqa', lang: 'zh-CN', query: '&preset=lab-a&head=1', wrong: tick([2]), right: tick([0, 1]) });

  const lens = await answersOf('lens-block', {});
  const [first] = lens.answers;
  await refusedThenSolved({ name: 'lens-block', lang: 'en', wrong: choose(first === 0 ? 1 : first - 1), right: choose(first) });

  const cell = { layer: 1, head: 2, row: 9, cell: { query: 9, key: 6 } };
  const source = await answersOf('weight-source', cell);
  const other = ['embed', 'L0H0', 'L0H1', 'L0H2', 'L0H3', 'L0ffn'].find((c) => !source.answers.includes(c));
  await refusedThenSolved({
    name: 'weight-source',
    lang: 'zh-CN',
    query: '&layer=1&head=2&row=9&cell=9:6',
    wrong: choose(other),
    right: choose(source.answers[0]),
  });

  // The circuit's edge: an edge EAP ranks high that path patching finds weaker, then one it finds strongest.
  const edges = await answersOf('circuit-edge', {});
  const weaker = exercise('circuit-edge')
    .choices(edges.model, edges.screen)
    .find((edge) => !edges.answers.includes(edge));
  await refusedThenSolved({ name: 'circuit-edge', lang: 'en', wrong: choose(weaker), right: choose(edges.answers[0]) });

  const recipe = TRAIN_RECIPES.default;
  const rows = recipe.batches * recipe.options.batchSize;
  await refusedThenSolved({ name: 'train-setting', lang: 'en', wrong: type(rows), right: type(recipeTokens(recipe)) });
});

test('the pronoun: a head chosen, a head switched off, a sentence typed, into the page itself', async () => {
  const heads = await answersOf('pronoun-head', {});
  const wrongHead = [0, 1, 2, 3].find((h) => !heads.answers.some((a) => a.head === h));
  await refusedThenSolved({
    name: 'pronoun-head',
    lang: 'zh-CN',
    query: `&layer=0&head=${wrongHead}`,
    wrong: async () => {},
    right: async (page) => {
      await page.selectOption('#head', String(heads.answers[0].head));
      await page.waitForFunction(() => document.body.dataset.pendingRequests === '0');
    },
  });

  const off = await answersOf('switch-off', {});
  const [[[layer, head]]] = off.answers;
  await refusedThenSolved({
    name: 'switch-off',
    lang: 'en',
    wrong: async () => {}, // no head off yet
    right: async (page) => {
      const cell = page.locator('.thumb-cell', { has: page.locator(`.thumb[data-layer="${layer}"][data-head="${head}"]`) });
      await cell.locator('.head-switch').click();
      await page.waitForFunction(() => document.body.dataset.pendingRequests === '0');
    },
  });

  const { model, tokenizer } = await trainedModel();
  const typed = '小红把书给了小明，他';
  assert.equal(exercise('other-name').check(model, textScreen(tokenizer, typed), null).solved, true);
  await refusedThenSolved({
    name: 'other-name',
    lang: 'zh-CN',
    wrong: async () => {}, // the lesson's own sentence: the head looks at 小红
    right: async (page) => {
      await page.fill('#text', typed);
      await page.waitForFunction((t) => new URL(location.href).searchParams.get('text') === t, typed);
      await page.waitForFunction(() => document.body.dataset.pendingRequests === '0');
    },
  });
});
