// The overview's role tags follow the switches, in headless Chromium on the
// trained model: its roles (heads.json) were measured with the causal mask on
// and ÷ √d, so with both on every measured head's tag shows its role and score
// (read from heads.json here), and with a switch off every tag says which
// switch is off instead of the score, its title says the role holds only with
// both on (as the note does), and switching back restores the scores.
// Screenshots of the overview with the mask off (1400×1000 and 390×844, zh and
// en) go to test-artifacts/.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { test } from 'node:test';

import { ARTIFACTS, openPage, useServedBrowser } from './browser.mjs';

const ROOT = new URL('../../', import.meta.url).pathname;
const site = useServedBrowser(ROOT);
const heads = JSON.parse(await readFile(new URL('models/minimind-demo/heads.json', `file://${ROOT}`), 'utf8'));

async function openPlayground(query, { width = 1400, height = 1000 } = {}) {
  const { page, errors } = await openPage(site.context);
  await page.setViewportSize({ width, height });
  await page.goto(`${site.url}dist/site/index.html${query}`);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 30000 });
  return { page, errors };
}

// Every thumbnail with a tag: {layer, head, role, score, off (the switches-off mark), title}.
async function tags(page) {
  return page.evaluate(() =>
    [...document.querySelectorAll('#overview .thumb')]
      .filter((b) => b.querySelector('.thumb-role'))
      .map((b) => ({
        layer: Number(b.dataset.layer),
        head: Number(b.dataset.head),
        role: b.querySelector('.thumb-role').textContent,
        score: b.querySelector('.thumb-score').textContent,
        off: b.querySelector('.thumb-role').classList.contains('switches-off'),
        title: b.title,
      })),
  );
}

const scored = (list) => list.length > 0 && list.every((tag) => !tag.off && /\d\.\d\d$/.test(tag.score));

for (const [lang, maskOff, scaleOff, noteStart, holds] of [
  ['en', 'mask off', 'no ÷ √d', 'Causal mask off', 'holds only with both switches on'],
  ['zh-CN', '未加掩码', '未除以 √d', '因果掩码已关掉', '只在两个开关都打开时成立'],
]) {
  test(`${lang}: role tags show heads.json's scores with both switches on, and say which switch is off otherwise`, async () => {
    const { page, errors } = await openPlayground(`?lang=${lang}`);
    await page.waitForFunction(() => document.querySelectorAll('#overview .thumb-role').length > 0);
    const on = await tags(page);
    assert.equal(on.length, heads.heads.length, 'one tag per measured head');
    assert.ok(scored(on), JSON.stringify(on.slice(0, 2)));
    for (const tag of on) {
      const entry = heads.heads.find((h) => h.layer === tag.layer && h.head === tag.head);
      assert.ok(entry, `L${tag.layer}H${tag.head} is in heads.json`);
      const values = Object.values(entry).filter((v) => typeof v === 'number' && v !== tag.layer && v !== tag.head);
      assert.ok(
        values.some((v) => tag.score.endsWith(v.toFixed(2))),
        `${tag.score} is one of L${tag.layer}H${tag.head}'s scores`,
      );
      assert.doesNotMatch(tag.title, new RegExp(holds));
    }

    await page.click('#causal');
    await page.waitForFunction(() => document.querySelector('#overview .thumb-role.switches-off'));
    const masked = await tags(page);
    assert.equal(masked.length, heads.heads.length);
    for (const tag of masked) {
      assert.ok(tag.off, `L${tag.layer}H${tag.head} is marked`);
      assert.equal(tag.score, maskOff, 'the switch that is off, not a score as if measured on these weights');
      assert.ok(tag.title.startsWith(noteStart) && tag.title.includes(holds), tag.title);
    }
    assert.deepEqual(
      masked.map((tag) => tag.role),
      on.map((tag) => tag.role),
      'the measured role is still named',
    );
    for (const [width, height] of [
      [1400, 1000],
      [390, 844],
    ]) {
      await page.setViewportSize({ width, height });
      await page.locator('#overview').screenshot({ path: `${ARTIFACTS}/role_tags_mask_off_${lang}_${width}.png` });
    }
    await page.setViewportSize({ width: 1400, height: 1000 });

    await page.click('#scale');
    await page.waitForFunction((mark) => document.querySelector('#overview .thumb-score')?.textContent.includes(mark), scaleOff);
    for (const tag of await tags(page)) assert.equal(tag.score, `${maskOff} · ${scaleOff}`);

    await page.click('#causal');
    await page.click('#scale');
    await page.waitForFunction(() => !document.querySelector('#overview .thumb-role.switches-off'));
    const back = await tags(page);
    assert.ok(scored(back));
    assert.deepEqual(back, on, 'the same tags as before');
    assert.deepEqual(errors, []);
    await page.close();
  });
}
