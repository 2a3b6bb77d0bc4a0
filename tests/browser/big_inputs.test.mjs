// Big files in the page, generated here (deterministic content, deleted at
// the end): a 50 MB .txt and a 50 MB .jsonl given to the Train panel are read
// and tokenized by the training worker in chunks, the progress shown rising,
// a cancel leaving the file read before, the token count that of MiniMind's
// tokenizer on the same texts (counted here in Node); a file over the limit
// is refused, in both languages; a bad JSONL line is named. A ~200 MB
// checkpoint loads into the playground with its memory shown; a config whose
// weights the page cannot hold, and a file larger than the module's whole
// memory, are refused; the page computes on with the model before.
import assert from 'node:assert/strict';
import { createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { after, before, test } from 'node:test';

import { loadMiniMind } from '../../js/minimind.mjs';
import { MAX_TEXT_FILE_BYTES } from '../../js/text_file_stream.mjs';
import { openPage, useServedBrowser } from './browser.mjs';

const served = useServedBrowser();
const MB = 1e6;
let scratch;
let mm;

before(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'minimind-big-'));
  mm = await loadMiniMind();
});

after(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

// Lines of Chinese, English words, digits and now and then an emoji, from a
// fixed xorshift32 sequence: the same file every run.
function blockLines(count, seed = 2463534242) {
  let x = seed;
  const next = (n) => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) % n;
  };
  const han = '小明红把苹果给了她他很开心天气今好学生读书喜欢在学校唱起歌踢球猫狗书桌上下雨太阳月亮朋友老师家里吃饭水';
  const words = ['the', 'model', 'attention', 'head', 'token', 'MiniMind', 'café', 'naïve', '2026', '42'];
  const emoji = ['🙂', '🍎', '📚'];
  return Array.from({ length: count }, () => {
    const parts = [];
    const length = 8 + next(40);
    for (let k = 0; k < length; k += 1) {
      const r = next(100);
      if (r < 75) parts.push(han[next(han.length)]);
      else if (r < 95) parts.push(` ${words[next(words.length)]} `);
      else if (r < 98) parts.push('，');
      else parts.push(emoji[next(emoji.length)]);
    }
    return parts.join('').trim() + '。';
  });
}

// Writes `block` (lines) again and again until the file reaches `bytes`: {repeats, path}.
async function writeRepeated(path, block, bytes) {
  const chunk = Buffer.from(block.join('\n') + '\n');
  const repeats = Math.ceil(bytes / chunk.length);
  const out = createWriteStream(path);
  for (let k = 0; k < repeats; k += 1) if (!out.write(chunk)) await once(out, 'drain');
  out.end();
  await once(out, 'finish');
  return repeats;
}

async function openTrainPanel(query = '?lang=en') {
  const { page, errors } = await openPage(served.context);
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(`${served.url}${query}`);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 60000 });
  await page.click('#open-train');
  await page.waitForSelector('#train select[name="source"]', { state: 'visible' });
  await page.selectOption('#train select[name="source"]', 'file');
  // Every percent the data file's element shows, in order.
  await page.evaluate(() => {
    const element = document.querySelector('#train .train-data-file');
    window.shownPercents = [];
    new MutationObserver(() => {
      if (element.dataset.percent !== undefined) window.shownPercents.push(Number(element.dataset.percent));
    }).observe(element, { attributes: true, attributeFilter: ['data-percent'] });
  });
  return { page, errors };
}

const dataFile = (page) => page.evaluate(() => ({ ...document.querySelector('#train .train-data-file').dataset }));
const notice = (page) => page.textContent('#train .train-data-file-notice');

async function takePercents(page) {
  return page.evaluate(() => window.shownPercents.splice(0));
}

function assertRising(percents, what) {
  assert.ok(percents.length > 1, `${what}: ${percents.length} progress values shown`);
  for (let i = 1; i < percents.length; i += 1)
    assert.ok(percents[i] >= percents[i - 1], `${what}: progress went back at ${i}: ${percents}`);
}

test('a 50 MB .txt and .jsonl: read with progress, a cancel keeps the file before, the token count is the tokenizer’s', async () => {
  const block = blockLines(3000);
  const txt = join(scratch, 'big.txt');
  const jsonl = join(scratch, 'big.jsonl');
  const repeats = await writeRepeated(txt, block, 50 * MB);
  await writeRepeated(
    jsonl,
    block.map((text) => JSON.stringify({ text })),
    50 * MB,
  );
  const tokenizer = mm.loadTokenizer(await readFile(new URL('../../models/minimind-demo/tokenizer.json', import.meta.url), 'utf8'));
  const blockTokens = block.reduce((n, text) => n + tokenizer.encode(text).length, 0);
  tokenizer.dispose();

  const { page, errors } = await openTrainPanel();
  const limitText = await page.textContent('#train .train-data-file .train-help');
  assert.match(limitText, /Files up to 64 MiB and 25,000,000 tokens/);

  await page.setInputFiles('#train input[type="file"]', txt);
  await page.waitForFunction(() => document.querySelector('#train .train-data-file').dataset.state === 'loaded', null, { timeout: 300000 });
  assertRising(await takePercents(page), 'big.txt');
  const loaded = await dataFile(page);
  assert.equal(Number(loaded.texts), block.length * repeats);
  assert.equal(Number(loaded.tokens), blockTokens * repeats, 'the tokens MiniMind’s tokenizer gives the same texts in Node');
  assert.match(await page.textContent('#train .train-file-status'), /^big\.txt \(\d+\.\d MiB\): [\d,]+ texts, [\d,]+ tokens$/);

  // The .jsonl, cancelled part way: the .txt stays the data.
  await page.setInputFiles('#train input[type="file"]', jsonl);
  await page.waitForFunction(() => Number(document.querySelector('#train .train-data-file').dataset.percent) >= 5, null, {
    timeout: 120000,
  });
  await page.click('#train [data-train="cancel-file"]');
  await page.waitForFunction(() => /cancelled/.test(document.querySelector('#train .train-data-file-notice').textContent));
  assertRising(await takePercents(page), 'big.jsonl');
  assert.equal(await notice(page), 'Reading big.jsonl was cancelled. Training still uses big.txt, read before.');
  assert.deepEqual(await dataFile(page), loaded);
  assert.match(await page.textContent('#train .train-file-status'), /^big\.txt /);
  assert.equal(await page.isHidden('#train [data-train="cancel-file"]'), true);
  assert.deepEqual(errors, []);
  await page.close();
});

test('a file over the limit is refused before it is read, and a bad JSONL line is named, in zh-CN and en', async () => {
  const over = join(scratch, 'over.txt');
  await writeFile(over, '');
  await truncate(over, 80 * 2 ** 20); // a sparse file: never read, only its size matters
  assert.ok(80 * 2 ** 20 > MAX_TEXT_FILE_BYTES);
  const bad = join(scratch, 'bad.jsonl');
  await writeFile(bad, ['{"text": "小明在学校。"}', '', '{"text": 小红}', '{"text": "她喜欢读书。"}'].join('\n'));
  const small = join(scratch, 'small.txt');
  await writeFile(small, '小明把书给了小红。\n她很开心。\n');

  const { page, errors } = await openTrainPanel('?lang=zh-CN');
  await page.setInputFiles('#train input[type="file"]', over);
  await page.waitForFunction(() => document.querySelector('#train .train-data-file-notice').textContent !== '');
  assert.equal(await notice(page), 'over.txt 有 80 MiB，这里只能训练不超过 64 MiB 的文本文件（上限由训练器能容纳的 token 数决定）。');
  assert.deepEqual(await takePercents(page), [], 'nothing was read');
  assert.equal((await dataFile(page)).state, 'idle');

  await page.setInputFiles('#train input[type="file"]', small);
  await page.waitForFunction(() => document.querySelector('#train .train-data-file').dataset.state === 'loaded');
  await page.setInputFiles('#train input[type="file"]', bad);
  await page.waitForFunction(() => /第 3 行/.test(document.querySelector('#train .train-data-file-notice').textContent));
  assert.equal(await notice(page), 'bad.jsonl 的第 3 行不是 JSON。 训练仍用之前读好的 small.txt。');
  await page.selectOption('#lang', 'en');
  await page.waitForFunction(() => /Line 3/.test(document.querySelector('#train .train-data-file-notice').textContent));
  assert.equal(await notice(page), 'Line 3 of bad.jsonl is not JSON. Training still uses small.txt, read before.');
  await page.setInputFiles('#train input[type="file"]', over);
  await page.waitForFunction(() => /over\.txt/.test(document.querySelector('#train .train-data-file-notice').textContent));
  assert.match(await notice(page), /^over\.txt is 80 MiB; text files of up to 64 MiB can be trained on here/);

  // The file kept trains.
  await page.fill('#train input[name="batchSize"]', '2');
  await page.click('#train [data-train="start"]');
  await page.waitForFunction(() => Number(document.getElementById('train').dataset.step) >= 1, null, { timeout: 120000 });
  assert.match(await page.textContent('#train .train-stats'), /2 texts → 1 sequences? of 64 tokens/);
  await page.waitForFunction(() => document.getElementById('train').dataset.state === 'done', null, { timeout: 120000 });
  assert.deepEqual(errors, []);
  await page.close();
});

// A model of ~200 MB as float32 safetensors: minimind-3's shapes with 6 layers.
async function bigCheckpoint() {
  const config = { ...mm.presetConfig('minimind-3'), num_hidden_layers: 6 };
  const model = mm.createModel({ config, seed: 5 });
  const info = model.info();
  const bytes = model.safetensors({ dtype: 'F32' });
  const dir = join(scratch, 'big-model');
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir);
  await writeFile(join(dir, 'model.safetensors'), bytes);
  await writeFile(join(dir, 'config.json'), JSON.stringify(config));
  model.dispose();
  return { dir, config, info, size: bytes.length };
}

test('a ~200 MB checkpoint loads with its memory shown; weights the page cannot hold are refused; the page computes on', async () => {
  const { dir, config, info, size } = await bigCheckpoint();
  assert.ok(size > 190 * MB && size < 230 * MB, `${size} bytes`);
  const { page, errors } = await openPage(served.context);
  await page.setViewportSize({ width: 1400, height: 1000 });
  await page.goto(`${served.url}?lang=en&input=ids&text=3%204%205`);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 60000 });
  const forwardOn = async (ids) => {
    await page.fill('#text', ids.join(' '));
    await page.waitForFunction((n) => document.querySelectorAll('#matrix-table thead th').length === n + 1, ids.length, { timeout: 60000 });
  };

  await page.setInputFiles('#file-input', [join(dir, 'config.json'), join(dir, 'model.safetensors')]);
  await page.waitForFunction(() => /^(Loaded|Could not)/.test(document.getElementById('files-status').textContent), null, {
    timeout: 180000,
  });
  const status = await page.textContent('#files-status');
  const mib = (info.stored_weights.bytes / 2 ** 20).toFixed(1);
  assert.match(status, new RegExp(`^Loaded model\\.safetensors: weights take ${mib.replace('.', '\\.')} MiB in memory`), status);
  await forwardOn([3, 4, 5, 6, 7]);

  // Weights over what the page can hold as float32: refused, the model before stays and computes.
  const huge = join(scratch, 'huge');
  await mkdir(huge);
  await writeFile(join(huge, 'config.json'), JSON.stringify({ ...config, num_hidden_layers: 64, vocab_size: 200000 }));
  await page.setInputFiles('#file-input', [join(huge, 'config.json'), join(dir, 'model.safetensors')]);
  await page.waitForFunction(() => /^Could not/.test(document.getElementById('files-status').textContent), null, { timeout: 180000 });
  assert.match(
    await page.textContent('#files-status'),
    /weights would take [\d.]+ GiB as float32, over the 2 GiB limit.*previous model is still in use/,
  );
  await forwardOn([8, 9, 10]);

  // A file larger than the module's whole memory (sparse: never read) is refused at once, in both languages.
  const vast = join(scratch, 'vast');
  await mkdir(vast);
  await writeFile(join(vast, 'config.json'), JSON.stringify(config));
  await writeFile(join(vast, 'model.safetensors'), '');
  await truncate(join(vast, 'model.safetensors'), 4.5 * 2 ** 30);
  await page.setInputFiles('#file-input', [join(vast, 'config.json'), join(vast, 'model.safetensors')]);
  await page.waitForFunction(() => /4\.5 GiB/.test(document.getElementById('files-status').textContent), null, { timeout: 60000 });
  assert.equal(
    await page.textContent('#files-status'),
    'Could not load the files: model.safetensors is 4.5 GiB: its weights take at least that much memory as float32, more than the 4 GiB this page’s WebAssembly memory can hold. The previous model is still in use.',
  );
  await page.selectOption('#lang', 'zh-CN');
  await page.waitForFunction(() =>
    /超过了本页 WebAssembly 内存最多能容纳的 4 GiB/.test(document.getElementById('files-status').textContent),
  );
  await forwardOn([11, 12, 13, 14]);
  assert.deepEqual(errors, []);
  await page.close();
});
