// Walking the guided tour step by step, for tour.test.mjs (zh-CN) and
// tour_en.test.mjs (en): at every step, only that step is shown, with
// data-tour-step N; the store holds the state the step set (the step's
// data-tour-state, and the page's own selectors, switches, text box and URL
// show the same); the step's text names the selected row's token (and the
// cell's tokens) as the chips show them; nothing scrolls sideways; the box
// does not cover what it points at; no page error. Exercise steps are passed
// through, not solved. Then the way out gives the learner's own state back.
import assert from 'node:assert/strict';

import { STEPS } from '../../web/tour/chapters.mjs';
import { ARTIFACTS, afterFrames, openPage } from './browser.mjs';

export const SIZES = { desktop: { width: 1400, height: 1000 }, phone: { width: 390, height: 844 } };
export const NAMES = { 'zh-CN': { next: '下一步', back: '上一步' }, en: { next: 'Next', back: 'Back' } };
const SHOTS = new Set(['tokens', 'forward', 'weight']); // chapters whose first step is photographed

// The step shown once its state is set and every request is answered.
export async function settledStep(page, n) {
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

/** The whole tour in `lang` at `size` (a key of SIZES), with Next, from a learner's own state and back to it. */
export async function walkTour(site, lang, size) {
  const viewport = SIZES[size];
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
    assert.equal(seen.url.hash, `#tour/${n}`, where);
    // The state the step set, as the store holds it and the page shows it.
    for (const [key, value] of Object.entries(seen.target))
      if (value !== null) assert.deepEqual(seen.state[key], value, `${where}: ${key}`);
    for (const key of ['layer', 'head', 'stage', 'causal', 'scale', 'text'])
      assert.deepEqual(seen.shown[key], seen.state[key], `${where}: ${key} shown`);
    assert.equal(seen.url.cell, seen.state.cell ? `${seen.state.cell.query}:${seen.state.cell.key}` : null, `${where}: cell in the URL`);
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
}
