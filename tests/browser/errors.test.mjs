// Every message in the page's language: a file the core refuses, a bad
// attribute of <minimind-attention> and a config the core rejects are worded
// in zh-CN or en from the error's kind and values, with the core's English
// under "details"; a long text keeps a link short and says so. Screenshots of
// each state go to test-artifacts/.
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';

import { URL_TEXT_BYTES, readUrlState } from '../../web/url_state.mjs';
import { ARTIFACTS, openPage, useServedBrowser } from './browser.mjs';

const ROOT = new URL('../../', import.meta.url).pathname;
const PLAYGROUND = 'dist/site/index.html';
const site = useServedBrowser(ROOT);

let scratch;
before(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'minimind-errors-'));
});
after(async () => {
  await rm(scratch, { recursive: true, force: true });
});

// Latin letters left once the names of files, formats and keys are taken out:
// a Chinese message has none.
function latinLeft(text) {
  return text
    .replace(/safetensors|config\.json|tokenizer\.json|JSON|num_attention_heads|num_key_value_heads|config|kv|q /g, '')
    .match(/[A-Za-z]+/g);
}

async function openPlayground(lang, { width = 1400, height = 1000 } = {}) {
  const { page, errors } = await openPage(site.context);
  await page.setViewportSize({ width, height });
  await page.goto(`${site.url}${PLAYGROUND}?lang=${lang}`);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 30000 });
  return { page, errors };
}

// A text file given as weights: its first 8 bytes, read as a header length, are
// a number far past the 16 MiB limit (the case of a config.json dropped as weights).
async function malformedFolder() {
  const weights = join(scratch, 'model.safetensors');
  const text = '{"hidden_size": 64, "this is not": "a weights file"}';
  await writeFile(weights, text);
  const config = join(scratch, 'config.json');
  await writeFile(config, JSON.stringify({ hidden_size: 64, num_hidden_layers: 1, num_attention_heads: 4, vocab_size: 64 }));
  const declared = Buffer.from(text).readBigUInt64LE(0);
  return { paths: [config, weights], declared };
}

async function filesError(page) {
  await page.waitForFunction(() => document.getElementById('files-status').classList.contains('error'), null, { timeout: 30000 });
  return page.evaluate(() => {
    const details = document.getElementById('files-error-details');
    return {
      status: document.getElementById('files-status').textContent,
      hidden: details.hidden,
      summary: details.querySelector('summary')?.textContent,
      raw: details.querySelector('.raw')?.textContent,
    };
  });
}

test('a malformed safetensors file: the whole message in Chinese with its values, the English under details', async () => {
  const { paths, declared } = await malformedFolder();
  const { page, errors } = await openPlayground('zh-CN');
  await page.setInputFiles('#file-input', paths);
  const shown = await filesError(page);
  const length = declared.toLocaleString('zh-CN');
  assert.equal(
    shown.status,
    `无法载入这些文件：文件开头写的头部长度是 ${length} 字节，超过了 16,777,216 字节的上限：这大概不是 safetensors 文件。 仍在使用之前的模型。`,
  );
  assert.equal(latinLeft(shown.status), null, shown.status);
  assert.equal(shown.hidden, false);
  assert.equal(shown.summary, '详情（原文）');
  assert.equal(shown.raw, `header length ${declared} exceeds the limit of 16777216 bytes (not a safetensors file?)`);
  assert.equal(await page.isVisible('#files-error-details .raw'), false); // closed until asked for
  await page.click('#files-error-details summary');
  assert.equal(await page.isVisible('#files-error-details .raw'), true);
  await page.locator('.files-panel, #files-status').first().scrollIntoViewIfNeeded();
  await page.screenshot({ path: `${ARTIFACTS}error-files-zh-CN.png` });

  // The language switch rewords the same error; the detail stays the core's words.
  await page.selectOption('#lang', 'en');
  const en = await filesError(page);
  assert.equal(
    en.status,
    `Could not load the files: The file starts with a header length of ${declared.toLocaleString('en')} bytes, over the limit of 16,777,216 bytes: this is probably not a safetensors file. The previous model is still in use.`,
  );
  assert.equal(en.summary, 'Details (original text)');
  assert.equal(en.raw, shown.raw);
  await page.screenshot({ path: `${ARTIFACTS}error-files-en.png` });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.locator('#files-status').scrollIntoViewIfNeeded();
  await page.screenshot({ path: `${ARTIFACTS}error-files-en-phone.png` });
  assert.deepEqual(errors, []);
  await page.close();
});

test('a config the core rejects: each problem worded in the page language', async () => {
  await mkdir(join(scratch, 'bad'), { recursive: true });
  const config = join(scratch, 'bad', 'config.json');
  await writeFile(
    config,
    JSON.stringify({ hidden_size: 64, num_hidden_layers: 1, num_attention_heads: 6, num_key_value_heads: 4, head_dim: 16 }),
  );
  const weights = join(scratch, 'bad', 'model.safetensors');
  const header = JSON.stringify({ w: { dtype: 'F32', shape: [1], data_offsets: [0, 4] } });
  const bytes = Buffer.alloc(8 + header.length + 4);
  bytes.writeBigUInt64LE(BigInt(header.length), 0);
  bytes.write(header, 8);
  await writeFile(weights, bytes);
  const { page, errors } = await openPlayground('zh-CN', { width: 390, height: 844 });
  await page.setInputFiles('#file-input', [config, weights]);
  const shown = await filesError(page);
  assert.match(shown.status, /^无法载入这些文件：config\.json 有 1 个问题：num_attention_heads（6）不是 num_key_value_heads（4）的整数倍/);
  assert.equal(latinLeft(shown.status), null, shown.status);
  assert.match(shown.raw, /^num_attention_heads 6 is not a multiple of num_key_value_heads 4/);
  await page.locator('#files-status').scrollIntoViewIfNeeded();
  await page.screenshot({ path: `${ARTIFACTS}error-config-zh-CN-phone.png` });
  assert.deepEqual(errors, []);
  await page.close();
});

/** A course page with one element of `attributes`; its status once it failed. */
async function elementError(attributes, { width = 1400, height = 1000 } = {}) {
  const { page, errors } = await openPage(site.context, `${site.url}tests/browser/blank.html`);
  await page.setViewportSize({ width, height });
  await page.evaluate(
    ({ script, attributes }) => {
      const element = document.createElement('minimind-attention');
      for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, value);
      document.body.append(element);
      const tag = document.createElement('script');
      tag.type = 'module';
      tag.src = script;
      document.head.append(tag);
    },
    { script: `${site.url}dist/site/minimind-attention.js`, attributes },
  );
  await page.waitForFunction(() => document.querySelector('minimind-attention')?.dataset.state === 'error', null, { timeout: 30000 });
  const shown = await page.evaluate(() => {
    const root = document.querySelector('minimind-attention').shadowRoot;
    const details = root.querySelector('.details');
    return {
      message: root.querySelector('.message').textContent,
      hidden: details.hidden,
      summary: details.querySelector('summary')?.textContent ?? null,
      raw: details.querySelector('.raw')?.textContent ?? null,
    };
  });
  return { page, errors, shown };
}

test('a bad element attribute in zh-CN and en: the message in the language, the parser’s words under details', async () => {
  const config = '{"num_attention_heads": 6';
  let parserWords;
  try {
    JSON.parse(config);
  } catch (error) {
    parserWords = error.message;
  }
  for (const [lang, message, summary] of [
    ['zh-CN', '无法绘制此图：config 不是合法的 JSON', '详情（原文）'],
    ['en', 'This figure cannot be drawn: config is not valid JSON', 'Details (original text)'],
  ]) {
    const { page, errors, shown } = await elementError({ lang, preset: 'lab-a', config });
    assert.equal(shown.message, message);
    assert.equal(shown.hidden, false);
    assert.equal(shown.summary, summary);
    assert.ok(shown.raw.startsWith(parserWords), shown.raw); // the browser's JSON.parse words (V8's, as in Node)
    await page.screenshot({ path: `${ARTIFACTS}error-element-${lang}.png` });
    assert.deepEqual(errors, []);
    await page.close();
  }
  // A config that parses but that the core rejects: its kind and values, worded.
  for (const [lang, pattern] of [
    ['zh-CN', /^无法绘制此图：config\.json 有 1 个问题：num_attention_heads（6）不是 num_key_value_heads（4）的整数倍/],
    [
      'en',
      /^This figure cannot be drawn: config\.json has 1 problem\(s\): num_attention_heads \(6\) is not a multiple of num_key_value_heads \(4\)/,
    ],
  ]) {
    const { page, errors, shown } = await elementError(
      { lang, preset: 'lab-a', config: '{"num_attention_heads": 6, "num_key_value_heads": 4, "head_dim": 16}' },
      { width: 390, height: 844 },
    );
    assert.match(shown.message, pattern);
    if (lang === 'zh-CN') assert.equal(latinLeft(shown.message), null, shown.message);
    assert.match(shown.raw, /^num_attention_heads 6 is not a multiple of num_key_value_heads 4/);
    await page.screenshot({ path: `${ARTIFACTS}error-element-config-${lang}-phone.png` });
    assert.deepEqual(errors, []);
    await page.close();
  }
});

test('a 2000-character text keeps the link short, and the page says the link carries only its beginning', async () => {
  const text = '小明把苹果给了小红，她很开心。'.repeat(134).slice(0, 2000);
  for (const [lang, note] of [
    ['zh-CN', /^这段文字太长，放不进链接：地址栏里的链接只带上了前 (\d+) 个字（共 2000 个）/],
    ['en', /^This text is too long for a link: the address bar’s link carries only its first (\d+) of 2000 characters/],
  ]) {
    const { page, errors } = await openPlayground(lang);
    assert.equal(await page.isVisible('#url-note'), false);
    await page.fill('#text', text);
    await page.waitForFunction(() => new URLSearchParams(location.search).has('text'), null, { timeout: 10000 });
    await page.waitForSelector('#url-note:not([hidden])');
    const search = new URL(page.url()).search;
    assert.ok(search.length <= URL_TEXT_BYTES + 200, `the query is ${search.length} bytes`);
    assert.ok(page.url().length < 2100, `the URL is ${page.url().length} bytes`);
    const kept = readUrlState(search).text;
    assert.ok(kept.length > 100 && text.startsWith(kept), `the link keeps ${kept.length} characters, a prefix of the text`);
    const [, count] = note.exec(await page.textContent('#url-note'));
    assert.equal(Number(count), kept.length);
    // The page itself keeps the whole text.
    assert.equal(await page.inputValue('#text'), text);
    await page.locator('#text').scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${ARTIFACTS}url-note-${lang}.png` });
    // A short text again: the link carries it all, the note goes.
    await page.fill('#text', '今天 天气 很 好');
    await page.waitForSelector('#url-note[hidden]', { state: 'attached' });
    assert.equal(readUrlState(new URL(page.url()).search).text, '今天 天气 很 好');
    assert.deepEqual(errors, []);
    await page.close();
  }
});
