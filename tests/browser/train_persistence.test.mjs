// Nothing lost, in headless Chromium: the Train panel saves its run in the
// browser (IndexedDB) when it pauses; reloading during the run asks first
// (beforeunload); after the reload the panel opens on the saved run,
// waiting at its saved batch with its losses, and Resume goes on from there; a second tab sees the run training in
// the first (Web Locks) and cannot resume it there; a saved run downloads as
// MiniMind's *_resume.pth (read back by the module); deleting removes it.
// A run paused, saved, reloaded and resumed ends with the weights and the
// timeline (js/timeline.mjs entries, attention included) of the same run
// trained without a break, bit for bit; and that timeline is the one the
// training host (web/train_host.mjs) records in Node for the request the page
// sent its worker.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, test } from 'node:test';

import { loadMiniMind } from '../../js/minimind.mjs';
import { serve } from '../../scripts/serve.mjs';
import { createTrainHost } from '../../web/train_host.mjs';
import { launchBrowser, openPage } from './browser.mjs';

const SITE = new URL('../../dist/site/', import.meta.url).pathname;

let server;
let browser;

before(async () => {
  server = await serve(SITE);
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.close();
});

// beforeLoad(page): what to set up before the page loads (a quota, say); base: the server's URL.
async function openPlayground({ base = server.url, beforeLoad = async () => {} } = {}) {
  const { page, errors } = await openPage(browser.context);
  await beforeLoad(page);
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto(`${base}?lang=en`);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 60000 });
  return { page, errors };
}

const dataset = (page) => page.evaluate(() => ({ ...document.getElementById('train').dataset }));
const waitFor = (page, fn, arg, timeout = 120000) => page.waitForFunction(fn, arg, { timeout });
const stepAtLeast = (n) => Number(document.getElementById('train').dataset.step) >= n;
const savedItems = (page) =>
  page.$$eval('#train [data-run-id]', (items) =>
    items.map((li) => ({
      id: li.dataset.runId,
      step: Number(li.dataset.step),
      live: li.dataset.live ?? null,
      resumeDisabled: li.querySelector('[data-train="resume-saved"]').disabled,
      deleteDisabled: li.querySelector('[data-train="delete-saved"]').disabled,
    })),
  );

test('a run saved on pause survives a reload (which asks first), resumes at its batch, is live in one tab only, downloads and deletes', async () => {
  const { page, errors } = await openPlayground();
  await page.click('#open-train');
  await page.click('#train [data-train="start"]');
  await waitFor(page, stepAtLeast, 30);

  // Pause: the run is saved, and listed as this tab's.
  await page.click('#train [data-train="pause"]');
  await waitFor(page, () => document.getElementById('train').dataset.state === 'paused');
  const pausedAt = Number((await dataset(page)).step);
  await waitFor(page, () => /Saved at batch/.test(document.querySelector('#train [data-train="save-message"]').textContent));
  let items = await savedItems(page);
  assert.equal(items.length, 1);
  assert.equal(items[0].step, pausedAt, 'saved at the batch it paused');
  assert.equal(items[0].live, 'here');
  const { id } = items[0];
  assert.match(await page.textContent('#train [data-train="storage"]'), /saved runs take .* MB/);

  // Training again, a reload asks first.
  await page.click('#train [data-train="pause"]');
  await waitFor(page, stepAtLeast, pausedAt + 5);
  const dialogs = [];
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.type());
    dialog.accept();
  });
  await page.reload();
  await page.waitForSelector('body[data-ready="true"]', { timeout: 60000 });
  assert.deepEqual(dialogs, ['beforeunload'], 'leaving a running run asks');

  // After the reload: the panel opens on the run (saved at the pause, or later as the page was
  // hidden), waiting at its saved batch; this tab holds it now.
  await page.click('#open-train');
  await page.waitForSelector('#train[data-state="paused"] [data-run-id][data-live="here"]', { timeout: 20000 });
  items = await savedItems(page);
  assert.equal(items.length, 1);
  assert.equal(items[0].id, id);
  const savedStep = items[0].step;
  assert.ok(savedStep >= pausedAt, `saved at ${savedStep}, paused at ${pausedAt}`);
  assert.equal(Number((await dataset(page)).step), savedStep);
  assert.equal(items[0].resumeDisabled, true, 'the run bar resumes it');

  // Resume: the step goes on from the saved one, with the losses before it.
  await page.click('#train [data-train="pause"]');
  await waitFor(
    page,
    (n) => document.getElementById('train').dataset.state === 'running' && Number(document.getElementById('train').dataset.step) >= n + 3,
    savedStep,
  );
  const resumed = await page.evaluate(() => {
    const root = document.getElementById('train');
    return { step: Number(root.dataset.step), losses: root.losses.length, snapshots: root.snapshots.map((s) => s.step) };
  });
  assert.ok(resumed.step > savedStep);
  assert.ok(resumed.losses >= resumed.step - 1 && resumed.losses <= resumed.step + 1, `${resumed.losses} losses at batch ${resumed.step}`);
  assert.equal(resumed.snapshots[0], 0, 'the snapshots before the save are back');

  // A second tab sees the run training in the first and cannot resume it.
  const second = await openPlayground();
  await second.page.click('#open-train');
  await second.page.waitForSelector(`#train [data-run-id="${id}"][data-live="elsewhere"]`, { timeout: 20000 });
  const there = (await savedItems(second.page)).find((item) => item.id === id);
  assert.equal(there.resumeDisabled, true);
  assert.equal(there.deleteDisabled, true);

  // Back in the first tab: pause (saved again), download as MiniMind's resume checkpoint.
  await page.click('#train [data-train="pause"]');
  await waitFor(page, () => document.getElementById('train').dataset.state === 'paused');
  const finalStep = Number((await dataset(page)).step);
  await waitFor(page, (n) => Number(document.querySelector('#train [data-run-id]').dataset.step) === n, finalStep);
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.click(`#train [data-run-id="${id}"] [data-train="download-pth"]`),
  ]);
  assert.equal(download.suggestedFilename(), 'pretrain_64_resume.pth');
  const bytes = await readFile(await download.path());
  const mm = await loadMiniMind();
  const checkpoint = mm.trainingState(bytes, { name: download.suggestedFilename() });
  const batchesPerEpoch = await page.evaluate(() => document.getElementById('train').trainer.totalBatches);
  assert.equal(checkpoint.epoch * batchesPerEpoch + checkpoint.step, finalStep);
  assert.equal(checkpoint.optimizer.state.length, checkpoint.optimizer.groups[0].params.length);

  // Reset frees the run; the second tab then deletes it.
  await page.click('#train [data-train="reset"]');
  await second.page.click('#train .train-close');
  await second.page.click('#open-train'); // opening the panel reads the list again
  await second.page.waitForSelector(`#train [data-run-id="${id}"]:not([data-live])`, { timeout: 20000 });
  await second.page.click(`#train [data-run-id="${id}"] [data-train="delete-saved"]`);
  await second.page.waitForSelector('#train [data-train="no-saved-runs"]:not([hidden])', { timeout: 20000 });
  assert.equal((await savedItems(second.page)).length, 0);

  assert.deepEqual(errors, []);
  assert.deepEqual(second.errors, []);
  await second.page.close();
  await page.close();
});

// The panel's timeline as JSON text, attention as arrays of half-float bits: equal texts are equal entries, bit for bit.
const timelineText = (page) =>
  page.evaluate(() =>
    JSON.stringify(
      document.getElementById('train').timeline.map((e) => ({ ...e, attention: e.attention ? Array.from(e.attention) : null })),
    ),
  );

// Keeps every prepare message the page posts to a worker (window.prepares), before the page loads.
const recordPrepares = (page) =>
  page.addInitScript(() => {
    window.prepares = [];
    const post = Worker.prototype.postMessage;
    Worker.prototype.postMessage = function (message, ...rest) {
      if (message?.type === 'prepare') window.prepares.push(structuredClone(message));
      return post.call(this, message, ...rest);
    };
  });

// The timeline the training host records in Node for a prepare message (started), as timelineText gives it.
async function hostTimeline(prepare) {
  let finished;
  const done = new Promise((resolve) => (finished = resolve));
  const entries = [];
  const host = createTrainHost({
    post: (message) => {
      if (message.type === 'snapshot' && message.snapshot.entry) entries.push(message.snapshot.entry);
      if (message.type === 'state' && message.state === 'done') finished();
      if (message.type === 'error') finished(message);
    },
    loadRuntime: () => loadMiniMind(),
    fetchText: (path) => readFile(new URL(`../../${path}`, import.meta.url), 'utf8'),
  });
  await host.handle({ ...prepare, start: true });
  const error = await done;
  assert.equal(error, undefined, error?.message);
  return JSON.stringify(entries.map((e) => ({ ...e, attention: e.attention ? Array.from(e.attention) : null })));
}

// The model.safetensors (F32) the run bar downloads once the run is done at `batches`.
async function weightsWhenDone(page, batches) {
  await waitFor(
    page,
    (n) => document.getElementById('train').dataset.state === 'done' && Number(document.getElementById('train').dataset.step) === n,
    batches,
  );
  await page.selectOption('#train select[name="dtype"]', 'F32');
  const downloads = [];
  const got = new Promise((resolve) => {
    page.on('download', (download) => {
      downloads.push(download);
      if (downloads.length === 3) resolve(); // config.json, model.safetensors, tokenizer.json
    });
  });
  await page.click('#train [data-train="download"]');
  await got;
  const weights = downloads.find((d) => d.suggestedFilename() === 'model.safetensors');
  assert.ok(weights, downloads.map((d) => d.suggestedFilename()).join(', '));
  return readFile(await weights.path());
}

test('a run resumed after a reload ends with the weights and the timeline of the same run never interrupted, bit for bit', async () => {
  const BATCHES = 60;
  const EVERY = 4; // a save between two snapshots: the entry after it averages batches from before the reload
  // Each run on an origin of its own: no saved run of the other (nor of the test above) in its list.
  const servers = [await serve(SITE), await serve(SITE)];
  const pages = [];
  try {
    // The run without a break.
    const straight = await openPlayground({ base: servers[0].url, beforeLoad: recordPrepares });
    pages.push(straight);
    await straight.page.click('#open-train');
    await straight.page.fill('#train input[name="batches"]', String(BATCHES));
    await straight.page.fill('#train input[name="snapshotEvery"]', String(EVERY));
    await straight.page.click('#train [data-train="start"]');
    const expected = await weightsWhenDone(straight.page, BATCHES);
    const expectedTimeline = await timelineText(straight.page);
    const steps = JSON.parse(expectedTimeline).map((e) => e.step);
    assert.deepEqual(
      steps,
      Array.from({ length: BATCHES / EVERY + 1 }, (_, k) => k * EVERY),
      'an entry at batch 0 and every 4 batches',
    );

    // The same run paused and saved on the way, the page reloaded, the run resumed from IndexedDB.
    const broken = await openPlayground({ base: servers[1].url });
    pages.push(broken);
    const { page } = broken;
    await page.click('#open-train');
    await page.fill('#train input[name="batches"]', String(BATCHES));
    await page.fill('#train input[name="snapshotEvery"]', String(EVERY));
    await page.click('#train [data-train="start"]');
    await waitFor(page, stepAtLeast, 10);
    await page.click('#train [data-train="pause"]');
    await waitFor(page, () => document.getElementById('train').dataset.state === 'paused');
    const pausedAt = Number((await dataset(page)).step);
    await waitFor(page, (n) => document.querySelector(`#train [data-run-id][data-step="${n}"][data-live="here"]`), pausedAt);
    assert.ok(pausedAt < BATCHES, `paused at ${pausedAt} of ${BATCHES}`);
    await page.reload();
    await page.waitForSelector('body[data-ready="true"]', { timeout: 60000 });
    await page.click('#open-train');
    await waitFor(
      page,
      (n) => document.getElementById('train').dataset.state === 'paused' && Number(document.getElementById('train').dataset.step) === n,
      pausedAt,
    );
    await page.click('#train [data-train="pause"]'); // Resume
    const resumed = await weightsWhenDone(page, BATCHES);

    assert.equal(resumed.length, expected.length);
    assert.ok(
      resumed.equals(expected),
      `the resumed run (saved at batch ${pausedAt}) ends with other weights than the run without a break`,
    );
    assert.equal(await timelineText(page), expectedTimeline, `the resumed run (saved at batch ${pausedAt}) has another timeline`);

    // The same request, in Node's training host: the same entries, bit for bit.
    const [prepare] = await straight.page.evaluate(() => window.prepares);
    assert.equal(prepare.snapshotEvery, EVERY);
    assert.equal(await hostTimeline(prepare), expectedTimeline, "the page's worker and Node's host record other timelines");
    for (const { errors } of pages) assert.deepEqual(errors, []);
  } finally {
    for (const { page } of pages) await page.close();
    for (const server of servers) await server.close();
  }
});

test('a full quota or a browser that refuses storage gets a message, and the run goes on', async () => {
  const saveMessage = (page) => page.textContent('#train [data-train="save-message"]');

  // A quota far below one save (Chromium's own override, as a full disk would leave it), set
  // before the page loads, on an origin of its own: nothing the test above saved and deleted
  // (nor Chromium's cached view of that origin's free space) reaches this one.
  const quotaServer = await serve(SITE);
  const origin = new URL(quotaServer.url).origin;
  let cdp;
  let opened;
  try {
    opened = await openPlayground({
      base: quotaServer.url,
      beforeLoad: async (fresh) => {
        cdp = await fresh.context().newCDPSession(fresh);
        await cdp.send('Storage.overrideQuotaForOrigin', { origin, quotaSize: 200 * 1024 });
      },
    });
    const { page } = opened;
    await page.click('#open-train');
    await page.click('#train [data-train="start"]');
    await waitFor(page, stepAtLeast, 5);
    await page.click('#train [data-train="pause"]');
    // Whatever the save's outcome, it is said; the test then says which it was.
    await waitFor(page, () => document.querySelector('#train [data-train="save-message"]').textContent !== '');
    assert.match(await saveMessage(page), /storage is full/);
    assert.equal((await dataset(page)).state, 'paused');
    assert.equal((await savedItems(page)).length, 0, 'nothing was saved');
    const step = Number((await dataset(page)).step);
    await page.click('#train [data-train="pause"]');
    await waitFor(page, stepAtLeast, step + 5);
    assert.equal((await dataset(page)).state, 'running', 'the run goes on');
    await page.click('#train [data-train="pause"]');
    await page.click('#train [data-train="reset"]');
  } finally {
    await cdp?.send('Storage.overrideQuotaForOrigin', { origin });
    await opened?.page.close();
    await quotaServer.close();
  }
  assert.deepEqual(opened.errors, []);

  // IndexedDB refused (a private window, a sandboxed frame): said at once; the run trains and pauses as ever.
  const blocked = await openPage(browser.context);
  await blocked.page.addInitScript(() => {
    Object.defineProperty(window, 'indexedDB', {
      get() {
        throw new DOMException('storage is blocked here', 'SecurityError');
      },
    });
  });
  await blocked.page.goto(`${server.url}?lang=zh-CN`);
  await blocked.page.waitForSelector('body[data-ready="true"]', { timeout: 60000 });
  await blocked.page.click('#open-train');
  await waitFor(blocked.page, () => /无痕窗口/.test(document.querySelector('#train [data-train="save-message"]').textContent));
  await blocked.page.click('#train [data-train="start"]');
  await waitFor(blocked.page, stepAtLeast, 5);
  await blocked.page.click('#train [data-train="pause"]');
  await waitFor(blocked.page, () => document.getElementById('train').dataset.state === 'paused');
  assert.match(await saveMessage(blocked.page), /无痕窗口/);
  assert.deepEqual(blocked.errors, []);
  await blocked.page.close();
});
