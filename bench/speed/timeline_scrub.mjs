// Scrubbing the Train panel's timeline: how long a redraw takes when the
// learner moves the scrubber over the shipped demo timeline
// (models/minimind-demo/timeline.json, "how this model learned"), in
// headless Chromium at a desktop and a phone size, as the page measures it
// itself (performance measure 'minimind:timeline-scrub': from the scrubber's
// input to the end of its redraw of the attention, the overview, the
// sentences and the cursor). Every entry is visited with the arrow keys,
// forwards then backwards, first with every head's matrix then with one
// head's. The goal: a redraw within two frames at 60 Hz (33.3 ms).
//
//   npm run bench -- --only scrub      (needs the static site: node scripts/build_site.mjs)
import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';

import { serve } from '../../scripts/serve.mjs';
import { launchBrowser } from '../../tests/browser/browser.mjs';
import { runHeader } from '../cpu_model.mjs';

export const SCRUB_BEGIN = '<!-- timeline-scrub:';
export const SCRUB_END = '<!-- /timeline-scrub -->';
const MEASURE = 'minimind:timeline-scrub';
const TWO_FRAMES_MS = 2000 / 60;
const site = fileURLToPath(new URL('../../dist/site/', import.meta.url));
const card = '#train [data-timeline-card]';

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];

/** {header, entries, runs: [{width, heads, scrubs, median, p95, max, within}]} (ms). */
export async function measureTimelineScrub({ log = () => {} } = {}) {
  if (!existsSync(`${site}models/minimind-demo/timeline.json`))
    throw new Error('dist/site/ has no timeline; run "node scripts/build_site.mjs" first');
  const entries = JSON.parse(readFileSync(`${site}models/minimind-demo/timeline.json`, 'utf8')).snapshots.length;
  const started = new Date();
  const load = os.loadavg()[0];
  const server = await serve(site);
  const browser = await launchBrowser();
  const runs = [];
  try {
    for (const width of [1400, 390]) {
      const page = await browser.context.newPage();
      await page.setViewportSize({ width, height: width > 800 ? 1000 : 844 });
      await page.goto(`${server.url}?lang=en`);
      await page.waitForSelector('body[data-ready="true"]', { timeout: 60000 });
      await page.click('#open-train');
      await page.click(`${card} [data-timeline="demo"]`);
      await page.waitForFunction(() => document.querySelector('#train [data-timeline-card]')?.dataset.source === 'demo');
      for (const heads of ['all', 'one']) {
        if (heads === 'one') await page.selectOption(`${card} select[name="timeline-head"]`, { index: 1 });
        await page.focus(`${card} [data-timeline="scrubber"]`);
        await page.keyboard.press('Home');
        await page.evaluate((name) => performance.clearMeasures(name), MEASURE);
        for (const key of ['ArrowRight', 'ArrowLeft'])
          for (let k = 1; k < entries; k += 1) {
            await page.keyboard.press(key);
            await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => resolve())));
          }
        const durations = (await page.evaluate((name) => performance.getEntriesByName(name).map((e) => e.duration), MEASURE)).sort(
          (a, b) => a - b,
        );
        const run = {
          width,
          heads,
          scrubs: durations.length,
          median: quantile(durations, 0.5),
          p95: quantile(durations, 0.95),
          max: durations.at(-1),
          within: durations.filter((d) => d <= TWO_FRAMES_MS).length,
        };
        log(
          `${width}px, ${heads} heads: median ${run.median.toFixed(1)} ms, p95 ${run.p95.toFixed(1)}, max ${run.max.toFixed(1)} over ${run.scrubs}`,
        );
        runs.push(run);
      }
      await page.close();
    }
  } finally {
    await browser.close();
    await server.close();
  }
  return { header: runHeader(started, load), entries, runs };
}

/** The BENCHMARKS.md section of measureTimelineScrub()'s result. */
export function timelineScrubSection({ header, entries, runs }) {
  const f1 = (v) => v.toFixed(1);
  const rows = runs.map(
    (r) =>
      `| ${r.width} px | ${r.heads === 'all' ? 'every head' : 'one head'} | ${r.scrubs} | ${f1(r.median)} ms | ${f1(r.p95)} ms | ${f1(r.max)} ms | ${r.within} of ${r.scrubs} |`,
  );
  const worst = Math.max(...runs.map((r) => r.p95));
  return [
    `${SCRUB_BEGIN} written by node bench/run.mjs --only scrub; do not edit by hand -->`,
    '## Scrubbing the timeline',
    '',
    `A redraw of the Train panel's timeline card as the scrubber moves over the demo model's ${entries} entries`,
    `("how this model learned"), forwards and back with the arrow keys, as the page measures it (\`${MEASURE}\`: the`,
    `attention, the overview, the sentences and the cursor), in headless Chromium on ${header.cpu}, ${header.cores} cores,`,
    `${header.date.slice(0, 10)}, load average ${header.load.map((v) => v.toFixed(1)).join('–')} (\`bench/speed/timeline_scrub.mjs\`).`,
    `Goal: within two frames at 60 Hz, ${f1(TWO_FRAMES_MS)} ms: ${worst <= TWO_FRAMES_MS ? 'met' : 'missed'} at the 95th percentile.`,
    '',
    '| width | matrices | redraws | median | 95th percentile | max | within two frames |',
    '|---|---|---:|---:|---:|---:|---:|',
    ...rows,
    `${SCRUB_END}\n`,
  ].join('\n');
}
