// "Ask the model why" (web/panels/why_panel.mjs) in headless Chromium on the
// trained model, in zh and en, desktop and phone: the logit lens shows L + 1
// rows and its last row's top 1 is the page's own next-token prediction; the
// patching heatmap has L × H cells and its sentence names the head that
// restores the most, as the JS API computes it in Node for the default pair;
// a corrupt text of another length gets the message; the attribution bars add
// up to the total shown; with the causal mask off the views say so; no page
// error. Screenshots of the section go to test-artifacts/.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { nextToken } from '../../js/pronoun_pair.mjs';
import { attributionSentences, largest, lensSentence, normalisePatch, pronounStory, storyPair } from '../../js/why_text.mjs';
import { encodeText } from '../../js/text_encoding.mjs';
import { errorText } from '../../web/error_text.mjs';
import { DEFAULTS } from '../../web/url_state.mjs';
import { translate } from '../../web/i18n.mjs';
import { ARTIFACTS, openPage, useServedBrowser } from './browser.mjs';
import { trainedModel } from './demo.mjs';

const ROOT = new URL('../../', import.meta.url).pathname;
const site = useServedBrowser(ROOT);
const DESKTOP = { width: 1400, height: 1000 };
const PHONE = { width: 390, height: 844 };

// The page's default pair, derived from its default text at the pronoun's row (the referent swapped
// for a free name), patched by the JS API in Node: {L, H, best: {row, col, value}, pair}.
async function expectedPatch() {
  const { model, tokenizer } = await trainedModel();
  const pair = storyPair(pronounStory(DEFAULTS.text), tokenizer);
  const result = model.patch({
    clean: encodeText(tokenizer, pair.clean),
    corrupt: encodeText(tokenizer, pair.corrupt),
    answer: nextToken(tokenizer, pair.clean, pair.answer),
    wrong: nextToken(tokenizer, pair.clean, pair.wrong),
  });
  const info = model.info();
  return { L: info.num_hidden_layers, H: info.num_attention_heads, best: largest(normalisePatch(result).heads), result, pair };
}

// The page's default text (the lesson's sentence) at its pronoun, by the JS API in Node: the
// lens sentence's parameters for the habit's first token, and what the pronoun head writes.
async function expectedStory() {
  const { model, tokenizer, heads } = await trainedModel();
  const ids = encodeText(tokenizer, DEFAULTS.text);
  const story = pronounStory(DEFAULTS.text);
  const row = tokenizer
    .display(ids)
    .map((t) => t.text)
    .lastIndexOf(story.pronoun);
  const answer = nextToken(tokenizer, story.prefix, story.answer);
  const wrong = nextToken(tokenizer, story.prefix, story.wrong);
  const lens = model.lens(ids, { top: 5, token: answer });
  const attribution = model.attribute(ids, { position: row, answer, wrong });
  return {
    lens: lensSentence(lens, row, answer, '').params,
    named: attributionSentences(attribution, heads.pronounHead).find((line) => line.key === 'why.attr.named'),
  };
}

async function openPlayground(query, size) {
  const { page, errors } = await openPage(site.context);
  await page.setViewportSize(size);
  await page.goto(`${site.url}dist/site/index.html${query}`);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 30000 });
  return { page, errors };
}

// The section once the lens, attribution and patching answered what is on screen.
async function whyShown(page) {
  await page.waitForFunction(
    () => {
      const why = document.getElementById('why');
      return (
        !why.hidden &&
        why.dataset.pending === 'false' &&
        why.querySelector('.why-patch').dataset.pending === 'false' &&
        why.querySelectorAll('.why-patch-heads .value-cell').length > 0 &&
        document.querySelectorAll('#prediction li').length > 0 &&
        document.getElementById('prediction-box').dataset.pending === 'false'
      );
    },
    null,
    { timeout: 60000 },
  );
  return page.evaluate(() => {
    const why = document.getElementById('why');
    const cells = (selector) => [...why.querySelectorAll(`${selector} .value-cell`)];
    const lensCells = cells('.why-lens-top');
    const layers = why.querySelectorAll('.why-lens-top .row-label').length;
    const lastTop = lensCells.find((c) => c.dataset.row === String(layers - 1) && c.dataset.col === '0');
    const bars = [...why.querySelectorAll('.attribution-row')].map((row) => ({
      kind: row.dataset.kind,
      value: Number(row.dataset.value),
      text: row.querySelector('.attribution-value').textContent,
    }));
    return {
      layers,
      rowLabels: [...why.querySelectorAll('.why-lens-top .row-label')].map((label) => label.textContent),
      lastTopId: Number(lastTop.dataset.id),
      predictionTop: Number(/\(#(\d+)\)/.exec(document.querySelector('#prediction li').textContent)[1]),
      heads: cells('.why-patch-heads').map((c) => ({
        row: Number(c.dataset.row),
        col: Number(c.dataset.col),
        value: Number(c.dataset.value),
      })),
      headSentence: why.querySelector('.why-patch-sentences li[data-key="why.patch.head"]')?.textContent ?? null,
      bars,
      switches: why.querySelector('.why-switches').hidden ? null : why.querySelector('.why-switches').textContent,
      story: [...why.querySelectorAll('.why-story li')].map((li) => [li.dataset.key, li.textContent]),
      overflow: document.documentElement.scrollWidth - window.innerWidth,
    };
  });
}

function checkShown(shown, expected, lang) {
  assert.equal(shown.layers, expected.L + 1, 'the lens has the embeddings and one row per layer');
  // Blocks from 0, as the heads (L0H3): embed, then after L0 .. after L{L-1}.
  assert.deepEqual(shown.rowLabels, [
    translate(lang, 'why.emb'),
    ...Array.from({ length: expected.L }, (_, b) => translate(lang, 'why.after', { layer: `L${b}` })),
  ]);
  assert.equal(shown.lastTopId, shown.predictionTop, 'the lens’s last row is the model’s own prediction');
  assert.equal(shown.heads.length, expected.L * expected.H);
  const best = largest(Array.from({ length: expected.L }, (_, l) => shown.heads.filter((c) => c.row === l).map((c) => c.value)));
  assert.deepEqual([best.row, best.col], [expected.best.row, expected.best.col], 'the page’s largest cell is the API’s');
  assert.ok(Math.abs(best.value - expected.best.value) < 1e-4, `${best.value} vs ${expected.best.value}`);
  const head = `L${expected.best.row}H${expected.best.col}`;
  assert.equal(shown.headSentence, translate(lang, 'why.patch.head', { head, percent: String(Math.round(expected.best.value * 100)) }));
  const parts = shown.bars.filter((b) => b.kind !== 'total');
  const total = shown.bars.find((b) => b.kind === 'total');
  assert.equal(parts.length, 1 + expected.L * (expected.H + 1), 'the embeddings, every head and every FFN');
  const sum = parts.reduce((s, b) => s + b.value, 0);
  assert.ok(Math.abs(sum - total.value) <= 1e-3 * Math.max(1, Math.abs(total.value)), `bars add to ${sum}, total ${total.value}`);
  assert.ok(Math.abs(parts.reduce((s, b) => s + Number(b.text), 0) - Number(total.text)) <= 0.005 * parts.length + 0.005, 'to rounding');
  // The lesson sentence's pronoun row tells the story: lens, patching, attribution, their numbers the API's.
  const [lensKey, lensText] = shown.story[0];
  assert.match(lensKey, /^why\.lens\./);
  if (expected.story.lens.layer) assert.ok(lensText.includes(expected.story.lens.layer), lensText);
  assert.ok(lensText.includes(expected.story.lens.pLast ?? expected.story.lens.p), lensText);
  assert.ok(shown.story.some(([key]) => key === 'why.patch.head'));
  const named = shown.story.find(([key]) => key === 'why.attr.named');
  assert.equal(named?.[1], translate(lang, 'why.attr.named', expected.story.named.params));
}

for (const lang of ['zh-CN', 'en']) {
  test(`desktop ${lang}: the lens, patching and attribution agree with the API and the prediction`, async () => {
    const expected = { ...(await expectedPatch()), story: await expectedStory() };
    const { page, errors } = await openPlayground(`?lang=${lang}`, DESKTOP);
    const shown = await whyShown(page);
    checkShown(shown, expected, lang);
    assert.equal(shown.switches, null);
    await page.locator('#why').scrollIntoViewIfNeeded();
    await page.locator('#why').screenshot({ path: `${ARTIFACTS}why-desktop-${lang}.png` });

    // A corrupt text of another length: the message, with both lengths.
    const { tokenizer } = await trainedModel();
    assert.equal(await page.inputValue('.why-patch input[name="clean"]'), expected.pair.clean);
    assert.equal(await page.inputValue('.why-patch input[name="corrupt"]'), expected.pair.corrupt);
    const longer = `${expected.pair.corrupt}很开心`;
    await page.fill('.why-patch input[name="corrupt"]', longer);
    await page.click('.why-patch button[name="run"]');
    const message = page.locator('.why-patch .message');
    await message.waitFor({ state: 'visible' });
    const lengths = { clean: encodeText(tokenizer, expected.pair.clean).length, corrupt: encodeText(tokenizer, longer).length };
    assert.equal(await message.textContent(), translate(lang, 'why.patch.lengths', lengths));
    assert.equal(await page.locator('.why-patch-heads').isHidden(), true);

    // The flip brings the pair back to one length and patches again.
    await page.click('.why-patch button[name="flip"]');
    assert.equal(await page.inputValue('.why-patch input[name="corrupt"]'), `${expected.pair.clean.slice(0, -1)}他`);
    await page.waitForFunction(
      () => document.querySelectorAll('.why-patch-heads .value-cell').length > 0 && !document.querySelector('.why-patch-heads').hidden,
    );
    assert.equal(await message.isHidden(), true);

    // The causal mask off: every view is computed without it, and says so.
    await page.click('#causal');
    const off = await whyShown(page);
    assert.ok(off.switches?.includes(translate(lang, 'why.maskOff')), off.switches);
    assert.equal(off.lastTopId, off.predictionTop, 'the lens without the mask is the prediction without it');
    await page.locator('#why').screenshot({ path: `${ARTIFACTS}why-desktop-${lang}-mask-off.png` });
    assert.deepEqual(errors, []);
    await page.close();
  });

  test(`phone ${lang}: the same views fit the screen`, async () => {
    const expected = { ...(await expectedPatch()), story: await expectedStory() };
    const { page, errors } = await openPlayground(`?lang=${lang}`, PHONE);
    const shown = await whyShown(page);
    checkShown(shown, expected, lang);
    assert.ok(shown.overflow <= 0, `the page is ${shown.overflow}px wider than the phone`);
    await page.locator('#why').scrollIntoViewIfNeeded();
    await page.locator('#why').screenshot({ path: `${ARTIFACTS}why-phone-${lang}.png` });
    assert.deepEqual(errors, []);
    await page.close();
  });
}

for (const lang of ['zh-CN', 'en']) {
  test(`gallery ${lang}: the pronoun story in a frame of the "why" section alone, its numbers the API's`, async () => {
    const expected = await expectedPatch();
    const { page, errors } = await openPage(site.context);
    await page.setViewportSize(DESKTOP);
    await page.goto(`${site.url}dist/site/gallery.html?lang=${lang}`);
    await page.evaluate(() => document.querySelector('article#why iframe').scrollIntoView());
    await page.waitForFunction(() => document.querySelector('article#why iframe').contentDocument?.body?.dataset.ready === 'true', null, {
      timeout: 30000,
    });
    const frame = page.frames().find((f) => f.url().includes('#why'));
    assert.equal(new URL(frame.url()).searchParams.get('embed'), '1');
    await frame.waitForFunction(() => document.querySelectorAll('#why .why-story li').length >= 4, null, { timeout: 60000 });
    const story = await frame.$$eval('#why .why-story li', (items) => items.map((li) => [li.dataset.key, li.textContent]));
    const head = `L${expected.best.row}H${expected.best.col}`;
    assert.deepEqual(
      story.find(([key]) => key === 'why.patch.head'),
      ['why.patch.head', translate(lang, 'why.patch.head', { head, percent: String(Math.round(expected.best.value * 100)) })],
    );
    assert.ok(story.some(([key]) => key.startsWith('why.lens.')));
    assert.ok(story.some(([key]) => key === 'why.attr.named'));
    // The frame shows the section, not the matrix.
    assert.equal(await frame.locator('#heatmap').isVisible(), false);
    assert.equal(await frame.locator('#why').isVisible(), true);
    await page.locator('article#why').screenshot({ path: `${ARTIFACTS}why-gallery-${lang}.png` });
    assert.deepEqual(errors, []);
    await page.close();
  });
}

test('a preset without a tokenizer: patching takes token ids, says so, and a pair of two lengths gets the message', async () => {
  const { page, errors } = await openPlayground('?lang=en&preset=lab-a&text=a+b+c', DESKTOP);
  await page.waitForFunction(
    () => !document.getElementById('why').hidden && document.querySelectorAll('.why-lens-top .row-label').length > 0,
  );
  const info = await page.evaluate(() => ({
    flip: document.querySelector('.why-patch button[name="flip"]').disabled,
    hints: [...document.querySelectorAll('.why-patch p.hint')].map((p) => p.textContent),
    layers: document.querySelectorAll('.why-lens-top .row-label').length,
  }));
  assert.equal(info.flip, true, 'no pronoun to flip without text');
  assert.ok(info.hints.includes(translate('en', 'why.patch.idsOnly')));
  const run = async (fields) => {
    for (const [name, value] of Object.entries(fields)) await page.fill(`.why-patch input[name="${name}"]`, value);
    await page.click('.why-patch button[name="run"]');
  };
  await run({ clean: '1 5 9 12', corrupt: '1 5 9 13' });
  assert.equal(await page.locator('.why-patch .message').textContent(), translate('en', 'why.patch.needIds'));
  await run({ answer: '20', wrong: '#21' });
  await page.waitForFunction(() => document.querySelectorAll('.why-patch-heads .value-cell').length > 0);
  const L = info.layers - 1;
  const cells = await page.locator('.why-patch-heads .value-cell').count();
  const heads = await page.locator('.why-patch-heads .col-label').count();
  assert.equal(cells, L * heads);
  await run({ corrupt: '1 5 9' });
  await page.waitForFunction(() => !document.querySelector('.why-patch .message').hidden);
  assert.equal(await page.locator('.why-patch .message').textContent(), translate('en', 'why.patch.lengths', { clean: 4, corrupt: 3 }));
  await run({ corrupt: '1 5 x' });
  assert.equal(await page.locator('.why-patch .message').textContent(), translate('en', 'why.patch.badIds', { token: 'x' }));
  // An error the module raises (an answer id past the vocabulary) is worded in the page's language.
  await page.selectOption('#lang', 'zh-CN');
  await run({ corrupt: '1 5 9 13', answer: '99999' });
  await page.waitForFunction(() => /99999/.test(document.querySelector('.why-patch .message').textContent));
  const worded = await page.locator('.why-patch .message').textContent();
  const last = Number(/0–(\d+)/.exec(worded)?.[1]);
  assert.equal(worded, errorText('zh-CN', { kind: 'token_id.out_of_range', values: { id: 99999, last } }).text);
  assert.doesNotMatch(worded, /outside the vocabulary/);
  assert.deepEqual(errors, []);
  await page.close();
});
