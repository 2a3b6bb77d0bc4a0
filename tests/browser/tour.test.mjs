// The guided tour walked from its first step to its last, in zh-CN and en,
// on a desktop (1400×1000) and a phone (390×844), with Next (下一步). At every
// step: only that step is shown, with data-tour-step N; the store holds the
// state the step set (read from the step's data-tour-state, and the page's
// own selectors, switches, text box and URL show the same); the step's text
// names the selected row's token (and the cell's tokens) as the chips show
// them; nothing scrolls sideways; the box does not cover what it points at;
// no page error. Exercise steps are passed through, not solved. Then the
// way out gives the learner's own state back. Screenshots of a few steps go
// to test-artifacts/.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { STEPS } from '../../web/tour/chapters.mjs';
import { ARTIFACTS, afterFrames, openPage, useServedBrowser } from './browser.mjs';

const site = useServedBrowser();
const SIZES = { desktop: { width: 1400, height: 1000 }, phone: { width: 390, height: 844 } };
const NAMES = { 'zh-CN': { next: '下一步', back: '上一步' }, en: { next: 'Next', back: 'Back' } };
const SHOTS = new Set(['tokens', 'forward', 'weight']); // chapters whose first step is photographed

// The step shown once its state is set and every request is answered.
async function settledStep(page, n) {
  await page
    .waitForFunction(
      (want) => {
        const steps = document.querySelectorAll('[data-tour-step]');
        const step = steps[0];
        return (
          steps.length === 1 &&
          step.dataset.tourStep === String(want) &&
          step.dataset.tourReady === 'true' &&
          document.body.dataset.pendingRequests === '0' &&
          step.dataset.tourState === step.dataset.tourTarget
        );
      },
      n,
      { timeout: 60000 },
    )
    .catch(async (error) => {
      // Where it stopped: the step, what it set and what the store holds.
      const step = await page.evaluate(() => ({
        ...document.querySelector('[data-tour-step]')?.dataset,
        pending: document.body.dataset.pendingRequests,
      }));
      throw new Error(`step ${n} not reached: ${JSON.stringify(step)}`, { cause: error });
    });
  await afterFrames(page);
  return page.evaluate(() => {
    const step = document.querySelector('[data-tour-step]');
    const tour = document.getElementById('tour').getBoundingClientRect();
    const target = document.querySelector('.tour-target');
    const box = target.getBoundingClientRect();
    const q = new URLSearchParams(location.search);
    return {
      target: JSON.parse(step.dataset.tourTarget),
      state: JSON.parse(step.dataset.tourState),
      exercise: step.querySelector('.tour-exercise:not([hidden])')?.textContent ?? null,
      text: step.querySelector('.tour-text').textContent,
      chips: [...document.querySelectorAll('#chips .chip-text')].map((c) => c.textContent),
      shown: {
        layer: Number(document.getElementById('layer').value),
        head: Number(document.getElementById('head').value),
        stage: document.querySelector('[data-stage][aria-checked="true"]').dataset.stage,
        causal: document.getElementById('causal').checked,
        scale: document.getElementById('scale').checked,
        text: document.getElementById('text').value,
      },
      url: { cell: q.get('cell'), ablate: q.get('ablate'), hash: location.hash },
      overflow: document.documentElement.scrollWidth - document.documentElement.clientWidth,
      cover: {
        tourBottom: tour.bottom,
        targetTop: box.top,
        atEnd: window.scrollY + window.innerHeight >= document.documentElement.scrollHeight - 2,
      },
      focused: document.activeElement === step,
      live: step.getAttribute('aria-live'),
    };
  });
}

for (const lang of ['zh-CN', 'en']) {
  for (const [size, viewport] of Object.entries(SIZES)) {
    test(`${lang}, ${size}: the whole tour, step by step, with ${NAMES[lang].next}`, { timeout: 600000 }, async () => {
      const { page, errors } = await openPage(site.context);
      await page.setViewportSize(viewport);
      // The learner's own state before the tour: another head and the mask off.
      await page.goto(`${site.url}index.html?lang=${lang}&layer=2&head=1&causal=0`);
      await page.waitForSelector('body[data-ready="true"]', { timeout: 60000 });
      await page.getByRole('button', { name: lang === 'en' ? 'Tour' : '导览', exact: true }).click();
      const next = page.getByRole('button', { name: NAMES[lang].next, exact: true });
      const back = page.getByRole('button', { name: NAMES[lang].back, exact: true });
      for (const [k, step] of STEPS.entries()) {
        const n = k + 1;
        const seen = await settledStep(page, n);
        const where = `step ${n} (${step.chapter})`;
        assert.equal(seen.live, 'polite', where);
        assert.ok(seen.focused, `${where}: focus is on the step`);
        assert.equal(seen.url.hash, step.first ? `#tour/${n}` : `#tour/${n}`, where);
        // The state the step set, as the store holds it and the page shows it.
        for (const [key, value] of Object.entries(seen.target))
          if (value !== null) assert.deepEqual(seen.state[key], value, `${where}: ${key}`);
        for (const key of ['layer', 'head', 'stage', 'causal', 'scale', 'text'])
          assert.deepEqual(seen.shown[key], seen.state[key], `${where}: ${key} shown`);
        assert.equal(
          seen.url.cell,
          seen.state.cell ? `${seen.state.cell.query}:${seen.state.cell.key}` : null,
          `${where}: cell in the URL`,
        );
        assert.equal(seen.url.ablate, seen.state.ablate.length ? seen.state.ablate.map(([l, h]) => `${l}:${h}`).join(',') : null, where);
        // The text names what is on screen: the selected row's token, the cell's two tokens.
        if (step.exercise) assert.ok(seen.exercise.trim().length > 0, `${where}: the exercise is shown`);
        else assert.ok(seen.text.trim().length > 0, `${where}: the step says something`);
        if (seen.state.row !== null)
          assert.ok(
            seen.text.includes(seen.chips[seen.state.row]),
            `${where}: names row ${seen.state.row} ${seen.chips[seen.state.row]}: ${seen.text}`,
          );
        if (seen.state.cell)
          for (const i of [seen.state.cell.query, seen.state.cell.key])
            assert.ok(seen.text.includes(seen.chips[i]), `${where}: names ${seen.chips[i]}`);
        if (step.chapter === 'tokens' && step.say === 'tokens.split')
          for (const chip of seen.chips) assert.ok(seen.text.includes(chip), `${where}: ${chip}`);
        if (step.code) assert.ok(await page.locator('.tour-code code').isVisible(), where);
        assert.ok(seen.overflow <= 0, `${where}: no sideways scrolling (${seen.overflow}px)`);
        assert.ok(
          seen.cover.targetTop >= seen.cover.tourBottom - 8 || seen.cover.atEnd,
          `${where}: the box leaves what it points at in view ${JSON.stringify(seen.cover)}`,
        );
        if (step.first && SHOTS.has(step.chapter)) await page.screenshot({ path: `${ARTIFACTS}tour-${step.chapter}-${lang}-${size}.png` });
        if (k === STEPS.length - 1) assert.ok(await next.isDisabled(), 'the last step has no next');
        else await next.click();
      }
      // Back, then the arrow keys, then the way out.
      await back.click();
      await settledStep(page, STEPS.length - 1);
      await page.keyboard.press('ArrowRight');
      await settledStep(page, STEPS.length);
      await page.getByRole('button', { name: lang === 'en' ? 'Leave the tour' : '退出导览', exact: true }).click();
      await page.waitForFunction(() => document.getElementById('tour').hidden && document.body.dataset.pendingRequests === '0');
      await afterFrames(page);
      const after = await page.evaluate(() => ({
        layer: document.getElementById('layer').value,
        head: document.getElementById('head').value,
        causal: document.getElementById('causal').checked,
        hash: location.hash,
        train: document.getElementById('train').hidden,
      }));
      assert.deepEqual(after, { layer: '2', head: '1', causal: false, hash: '', train: true });
      assert.deepEqual(errors, []);
      await page.close();
    });
  }
}

test('zh-CN: poking the figure during a step: the text follows, and 回到这一步 sets the step again', { timeout: 120000 }, async () => {
  const { page, errors } = await openPage(site.context);
  await page.setViewportSize(SIZES.desktop);
  const n = STEPS.findIndex((step) => step.say === 'scores.softmax') + 1;
  await page.goto(`${site.url}index.html?lang=zh-CN#tour/${n}`);
  const before = await settledStep(page, n);
  // The learner types another sentence: the step's text names its selected row's token, not the step's.
  const typed = '小红把书给了小明，他很高兴';
  await page.fill('#text', typed);
  await page.waitForFunction(
    (text) => {
      const state = JSON.parse(document.querySelector('[data-tour-step]').dataset.tourState);
      return state.text === text && state.row !== null && document.body.dataset.pendingRequests === '0';
    },
    typed,
    { timeout: 30000 },
  );
  await afterFrames(page);
  const poked = await page.evaluate(() => ({
    state: JSON.parse(document.querySelector('[data-tour-step]').dataset.tourState),
    text: document.querySelector('.tour-text').textContent,
    chips: [...document.querySelectorAll('#chips .chip-text')].map((c) => c.textContent),
  }));
  assert.ok(poked.text.includes(poked.chips[poked.state.row]), poked.text);
  assert.notEqual(poked.text, before.text);
  // A switch too: with the mask off the sentence counts no masked key any more.
  await page.click('[data-stage="scores_masked"]');
  await page.waitForFunction(() => document.querySelector('.tour-text').textContent.includes('掩码'));
  // Back to this step: the step's own state again.
  await page.getByRole('button', { name: '回到这一步', exact: true }).click();
  const again = await settledStep(page, n);
  assert.deepEqual(again.state, before.state);
  assert.equal(again.text, before.text);
  assert.deepEqual(errors, []);
  await page.close();
});

test('en: a model loaded from files comes back when the tour, which took the page to lab-a, is left', { timeout: 180000 }, async () => {
  const { page, errors } = await openPage(site.context);
  await page.setViewportSize(SIZES.desktop);
  await page.goto(`${site.url}index.html?lang=en`);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 60000 });
  const demo = new URL('../../models/minimind-demo/', import.meta.url).pathname;
  await page.setInputFiles(
    '#file-input',
    ['config.json', 'model.safetensors', 'tokenizer.json', 'tokenizer_config.json'].map((name) => `${demo}${name}`),
  );
  const loaded = () =>
    page.waitForFunction(
      () =>
        /^Loaded model\.safetensors/.test(document.getElementById('files-status').textContent) &&
        document.body.dataset.pendingRequests === '0',
      null,
      { timeout: 60000 },
    );
  await loaded();
  await page.selectOption('#head', '2'); // the learner's own head
  const own = await page.evaluate(() => ({
    status: document.getElementById('files-status').textContent,
    head: document.getElementById('head').value,
  }));
  await page.getByRole('button', { name: 'Tour', exact: true }).click();
  await settledStep(page, 1);
  // The forward chapter runs on lesson 11's lab preset: the files' model leaves the worker.
  const forward = STEPS.findIndex((step) => step.chapter === 'forward') + 1;
  await page.evaluate((n) => (location.hash = `#tour/${n}`), forward);
  const lab = await settledStep(page, forward);
  assert.equal(lab.state.preset, 'lab-a');
  await page.getByRole('button', { name: 'Leave the tour', exact: true }).click();
  await loaded();
  const back = await page.evaluate(() => ({
    status: document.getElementById('files-status').textContent,
    head: document.getElementById('head').value,
  }));
  assert.deepEqual(back, own);
  assert.deepEqual(errors, []);
  await page.close();
});
