// After a reload, the Train panel opens on the run the tab trained, as saved in the browser, in
// headless Chromium (zh-CN on a phone, 390×844; en on a desktop, 1400×1000):
// its losses, loss chart and figures are back, waiting at the saved batch
// with Resume first; a finished saved run, which cannot resume, puts its
// model to use from its own row; a model put to use (from a row or the run
// bar) is loaded and named in the playground, whose matrix is then in view.
// Runs are tiny (8 batches, then a few dozen); each case has an origin of its
// own, so it starts with no saved runs.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { serve } from '../../scripts/serve.mjs';
import { translate } from '../../web/i18n.mjs';
import { ARTIFACTS, SITE, launchBrowser, openPage } from './browser.mjs';

const CASES = [
  { lang: 'zh-CN', name: 'phone', width: 390, height: 844 },
  { lang: 'en', name: 'desktop', width: 1400, height: 1000 },
];
const FINISHED = 8; // batches of the run that ends
const LONGER = 400; // batches of the run paused on the way

let browser;
before(async () => {
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
});

const waitFor = (page, fn, arg, timeout = 120000) => page.waitForFunction(fn, arg, { timeout });
const panel = (page) =>
  page.evaluate(() => {
    const root = document.getElementById('train');
    return { state: root.dataset.state, step: Number(root.dataset.step), losses: root.losses };
  });
const rows = (page) =>
  page.$$eval('#train [data-run-id]', (items) =>
    items.map((li) => ({
      step: Number(li.dataset.step),
      live: li.dataset.live ?? null,
      resume: !li.querySelector('[data-train="resume-saved"]').disabled,
      use: !li.querySelector('[data-train="use-saved"]').disabled,
    })),
  );
// The playground's matrix within the window (at least half of it).
const matrixInView = (page) =>
  page.evaluate(() => {
    const r = document.getElementById('heatmap').getBoundingClientRect();
    const seen = Math.min(r.bottom, innerHeight) - Math.max(r.top, 0);
    return r.height > 0 && seen >= Math.min(r.height, innerHeight) / 2;
  });

// Waits until the playground computes with the model trained to `step`, named so in the selector and the status.
async function usedInPlayground(page, lang, step) {
  await waitFor(
    page,
    (name) => document.getElementById('preset').selectedOptions[0]?.textContent === name,
    translate(lang, 'model.yourModel', { step }),
    60000,
  );
  // The status's end: what follows the last figure of model.readyTrainedHere (the batch, in words).
  const status = translate(lang, 'model.readyTrainedHere', { step });
  const tail = status.slice(status.lastIndexOf('}') + 1);
  await waitFor(page, (end) => document.getElementById('model-status').textContent.endsWith(end), tail, 60000);
  assert.ok(await matrixInView(page), 'the matrix is in view');
}

for (const { lang, name, width, height } of CASES) {
  test(`${lang} ${name}: a reload opens the saved run where it waits, Resume first; a finished run is used from its row`, async () => {
    const server = await serve(SITE); // an origin of its own: no saved runs yet
    const { page, errors } = await openPage(browser.context);
    try {
      await page.setViewportSize({ width, height });
      await page.goto(`${server.url}?lang=${lang}`);
      await page.waitForSelector('body[data-ready="true"]', { timeout: 60000 });

      // A run that finishes, then one paused on the way: both saved.
      await page.click('#open-train');
      await page.fill('#train input[name="batches"]', String(FINISHED));
      await page.click('#train [data-train="start"]');
      await waitFor(
        page,
        (n) =>
          document.getElementById('train').dataset.state === 'done' && document.querySelector(`#train [data-run-id][data-step="${n}"]`),
        FINISHED,
      );
      await page.click('#train .train-settings > summary'); // the settings fold away while a run trains
      await page.fill('#train input[name="batches"]', String(LONGER));
      await page.click('#train [data-train="start"]');
      await waitFor(page, () => Number(document.getElementById('train').dataset.step) >= 20);
      await page.click('#train [data-train="pause"]');
      await waitFor(page, () => document.getElementById('train').dataset.state === 'paused');
      const paused = await panel(page);
      await waitFor(page, (n) => document.querySelector(`#train [data-run-id][data-step="${n}"][data-live="here"]`), paused.step);

      // The reload: the panel opens on the newest saved run, paused at its batch, Resume first.
      await page.reload();
      await page.waitForSelector('body[data-ready="true"]', { timeout: 60000 });
      await page.click('#open-train');
      await waitFor(
        page,
        (n) => document.getElementById('train').dataset.state === 'paused' && Number(document.getElementById('train').dataset.step) === n,
        paused.step,
      );
      const opened = await panel(page);
      assert.deepEqual(opened.losses, paused.losses, 'every loss is back');
      const first = await page.$eval('#train .train-bar .buttons > button', (b) => ({
        train: b.dataset.train,
        text: b.textContent,
        primary: b.classList.contains('primary'),
        disabled: b.disabled,
      }));
      assert.deepEqual(first, { train: 'pause', text: translate(lang, 'train.resume'), primary: true, disabled: false });
      const status = await page.textContent('#train .train-status');
      assert.equal(
        status,
        `${translate(lang, 'train.paused', { step: paused.step, total: LONGER })} ${translate(lang, 'train.saved.opened')}`,
      );
      const n = paused.losses.length;
      const chart = await page.getAttribute('#train canvas[data-chart="loss"]', 'aria-label');
      assert.equal(
        chart,
        translate(lang, 'train.lossLabel', { n, loss: paused.losses[n - 1].toFixed(4), first: paused.losses[0].toFixed(4) }),
      );
      const figures = await page.$$eval('#train .train-stats > div', (items) => items.map((d) => d.textContent));
      assert.ok(figures.length >= 8, 'the run’s figures are drawn');
      // One epoch of LONGER batches: the last batch's place in it.
      const place = translate(lang, 'train.epochOf', { epoch: 1, epochs: 1, batch: paused.step, per: LONGER });
      assert.ok(figures.includes(`${translate(lang, 'train.stat.epoch')}${place}`), figures.join(' | '));
      assert.deepEqual(await rows(page), [
        { step: paused.step, live: 'here', resume: false, use: true },
        { step: FINISHED, live: null, resume: false, use: true }, // finished: no resume, but a use of its own
      ]);
      await page.screenshot({ path: `${ARTIFACTS}train-reopened-${name}-${lang}.png` });

      // The finished run's own "use": its model in the playground, the matrix in view.
      await page.click(`#train [data-run-id][data-step="${FINISHED}"] [data-train="use-saved"]`);
      await usedInPlayground(page, lang, FINISHED);
      assert.equal((await panel(page)).state, 'paused', 'the opened run still waits');
      await page.screenshot({ path: `${ARTIFACTS}train-used-saved-${name}-${lang}.png` });

      // Resume goes on from the saved batch; the run bar's "use" then does the same.
      await page.click('#train [data-train="pause"]');
      await waitFor(page, (m) => Number(document.getElementById('train').dataset.step) >= m + 5, paused.step);
      await page.click('#train [data-train="pause"]');
      await waitFor(page, () => document.getElementById('train').dataset.state === 'paused');
      const step = (await panel(page)).step;
      await page.$eval('#train', (root) => root.scrollIntoView());
      await page.click('#train [data-train="use"]');
      await usedInPlayground(page, lang, step);
      assert.deepEqual(errors, []);
    } finally {
      await page.close();
      await server.close();
    }
  });
}
