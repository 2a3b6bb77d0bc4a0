// A Chinese reader meets Chinese on every error path: a forward pass the core
// refuses (a token id past the vocabulary), a generation it refuses (sampling
// at temperature 0), a training run it refuses (a MoE model) and a config.json
// that is not for its weights each say what is wrong, in Chinese, with the
// numbers and names involved, and none shows the English sentence.
// Each line on screen follows a switch to English. Screenshots go to
// test-artifacts/.
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';

import { loadMiniMind } from '../../js/minimind.mjs';
import { ARTIFACTS, openPage, useServedBrowser } from './browser.mjs';

const ROOT = new URL('../../', import.meta.url).pathname;
const PLAYGROUND = 'dist/site/index.html';
const site = useServedBrowser(ROOT);
const mm = await loadMiniMind();

let scratch;
before(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'minimind-errors-zh-'));
});
after(async () => {
  await rm(scratch, { recursive: true, force: true });
});

const HAN = /[\u4e00-\u9fff]/;

// ready: wait for the page's first figure (a page whose first forward fails has none).
async function openPlayground(query, { width = 1400, height = 1000, ready = true } = {}) {
  const { page, errors } = await openPage(site.context);
  await page.setViewportSize({ width, height });
  await page.goto(`${site.url}${PLAYGROUND}?lang=zh-CN${query}`);
  if (ready) await page.waitForSelector('body[data-ready="true"]', { timeout: 30000 });
  return { page, errors };
}

async function computeMessage(page, pattern) {
  await page.waitForFunction((source) => new RegExp(source).test(document.getElementById('compute-message').textContent), pattern.source, {
    timeout: 30000,
  });
  return page.textContent('#compute-message');
}

// A folder of `config` (config.json fields) and the weights of a model of `weightsConfig`.
async function folder(name, config, weightsConfig) {
  const dir = join(scratch, name);
  await mkdir(dir, { recursive: true });
  const model = mm.createModel({ config: weightsConfig, seed: 1 });
  await writeFile(join(dir, 'model.safetensors'), model.safetensors());
  model.dispose();
  await writeFile(join(dir, 'config.json'), JSON.stringify(config));
  return [join(dir, 'config.json'), join(dir, 'model.safetensors')];
}

test('a forward pass the core refuses: the id and the vocabulary in Chinese, then in English after the switch', async () => {
  const { page, errors } = await openPlayground(`&input=ids&text=${encodeURIComponent('5 99999')}`, { ready: false });
  const zh = await computeMessage(page, /99999/);
  assert.match(zh, /^无法计算：token id 99999 不在词表里（有效的 id 是 0–\d+）。$/);
  assert.doesNotMatch(zh, /outside the vocabulary|at position/);
  await page.screenshot({ path: `${ARTIFACTS}error-forward-zh-CN.png` });
  await page.selectOption('#lang', 'en');
  const en = await computeMessage(page, /Could not compute/);
  assert.match(en, /^Could not compute: Token id 99999 is not in the vocabulary \(ids 0–\d+\)\.$/);
  assert.deepEqual(errors, []);
  await page.close();
});

test('a generation the core refuses: the temperature named in Chinese', async () => {
  const { page, errors } = await openPlayground('');
  await page.evaluate(() => {
    const greedy = document.getElementById('gen-greedy');
    greedy.checked = false;
    greedy.dispatchEvent(new Event('change', { bubbles: true }));
    const temperature = document.getElementById('gen-temperature');
    temperature.value = '0';
    temperature.dispatchEvent(new Event('input', { bubbles: true }));
    temperature.dispatchEvent(new Event('change', { bubbles: true }));
  });
  await page.click('#gen-step');
  const zh = await computeMessage(page, /温度/);
  assert.equal(zh, '无法计算：温度必须是正数，这里是 0。');
  assert.ok(HAN.test(zh));
  await page.locator('#compute-message').scrollIntoViewIfNeeded();
  await page.screenshot({ path: `${ARTIFACTS}error-generation-zh-CN.png` });
  await page.selectOption('#lang', 'en');
  assert.equal(await computeMessage(page, /temperature/), 'Could not compute: The temperature must be a positive number, got 0.');
  assert.deepEqual(errors, []);
  await page.close();
});

test('a training run the core refuses: in Chinese in the run bar, and in English after the switch', async () => {
  const moe = {
    hidden_size: 32,
    num_hidden_layers: 1,
    num_attention_heads: 4,
    num_key_value_heads: 2,
    intermediate_size: 64,
    vocab_size: 6400,
    use_moe: true,
    num_experts: 2,
    num_experts_per_tok: 1,
  };
  const paths = await folder('moe', moe, moe);
  const { page, errors } = await openPlayground('');
  await page.setInputFiles('#file-input', paths);
  await page.waitForFunction(() => document.getElementById('files-status').textContent.startsWith('已载入'), null, {
    timeout: 30000,
  });
  await page.click('#open-train');
  await page.check('#train input[name="train-model"][value="loaded"]');
  await page.click('#train [data-train="start"]');
  const message = page.locator('#train .train-bar ~ .message, #train p.message[role="alert"]').first();
  await message.waitFor({ state: 'visible', timeout: 30000 });
  const zh = await message.textContent();
  assert.match(zh, /^训练没能开始：这是一个 MoE 模型（2 个专家），还不能训练：/);
  assert.doesNotMatch(zh, /cannot be trained here/);
  await message.scrollIntoViewIfNeeded();
  await page.screenshot({ path: `${ARTIFACTS}error-training-zh-CN.png` });
  await page.selectOption('#lang', 'en');
  await page.waitForFunction(
    () => document.querySelector('#train p.message[role="alert"]')?.textContent.startsWith('Training could not start'),
    null,
    { timeout: 10000 },
  );
  assert.match(await message.textContent(), /^Training could not start: This is an MoE model \(2 experts\) and cannot be trained yet/);
  assert.deepEqual(errors, []);
  await page.close();
});

test('a config.json for other weights: its cause in one Chinese line, the problems folded under it', async () => {
  const a = mm.presetConfig('lab-a');
  const b = mm.presetConfig('lab-b');
  const paths = await folder('misfit', a, b);
  const { page, errors } = await openPlayground('');
  await page.setInputFiles('#file-input', paths);
  await page.waitForFunction(() => document.getElementById('files-status').classList.contains('error'), null, {
    timeout: 30000,
  });
  const shown = await page.evaluate(() => {
    const details = document.getElementById('files-error-details');
    return {
      status: document.getElementById('files-status').textContent,
      summary: details.querySelector('summary')?.textContent,
      items: [...details.querySelectorAll('.problems li')].map((li) => li.textContent),
    };
  });
  assert.match(
    shown.status,
    new RegExp(
      `^无法载入这些文件：config\\.json 写的 hidden_size 是 ${a.hidden_size}，权重里却是 ${b.hidden_size}：这份 config\\.json 不是这套权重的。`,
    ),
  );
  assert.doesNotMatch(shown.status, /has shape|expected \(/);
  assert.ok(shown.items.length >= 2, shown.items.join('\n'));
  assert.match(shown.summary, new RegExp(`^其余问题（${shown.items.length} 条）`));
  assert.ok(
    shown.items.every((item) => HAN.test(item)),
    shown.items.join('\n'),
  );
  assert.ok(
    shown.items.some((item) => item.startsWith('张量 model.embed_tokens.weight 的形状是')),
    shown.items.join('\n'),
  );
  await page.click('#files-error-details summary');
  await page.locator('#files-status').scrollIntoViewIfNeeded();
  await page.screenshot({ path: `${ARTIFACTS}error-misfit-zh-CN.png` });
  assert.deepEqual(errors, []);
  await page.close();
});

test('a config edited in the page: its problems in Chinese, in English after the switch', async () => {
  const { page, errors } = await openPlayground(`&preset=lab-a&text=${encodeURIComponent('a b c')}`);
  await page.click('#config summary');
  await page.fill('#config input[name="num_attention_heads"]', '6');
  await page.waitForFunction(() => document.querySelectorAll('#config-problems li').length > 0, null, { timeout: 30000 });
  const zh = await page.$$eval('#config-problems li', (items) => items.map((li) => li.textContent));
  assert.ok(
    zh.includes('hidden_size（64）不能被 num_attention_heads（6）整除（head_dim = hidden_size / num_attention_heads）'),
    zh.join(' | '),
  );
  assert.ok(
    zh.every((line) => HAN.test(line)),
    zh.join(' | '),
  );
  await page.selectOption('#lang', 'en');
  await page.waitForFunction(() => document.getElementById('config-problems').textContent.includes('is not divisible'), null, {
    timeout: 10000,
  });
  assert.deepEqual(errors, []);
  await page.close();
});
