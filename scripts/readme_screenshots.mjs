#!/usr/bin/env node
// Retakes the README's screenshot from the built site (node scripts/build_site.mjs)
// in headless Chromium, as a first-time reader sees the page: docs/playground.png,
// desktop 1280×800, Chinese, the page's first view. Prints the figure's title and
// note, so the README's alt text can say what it shows. Run it after a change to
// what the page draws.
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
} finally {
  await browser.close();
  await server.close();
}
