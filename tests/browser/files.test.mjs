// Bring your own MiniMind, in the page: files given through the file
// chooser, a greedy continuation compared with the PyTorch reference, a .pth
// with its config inferred, MiniMind's real tokenizer, and hostile files
// that leave the previous model working.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';

import { serve } from '../../scripts/serve.mjs';
import { loadCase, rows } from '../node/helpers.mjs';
import { launchBrowser, openPage } from './browser.mjs';

const SITE = new URL('../../dist/site/', import.meta.url).pathname;
const ARTIFACTS = new URL('../../test-artifacts/', import.meta.url).pathname;
const TOKENIZER = fileURLToPath(new URL('../../models/minimind-tokenizer/tokenizer.json', import.meta.url));

let server;
let browser;
let scratch;

before(async () => {
  server = await serve(SITE);
  browser = await launchBrowser();
  scratch = await mkdtemp(join(tmpdir(), 'minimind-files-'));
});

after(async () => {
  await browser?.close();
  await server?.close();
  await rm(scratch, { recursive: true, force: true });
});

async function openPlayground(query = '') {
  const { page, errors } = await openPage(browser.context);
  await page.setViewportSize({ width: 1400, height: 1000 });
  await page.goto(`${server.url}${query}`);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 30000 });
  return { page, errors };
}

async function giveFiles(page, paths, expected = /^Loaded /) {
  await page.setInputFiles('#file-input', paths);
  await page.waitForFunction((source) => new RegExp(source).test(document.getElementById('files-status').textContent), expected.source, {
    timeout: 30000,
  });
}

function tableHeads(page) {
  return page.$$eval('#matrix-table thead th', (ths) => ths.slice(1).map((th) => th.textContent));
}

test('a MiniMind folder (config.json + model.safetensors): same attention and the same greedy continuation as PyTorch', async () => {
  const c = loadCase('gen2_dense');
  const dir = fileURLToPath(c.dir);
  const { page, errors } = await openPlayground('?input=ids&text=3%204%205');
  await giveFiles(page, [join(dir, 'config.json'), join(dir, 'model.safetensors')]);
  assert.match(await page.textContent('#files-status'), /^Loaded model\.safetensors: weights take 0\.\d MiB in memory/);
  const ids = rows(c.expected.tensors.input_ids)[0];
  await page.fill('#text', ids.join(' '));
  await page.waitForFunction((n) => document.querySelectorAll('#matrix-table thead th').length === n + 1, ids.length);
  // Layer 1, head 3: every weight against the reference (batch row 0).
  await page.selectOption('#layer', '1');
  await page.selectOption('#head', '3');
  const weights = await page.$$eval('#matrix-table tbody tr', (trs) =>
    trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => (td.dataset.value === undefined ? 0 : Number(td.dataset.value)))),
  );
  const expected = c.expected.tensors['attn_weights.1'];
  const [, H, T] = expected.shape;
  for (let i = 0; i < T; i += 1) {
    for (let j = 0; j < T; j += 1) {
      const want = expected.data[(3 * T + i) * T + j];
      assert.ok(Math.abs(weights[i][j] - want) <= 1e-5 + 1e-4 * Math.abs(want), `cell ${i},${j}: ${weights[i][j]} vs ${want}`);
    }
  }
  assert.equal(H, 4);

  // Generate 8 tokens greedily from the reference prompt, one Step at a time.
  const prompt = Array.from(c.expected.tensors['greedy.prompt'].data);
  await page.fill('#text', prompt.join(' '));
  await page.waitForFunction((n) => document.querySelectorAll('#matrix-table thead th').length === n + 1, prompt.length);
  for (let k = 1; k <= 8; k += 1) {
    await page.click('#gen-step');
    await page.waitForFunction((n) => document.querySelectorAll('#matrix-table thead th').length === n + 1, prompt.length + k);
  }
  const generated = (await tableHeads(page)).slice(prompt.length).map((label) => Number(label.slice(1)));
  assert.deepEqual(generated, Array.from(c.expected.tensors['greedy.ids'].data));
  // The newest row is a real attention row; older rows see it as masked.
  const table = await page.$$eval('#matrix-table tbody tr', (trs) =>
    trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.dataset.masked === 'true')),
  );
  assert.equal(table.at(-1).includes(true), false);
  assert.equal(table[0].at(-1), true);
  assert.match(
    await page.textContent('#gen-cache'),
    /^KV cache: 12 tokens, per layer k and v of shape \[12, 1, 8\] × 2 layers = 1\.5 KiB$/,
  );
  assert.equal(await page.$$eval('#gen-candidates li', (items) => items.length), 5);
  await page.screenshot({ path: `${ARTIFACTS}generation.png`, fullPage: true });
  assert.deepEqual(errors, []);
  await page.close();
});

test('a .pth alone loads with its config inferred; a hostile .pth is refused and the old model keeps working', async () => {
  const c = loadCase('gen3_dense');
  const dir = fileURLToPath(c.dir);
  const { page, errors } = await openPlayground('?input=ids&text=5%206%207');
  await giveFiles(page, [join(dir, 'model.pth')]);
  assert.match(await page.textContent('#files-status'), /Not in the file, assumed: .*rope_theta/);
  // generation 3: q_norm gives head_dim, so the head count is read, not asked for
  assert.equal(await page.isVisible('#pth-hints'), false);
  const ids = rows(c.expected.tensors.input_ids)[0];
  await page.fill('#text', ids.join(' '));
  await page.waitForFunction((n) => document.querySelectorAll('#matrix-table thead th').length === n + 1, ids.length);
  const first = await page.$$eval('#matrix-table tbody tr', (trs) =>
    [...trs[2].querySelectorAll('td')].map((td) => Number(td.dataset.value ?? 0)),
  );
  const expected = c.expected.tensors['attn_weights.0'];
  const T = expected.shape[2];
  first.forEach((w, j) => assert.ok(Math.abs(w - expected.data[2 * T + j]) < 2e-5, `weight ${j}`));

  await giveFiles(page, [fileURLToPath(new URL('../fixtures/pth/hostile_os_system.pth', import.meta.url))], /Could not load/);
  assert.match(
    await page.textContent('#files-status'),
    /Pickle opcode GLOBAL '\w+ system' is not allowed.*data\.pkl byte \d+.*The previous model is still in use/,
  );
  await page.fill('#text', ids.slice(0, 3).join(' '));
  await page.waitForFunction(() => document.querySelectorAll('#matrix-table thead th').length === 4);
  await giveFiles(page, [join(dir, 'model.safetensors')], /needs its config\.json/);
  assert.deepEqual(errors, []);
  await page.close();
});

// A small model with MiniMind's vocabulary (6400), random F32 weights, as a
// folder with MiniMind's real tokenizer.json.
async function tinyFolderWithTokenizer() {
  const D = 32,
    H = 4,
    KV = 2,
    DH = 8,
    F = 64,
    V = 6400;
  const config = {
    hidden_size: D,
    num_hidden_layers: 1,
    num_attention_heads: H,
    num_key_value_heads: KV,
    head_dim: DH,
    intermediate_size: F,
    vocab_size: V,
  };
  const shapes = {
    'model.embed_tokens.weight': [V, D],
    'model.layers.0.input_layernorm.weight': [D],
    'model.layers.0.self_attn.q_proj.weight': [H * DH, D],
    'model.layers.0.self_attn.k_proj.weight': [KV * DH, D],
    'model.layers.0.self_attn.v_proj.weight': [KV * DH, D],
    'model.layers.0.self_attn.o_proj.weight': [D, H * DH],
    'model.layers.0.self_attn.q_norm.weight': [DH],
    'model.layers.0.self_attn.k_norm.weight': [DH],
    'model.layers.0.post_attention_layernorm.weight': [D],
    'model.layers.0.mlp.gate_proj.weight': [F, D],
    'model.layers.0.mlp.up_proj.weight': [F, D],
    'model.layers.0.mlp.down_proj.weight': [D, F],
    'model.norm.weight': [D],
  };
  const header = {};
  const chunks = [];
  let offset = 0;
  let state = 12345;
  for (const [name, shape] of Object.entries(shapes)) {
    const n = shape.reduce((a, b) => a * b, 1);
    const values = new Float32Array(n).map(() => {
      state = (state * 1103515245 + 12345) % 2 ** 31;
      return name.endsWith('norm.weight') ? 1 : state / 2 ** 31 - 0.5;
    });
    chunks.push(new Uint8Array(values.buffer));
    header[name] = { dtype: 'F32', shape, data_offsets: [offset, offset + values.byteLength] };
    offset += values.byteLength;
  }
  const json = Buffer.from(JSON.stringify(header));
  const length = Buffer.alloc(8);
  length.writeBigUInt64LE(BigInt(json.length));
  const dir = await mkdtemp(join(scratch, 'tiny-'));
  await writeFile(join(dir, 'config.json'), JSON.stringify(config));
  await writeFile(join(dir, 'model.safetensors'), Buffer.concat([length, json, ...chunks]));
  return dir;
}

test('with tokenizer.json the text is encoded by MiniMind’s tokenizer, and chips show readable pieces', async () => {
  const dir = await tinyFolderWithTokenizer();
  const { page, errors } = await openPlayground();
  await giveFiles(page, [join(dir, 'config.json'), join(dir, 'model.safetensors'), TOKENIZER]);
  assert.match(await page.textContent('#files-status'), /with its tokenizer/, await page.textContent('#files-status'));
  await page.fill('#text', '你好，世界');
  // MiniMind's bos first, as MiniMind feeds a pretrained model (eval_llm.py: bos_token + prompt).
  await page.waitForFunction(() => document.querySelectorAll('#chips .chip').length === 4);
  const chips = await page.$$eval('#chips .chip', (items) =>
    items.map((li) => [li.querySelector('.chip-text').textContent, li.querySelector('.chip-id').textContent]),
  );
  assert.deepEqual(chips, [
    ['<|im_start|>', '#1'],
    ['你好', '#1968'],
    ['，', '#294'],
    ['世界', '#1950'],
  ]);
  assert.deepEqual(await tableHeads(page), ['<|im_start|>', '你好', '，', '世界']);
  // The chat template wraps the prompt for generation.
  await page.check('#gen-chat');
  await page.click('#gen-step');
  await page.waitForFunction(() => document.getElementById('gen-status').textContent.startsWith('Step 1'));
  const heads = await tableHeads(page);
  assert.equal(heads[0], '<|im_start|>');
  assert.ok(heads.join('').includes('<|im_end|>\n<|im_start|>assistant\n'), heads.join('|'));
  assert.deepEqual(errors, []);
  await page.close();
});
