#!/usr/bin/env node
// Keystroke to painted matrix in the playground, in headless Chromium at
// 1400×1000, as the page measures it itself (performance measure
// 'minimind:keystroke-to-redraw': from the input event's time stamp to the
// end of the frame that painted the matrix for that text or a newer one).
// Types the same words as the browser tests, several fresh pages per preset,
// and prints the median per page and over all keystrokes; also to the start
// of that frame ('minimind:keystroke-to-frame', its requestAnimationFrame
// callback, before the frame's layout, paint and commit). The numbers depend
// on the machine and its load: the load average is printed with them.
//
// Usage: node bench/speed/page_latency.mjs [--presets lab-a,minimind2-small] [--runs N]
// Needs the static site (node scripts/build_site.mjs).
import { existsSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';

import { serve } from '../../scripts/serve.mjs';
import { launchBrowser } from '../../tests/browser/browser.mjs';

const site = fileURLToPath(new URL('../../dist/site/', import.meta.url));
const LESSON = '小明 把 苹果 给了 小红 ， 她 很 开心';
const WORDS = ['今天', '天气', '很', '好', '吗', '我们', '去', '公园', '吧'];
const MEASURE = 'minimind:keystroke-to-redraw';
const TO_FRAME = 'minimind:keystroke-to-frame';

function option(name, fallback) {
  const k = process.argv.indexOf(`--${name}`);
  return k >= 0 ? process.argv[k + 1] : fallback;
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const load = () => os.loadavg()[0].toFixed(1);

/**
 * Per preset: {preset, keystrokes, median, toFrame (medians, ms), firstMatrix (median ms from
 * navigation to the first painted matrix)}. Logs each page when `log` is given.
 */
export async function measurePageLatency({ presets = ['lab-a'], runs = 5, log = () => {} } = {}) {
  if (!existsSync(`${site}index.html`)) throw new Error('dist/site/ is missing; run "node scripts/build_site.mjs" first');
  const server = await serve(site);
  const browser = await launchBrowser();
  const results = [];
  try {
    for (const preset of presets) {
      const all = [];
      const toFrame = [];
      const firstMatrix = [];
      for (let run = 0; run < runs; run += 1) {
        const page = await browser.context.newPage();
        await page.setViewportSize({ width: 1400, height: 1000 });
        await page.goto(`${server.url}?preset=${preset}&text=${encodeURIComponent(LESSON)}`);
        await page.waitForSelector('body[data-ready="true"]', { timeout: 60000 });
        await page.waitForFunction(() => performance.getEntriesByName('minimind:first-matrix').length > 0, null, { timeout: 60000 });
        firstMatrix.push(await page.evaluate(() => performance.getEntriesByName('minimind:first-matrix')[0].startTime));
        let keystrokes = 0;
        for (const word of WORDS) {
          keystrokes += 1 + [...word].length;
          await page.type('#text', ` ${word}`, { delay: 20 });
          await page.waitForFunction(([name, n]) => performance.getEntriesByName(name).length >= n, [MEASURE, keystrokes], {
            timeout: 60000,
          });
        }
        const durations = await page.evaluate((name) => performance.getEntriesByName(name).map((e) => e.duration), MEASURE);
        all.push(...durations);
        toFrame.push(...(await page.evaluate((name) => performance.getEntriesByName(name).map((e) => e.duration), TO_FRAME)));
        log(`${preset} page ${run + 1}: median ${median(durations).toFixed(1)} ms over ${durations.length} keystrokes`);
        await page.close();
      }
      results.push({ preset, keystrokes: all.length, median: median(all), toFrame: median(toFrame), firstMatrix: median(firstMatrix) });
    }
  } finally {
    await browser.close();
    await server.close();
  }
  return results;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const presets = option('presets', 'lab-a').split(',');
  const runs = Number(option('runs', '5'));
  console.log(`load average ${load()} at the start; ${os.cpus().length} cores`);
  for (const r of await measurePageLatency({ presets, runs, log: console.log })) {
    console.log(`${r.preset}: keystroke to painted matrix, median ${r.median.toFixed(1)} ms over ${r.keystrokes} keystrokes`);
    console.log(`${r.preset}: keystroke to the start of that frame, median ${r.toFrame.toFixed(1)} ms`);
    console.log(`${r.preset}: page load to first matrix, median ${r.firstMatrix.toFixed(0)} ms`);
  }
  console.log(`load average ${load()} at the end`);
}
