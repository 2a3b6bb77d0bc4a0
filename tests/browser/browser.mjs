// Headless Chromium for the browser tests: Debian's /usr/bin/chromium driven
// by playwright-core (no browser download), a fresh profile per launch, and
// the flags that keep it off the network.
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before } from 'node:test';

import { chromium } from 'playwright-core';

import { serve } from '../../scripts/serve.mjs';
// Chromium has relaxed SIMD, so the page runs the relaxed build; the tests'
// own loadMiniMind() in Node must run it too to expect the page's numbers.
import '../node/variants.mjs';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** args: more Chromium flags, after the ones below. */
export async function launchBrowser({ args = [] } = {}) {
  const profile = await mkdtemp(join(tmpdir(), 'minimind-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      ...args,
    ],
  });
  return {
    context,
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

// A page that records console errors and uncaught exceptions.
export async function openPage(context, url) {
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (error) => errors.push(String(error)));
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  if (url) await page.goto(url);
  return { page, errors };
}

/**
 * Waits until the page has rendered two frames: size observers (scroll cues,
 * canvas fitting) deliver their callbacks in the rendering step, after the
 * event that changed the layout, so a reading taken at once can see the state
 * before them.
 */
export function afterFrames(page) {
  return page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
}

/** The built site (npm test builds it first) and where tests put screenshots. */
export const SITE = new URL('../../dist/site/', import.meta.url).pathname;
export const ARTIFACTS = new URL('../../test-artifacts/', import.meta.url).pathname;

/**
 * For a test file: before its tests, serves `root` (the built site) on
 * loopback and launches Chromium; after them, closes both. Returns {url,
 * context}: the server's base URL and the browser context to open pages in.
 */
export function useServedBrowser(root = SITE) {
  const live = {};
  before(async () => {
    await mkdir(ARTIFACTS, { recursive: true });
    live.server = await serve(root);
    live.browser = await launchBrowser();
  });
  after(async () => {
    await live.browser?.close();
    await live.server?.close();
  });
  return {
    get url() {
      return live.server.url;
    },
    get context() {
      return live.browser.context;
    },
  };
}
