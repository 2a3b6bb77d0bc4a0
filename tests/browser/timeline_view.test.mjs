// The Train panel's timeline card in headless Chromium. The shipped
// timeline (the site's models/minimind-demo/timeline.json) opened with "how
// this model learned", in both languages, on a desktop and a phone: the
// scrubber, moved with the keyboard to the entry where the file's first
// induction head crosses its threshold, tells that moment with the file's
// numbers; play runs to the end and stops, and stops when the learner moves
// the scrubber; the JSON export holds the same entries; the SVG export holds
// the charts; switching to this tab's run and back keeps the entry shown;
// nothing overflows sideways; no page errors. And a short live
// run: at its last entry the scrubber shows the attention the CLI computes
// from the downloaded weights (half floats: within 1e-3).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { after, test } from 'node:test';

import { ROLE_THRESHOLDS } from '../../js/head_roles.mjs';
import { ARTIFACTS, SITE, openPage, useServedBrowser } from './browser.mjs';

const site = useServedBrowser();
const run = promisify(execFile);
const CLI = fileURLToPath(new URL('../../js/cli.mjs', import.meta.url));
const PROBE = '小明把苹果给了小红，她很开心';
let scratch = null;
after(async () => scratch && rm(scratch, { recursive: true, force: true }));

async function openTrain(lang, viewport) {
  const { page, errors } = await openPage(site.context);
  await page.setViewportSize(viewport);
  await page.goto(`${site.url}?lang=${lang}`);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 60000 });
  await page.click('#open-train');
  return { page, errors };
}

const card = '#train [data-timeline-card]';
const cardData = (page) => page.$eval(card, (el) => ({ ...el.dataset }));

// The file's first induction moment, found here without the page's code: the first entry where
// a head's induction score reaches the threshold; the stretch from the last entry before it below
// half the threshold; the top source of its keys there.
function inductionMoment(entries) {
  const threshold = ROLE_THRESHOLDS.induction;
  for (const [index, entry] of entries.entries()) {
    const head = Object.keys(entry.heads).find((name) => entry.heads[name].induction >= threshold);
    if (!head) continue;
    let from = 0;
    for (let k = index - 1; k >= 0; k -= 1)
      if (entries[k].heads[head].induction < threshold / 2) {
        from = k;
        break;
      }
    const shares = entry.composition?.[head];
    const top = shares ? Object.entries(shares).sort((a, b) => b[1] - a[1])[0] : null;
    return { index, head, value: entry.heads[head].induction, from, change: entry.icl - entries[from].icl, top, shares };
  }
  return null;
}

async function scrubTo(page, index) {
  await page.focus(`${card} [data-timeline="scrubber"]`);
  await page.keyboard.press('Home');
  for (let k = 0; k < index; k += 1) await page.keyboard.press('ArrowRight');
  await page.waitForFunction((i) => document.querySelector('#train [data-timeline-card]').dataset.index === String(i), index);
}

async function downloadOf(page, selector) {
  const [download] = await Promise.all([page.waitForEvent('download'), page.click(selector)]);
  return readFile(await download.path(), 'utf8');
}

for (const lang of ['en', 'zh-CN'])
  for (const viewport of [
    { width: 1400, height: 1000 },
    { width: 390, height: 844 },
  ])
    test(`the shipped timeline (${lang}, ${viewport.width}px): its induction moment, play, exports, no overflow`, async () => {
      const file = JSON.parse(await readFile(join(SITE, 'models/minimind-demo/timeline.json'), 'utf8'));
      const entries = file.snapshots;
      const moment = inductionMoment(entries);
      assert.ok(moment, 'the shipped timeline has an induction head forming');
      const { page, errors } = await openTrain(lang, viewport);
      await page.click(`${card} [data-timeline="demo"]`);
      await page.waitForFunction(() => document.querySelector('#train [data-timeline-card]').dataset.source === 'demo');
      await page.waitForFunction(() => document.querySelector('#train [data-timeline-card]').dataset.index !== undefined);
      const source = await page.textContent(`${card} .train-tl-source`);
      assert.ok(source.includes(String(entries.length)), source);

      await scrubTo(page, moment.index);
      const shown = await page.$eval(card, (el) => el.shown);
      assert.equal(shown.source, 'demo');
      assert.equal(shown.step, entries[moment.index].step);
      const now = await page.textContent(`${card} .train-tl-now`);
      assert.ok(now.includes(moment.head), now);
      assert.ok(now.includes(lang === 'en' ? 'induction head' : '归纳头'), now);
      assert.ok(now.includes(`(${moment.value.toFixed(2)})`) || now.includes(`（${moment.value.toFixed(2)}）`), now);
      if (moment.top) {
        assert.ok(now.includes(moment.top[0]), `names the top source ${moment.top[0]}: ${now}`);
        assert.ok(now.includes(`${Math.round(moment.top[1] * 100)}%`), now);
      } else if (moment.shares === null) assert.ok(now.includes(lang === 'en' ? 'too small to split' : '还太小'), now);
      if (moment.index > 0) {
        const size = Math.abs(moment.change).toFixed(2);
        assert.ok(now.includes(size), `the ICL change ${size}: ${now}`);
        const word =
          Math.abs(moment.change) < 0.05 ? ['barely changed', '几乎没变'] : moment.change < 0 ? ['fell', '下降'] : ['rose', '上升'];
        assert.ok(now.includes(word[lang === 'en' ? 0 : 1]), now);
      }
      // The same moment in the list, marked current.
      assert.equal(
        await page.getAttribute(`${card} .train-tl-moments li[aria-current="true"][data-kind="induction"]`, 'data-head'),
        moment.head,
      );
      // The attention drawn is the entry's, every head (the half floats decoded).
      const { T } = entries[moment.index];
      assert.equal(shown.values.length, file.layers * file.heads * T * T);
      const bits = entries[moment.index].attention;
      for (const k of [0, T + 1, (file.layers * file.heads - 1) * T * T + T * T - 1])
        assert.ok(Math.abs(shown.values[k] - halfValue(bits[k])) < 1e-7, `cell ${k}`);
      await page.locator(card).screenshot({ path: join(ARTIFACTS, `timeline-${lang}-${viewport.width}.png`) });

      // Play from the moment: it runs to the last entry and stops there.
      await page.click(`${card} [data-timeline="play"]`);
      assert.equal((await cardData(page)).playing, 'true');
      await page.waitForFunction(
        (n) => {
          const d = document.querySelector('#train [data-timeline-card]').dataset;
          return d.playing === 'false' && d.index === String(n - 1);
        },
        entries.length,
        { timeout: 60000 },
      );
      // Playing again starts at the first entry; moving the scrubber stops it.
      await page.click(`${card} [data-timeline="play"]`);
      await page.waitForFunction(() => Number(document.querySelector('#train [data-timeline-card]').dataset.index) >= 2);
      await page.focus(`${card} [data-timeline="scrubber"]`);
      await page.keyboard.press('End');
      const stopped = await cardData(page);
      assert.equal(stopped.playing, 'false');
      await page.waitForTimeout(400);
      assert.equal((await cardData(page)).index, String(entries.length - 1), 'nothing moves after the learner did');
      const scrubs = await page.evaluate(() => performance.getEntriesByName('minimind:timeline-scrub').length);
      assert.ok(scrubs >= entries.length, `a measure per redraw: ${scrubs}`);

      // Exports: the JSON holds the same entries; the SVG the charts, a line point per entry.
      const exported = JSON.parse(await downloadOf(page, `${card} [data-timeline-export="json"]`));
      assert.equal(exported.format, file.format);
      assert.deepEqual(exported.snapshots, entries);
      const svg = await downloadOf(page, `${card} [data-timeline-export="svg"]`);
      const charts = [...svg.matchAll(/<g class="chart" data-chart="(\w+)">/g)].map((m) => m[1]);
      assert.deepEqual(charts, ['loss', 'icl', 'pronoun', 'induction', 'previousToken', 'composition']);
      const lossGroup = /<g class="chart" data-chart="loss">(.*?)<\/g>/s.exec(svg)[1];
      const lines = [...lossGroup.matchAll(/<polyline [^>]*data-points="([^"]*)"/g)].map((m) => JSON.parse(m[1].replace(/&quot;/g, '"')));
      const heldOut = lines.find((line) => line.length === entries.length && line.every(([, y], k) => y === entries[k].loss));
      assert.ok(heldOut, "the held-out loss: a point per entry, the file's values");
      // x: tokens in one unit for the whole axis.
      const unit = heldOut.at(-1)[0] / entries.at(-1).tokens;
      heldOut.forEach(([x], k) => assert.ok(Math.abs(x - entries[k].tokens * unit) < 1e-9 * (1 + x), `x of entry ${k}`));
      assert.ok(svg.includes(moment.head));
      const [png] = await Promise.all([page.waitForEvent('download'), page.click(`${card} [data-timeline-export="png"]`)]);
      const bytes = await readFile(await png.path());
      assert.deepEqual([...bytes.subarray(1, 4)], [0x50, 0x4e, 0x47], 'a PNG');
      assert.ok(bytes.includes(Buffer.from('minimind:export')), 'with its description');

      // This tab's run (none yet), then the demo's timeline again, where the learner left it.
      await page.click(`${card} [data-timeline="live"]`);
      await page.waitForFunction(() => document.querySelector('#train [data-timeline-card]').dataset.source === 'live');
      assert.equal(await page.isVisible(`${card} .train-tl-empty`), true, 'no run in this tab yet');
      await page.click(`${card} [data-timeline="demo"]`);
      await page.waitForFunction(() => document.querySelector('#train [data-timeline-card]').dataset.source === 'demo');
      assert.equal((await page.$eval(card, (el) => el.shown)).index, entries.length - 1, 'back where the learner left it');

      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      assert.ok(overflow <= 0, `no horizontal overflow: ${overflow}px`);
      assert.deepEqual(errors, []);
      await page.close();
    });

// A half float's value (IEEE binary16), computed here.
function halfValue(bits) {
  const exponent = (bits >> 10) & 0x1f;
  const mantissa = bits & 0x3ff;
  const sign = bits & 0x8000 ? -1 : 1;
  if (exponent === 0) return sign * mantissa * 2 ** -24;
  return sign * (1 + mantissa / 1024) * 2 ** (exponent - 15);
}

test("a short live run: the scrubber's last entry shows the attention the CLI computes from the downloaded weights", async () => {
  const { page, errors } = await openTrain('en', { width: 1400, height: 1000 });
  for (const [name, value] of Object.entries({ batches: 12, batchSize: 8, maxSeqLen: 32, epochs: 1, snapshotEvery: 4 }))
    await page.fill(`#train .train-settings input[name="${name}"]`, String(value));
  await page.click('#train [data-train="start"]');
  await page.waitForFunction(() => document.getElementById('train').dataset.state === 'done', null, { timeout: 240000, polling: 500 });
  const timeline = await page.evaluate(() => document.getElementById('train').timeline.map((e) => ({ step: e.step, T: e.T })));
  assert.ok(timeline.length >= 3, `entries: ${timeline.length}`);
  const last = timeline.at(-1);
  assert.equal(last.step, Number((await page.$eval('#train', (el) => el.dataset.step)) ?? -1), 'the last entry is the final weights');
  await page.waitForFunction((n) => document.querySelector('#train [data-timeline-card]').dataset.index === String(n - 1), timeline.length);
  const shown = await page.$eval(card, (el) => el.shown);
  assert.equal(shown.source, 'live');
  assert.equal(shown.step, last.step);

  await page.selectOption('#train select[name="dtype"]', 'F32');
  const names = ['config.json', 'model.safetensors', 'tokenizer.json'];
  const downloads = [];
  const got = new Promise((resolve) =>
    page.on('download', (download) => {
      downloads.push(download);
      if (downloads.length === names.length) resolve();
    }),
  );
  await page.click('#train [data-train="download"]');
  await got;
  scratch = await mkdtemp(join(tmpdir(), 'minimind-timeline-'));
  const dir = join(scratch, 'trained');
  await mkdir(dir, { recursive: true });
  for (const d of downloads) await d.saveAs(join(dir, d.suggestedFilename()));
  const config = JSON.parse(await readFile(join(dir, 'config.json'), 'utf8'));
  const L = config.num_hidden_layers;
  const H = config.num_attention_heads;
  const { stdout } = await run(process.execPath, [CLI, 'run', '--model', dir, '--text', PROBE, '--json'], { maxBuffer: 64 << 20 });
  const cli = JSON.parse(stdout);
  const T = cli.tokens.length;
  assert.equal(shown.T, T);
  assert.equal(shown.values.length, L * H * T * T);
  let worst = 0;
  for (let l = 0; l < L; l += 1)
    for (let h = 0; h < H; h += 1)
      for (let i = 0; i < T; i += 1)
        for (let j = 0; j < T; j += 1)
          worst = Math.max(worst, Math.abs(cli.attention[l][h][i][j] - shown.values[((l * H + h) * T + i) * T + j]));
  assert.ok(worst < 1e-3, `largest difference from the CLI: ${worst}`);

  // The chosen head alone: the same cells.
  await page.selectOption(`${card} select[name="timeline-head"]`, 'L1H1');
  const one = await page.$eval(card, (el) => el.shown);
  assert.deepEqual([one.layer, one.head, one.values.length], [1, 1, T * T]);
  for (let i = 0; i < T; i += 1)
    for (let j = 0; j < T; j += 1) assert.ok(Math.abs(cli.attention[1][1][i][j] - one.values[i * T + j]) < 1e-3);
  assert.deepEqual(errors, []);
  await page.close();
});

test('an entry that kept no attention (a long timeline past its budget) shows the nearest one that did, and says so', async () => {
  const file = JSON.parse(await readFile(join(SITE, 'models/minimind-demo/timeline.json'), 'utf8'));
  const thinned = { ...file, snapshots: file.snapshots.map((e, k) => (k === 2 ? { ...e, attention: null } : e)) };
  const { page, errors } = await openTrain('en', { width: 1400, height: 1000 });
  await page.route('**/models/minimind-demo/timeline.json', (route) =>
    route.fulfill({ contentType: 'application/json', body: JSON.stringify(thinned) }),
  );
  await page.click(`${card} [data-timeline="demo"]`);
  await page.waitForFunction(() => document.querySelector('#train [data-timeline-card]').dataset.source === 'demo');
  await scrubTo(page, 2);
  const shown = await page.$eval(card, (el) => el.shown);
  const nearest = file.snapshots[1]; // entries 1 and 3 are as near: the earlier one
  assert.equal(shown.step, nearest.step);
  shown.values.slice(0, 5).forEach((v, k) => assert.ok(Math.abs(v - halfValue(nearest.attention[k])) < 1e-7, `cell ${k}`));
  const title = await page.textContent(`${card} .train-tl-attn-title`);
  assert.ok(title.includes(`Batch ${file.snapshots[2].step.toLocaleString('en')} keeps no attention`), title);
  assert.ok(title.includes(`batch ${nearest.step.toLocaleString('en')}`), title);
  assert.deepEqual(errors, []);
  await page.close();
});

test("the induction recipe's run: its first induction head told with the file's numbers, and each timeline keeps its place", async () => {
  const file = JSON.parse(await readFile(join(SITE, 'models/timelines/induction.json'), 'utf8'));
  const entries = file.snapshots;
  const moment = inductionMoment(entries);
  assert.ok(moment, 'the recipe forms an induction head');
  const { page, errors } = await openTrain('zh-CN', { width: 390, height: 844 });
  await page.click(`${card} [data-timeline="induction"]`);
  await page.waitForFunction(() => document.querySelector('#train [data-timeline-card]').dataset.source === 'induction');
  const source = await page.textContent(`${card} .train-tl-source`);
  assert.ok(source.includes(String(entries.length)) && source.includes('看归纳头形成'), source);
  await scrubTo(page, moment.index);
  const now = await page.textContent(`${card} .train-tl-now`);
  assert.ok(now.includes(moment.head) && now.includes('归纳头') && now.includes(moment.value.toFixed(2)), now);
  if (moment.top) assert.ok(now.includes(moment.top[0]), now);
  // The demo's timeline, then back: the recipe's is where the learner left it.
  await page.click(`${card} [data-timeline="demo"]`);
  await page.waitForFunction(() => document.querySelector('#train [data-timeline-card]').dataset.source === 'demo');
  await page.click(`${card} [data-timeline="induction"]`);
  await page.waitForFunction(() => document.querySelector('#train [data-timeline-card]').dataset.source === 'induction');
  assert.equal((await page.$eval(card, (el) => el.shown)).index, moment.index);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  assert.ok(overflow <= 0, `no horizontal overflow: ${overflow}px`);
  assert.deepEqual(errors, []);
  await page.close();
});
