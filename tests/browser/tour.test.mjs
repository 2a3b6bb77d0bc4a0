// The guided tour in Chinese, walked from its first step to its last on a
// desktop (1400×1000) and a phone (390×844) with 下一步 (tour_walk.mjs says
// what every step is checked for; tour_en.test.mjs walks it in English);
// and a step poked: the learner types and switches, the text follows, and
// 回到这一步 sets the step again. Screenshots go to test-artifacts/.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { STEPS } from '../../web/tour/chapters.mjs';
import { afterFrames, openPage, useServedBrowser } from './browser.mjs';
import { NAMES, SIZES, settledStep, walkTour } from './tour_walk.mjs';

const site = useServedBrowser();

for (const size of Object.keys(SIZES)) {
  test(`zh-CN, ${size}: the whole tour, step by step, with ${NAMES['zh-CN'].next}`, { timeout: 600000 }, () =>
    walkTour(site, 'zh-CN', size),
  );
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
