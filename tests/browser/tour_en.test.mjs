// The guided tour in English, walked from its first step to its last on a
// desktop (1400×1000) and a phone (390×844) with Next (tour_walk.mjs says
// what every step is checked for; tour.test.mjs walks it in Chinese); and a
// model loaded from files, read again when the tour is left after it took the
// page to another model. Screenshots go to test-artifacts/.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { STEPS } from '../../web/tour/chapters.mjs';
import { openPage, useServedBrowser } from './browser.mjs';
import { NAMES, SIZES, settledStep, walkTour } from './tour_walk.mjs';

const site = useServedBrowser();

for (const size of Object.keys(SIZES)) {
  test(`en, ${size}: the whole tour, step by step, with ${NAMES['en'].next}`, { timeout: 600000 }, () => walkTour(site, 'en', size));
}

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
