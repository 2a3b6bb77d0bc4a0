// Generation that ends, in headless Chromium on the trained model: greedy
// Play on the default sentence runs until the model chooses its end-of-text
// token, in Chinese and in English, with no page error; the line says the
// model ended its text, the run bar is gone, the generated text is what the
// JS API generates in Node, decoded (real characters, no <0x..> bytes), and
// the matrix holds one row per token fed (the end token has none). Reset then
// Play runs to the same end again, and Step works on a new text. Step, Play
// and their line sit right under the matrix.
// Screenshots (desktop 1400×1000, phone 390×844) go to test-artifacts/.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { encodeText } from '../../js/text_encoding.mjs';
import { DEFAULTS } from '../../web/url_state.mjs';
import { ARTIFACTS, openPage, useServedBrowser } from './browser.mjs';
import { trainedModel } from './demo.mjs';

const ROOT = new URL('../../', import.meta.url).pathname;
const site = useServedBrowser(ROOT);

// The page's sampling settings as it opens (greedy on).
const SAMPLING = { greedy: true, temperature: 0.85, topK: 50, topP: 0.85, repetitionPenalty: 1, seed: 0 };

const ENDED = {
  'zh-CN': /^第 (\d+) 步：模型结束了它的文本（选中结束符 <\|im_end\|>，p = 0\.\d{3}）。/,
  en: /^Step (\d+): the model ended its text \(it chose <\|im_end\|>, its end-of-text token, p = 0\.\d{3}\)\./,
};
const FIRST_STEP = { 'zh-CN': /^第 1 步：/, en: /^Step 1: / };

// What the JS API generates greedily after the page's text: {steps, prompt, generated} (the eos not in the text).
async function expectedGeneration(text) {
  const { model, tokenizer } = await trainedModel();
  const prompt = encodeText(tokenizer, text);
  const generator = model.generator(prompt, SAMPLING);
  let steps = 0;
  let isEos = false;
  while (!generator.finished) {
    steps += 1;
    isEos = generator.step({ trace: false }).isEos;
  }
  const ids = generator.ids;
  generator.dispose();
  const decode = (list) => tokenizer.decode(list, { skipSpecialTokens: false });
  const all = decode(isEos ? ids.slice(0, -1) : ids);
  return { steps, isEos, promptTokens: prompt.length, generated: all.slice(decode(prompt).length) };
}

async function openPlayground(query, { width = 1400, height = 1000 } = {}) {
  const { page, errors } = await openPage(site.context);
  await page.setViewportSize({ width, height });
  await page.goto(`${site.url}dist/site/index.html${query}`);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 30000 });
  await page.waitForFunction(() => document.querySelectorAll('#matrix-table tbody tr').length > 0);
  return { page, errors };
}

// Play, until the status says generation ended; returns what the page shows then.
async function playToTheEnd(page) {
  await page.click('#gen-play');
  await page.waitForFunction(() => document.getElementById('gen-status').dataset.end !== '', null, { timeout: 120000 });
  return page.evaluate(() => ({
    end: document.getElementById('gen-status').dataset.end,
    status: document.getElementById('gen-status').textContent,
    generated: document.querySelector('#gen-text .gen-new')?.textContent ?? null,
    rows: document.querySelectorAll('#matrix-table tbody tr').length,
    play: document.getElementById('gen-play').textContent,
    stepDisabled: document.getElementById('gen-step').disabled,
    candidates: document.querySelectorAll('#gen-candidates li').length,
    runBarHidden: document.getElementById('run-status').hidden,
  }));
}

for (const lang of ['zh-CN', 'en']) {
  test(`greedy Play on the default sentence runs to the model's end of text (${lang})`, async () => {
    const expected = await expectedGeneration(DEFAULTS.text);
    assert.equal(expected.isEos, true, 'the trained model ends this text itself');
    const { page, errors } = await openPlayground(`?lang=${lang}`);
    const shown = await playToTheEnd(page);
    assert.equal(shown.end, 'eos');
    const step = ENDED[lang].exec(shown.status);
    assert.ok(step, shown.status);
    assert.equal(Number(step[1]), expected.steps, 'the step the model chose its end');
    // The end token is chosen, not fed: every other generated token has its row.
    assert.equal(shown.rows, expected.promptTokens + expected.steps - 1);
    assert.equal(shown.generated, expected.generated);
    assert.doesNotMatch(shown.generated, /<0x/);
    assert.match(shown.generated, /\p{Script=Han}/u, 'real characters');
    assert.equal(shown.candidates, 0, 'nothing comes after the end');
    assert.equal(shown.play, lang === 'en' ? 'Play' : '播放', 'Play is not left on Pause');
    assert.equal(shown.stepDisabled, true);
    await page.waitForFunction(() => document.getElementById('run-status').hidden);
    // Step, Play and the line they write sit right under the matrix they grow, at the matrix's left.
    const under = await page.evaluate(() => {
      const matrix = document.getElementById('heatmap').getBoundingClientRect();
      return ['gen-step', 'gen-play', 'gen-status'].map((id) => {
        const r = document.getElementById(id).getBoundingClientRect();
        return { id, gap: Math.round(r.top - matrix.bottom), left: r.left >= matrix.left - 40 && r.left < matrix.right };
      });
    });
    for (const { id, gap, left } of under) assert.ok(gap > 0 && gap < 200 && left, `#${id} is ${gap} px under the matrix`);
    await page.screenshot({ path: `${ARTIFACTS}generation-end-${lang}.png`, fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.locator('#gen-status').scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${ARTIFACTS}generation-end-phone-${lang}.png` });
    await page.setViewportSize({ width: 1400, height: 1000 });

    // Reset, then Play again: the same end.
    await page.click('#gen-reset');
    await page.waitForFunction(() => document.getElementById('gen-status').textContent === '');
    assert.equal(await page.isDisabled('#gen-step'), false);
    const again = await playToTheEnd(page);
    assert.deepEqual(again, shown);

    // Step on a new text: a new generation starts from it.
    await page.fill('#text', '小明喜欢踢球');
    await page.waitForFunction(() => document.getElementById('gen-status').textContent === '');
    await page.click('#gen-step');
    await page.waitForFunction(
      (pattern) => new RegExp(pattern).test(document.getElementById('gen-status').textContent),
      FIRST_STEP[lang].source,
    );
    const next = await expectedGeneration('小明喜欢踢球');
    assert.equal(await page.$$eval('#matrix-table tbody tr', (rows) => rows.length), next.promptTokens + 1);
    await page.waitForFunction(() => document.getElementById('run-status').hidden);
    assert.deepEqual(errors, []);
    await page.close();
  });
}
