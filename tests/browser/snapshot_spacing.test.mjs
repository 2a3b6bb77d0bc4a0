// The Train panel's snapshot spacing, in headless Chromium: the field shows
// about 100 snapshots a run (the stream's batches ÷ 100, at least 1) and
// follows the batches until the learner edits it; an edit stays; emptied, the
// run takes the default of its own batches (and the field shows none for data
// whose batches are counted only once read); a run snapshots at that spacing.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { openPage, useServedBrowser } from './browser.mjs';

const site = useServedBrowser();

const field = (name) => `#train .train-settings [name="${name}"]`;
const value = (page, name) => page.inputValue(field(name));
// The field's value once the panel has drawn (it draws on the next frame after an input).
async function expectValue(page, name, expected, message) {
  await page
    .waitForFunction(([selector, want]) => document.querySelector(selector)?.value === want, [field(name), expected], { timeout: 5000 })
    .catch(() => {});
  assert.equal(await value(page, name), expected, message);
}
// The default written here: a snapshot every ⌊batches / 100⌋ batches, at least every batch.
const spacing = (batches) => String(Math.max(1, Math.floor(batches / 100)));

test('the snapshot field follows the run length until edited, and a run snapshots at its spacing', async () => {
  const { page, errors } = await openPage(site.context);
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto(`${site.url}?lang=en`);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 60000 });
  await page.click('#open-train');

  const batches = Number(await value(page, 'batches'));
  assert.ok(batches >= 100, `the default run's ${batches} batches`);
  await expectValue(page, 'snapshotEvery', spacing(batches));
  assert.equal(await value(page, 'epochs'), '1');
  await page.fill(field('batches'), '450');
  await expectValue(page, 'snapshotEvery', spacing(450));
  await page.fill(field('epochs'), '2');
  await expectValue(page, 'snapshotEvery', spacing(900), "the run's batches: the stream's times the epochs");

  // Data whose batches are not counted yet: no number to show.
  await page.selectOption(field('source'), 'lessons');
  await expectValue(page, 'snapshotEvery', '');
  await page.selectOption(field('source'), 'stream');
  await expectValue(page, 'snapshotEvery', spacing(900));

  // An edit stays whatever the batches; emptied, the field stays empty and the run takes the default.
  await page.fill(field('snapshotEvery'), '5');
  await page.fill(field('batches'), '2000');
  await expectValue(page, 'snapshotEvery', '5');
  await page.fill(field('snapshotEvery'), '');
  await page.fill(field('batches'), '300');
  await page.fill(field('epochs'), '1');
  await page.fill(field('batchSize'), '4');
  await page.fill(field('maxSeqLen'), '16');
  await expectValue(page, 'snapshotEvery', '');
  await page.click('#train [data-train="start"]');
  await page.waitForFunction(() => Number(document.getElementById('train').dataset.step) >= 10, null, { timeout: 120000 });
  await page.click('#train [data-train="pause"]');
  await page.waitForFunction(() => document.getElementById('train').dataset.state === 'paused', null, { timeout: 120000 });
  const { step, snapshots, timeline } = await page.evaluate(() => {
    const root = document.getElementById('train');
    return { step: Number(root.dataset.step), snapshots: root.snapshots.map((s) => s.step), timeline: root.timeline.map((e) => e.step) };
  });
  const every = Number(spacing(300));
  const expected = Array.from({ length: Math.floor(step / every) + 1 }, (_, k) => k * every);
  assert.deepEqual(snapshots, expected, `snapshots at batch 0 and every ${every} up to batch ${step}`);
  assert.deepEqual(timeline, expected, 'a timeline entry at each');
  assert.deepEqual(errors, []);
  await page.close();
});
