// A MiniMind exported as Hugging Face Qwen3 (MiniMind's scripts/convert_model.py,
// convert_torch2transformers: config.json with model_type "qwen3" and
// Qwen3ForCausalLM, the same tensor names in model.safetensors, no
// use_qk_norm key) loads from its folder in the CLI and the JS API, with no
// warning, and computes exactly what the same weights compute as a MiniMind folder.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

import { loadMiniMind } from '../../js/minimind.mjs';

const CLI = fileURLToPath(new URL('../../js/cli.mjs', import.meta.url));
const DEMO = fileURLToPath(new URL('../../models/minimind-demo/', import.meta.url));
const TEXT = '小明把苹果给了小红，她很开心';

// convert_torch2transformers's Qwen3Config from a MiniMind config.
function qwen3Config(m) {
  return {
    architectures: ['Qwen3ForCausalLM'],
    attention_bias: false,
    attention_dropout: 0.0,
    bos_token_id: m.bos_token_id,
    eos_token_id: m.eos_token_id,
    head_dim: m.head_dim,
    hidden_act: m.hidden_act,
    hidden_size: m.hidden_size,
    initializer_range: 0.02,
    intermediate_size: m.intermediate_size,
    max_position_embeddings: m.max_position_embeddings,
    max_window_layers: m.num_hidden_layers,
    model_type: 'qwen3',
    num_attention_heads: m.num_attention_heads,
    num_hidden_layers: m.num_hidden_layers,
    num_key_value_heads: m.num_key_value_heads,
    rms_norm_eps: m.rms_norm_eps,
    rope_scaling: null,
    rope_theta: m.rope_theta,
    sliding_window: null,
    tie_word_embeddings: true,
    torch_dtype: 'float16',
    transformers_version: '4.57.1',
    use_cache: true,
    use_sliding_window: false,
    vocab_size: m.vocab_size,
  };
}

function qwen3Folder() {
  const dir = mkdtempSync(join(tmpdir(), 'minimind-qwen3-'));
  const config = JSON.parse(readFileSync(join(DEMO, 'config.json'), 'utf8'));
  writeFileSync(join(dir, 'config.json'), JSON.stringify(qwen3Config(config), null, 2));
  for (const file of ['model.safetensors', 'tokenizer.json', 'tokenizer_config.json']) copyFileSync(join(DEMO, file), join(dir, file));
  return dir;
}

test('the CLI runs a Qwen3 export folder exactly as the MiniMind folder, without warnings', async () => {
  const dir = qwen3Folder();
  try {
    const run = (model) =>
      promisify(execFile)(process.execPath, [CLI, 'run', '--model', model, '--text', TEXT, '--json'], { maxBuffer: 64 << 20 });
    const [qwen3, minimind] = await Promise.all([run(dir), run(DEMO)]);
    assert.doesNotMatch(qwen3.stderr, /warning/i, qwen3.stderr);
    const a = JSON.parse(qwen3.stdout);
    const b = JSON.parse(minimind.stdout);
    assert.deepEqual(a.tokens, b.tokens);
    assert.equal(a.tokens[0], '<|im_start|>');
    assert.deepEqual(a.logits, b.logits);
    assert.deepEqual(a.attention, b.attention);
    const info = await promisify(execFile)(process.execPath, [CLI, 'info', '--model', dir]);
    assert.match(info.stdout, /q\/k norm yes \(generation 3\)/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the JS API loads the Qwen3 config: generation 3, q/k norm from the weights, the same logits', async () => {
  const mm = await loadMiniMind();
  const dir = qwen3Folder();
  try {
    const weights = readFileSync(join(dir, 'model.safetensors'));
    const qwen3 = mm.loadModel({ config: readFileSync(join(dir, 'config.json'), 'utf8'), weights });
    const minimind = mm.loadModel({ config: readFileSync(join(DEMO, 'config.json'), 'utf8'), weights });
    try {
      assert.equal(qwen3.info().use_qk_norm, true);
      assert.deepEqual(qwen3.info().warnings, []);
      const ids = [1, 3432, 5038, 5504, 1116, 423, 700, 2432, 294, 2070];
      assert.deepEqual(Array.from(qwen3.forward(ids).logits.data), Array.from(minimind.forward(ids).logits.data));
    } finally {
      qwen3.dispose();
      minimind.dispose();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
