// The CLI end to end: each command run as a real process on the Wasm module.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { promisify } from 'node:util';

import { tokenId } from '../../js/preset_tokens.mjs';
import { assertClose, loadCase, rows } from './helpers.mjs';

const CLI = fileURLToPath(new URL('../../js/cli.mjs', import.meta.url));
const run = promisify(execFile);

async function cli(...args) {
  try {
    const { stdout, stderr } = await run(process.execPath, [CLI, ...args], { maxBuffer: 256 << 20 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    return { code: error.code, stdout: error.stdout, stderr: error.stderr };
  }
}

// stderr without the line every successful command ends with: which build ran.
function beforeBuildLine(stderr) {
  const last = /minimind: build [\w-]+, \d+ threads?\n$/;
  assert.match(stderr, last);
  return stderr.replace(last, '');
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

test("run --text tokenizes a preset's text as the page does and labels the matrices with the words", async () => {
  const { code, stdout } = await cli('run', '--preset', 'lab-b', '--text', '小明 把 苹果 给了 小红 ， 她 很 开心');
  assert.equal(code, 0);
  const words = ['小明', '把', '苹果', '给了', '小红', '，', '她', '很', '开心'];
  const line = words.map((w) => `${w}\\(${tokenId(w, 128)}\\)`).join(' '); // lab-b has 128 ids
  assert.match(stdout, new RegExp(`^tokens: ${line}$`, 'm'));
  assert.match(stdout, /layer 1, head 5: attention weights/);
  const json = JSON.parse((await cli('run', '--text', 'a b a', '--json')).stdout);
  const [a, b] = [tokenId('a', 128), tokenId('b', 128)]; // lab-a, the default preset, has 128 ids too
  assert.notEqual(a, b);
  assert.deepEqual(json.ids, [a, b, a]);
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
  assert.match(hostile.stderr, /^minimind: hostile_os_system\.pth: pickle opcode GLOBAL '\w+ system' is not allowed/);
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

test("--model *_resume.pth loads MiniMind's resume checkpoint and stderr says what was inferred and assumed", async () => {
  const c = loadCase('gen2_dense');
  const resume = fileURLToPath(new URL('../fixtures/pth/pretrain_32_resume.pth', import.meta.url));
  const ids = rows(c.expected.tensors.input_ids)[0];
  const [, T, V] = c.expected.tensors.logits.shape;
  const expected = c.expected.tensors.logits.data.subarray(0, T * V);
  for (const flags of [
    ['--heads', '4'],
    ['--kv-heads', '1'],
  ]) {
    const out = await cli('run', '--model', resume, ...flags, '--eps', '1e-5', '--ids', ids.join(','), '--json');
    assert.equal(out.code, 0, out.stderr);
    assertClose(JSON.parse(out.stdout).logits.flat(), expected, { what: `resume ${flags.join(' ')}` });
    assert.match(out.stderr, /^minimind: note: pretrain_32_resume\.pth is MiniMind's resume checkpoint \(a dict of model, optimizer, /m);
    assert.match(out.stderr, /^minimind: note: no config\.json: the config of pretrain_32_resume\.pth is inferred from its tensors$/m);
    assert.match(out.stderr, /^minimind: {3}read from the tensors: hidden_size 32, num_hidden_layers 2, /m);
    assert.match(out.stderr, /^minimind: {3}from your flags: .*rms_norm_eps 0\.00001 \(--eps\)/m);
    assert.match(
      out.stderr,
      /^minimind: {3}assumed, MiniMind's defaults: rope_theta 1000000 \(--rope-theta\), max_position_embeddings 32768 \(--max-position-embeddings\), inference_rope_scaling false \(--rope-scaling\)$/m,
    );
  }
  // Without --heads, the default 8 heads is named with its flag; every assumption has one.
  const guess = await cli('info', '--model', resume);
  assert.equal(guess.code, 0, guess.stderr);
  assert.match(
    guess.stderr,
    /assumed, MiniMind's defaults: num_attention_heads 8 \(--heads N; .* or give --kv-heads N\), rms_norm_eps 0\.00001 \(--eps\)/,
  );
  const all = await cli(
    'info',
    '--model',
    resume,
    '--heads',
    '4',
    '--eps',
    '1e-5',
    '--rope-theta',
    '1e4',
    '--max-position-embeddings',
    '4096',
    '--rope-scaling',
  );
  assert.equal(all.code, 0, all.stderr);
  assert.doesNotMatch(all.stderr, /assumed/);
  assert.match(
    all.stderr,
    /rope_theta 10000 \(--rope-theta\), max_position_embeddings 4096 \(--max-position-embeddings\), inference_rope_scaling true \(--rope-scaling\)/,
  );
  // An MoE checkpoint's routing is assumed too, with its flags.
  const moe = await cli('info', '--model', fileURLToPath(new URL('../fixtures/gen2_moe/model.pth', import.meta.url)), '--heads', '4');
  assert.match(moe.stderr, /num_experts_per_tok 2 \(--moe-top-k\), norm_topk_prob true \(--norm-topk-prob\)/);
  const moe1 = await cli(
    'info',
    '--model',
    fileURLToPath(new URL('../fixtures/gen2_moe/model.pth', import.meta.url)),
    '--heads',
    '4',
    '--moe-top-k',
    '1',
    '--norm-topk-prob',
    'false',
    '--json',
  );
  assert.equal(JSON.parse(moe1.stdout).num_experts_per_tok, 1);
  assert.equal(JSON.parse(moe1.stdout).norm_topk_prob, false);
  // The flags are for an inferred config only.
  const usage = [
    [['info', '--preset', 'lab-a', '--kv-heads', '2'], /--kv-heads goes with --model FILE\.pth/],
    [['info', '--model', fileURLToPath(c.dir), '--heads', '4'], /--heads: these flags are for a config inferred from a \.pth/],
    [['info', '--model', resume, '--norm-topk-prob', 'maybe'], /--norm-topk-prob must be true or false/],
    [['info', '--model', resume, '--eps', '0'], /--eps must be a positive number/],
  ];
  for (const [args, pattern] of usage) {
    const out = await cli(...args);
    assert.equal(out.code, 2, `${args.join(' ')}: ${out.stderr}`);
    assert.match(out.stderr, pattern);
  }
});

test('config.json: unknown keys are warned about, infinite or float32-zero values refused, a differing tied head warned', async (t) => {
  const { mkdtempSync, rmSync, writeFileSync, copyFileSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const c = loadCase('gen2_dense');
  const dir = mkdtempSync(join(tmpdir(), 'minimind-config-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  copyFileSync(new URL('model.safetensors', c.dir), join(dir, 'model.safetensors'));
  const withConfig = (extra) => writeFileSync(join(dir, 'config.json'), JSON.stringify({ ...JSON.parse(c.config), ...extra }));

  withConfig({ num_attention_head: 4, dropout: 0 });
  const typo = await cli('run', '--model', dir, '--ids', '3,4');
  assert.equal(typo.code, 0, typo.stderr);
  assert.equal(
    beforeBuildLine(typo.stderr),
    'minimind: warning: config.json key "num_attention_head" is not a MiniMind config key and was ignored (a typo?)\n',
  );

  writeFileSync(join(dir, 'config.json'), c.config.replace(/"rope_theta": [^,]+/, '"rope_theta": 1e999'));
  const infinite = await cli('info', '--model', dir);
  assert.equal(infinite.code, 1);
  assert.match(
    infinite.stderr,
    /^minimind: rope_theta is 1e999, beyond the range of a float64 \(JSON numbers past about 1\.8e308 would read as infinity\): give a finite number\n$/,
  );
  withConfig({ rms_norm_eps: 1e-50 });
  const zero = await cli('info', '--model', dir);
  assert.equal(zero.code, 1);
  assert.match(zero.stderr, /^minimind: rms_norm_eps 1e-50 rounds to 0 in float32/);

  // Tied, with a file whose lm_head.weight is not the embedding: lm_head.weight is used, as MiniMind's load_state_dict leaves it.
  withConfig({});
  const bytes = new Uint8Array(readFileSync(new URL('model.safetensors', c.dir)));
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const n = Number(view.getBigUint64(0, true));
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + n)));
  assert.equal(header['lm_head.weight'], undefined, 'the fixture stores the tied embedding once');
  const [begin, end] = header['model.embed_tokens.weight'].data_offsets;
  const head = bytes.slice(8 + n + begin, 8 + n + end);
  for (let i = 1; i < head.length; i += 2) head[i] ^= 0x80; // F16 sign bits: lm_head = -embedding
  const withHead = (embedding) => {
    const entries = {
      ...header,
      'lm_head.weight': {
        ...header['model.embed_tokens.weight'],
        data_offsets: [bytes.length - 8 - n, bytes.length - 8 - n + head.length],
      },
    };
    const text = JSON.stringify(entries).padEnd(n + 64, ' ');
    const out = new Uint8Array(8 + text.length + (bytes.length - 8 - n) + head.length);
    new DataView(out.buffer).setBigUint64(0, BigInt(text.length), true);
    out.set(new TextEncoder().encode(text), 8);
    out.set(bytes.subarray(8 + n), 8 + text.length);
    if (embedding) out.set(embedding, 8 + text.length + begin);
    out.set(head, 8 + text.length + (bytes.length - 8 - n));
    return out;
  };
  writeFileSync(join(dir, 'model.safetensors'), withHead(null));
  const differing = await cli('run', '--model', dir, '--ids', '3,4,5', '--json');
  assert.equal(differing.code, 0, differing.stderr);
  assert.match(
    differing.stderr,
    /^minimind: warning: tie_word_embeddings is true, but this file's lm_head\.weight differs from its model\.embed_tokens\.weight: .* the model uses lm_head\.weight for both/,
  );
  writeFileSync(join(dir, 'model.safetensors'), withHead(head));
  const same = await cli('run', '--model', dir, '--ids', '3,4,5', '--json');
  assert.match(same.stderr, /^minimind: build [\w-]+, \d+ threads?\n$/, 'no warning: only the build that ran');
  assert.deepEqual(JSON.parse(differing.stdout).logits, JSON.parse(same.stdout).logits);
});

test("--chat renders the model folder's tokenizer_config.json, else MiniMind's template of its generation", async (t) => {
  const { copyFileSync, mkdtempSync, rmSync, writeFileSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const { loadMiniMind } = await import('../../js/minimind.mjs');
  const { chatPrompt } = await import('../../js/chat_template.mjs');
  const mm = await loadMiniMind();
  const tokenizerJson = new URL('../../models/minimind-tokenizer/tokenizer.json', import.meta.url);
  const tokenizer = mm.loadTokenizer(readFileSync(tokenizerJson, 'utf8'));
  t.after(() => tokenizer.dispose());
  // A small generation-3 model with MiniMind's vocabulary.
  const dir = mkdtempSync(join(tmpdir(), 'minimind-chat-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const model = mm.createModel({ config: { ...mm.presetConfig('lab-a'), vocab_size: 6400 } });
  writeFileSync(join(dir, 'config.json'), model.configJson());
  writeFileSync(join(dir, 'model.safetensors'), model.safetensors());
  model.dispose();
  copyFileSync(tokenizerJson, join(dir, 'tokenizer.json'));
  const prompt = async (...flags) => {
    const out = await cli('generate', '--model', dir, '--text', '你好', '--chat', ...flags, '--greedy', '--max-new-tokens', '1', '--json');
    assert.equal(out.code, 0, out.stderr);
    return JSON.parse(out.stdout).prompt;
  };
  // No tokenizer_config.json in the folder: the shipped one (generation 3).
  assert.deepEqual(await prompt(), tokenizer.encode('<|im_start|>user\n你好<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n'));
  assert.deepEqual(await prompt('--thinking'), tokenizer.encode('<|im_start|>user\n你好<|im_end|>\n<|im_start|>assistant\n<think>\n'));
  // The folder's own template wins.
  writeFileSync(join(dir, 'tokenizer_config.json'), JSON.stringify({ chat_template: '<|im_start|>Q:{{ messages[0].content }}' }));
  assert.deepEqual(await prompt(), tokenizer.encode('<|im_start|>Q:你好'));
  // A generation-2 model without a tokenizer_config.json: MiniMind2's template, with its default system message.
  const gen2 = await cli(
    'generate',
    '--preset',
    'minimind2-small',
    '--tokenizer',
    fileURLToPath(tokenizerJson),
    '--text',
    '你好',
    '--chat',
    '--greedy',
    '--max-new-tokens',
    '1',
    '--json',
  );
  assert.deepEqual(JSON.parse(gen2.stdout).prompt, tokenizer.encode(chatPrompt('你好', { generation: 2 })));
  assert.match(chatPrompt('你好', { generation: 2 }), /^<\|im_start\|>system\nYou are a helpful assistant<\|im_end\|>\n/);
  const noChat = await cli('generate', '--preset', 'lab-a', '--ids', '1', '--thinking');
  assert.equal(noChat.code, 2);
  assert.match(noChat.stderr, /--thinking goes with --chat/);
});

// npm run test:quick builds no threads module (scripts/test_quick.sh).
const needsThreadsBuild = { skip: process.env.MINIMIND_TEST_TIER === 'quick' && 'needs the threads build' };

test('--threads N computes the same numbers on N threads, and refuses a count it cannot use', needsThreadsBuild, async () => {
  const demo = fileURLToPath(new URL('../../models/minimind-demo', import.meta.url));
  const args = ['run', '--model', demo, '--text', '小明把苹果给了小红，她很开心', '--json'];
  const one = await cli(...args, '--threads', '1');
  const two = await cli(...args, '--threads', '2');
  assert.equal(one.code, 0, one.stderr);
  assert.equal(two.code, 0, two.stderr);
  assert.deepEqual(JSON.parse(two.stdout), JSON.parse(one.stdout));
  const zero = await cli(...args, '--threads', '0');
  assert.equal(zero.code, 2);
  assert.match(zero.stderr, /--threads must be at least 1/);
  const many = await cli(...args, '--threads', '17');
  assert.equal(many.code, 2);
  assert.match(many.stderr, /--threads must be between 1 and 16, got 17/);
});

test('--build picks the build, and stderr says which ran; a build this Node cannot run is refused by name', async () => {
  const logits = async (...args) => {
    const out = await cli('run', '--preset', 'lab-a', '--ids', '3,4,5', '--json', ...args);
    assert.equal(out.code, 0, out.stderr);
    return { logits: JSON.parse(out.stdout).logits, said: out.stderr.trim().split('\n').at(-1) };
  };
  const simd = await logits('--build', 'simd');
  assert.equal(simd.said, 'minimind: build simd, 1 thread');
  const threads = await logits('--build', 'simd', '--threads', '2');
  assert.equal(threads.said, 'minimind: build threads, 2 threads');
  assert.deepEqual(threads.logits, simd.logits, 'the same bits on 2 threads');
  const auto = await logits();
  assert.match(auto.said, /^minimind: build (simd|relaxed|threads|relaxed-threads), \d+ threads?$/);

  // This Node without the V8 flag: relaxed SIMD may be missing, and then --build relaxed says so.
  const { relaxedSimdSupported } = await import('../../js/minimind.mjs');
  const relaxed = await cli('run', '--preset', 'lab-a', '--ids', '3,4,5', '--build', 'relaxed');
  if (relaxedSimdSupported()) assert.match(relaxed.stderr, /minimind: build relaxed, 1 thread\n$/);
  else {
    assert.equal(relaxed.code, 1);
    assert.match(relaxed.stderr, /^minimind: the relaxed build needs relaxed SIMD/);
  }
  // With relaxed SIMD switched on in V8, the relaxed build runs and says so.
  const { stderr } = await run(process.execPath, [
    '--experimental-wasm-relaxed-simd',
    CLI,
    'run',
    '--preset',
    'lab-a',
    '--ids',
    '3,4',
    '--build',
    'relaxed',
  ]);
  assert.match(stderr, /minimind: build relaxed, 1 thread\n$/);

  const bad = await cli('run', '--preset', 'lab-a', '--ids', '3', '--build', 'fast');
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--build must be one of auto, simd, relaxed, scalar, threads, relaxed-threads, got "fast"/);
});
