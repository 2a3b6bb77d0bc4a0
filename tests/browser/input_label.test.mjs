// What the text box says it takes, and the notice on text outside the
// trained model's world, in headless Chromium, zh-CN and en, on a desktop
// (1400×1000) and a phone (390×844): the box is labelled by what it takes
// (text for the trained model's tokenizer, words split on spaces for a
// preset with hashed ids, ids in the ids mode, in either language after a
// switch); the notice quotes the first five parts outside the world and
// counts the ones it leaves out. Expected parts are computed here from
// js/world.mjs, never typed.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { outsideWorld } from '../../js/world.mjs';
import { translate } from '../../web/i18n.mjs';
import { ARTIFACTS, openPage, useServedBrowser } from './browser.mjs';

const site = useServedBrowser();
// Eight runs outside the world (Latin words, a digit run, an emoji): five quoted, three counted.
const OUTSIDE = 'Alice met Bob at 9 near the 🙂 小明';
const SIZES = [
  { name: 'desktop', width: 1400, height: 1000 },
  { name: 'phone', width: 390, height: 844 },
];

const label = (page) => page.textContent('#input-label');

async function waitLabel(page, lang, key) {
  const want = translate(lang, key);
  await page.waitForFunction((text) => document.getElementById('input-label').textContent === text, want, { timeout: 30000 });
  assert.equal(await label(page), want);
}

// The notice as the page should write it for OUTSIDE in `lang`.
function expectedNotice(lang) {
  const all = outsideWorld(OUTSIDE, { max: Infinity });
  const parts = all
    .slice(0, 5)
    .map((p) => `“${p}”`)
    .join(translate(lang, 'note.listSeparator'));
  return translate(lang, 'world.outsideMore', { parts, more: all.length - 5 });
}

for (const size of SIZES) {
  test(`${size.name}: the box is labelled by what it takes, and the world notice counts what it leaves out (zh-CN, then en)`, async () => {
    assert.equal(outsideWorld(OUTSIDE, { max: Infinity }).length, 8, 'the sentence has eight parts outside the world');
    const { page, errors } = await openPage(site.context);
    await page.setViewportSize({ width: size.width, height: size.height });
    await page.goto(`${site.url}?lang=zh-CN`);
    await page.waitForSelector('body[data-ready="true"]', { timeout: 60000 });

    for (const lang of ['zh-CN', 'en']) {
      if (lang === 'en') await page.selectOption('#lang', 'en');
      // The trained model with its tokenizer takes text.
      await waitLabel(page, lang, 'input.labelText');
      await page.fill('#text', OUTSIDE);
      const want = expectedNotice(lang);
      await page.waitForFunction((text) => document.getElementById('world-notice').textContent === text, want, { timeout: 30000 });
      assert.equal(await page.isHidden('#world-notice'), false);
      if (size.name === 'phone') {
        await page.$eval('#world-notice', (notice) => notice.scrollIntoView({ block: 'center' }));
        await page.screenshot({ path: `${ARTIFACTS}world-notice-phone-${lang}.png` });
      }
      // Five parts or fewer: all quoted, no count.
      await page.fill('#text', 'Alice met 小明');
      const few = translate(lang, 'world.outside', { parts: ['“Alice”', '“met”'].join(translate(lang, 'note.listSeparator')) });
      await page.waitForFunction((text) => document.getElementById('world-notice').textContent === text, few, { timeout: 30000 });
      // The ids mode takes token ids.
      await page.selectOption('#input-mode', 'ids');
      await waitLabel(page, lang, 'input.labelIds');
      await page.selectOption('#input-mode', 'text');
      await waitLabel(page, lang, 'input.labelText');
    }

    // A preset with random weights and no tokenizer splits words on spaces: its box takes tokens.
    await page.selectOption('#preset', 'lab-a');
    await waitLabel(page, 'en', 'input.label');
    await page.selectOption('#lang', 'zh-CN');
    await waitLabel(page, 'zh-CN', 'input.label');
    assert.equal(await page.isHidden('#world-notice'), true, 'no world notice for random weights');
    if (size.name === 'desktop') await page.screenshot({ path: `${ARTIFACTS}input-label-preset-zh.png` });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(overflow <= 1, `the page is ${overflow}px wider than the window`);
    assert.deepEqual(errors, []);
    await page.close();
  });
}
