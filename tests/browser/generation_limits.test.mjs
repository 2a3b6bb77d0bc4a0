// Generation at its limits, in headless Chromium on a preset: a prompt that
// fills the matrix (128 tokens) ends at Step with 128 rows, not 129, and the
// line says the matrix is full; Play from 125 tokens stops at 128 rows after 3
// steps; a model with 8 positions (max_position_embeddings, from the URL's
// config) stops when they run out, the chosen token unfed, and the line names
// the limit. In English and Chinese. The expected counts come from the limits
// themselves (128, the config's positions), the rows from the page's table.
// A chat prompt longer than the matrix (the trained model's files dropped,
// Chat on) is cut in the user's text: the matrix still ends with the
// assistant's tag, with as many prompt tokens as js/chat_fit.mjs finds in Node.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { fitChatPrompt } from '../../js/chat_fit.mjs';
import { chatPrompt } from '../../js/chat_template.mjs';
import { loadMiniMind } from '../../js/minimind.mjs';
import { openPage, useServedBrowser } from './browser.mjs';

const ROOT = new URL('../../', import.meta.url).pathname;
const site = useServedBrowser(ROOT);
const MATRIX = 128;

const LINES = {
  en: { tokens: `The matrix holds at most ${MATRIX} tokens: generation ends here.`, positions: 'The model has no position after 8 tokens' },
  'zh-CN': { tokens: `矩阵最多容纳 ${MATRIX} 个 token：生成到此结束。`, positions: '模型在 8 个 token 之后没有位置了' },
};

const idsText = (n) => Array.from({ length: n }, (_, i) => 3 + (i % 120)).join(',');

async function openPlayground(query) {
  const { page, errors } = await openPage(site.context);
  await page.setViewportSize({ width: 1400, height: 1000 });
  await page.goto(`${site.url}dist/site/index.html${query}`);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 30000 });
  await page.waitForFunction(() => document.querySelectorAll('#matrix-table tbody tr').length > 0);
  return { page, errors };
}

// Clicks `button` and waits for the line to say generation ended: what the page shows then.
async function runToTheEnd(page, button) {
  await page.click(button);
  await page.waitForFunction(() => document.getElementById('gen-status').dataset.end !== '', null, { timeout: 120000 });
  await page.waitForFunction(() => document.getElementById('run-status').hidden);
  return page.evaluate(() => ({
    end: document.getElementById('gen-status').dataset.end,
    status: document.getElementById('gen-status').textContent,
    rows: document.querySelectorAll('#matrix-table tbody tr').length,
    stepDisabled: document.getElementById('gen-step').disabled,
  }));
}

const query = (lang, ids, extra = '') => `?lang=${lang}&preset=lab-a&input=ids&text=${encodeURIComponent(ids)}${extra}`;

for (const lang of ['en', 'zh-CN']) {
  test(`${lang}: a prompt that fills the matrix ends at Step with ${MATRIX} rows, and says why`, async () => {
    const { page, errors } = await openPlayground(query(lang, idsText(MATRIX + 2))); // the input keeps 128
    assert.equal(await page.$$eval('#matrix-table tbody tr', (r) => r.length), MATRIX);
    const shown = await runToTheEnd(page, '#gen-step');
    assert.equal(shown.end, 'tokens');
    assert.equal(shown.rows, MATRIX, 'no row past the matrix');
    assert.ok(shown.status.includes(LINES[lang].tokens), shown.status);
    assert.equal(shown.stepDisabled, true);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test(`${lang}: Play from ${MATRIX - 3} tokens stops at ${MATRIX} rows; 8 positions stop at the model's limit`, async () => {
    const { page, errors } = await openPlayground(query(lang, idsText(MATRIX - 3)));
    const full = await runToTheEnd(page, '#gen-play');
    assert.equal(full.end, 'tokens');
    assert.equal(full.rows, MATRIX);
    assert.match(full.status, lang === 'en' ? /^Step 3: / : /^第 3 步：/);
    assert.ok(full.status.includes(LINES[lang].tokens), full.status);
    await page.close();

    const config = `&config=${encodeURIComponent(JSON.stringify({ max_position_embeddings: 8 }))}`;
    const small = await openPlayground(query(lang, '3,4,5,6,7', config));
    const ended = await runToTheEnd(small.page, '#gen-play');
    assert.equal(ended.end, 'positions');
    assert.equal(ended.rows, 7, 'positions 5 and 6 fed; the token chosen for the last one has no row');
    assert.match(ended.status, lang === 'en' ? /^Step 3: / : /^第 3 步：/);
    assert.ok(ended.status.includes(LINES[lang].positions), ended.status);
    assert.deepEqual([...errors, ...small.errors], []);
    await small.page.close();
  });
}

test('a chat prompt longer than the matrix is cut in the text, and keeps the assistant tag', async () => {
  const demo = (name) => fileURLToPath(new URL(`../../models/minimind-demo/${name}`, import.meta.url));
  const text = '小明把苹果给了小红，她很开心。'.repeat(30);
  const mm = await loadMiniMind({ variant: 'simd' });
  const tokenizer = mm.loadTokenizer(readFileSync(demo('tokenizer.json'), 'utf8'));
  const encode = (s) => tokenizer.encode(s);
  assert.ok(encode(chatPrompt(text)).length > MATRIX, 'the whole prompt is over the limit');
  const prompt = fitChatPrompt(encode, text, MATRIX).ids.length;
  tokenizer.dispose();

  const { page, errors } = await openPlayground('?lang=en');
  await page.setInputFiles('#file-input', [demo('config.json'), demo('model.safetensors'), demo('tokenizer.json')]);
  await page.waitForFunction(() => /with its tokenizer/.test(document.getElementById('files-status').textContent), null, {
    timeout: 30000,
  });
  await page.fill('#text', text);
  // The matrix reads the typed text first (its first 128 tokens, the bos first); then Chat and Step.
  await page.waitForFunction((max) => document.querySelectorAll('#matrix-table thead th').length === max + 1, MATRIX, {
    timeout: 30000,
  });
  await page.check('#gen-chat');
  await page.click('#gen-step');
  await page.waitForFunction(() => /^(Step 1|Prompt of)/.test(document.getElementById('gen-status').textContent), null, {
    timeout: 60000,
  });
  const heads = await page.$$eval('#matrix-table thead th', (ths) => ths.slice(1).map((th) => th.textContent));
  assert.ok(heads.length <= MATRIX, `${heads.length} columns`);
  assert.ok(heads.length === prompt || heads.length === prompt + 1, `${heads.length} columns for a prompt of ${prompt}`);
  const shown = heads.slice(0, prompt).join('');
  assert.ok(shown.startsWith('<|im_start|>user\n'), shown.slice(0, 30));
  assert.ok(shown.includes('<|im_end|>\n<|im_start|>assistant\n'), shown.slice(-60));
  assert.ok(shown.includes('小明把苹果'), 'the text is kept from its beginning');
  assert.deepEqual(errors, []);
  await page.close();
});
