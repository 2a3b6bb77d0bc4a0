#!/usr/bin/env node
// Retakes the README's screenshots from the built site (node scripts/build_site.mjs)
// in headless Chromium at 1280×800, in Chinese: docs/playground.png, the page's first
// view (printing the figure's title and note, so the README's alt text can say what it
// shows), and docs/train_panel.png, the Train panel after the default run's first 300
// batches (about a minute). Run it after a change to what the page draws.
import { fileURLToPath } from 'node:url';

import { serve } from './serve.mjs';
import { launchBrowser, openPage } from '../tests/browser/browser.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const server = await serve(`${root}dist/site`, { port: 0 });
const browser = await launchBrowser();
try {
  for (const [name, size] of [['playground', { width: 1280, height: 800 }]]) {
    const { page, errors } = await openPage(browser.context);
    await page.setViewportSize(size);
    await page.goto(`${server.url}index.html?lang=zh-CN`);
    await page.waitForSelector('body[data-ready="true"]', { timeout: 120000 });
    await page.waitForFunction(() => document.querySelectorAll('#matrix-table tbody tr').length > 0);
    if (errors.length) throw new Error(`the page reported errors: ${errors.join('; ')}`);
    await page.screenshot({ path: `${root}docs/${name}.png` });
    const shown = await page.evaluate(() => ({
      title: document.getElementById('view-title')?.textContent,
      note: document.getElementById('head-note')?.textContent,
    }));
    console.log(`docs/${name}.png: ${shown.title}\n  ${shown.note}`);
    await page.close();
  }

  // The Train panel: 训练 opens it, its Start starts the default run; wait for 300 batches and a snapshot.
  const { page, errors } = await openPage(browser.context);
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto(`${server.url}index.html?lang=zh-CN`);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 120000 });
  await page.click('#open-train');
  await page.click('#train [data-train="start"]');
  await page.waitForFunction(() => Number(document.getElementById('train').dataset.snapshotStep) >= 300, null, { timeout: 600000 });
  await page.click('#train [data-train="pause"]');
  await page.waitForFunction(() => document.getElementById('train').dataset.state === 'paused');
  if (errors.length) throw new Error(`the page reported errors: ${errors.join('; ')}`);
  await page.locator('#train').screenshot({ path: `${root}docs/train_panel.png` });
  console.log(`docs/train_panel.png: batch ${await page.getAttribute('#train', 'data-step')}`);
} finally {
  await browser.close();
  await server.close();
}
