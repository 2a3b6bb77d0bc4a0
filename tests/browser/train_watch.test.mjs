// The Train panel's payoff in headless Chromium, with runs small enough for
// a test: Train opens the panel on its settings and a Start button (nothing
// starts by itself); the model writes at every snapshot and the timeline
// shows batch -> text, the very texts of the snapshots; before and after
// side by side; the loss with its chance line and perplexity; settings
// editable whenever the run is not running, and "Start with these
// settings" starts anew. Training the trained demo model on, its heads have
// formed at the first snapshot: the panel names them, the attention view
// follows the best head of the chosen role (or a pinned one), and "Use this
// model" names it "your model (batch N)" with the roles it measured. Both
// languages, desktop and phone; screenshots go to test-artifacts/.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';

import { bestHead } from '../../js/head_formation_events.mjs';
import { ROLE_THRESHOLDS } from '../../js/head_roles.mjs';
import { PRONOUN_PROMPT, copyTarget } from '../../js/snapshot_generation.mjs';
import { ARTIFACTS, openPage, useServedBrowser } from './browser.mjs';

const site = useServedBrowser();
const PROBE = '小明把苹果给了小红，她很开心';

async function openPlayground(query, viewport) {
  const { page, errors } = await openPage(site.context);
  await page.setViewportSize(viewport);
  await page.goto(`${site.url}${query}`);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 60000 });
  return { page, errors };
}

const dataset = (page) => page.evaluate(() => ({ ...document.getElementById('train').dataset }));
const waitForState = (page, state) =>
  page.waitForFunction((s) => document.getElementById('train').dataset.state === s, state, { timeout: 120000 });

// Settings of a small run; values by input name.
async function fillSettings(page, values) {
  for (const [name, value] of Object.entries(values)) await page.fill(`#train .train-settings input[name="${name}"]`, String(value));
}

test('Train opens the settings and a Start button; the model writes at every snapshot; before and after; the chance line', async () => {
  const { page, errors } = await openPlayground('?lang=en', { width: 1280, height: 800 });
  await page.click('#open-train');
  assert.equal(await page.isVisible('#train'), true);
  assert.equal(await page.isVisible('#train .train-settings[open] input[name="batchSize"]'), true, 'the settings are open');
  assert.equal(await page.textContent('#train [data-train="start"]'), 'Start training');
  assert.equal(await page.isEnabled('#train [data-train="start"]'), true);
  await page.waitForTimeout(1500);
  assert.deepEqual([(await dataset(page)).state, (await dataset(page)).step], ['idle', '0'], 'opening the panel starts nothing');
  await page.screenshot({ path: join(ARTIFACTS, 'train-open-en.png') });

  await fillSettings(page, { batches: 20, batchSize: 8, maxSeqLen: 32, epochs: 3, snapshotEvery: 5 });
  await page.click('#train [data-train="start"]');
  await page.waitForFunction(() => Number(document.getElementById('train').dataset.step) >= 1, null, { timeout: 120000 });
  assert.equal(await page.isEnabled('#train input[name="batchSize"]'), false, 'the settings wait while the run runs');
  await page.waitForFunction(() => document.getElementById('train').snapshots.length >= 4, null, { timeout: 120000 });
  await page.click('#train [data-train="pause"]');
  await waitForState(page, 'paused');
  const snapshots = await page.evaluate(() =>
    document.getElementById('train').snapshots.map((s) => ({ step: s.step, generated: s.generated, top: s.top, tokens: s.tokens })),
  );

  // The timeline: a row per snapshot (its step), a column per prompt, the snapshots' own texts.
  const span = snapshots[0].generated[2].prompt;
  assert.deepEqual(
    snapshots[0].generated.map((g) => g.prompt),
    [PROBE, PRONOUN_PROMPT, span],
  );
  assert.ok(copyTarget(span), `the third prompt repeats a span: ${span}`);
  assert.equal(await page.inputValue('#train input[name="prompt-2"]'), span, "the run's span fills the empty prompt");
  const timeline = await page.evaluate(() => ({
    head: [...document.querySelectorAll('#train .train-timeline thead th')].map((th) => th.textContent),
    rows: [...document.querySelectorAll('#train .train-timeline tbody tr')].map((tr) => ({
      step: Number(tr.dataset.step),
      cells: [...tr.querySelectorAll('td .train-gen-written')].map((span) => span.textContent),
    })),
  }));
  assert.deepEqual(timeline.head, ['Batch', PROBE, PRONOUN_PROMPT, span]);
  assert.deepEqual(
    timeline.rows.map((r) => r.step),
    snapshots.map((s) => s.step),
  );
  assert.equal(timeline.rows[0].step, 0);
  for (const [k, row] of timeline.rows.entries())
    assert.deepEqual(
      row.cells,
      snapshots[k].generated.map((g) => g.text),
    );
  assert.ok(new Set(timeline.rows.map((r) => r.cells.join('|'))).size > 1, 'what the model writes changes as it trains');
  const copyNote = await page.textContent('#train .train-gen .caption');
  assert.match(copyNote, new RegExp(`asks for “${copyTarget(span)}” next: at batch ${snapshots.at(-1).step} the model copied \\d of its`));

  // A row's batch shows that snapshot everywhere.
  await page.click('#train .train-timeline tbody tr[data-step="0"] button');
  await page.waitForFunction(() => document.getElementById('train').dataset.snapshotStep === '0');
  assert.equal(await page.getAttribute('#train .train-timeline tr[data-step="0"]', 'aria-current'), 'true');

  // Before and after: batch 0 and the newest by default; the pronoun's candidates and the texts of each.
  const sides = () =>
    page.evaluate(() =>
      [...document.querySelectorAll('#train .train-compare-side')].map((side) => ({
        step: Number(side.dataset.step),
        predict: [...side.querySelectorAll('.train-compare-predict li')].map((li) => Number(li.dataset.id)),
        writes: [...side.querySelectorAll('.train-compare-text')].map((s) => s.textContent),
      })),
    );
  const row = snapshots[0].tokens.lastIndexOf('她');
  let [before, after] = await sides();
  assert.equal(before.step, 0);
  assert.equal(after.step, snapshots.at(-1).step);
  assert.deepEqual(
    before.predict,
    snapshots[0].top[row].map((c) => c.id),
  );
  assert.deepEqual(
    after.predict,
    snapshots.at(-1).top[row].map((c) => c.id),
  );
  assert.deepEqual(
    after.writes,
    snapshots.at(-1).generated.map((g) => g.text),
  );
  await page.fill('#train input[data-slider="before"]', '1');
  await page.waitForFunction(
    (step) => document.querySelector('#train .train-compare-side[data-side="before"]').dataset.step === String(step),
    snapshots[1].step,
  );
  [before] = await sides();
  assert.deepEqual(
    before.writes,
    snapshots[1].generated.map((g) => g.text),
  );

  // The loss: the chance line and perplexity, from the numbers on screen.
  const meaning = await page.textContent('#train .train-loss-meaning');
  assert.match(meaning, /ln 6400 = 8\.76/);
  const stats = await page.textContent('#train .train-stats');
  const smoothed = Number(/\(smoothed (\d+\.\d+)\)/.exec(stats)[1]);
  const perplexity = Number(/Perplexity([\d,.]+)/.exec(stats)[1].replaceAll(',', ''));
  assert.ok(Math.abs(perplexity - Math.exp(smoothed)) <= 0.05 + 1e-4 * perplexity, `perplexity ${perplexity} = e^${smoothed}`);
  assert.ok(meaning.includes(`smoothed loss ${smoothed.toFixed(3)}`), meaning);

  // New prompts, while paused: a snapshot at the same batch writes them.
  const step = (await dataset(page)).step;
  await page.fill('#train input[name="prompt-1"]', '今天天气');
  await page.click('#train .train-prompts button');
  await page.waitForFunction(() => document.getElementById('train').snapshots.at(-1).generated[1].prompt === '今天天气');
  assert.equal(String(await page.evaluate(() => document.getElementById('train').snapshots.at(-1).step)), step);
  await page.waitForFunction(() => document.querySelectorAll('#train .train-timeline thead th')[2].textContent === '今天天气');
  // The rows written before say what they continued.
  const shownPrompts = await page.$$eval('#train .train-timeline tbody tr', (trs) =>
    trs.map((tr) => tr.querySelectorAll('td')[1].querySelector('.train-gen-prompt')?.textContent ?? null),
  );
  assert.deepEqual(shownPrompts, [...Array(shownPrompts.length - 1).fill(PRONOUN_PROMPT), null]);
  await page.screenshot({ path: join(ARTIFACTS, 'train-writes-en.png'), fullPage: true });

  // Paused: the settings are editable and "Start with these settings" starts anew.
  assert.equal(await page.isEnabled('#train input[name="batchSize"]'), true, 'editable while paused');
  assert.equal(await page.textContent('#train [data-train="start"]'), 'Start with these settings');
  const total = await page.evaluate(() => document.getElementById('train').trainer.totalBatches);
  const sequences = Number(/→ ([\d,]+) sequences/.exec(stats)[1].replaceAll(',', ''));
  assert.equal(sequences, 20 * 8, 'the stream gives batches × batchSize sequences');
  assert.equal(total, 3 * 20);
  await page.click('#train .train-settings > summary'); // folded while the run ran: open them again
  await fillSettings(page, { batchSize: 16, epochs: 1 });
  await page.click('#train [data-train="start"]');
  await page.waitForFunction((n) => document.getElementById('train').trainer?.totalBatches === n, 20); // the batches asked, of 16 now
  await waitForState(page, 'done');
  assert.equal(
    (await page.evaluate(() => document.getElementById('train').losses)).length,
    20,
    "the new run's losses only, from its first batch",
  );
  assert.equal(await page.isEnabled('#train input[name="batchSize"]'), true, 'editable when done');
  assert.equal(await page.textContent('#train [data-train="start"]'), 'Start with these settings');

  // The same views in Chinese.
  await page.selectOption('#lang', 'zh-CN');
  await page.waitForFunction(() => document.getElementById('open-train').textContent === '训练');
  const zh = await page.innerText('#train');
  for (const text of ['模型写出了什么', '训练前后', '批次', '用这些设置重新开始', '困惑度', '瞎猜'])
    assert.ok(zh.includes(text) || (await page.textContent('#train')).includes(text), `zh-CN: ${text}`);
  assert.doesNotMatch(zh, /(^|[^_a-z])train\.[a-z]+[.A-Z]/, 'no message key shows');
  assert.deepEqual(errors, []);
  await page.close();
});

test('heads that formed are named; the attention follows the best head; the model used is "your model (batch N)"', async () => {
  const { page, errors } = await openPlayground('?lang=zh-CN', { width: 390, height: 844 });
  await page.click('#open-train');
  // The trained demo model, trained on at a tiny rate: its heads have formed before the first batch.
  await page.check('#train input[name="train-model"][value="loaded"]');
  await fillSettings(page, { batches: 25, batchSize: 4, maxSeqLen: 32, learningRate: '0.000001', epochs: 1, snapshotEvery: 2 });
  await page.click('#train [data-train="start"]');
  await page.waitForFunction(() => document.getElementById('train').snapshots.length >= 3, null, { timeout: 120000 });
  await page.click('#train [data-train="pause"]');
  await waitForState(page, 'paused');
  const { formed, snapshots } = await page.evaluate(() => ({
    formed: document.getElementById('train').formed,
    snapshots: document.getElementById('train').snapshots.map((s) => ({ step: s.step, scores: s.scores })),
  }));
  // Every head whose score is at its role's threshold at the first snapshot, and none that is not.
  const want = [];
  for (const kind of ['pronoun', 'induction', 'previousToken'])
    snapshots[0].scores[kind].forEach((row, layer) =>
      row.forEach((value, head) => value >= ROLE_THRESHOLDS[kind] && want.push([kind, layer, head, 0, value])),
    );
  assert.ok(
    want.some(([kind]) => kind === 'pronoun'),
    'the demo model has a pronoun head',
  );
  assert.deepEqual(
    formed.filter((e) => e.step === 0).map((e) => [e.kind, e.layer, e.head, e.step, e.value]),
    want,
  );
  const lines = await page.$$eval('#train .train-formed-list li', (items) => items.map((li) => li.textContent));
  assert.equal(lines.length, formed.length);
  const first = formed[0];
  assert.equal(lines[0], `第 0 批：L${first.layer}H${first.head} 成为代词头（${first.value.toFixed(2)}）`);

  // The attention view follows the best pronoun head of the newest snapshot.
  const best = bestHead(snapshots.at(-1).scores, 'pronoun');
  assert.equal(await page.inputValue('#train select[name="follow"]'), 'pronoun');
  assert.deepEqual(
    [await page.inputValue('#train select[name="layer"]'), await page.inputValue('#train select[name="head"]')],
    [String(best.layer), String(best.head)],
  );
  assert.match(await page.textContent('#train .train-follow-note'), new RegExp(`L${best.layer}H${best.head}（${best.value.toFixed(2)}）`));
  const note = await page.textContent('#train figure:has(canvas[data-score="pronoun"]) .train-score-note');
  assert.equal(note, `目前最好：L${best.layer}H${best.head}，${best.value.toFixed(2)} · 第 0 批形成`);
  // Another role: its best head; a head button pins a head.
  await page.selectOption('#train select[name="follow"]', 'previousToken');
  const prev = bestHead(snapshots.at(-1).scores, 'previousToken');
  await page.waitForFunction(
    ({ layer, head }) =>
      document.querySelector('#train select[name="layer"]').value === String(layer) &&
      document.querySelector('#train select[name="head"]').value === String(head),
    prev,
  );
  await page.click('#train .train-head-key button[data-layer="0"][data-head="1"]');
  await page.waitForFunction(() => document.querySelector('#train select[name="follow"]').value === 'pin');
  assert.equal(await page.inputValue('#train select[name="head"]'), '1');
  assert.match(await page.getAttribute('#train .train-attn-title', 'class'), /train-attn-title/);
  assert.ok((await page.textContent('#train .train-attn-title')).startsWith('第 0 层第 1 个头'));
  await page.screenshot({ path: join(ARTIFACTS, 'train-formed-zh-phone.png'), fullPage: true });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  assert.ok(overflow <= 1, `the page is ${overflow}px wider than the phone`);

  // English: the same events in English.
  await page.selectOption('#lang', 'en');
  await page.waitForFunction(() => document.getElementById('open-train').textContent === 'Train');
  assert.equal(
    await page.textContent('#train .train-formed-list li'),
    `batch 0: L${first.layer}H${first.head} became a pronoun head (${first.value.toFixed(2)})`,
  );

  // Use this model: the selector names it by its batch, the status says where its weights came from,
  // and the roles measured at its last snapshot label the overview's heads.
  const step = Number((await dataset(page)).step);
  await page.click('#train [data-train="use"]');
  await page.waitForFunction(() => document.getElementById('preset').value === 'trained-here', null, { timeout: 60000 });
  assert.equal(await page.$eval('#preset', (s) => s.selectedOptions[0].textContent), `your model (batch ${step})`);
  assert.match(await page.textContent('#model-status'), new RegExp(`weights trained in this page to batch ${step}$`));
  await page.waitForFunction(() => document.querySelectorAll('.thumb .thumb-role').length > 0);
  const labels = await page.$$eval('.thumb .thumb-role', (tags) => tags.length);
  assert.equal(labels, snapshots.at(-1).scores.pronoun.flat().length, 'every head of the overview has its measured role');
  await page.selectOption('#lang', 'zh-CN');
  await page.waitForFunction(
    (n) => document.getElementById('preset').selectedOptions[0].textContent === `你训练的模型（第 ${n} 批）`,
    step,
  );
  assert.match(await page.textContent('#model-status'), new RegExp(`在本页训练到第 ${step} 批的权重$`));
  await page.screenshot({ path: join(ARTIFACTS, 'train-used-zh-phone.png') });
  // Another model chosen: the entry goes.
  await page.selectOption('#preset', 'lab-a');
  await page.waitForFunction(() => !document.querySelector('#preset option[value="trained-here"]'), null, { timeout: 60000 });
  assert.deepEqual(errors, []);
  await page.close();
});
