// The next-token prediction follows the switches, in headless Chromium on
// the trained model: with the causal mask off a middle row's list is what the
// model predicts when that row reads the whole text (the JS API's forward
// without the mask, read at that row), it differs from the masked list shown
// beside it, and the page says the mask is off; the last row says it has no
// future; with √d off the list is the forward without ÷√d; with the switches
// back on the list is the masked one again. Every expected number comes from
// the JS API in Node. Screenshots of the prediction with the mask off
// (desktop 1400×1000, phone 390×844, zh and en) go to test-artifacts/.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { encodeText } from '../../js/text_encoding.mjs';
import { DEFAULTS } from '../../web/url_state.mjs';
import { ARTIFACTS, openPage, useServedBrowser } from './browser.mjs';
import { trainedModel } from './demo.mjs';

const ROOT = new URL('../../', import.meta.url).pathname;
const site = useServedBrowser(ROOT);

// The five most likely tokens after position `row` of the whole text, as "id: p" (p to 3 decimals).
async function expectedList(row, { causal = true, scale = true } = {}) {
  const { model, tokenizer } = await trainedModel();
  const ids = encodeText(tokenizer, DEFAULTS.text);
  const { logits } = model.forward(ids, { causalMask: causal, scaleScores: scale });
  const V = logits.shape[2];
  const last = Array.from(logits.data.subarray(row * V, (row + 1) * V));
  const max = Math.max(...last);
  const e = last.map((x) => Math.exp(x - max));
  const sum = e.reduce((a, b) => a + b, 0);
  return e
    .map((x, id) => ({ id, p: x / sum }))
    .filter(({ p }) => p > 0) // as the page lists them
    .sort((a, b) => b.p - a.p || a.id - b.id)
    .slice(0, 5)
    .map(({ id, p }) => `${id}: ${p.toFixed(3)}`);
}

async function tokenCount() {
  const { tokenizer } = await trainedModel();
  return encodeText(tokenizer, DEFAULTS.text).length;
}

async function openPlayground(query, { width = 1400, height = 1000 } = {}) {
  const { page, errors } = await openPage(site.context);
  await page.setViewportSize({ width, height });
  await page.goto(`${site.url}dist/site/index.html${query}`);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 30000 });
  return { page, errors };
}

// The prediction box once it answers what is on screen: its lists as "id: p", and its lines.
async function prediction(page) {
  await page.waitForFunction(() => {
    const box = document.getElementById('prediction-box');
    return !box.hidden && box.dataset.pending === 'false' && document.querySelectorAll('#prediction li').length > 0;
  });
  return page.evaluate(() => {
    const list = (id) =>
      [...document.querySelectorAll(`#${id} li`)].map((li) => {
        const [, token, p] = /\(#(\d+)\): (\d\.\d{3})/.exec(li.textContent);
        return `${token}: ${p}`;
      });
    const shown = (id) => !document.getElementById(id).hidden;
    return {
      list: list('prediction'),
      masked: shown('prediction-masked-box') ? list('prediction-masked') : null,
      switches: shown('prediction-switches') ? document.getElementById('prediction-switches').textContent : null,
      heading: shown('prediction-heading') ? document.getElementById('prediction-heading').textContent : null,
    };
  });
}

// A switch's change marks the prediction pending at once, until the answer for it arrives.
async function setSwitch(page, id, on) {
  if (on) await page.check(`#${id}`);
  else await page.uncheck(`#${id}`);
}

test('with the causal mask off, a middle row predicts from the whole text, beside its masked prediction', async () => {
  const { sentence } = await trainedModel();
  const row = sentence.pronoun; // 她: 很开心 comes after it
  const T = await tokenCount();
  assert.ok(row < T - 1);
  const masked = await expectedList(row);
  const seeing = await expectedList(row, { causal: false });
  assert.notDeepEqual(seeing, masked, 'the model predicts otherwise when it sees the future');

  const { page, errors } = await openPlayground('?lang=en');
  const on = await prediction(page);
  assert.deepEqual(on.list, masked);
  assert.equal(on.masked, null);
  assert.equal(on.switches, null);

  await setSwitch(page, 'causal', false);
  await page.waitForFunction(() => !document.getElementById('prediction-masked-box').hidden);
  const off = await prediction(page);
  assert.deepEqual(off.list, seeing);
  assert.deepEqual(off.masked, masked);
  assert.notDeepEqual(off.list, off.masked);
  assert.equal(off.heading, 'Mask off: it sees the future');
  const after = T - 1 - row;
  assert.match(off.switches, new RegExp(`^The causal mask is off: “她” also reads the ${after} tokens after it, the next one “很”`));

  // √d off too: the list is the forward without ÷√d, and the page says so.
  await setSwitch(page, 'scale', false);
  await page.waitForFunction(() => document.getElementById('prediction-switches').textContent.includes('√d'));
  const noScale = await prediction(page);
  assert.deepEqual(noScale.list, await expectedList(row, { causal: false, scale: false }));
  assert.deepEqual(noScale.masked, await expectedList(row, { scale: false }));
  assert.match(noScale.switches, /Computed without dividing the scores by √d, as the matrix is\.$/);

  // Both back on: the masked prediction alone, as before.
  await setSwitch(page, 'causal', true);
  await setSwitch(page, 'scale', true);
  await page.waitForFunction(() => document.getElementById('prediction-switches').hidden);
  const back = await prediction(page);
  assert.deepEqual(back, on);
  assert.deepEqual(errors, []);
  await page.close();
});

test('with the causal mask off, the last row says it has no future', async () => {
  const T = await tokenCount();
  const last = T - 1;
  const masked = await expectedList(last);
  const seeing = await expectedList(last, { causal: false });
  const { page, errors } = await openPlayground(`?lang=en&causal=0&row=${last}`);
  const off = await prediction(page);
  assert.deepEqual(off.list, seeing);
  assert.deepEqual(off.masked, masked);
  assert.equal(off.heading, 'Mask off: the last token, no future');
  const same = JSON.stringify(seeing) === JSON.stringify(masked);
  assert.match(
    off.switches,
    same
      ? /^The causal mask is off, but “心” is the last token: it has no future to see, and both lists are the same\.$/
      : /^The causal mask is off, but “心” is the last token: it has no future to see\. Its list still differs from the masked one because the earlier tokens it reads saw their own future\.$/,
  );
  assert.deepEqual(errors, []);
  await page.close();
});

test('screenshots of the prediction with the mask off, in Chinese and English, desktop and phone', async () => {
  const { sentence } = await trainedModel();
  for (const lang of ['zh-CN', 'en']) {
    for (const [name, width, height] of [
      ['desktop', 1400, 1000],
      ['phone', 390, 844],
    ]) {
      const { page, errors } = await openPlayground(`?lang=${lang}&causal=0&row=${sentence.pronoun}`, { width, height });
      const off = await prediction(page);
      assert.ok(off.masked, 'the masked list is beside it');
      assert.match(off.switches, lang === 'en' ? /^The causal mask is off/ : /^因果掩码已关闭/);
      await page.locator('#prediction-box').scrollIntoViewIfNeeded();
      await page.screenshot({ path: `${ARTIFACTS}prediction-mask-off-${name}-${lang}.png` });
      assert.deepEqual(errors, []);
      await page.close();
    }
  }
});
