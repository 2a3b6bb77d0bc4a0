// The gallery's two "why this weight" frames (web/gallery.mjs): each opens the
// playground's compact view at #qk on the cell its caption names, shows that
// section alone, and draws the numbers qk_stories.json records for the cell.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

import { ARTIFACTS, openPage, useServedBrowser } from './browser.mjs';

const ROOT = new URL('../../', import.meta.url).pathname;
const stories = JSON.parse(readFileSync(`${ROOT}models/minimind-demo/qk_stories.json`, 'utf8'));
const site = useServedBrowser(ROOT);

/** The framed playground of gallery article `id`, ready and its #qk section drawn. */
async function qkFrame(page, id) {
  await page.evaluate((x) => document.querySelector(`article#${x} iframe`).scrollIntoView(), id);
  await page.waitForFunction((x) => document.querySelector(`article#${x} iframe`).contentDocument?.body?.dataset.ready === 'true', id, {
    timeout: 30000,
  });
  const frame = await (await page.$(`article#${id} iframe`)).contentFrame();
  await frame.waitForFunction(() => document.querySelectorAll('#qk .qk-sentences li').length > 0, null, { timeout: 60000 });
  return frame;
}

for (const lang of ['en', 'zh-CN']) {
  test(`gallery ${lang}: the two "why this weight" frames show the section alone, at the cells qk_stories.json measured`, async () => {
    const { page, errors } = await openPage(site.context);
    await page.setViewportSize({ width: 1100, height: 900 });
    await page.goto(`${site.url}dist/site/gallery.html?lang=${lang}`);

    const she = stories.pronoun.sentences.find((s) => s.text === '小明把苹果给了小红，她很开心');
    const pronoun = await qkFrame(page, 'why-pronoun');
    const url = new URL(pronoun.url());
    assert.equal(url.searchParams.get('embed'), '1');
    assert.equal(url.searchParams.get('cell'), `${she.query}:${she.key}`);
    assert.equal(url.hash, '#qk');
    assert.equal(await pronoun.locator('#heatmap').isVisible(), false);
    assert.equal(await pronoun.locator('#qk').isVisible(), true);
    assert.ok((await pronoun.locator('#qk h3').textContent()).includes(stories.pronoun.name));
    // Block 0's ranking: the tokens and scores the measurement recorded, best first.
    const ranked = await pronoun.$$eval('#qk .qk-ranked .qk-bar-row', (rows) => rows.map((r) => [r.dataset.name, Number(r.dataset.value)]));
    assert.ok(ranked.length >= 5, `${ranked.length} ranked rows`);
    ranked.forEach(([name, value], i) => {
      assert.equal(name, she.top[i].token, `rank ${i + 1}`);
      assert.ok(Math.abs(value - she.top[i].score) < 1e-5, `${name}: ${value} vs ${she.top[i].score}`);
    });
    await page.locator('article#why-pronoun').screenshot({ path: `${ARTIFACTS}qk-gallery-pronoun-${lang}.png` });

    const { figure } = stories;
    const induction = await qkFrame(page, 'why-induction');
    const iurl = new URL(induction.url());
    assert.equal(iurl.searchParams.get('cell'), `${figure.query}:${figure.key}`);
    assert.equal(iurl.searchParams.get('text'), figure.text);
    assert.equal(await induction.locator('#heatmap').isVisible(), false);
    const title = await induction.locator('#qk h3').textContent();
    assert.ok(title.includes(figure.queryToken) && title.includes(figure.keyToken), title);
    // The contrast's table is drawn (a block above 0 has more than the embedding).
    assert.ok((await induction.$$eval('#qk .qk-pairs .qk-bar-row', (rows) => rows.length)) > 1);
    await page.locator('article#why-induction').screenshot({ path: `${ARTIFACTS}qk-gallery-induction-${lang}.png` });
    assert.deepEqual(errors, []);
    await page.close();
  });
}
