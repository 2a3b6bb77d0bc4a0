// The CLI end to end: each command run as a real process on the Wasm module.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { promisify } from 'node:util';

import { assertClose, loadCase, rows } from './helpers.mjs';

const CLI = fileURLToPath(new URL('../../js/cli.mjs', import.meta.url));
const run = promisify(execFile);

async function cli(...args) {
  try {
    const { stdout, stderr } = await run(process.execPath, [CLI, ...args]);
    return { code: 0, stdout, stderr };
  } catch (error) {
    return { code: error.code, stdout: error.stdout, stderr: error.stderr };
  }
}

test('run --model DIR --json prints attention and logits equal to the PyTorch reference', async () => {
  const c = loadCase('gen3_moe');
  const ids = rows(c.expected.tensors.input_ids)[1];
  const { code, stdout } = await cli('run', '--model', fileURLToPath(c.dir), '--ids', ids.join(','), '--json');
  assert.equal(code, 0);
  const out = JSON.parse(stdout);
  assert.deepEqual(out.ids, ids);
  const [, H, T] = c.expected.tensors['attn_weights.0'].shape;
  const V = c.expected.tensors.logits.shape[2];
  assert.equal(out.attention.length, 2); // [layer][head][query][key]
  for (let layer = 0; layer < 2; layer += 1) {
    assert.equal(out.attention[layer].length, H);
    const expected = c.expected.tensors[`attn_weights.${layer}`].data.subarray(H * T * T, 2 * H * T * T); // batch row 1
    assertClose(out.attention[layer].flat(2), expected, { what: `layer ${layer} attention` });
  }
  assert.equal(out.logits.length, T);
  assertClose(out.logits.flat(), c.expected.tensors.logits.data.subarray(T * V, 2 * T * V), { what: 'logits' });
});

test('run --text splits on whitespace and labels the matrices with the words', async () => {
  const { code, stdout } = await cli('run', '--preset', 'lab-b', '--text', '小明 把 苹果 给了 小红 ， 她 很 开心');
  assert.equal(code, 0);
  assert.match(stdout, /^tokens: 小明\(3\) 把\(4\) 苹果\(5\) 给了\(6\) 小红\(7\) ，\(8\) 她\(9\) 很\(10\) 开心\(11\)$/m);
  assert.match(stdout, /layer 1, head 5: attention weights/);
  const json = JSON.parse((await cli('run', '--text', 'a b a', '--json')).stdout);
  assert.deepEqual(json.ids, [3, 4, 3]);
  assert.deepEqual(json.attention[0][0][0], [1, 0, 0]);
});

test('generate --greedy --json gives the reference continuation', async () => {
  const c = loadCase('gen2_dense');
  const prompt = Array.from(c.expected.tensors['greedy.prompt'].data);
  const { code, stdout } = await cli(
    'generate',
    '--model',
    fileURLToPath(c.dir),
    '--ids',
    prompt.join(','),
    '--greedy',
    '--max-new-tokens',
    '8',
    '--json',
  );
  assert.equal(code, 0);
  const out = JSON.parse(stdout);
  assert.deepEqual(out.generated, Array.from(c.expected.tensors['greedy.ids'].data));
  assert.deepEqual(out.ids, [...prompt, ...out.generated]);
  const penalised = JSON.parse(
    (await cli('generate', '--model', fileURLToPath(c.dir), '--ids', prompt.join(','), '--greedy', '--repetition-penalty', '1.3', '--json'))
      .stdout,
  );
  assert.deepEqual(penalised.generated, Array.from(c.expected.tensors['greedy_penalty.ids'].data));
});

test('lab prints the lesson 11 record lines, computed by the module', async () => {
  const a = await cli('lab', '--preset', 'lab-a');
  assert.equal(a.code, 0);
  for (const line of [
    'x.shape=(2, 5, 64)',
    'q_proj(x).shape=(2, 5, 64)',
    'k_proj(x).shape=(2, 5, 32)',
    'v_proj(x).shape=(2, 5, 32)',
    'scores.shape=(2, 4, 5, 5)',
    'future_attention_mass_for_batch0_head0=0.0000000000',
  ]) {
    assert.ok(a.stdout.split('\n').includes(line), `missing "${line}"`);
  }
  const diff = Number(/manual_vs_module_max_abs_diff=([0-9.]+)/.exec(a.stdout)[1]);
  assert.ok(diff < 1e-5);
  const b = await cli('lab', '--preset', 'lab-b');
  assert.match(b.stdout, /^head_dim=16$/m);
  assert.match(b.stdout, /^k_proj\(x\)\.shape=\(2, 5, 48\)$/m);
  assert.match(b.stdout, /^scores\.shape=\(2, 6, 5, 5\)$/m);
  // A different seed gives other weights, so another matrix.
  const seeded = await cli('lab', '--preset', 'lab-a', '--seed', '5');
  assert.notEqual(seeded.stdout.split('\n').slice(11, 15).join(), a.stdout.split('\n').slice(11, 15).join());
});

test('info --json reports the config, derived shapes and parameter count', async () => {
  const out = JSON.parse((await cli('info', '--preset', 'minimind-3', '--json')).stdout);
  assert.equal(out.head_dim, 96);
  assert.deepEqual(out.derived.k_proj, [384, 768]);
  assert.ok(out.parameters > 60e6 && out.parameters < 68e6);
  const text = (await cli('info', '--model', fileURLToPath(loadCase('untied_theta1e4').dir))).stdout;
  assert.match(text, /q_proj \[64,32\]/);
});

test('errors print one clear line and exit non-zero', async () => {
  const cases = [
    [
      ['run', '--preset', 'lab-a', '--ids', '1,2,999'],
      1,
      /^minimind: token id 999 at position 2 is outside the vocabulary \(0\.\.127\)\n$/,
    ],
    [['run', '--preset', 'nope', '--ids', '1'], 1, /^minimind: unknown preset "nope"/],
    [['run', '--model', '/nonexistent-dir', '--ids', '1'], 1, /^minimind: no config\.json in \/nonexistent-dir\n$/],
    [['run', '--model', fileURLToPath(new URL('../fixtures/', import.meta.url)), '--ids', '1'], 1, /no config\.json/],
    [['run', '--preset', 'lab-a', '--ids', '1,x'], 2, /--ids must be comma-separated/],
    [['run', '--preset', 'lab-a', '--text', '   '], 2, /--text holds no tokens/],
    [['run', '--preset', 'lab-a'], 2, /give the input as --ids/],
    [['frobnicate'], 2, /unknown command "frobnicate"/],
    [['run', '--bogus'], 2, /Unknown option '--bogus'/],
    [['generate', '--preset', 'lab-a', '--ids', '1', '--temperature', 'hot'], 2, /--temperature must be a number/],
    [['generate', '--preset', 'lab-a', '--ids', '1', '--temperature=-1'], 1, /temperature must be a positive number/],
  ];
  for (const [args, code, pattern] of cases) {
    const out = await cli(...args);
    assert.equal(out.code, code, `${args.join(' ')}: exit ${out.code}, stderr ${out.stderr}`);
    assert.match(out.stderr, pattern, args.join(' '));
  }
});

test('a real tokenizer encodes --text, labels the matrices, and decodes what generate writes', async () => {
  const tokenizer = fileURLToPath(new URL('../../models/minimind-tokenizer/tokenizer.json', import.meta.url));
  const run1 = await cli('run', '--preset', 'minimind2-small', '--tokenizer', tokenizer, '--text', '你好，世界', '--json');
  assert.equal(run1.code, 0, run1.stderr);
  const out = JSON.parse(run1.stdout);
  assert.deepEqual(out.tokens, ['<|im_start|>', '你好', '，', '世界'], 'bos first, as MiniMind feeds a pretrained model');
  const noBos = JSON.parse(
    (await cli('run', '--preset', 'minimind2-small', '--tokenizer', tokenizer, '--text', '你好', '--no-bos', '--json')).stdout,
  );
  assert.deepEqual(noBos.tokens, ['你好']);
  assert.equal(out.attention.length, 8);
  const gen = JSON.parse(
    (await cli('generate', '--preset', 'lab-b', '--ids', '3,4', '--greedy', '--max-new-tokens', '3', '--json')).stdout,
  );
  assert.equal(gen.text, undefined, 'no tokenizer, no text');
  const chat = await cli(
    'generate',
    '--preset',
    'minimind2-small',
    '--tokenizer',
    tokenizer,
    '--text',
    '你好',
    '--chat',
    '--greedy',
    '--max-new-tokens',
    '2',
    '--json',
  );
  const chatOut = JSON.parse(chat.stdout);
  assert.deepEqual(chatOut.prompt.slice(0, 1), [1], 'the chat template starts with <|im_start|>');
  assert.equal(typeof chatOut.text, 'string');
});

test('--model FILE.pth loads a state dict with its config inferred (or given), and refuses a hostile one', async () => {
  const c = loadCase('gen2_dense');
  const pth = fileURLToPath(new URL('model.pth', c.dir));
  const ids = rows(c.expected.tensors.input_ids)[0];
  const [, T, V] = c.expected.tensors.logits.shape;
  const inferred = await cli('run', '--model', pth, '--heads', '4', '--ids', ids.join(','), '--json');
  assert.equal(inferred.code, 0, inferred.stderr);
  assertClose(JSON.parse(inferred.stdout).logits.flat(), c.expected.tensors.logits.data.subarray(0, T * V), { what: 'inferred' });
  const given = await cli(
    'run',
    '--model',
    pth,
    '--config',
    fileURLToPath(new URL('config.json', c.dir)),
    '--ids',
    ids.join(','),
    '--json',
  );
  assertClose(JSON.parse(given.stdout).logits.flat(), c.expected.tensors.logits.data.subarray(0, T * V), { what: 'with --config' });
  const hostile = await cli('info', '--model', fileURLToPath(new URL('../fixtures/pth/hostile_os_system.pth', import.meta.url)));
  assert.equal(hostile.code, 1);
  assert.match(hostile.stderr, /^minimind: model\.pth: pickle opcode GLOBAL '\w+ system' is not allowed/);
});

test('a folder with pytorch_model.bin (save_pretrained without safetensors) runs like its model.safetensors', async (t) => {
  const { copyFileSync, mkdtempSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const c = loadCase('gen3_dense');
  const dir = mkdtempSync(join(tmpdir(), 'minimind-bin-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  copyFileSync(new URL('config.json', c.dir), join(dir, 'config.json'));
  copyFileSync(new URL('model.pth', c.dir), join(dir, 'pytorch_model.bin'));
  const fromBin = await cli('run', '--model', dir, '--ids', '3,4,5', '--json');
  const fromSafetensors = await cli('run', '--model', fileURLToPath(c.dir), '--ids', '3,4,5', '--json');
  assert.equal(fromBin.code, 0, fromBin.stderr);
  assertClose(JSON.parse(fromBin.stdout).logits.flat(), JSON.parse(fromSafetensors.stdout).logits.flat(), { what: 'logits' });
  // The legacy (non-zip) torch.save format gets its own message.
  const { writeFileSync } = await import('node:fs');
  writeFileSync(join(dir, 'pytorch_model.bin'), Buffer.from([0x80, 0x02, 0x8a, 0x0a, 0x6c, 0xfc, 0x9c, 0x46]));
  const legacy = await cli('run', '--model', dir, '--ids', '3,4,5');
  assert.equal(legacy.code, 1);
  assert.match(legacy.stderr, /legacy \(non-zip\) torch\.save format/);
});
