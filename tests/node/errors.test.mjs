// What the core rejects reaches JS as one error type, MiniMindError, with
// the core's kind and values beside the English message (which is as before),
// and the module stays usable after each. The page words these kinds in zh-CN
// and en (web/error_text.mjs): every kind the core throws here has a template.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { MiniMindError, errorFields, loadMiniMind } from '../../js/minimind.mjs';
import { errorText } from '../../web/error_text.mjs';
import { ERROR_KINDS, ERROR_TERMS } from '../../web/messages/error_terms.mjs';

const mm = await loadMiniMind();

/** The error `run` throws. */
function caught(run) {
  try {
    run();
  } catch (error) {
    return error;
  }
  assert.fail('nothing was thrown');
}

// A text file's first bytes read as a safetensors header length.
function textFile(text) {
  return new TextEncoder().encode(text);
}

function stillWorks() {
  const model = mm.createModel({ preset: 'lab-a', seed: 1 });
  const { logits } = model.forward([1, 2, 3]);
  assert.deepEqual(logits.shape, [1, 3, model.info().vocab_size]);
  model.dispose();
}

test('a safetensors header too long: kind, values and the message as before', () => {
  const bytes = textFile('{"this": "is a config, not weights"}');
  const declared = new DataView(bytes.buffer).getBigUint64(0, true);
  const error = caught(() => mm.loadModel({ config: mm.presetConfig('lab-a'), weights: bytes }));
  assert.ok(error instanceof MiniMindError);
  assert.ok(error instanceof Error);
  assert.equal(error.name, 'MiniMindError');
  assert.equal(error.kind, 'safetensors.header_too_long');
  assert.equal(error.values.limit, 16777216);
  // Past 2^53 the length comes as its exact digits, as the message writes it.
  assert.equal(error.values.length, declared.toString());
  assert.match(error.message, new RegExp(`header length ${declared} exceeds the limit of 16777216 bytes`));
  stillWorks();

  const short = caught(() => mm.loadModel({ config: mm.presetConfig('lab-a'), weights: new Uint8Array([1, 2, 3]) }));
  assert.equal(short.kind, 'safetensors.too_short');
  assert.deepEqual(short.values, { size: 3 });
  assert.match(short.message, /file is 3 bytes/);
});

test('a bad config: config.invalid with each problem kinded', () => {
  const config = { ...mm.presetConfig('lab-a'), num_attention_heads: 6, num_key_value_heads: 4, hidden_act: 'gelu' };
  const error = caught(() => mm.createModel({ config }));
  assert.ok(error instanceof MiniMindError);
  assert.equal(error.kind, 'config.invalid');
  assert.equal(error.values.count, error.problems.length);
  const kinds = error.problems.map((p) => p.kind);
  assert.ok(kinds.includes('config.heads_not_multiple'), kinds.join());
  assert.ok(kinds.includes('config.hidden_act'), kinds.join());
  const heads = error.problems.find((p) => p.kind === 'config.heads_not_multiple');
  assert.deepEqual(heads.values, { heads: 6, kv_heads: 4 });
  assert.match(error.message, /num_attention_heads 6 is not a multiple of num_key_value_heads 4/);
  stillWorks();

  const notJson = caught(() => mm.createModel({ config: '{"hidden_size": ' }));
  assert.equal(notJson.kind, 'config.invalid');
  assert.deepEqual(
    notJson.problems.map((p) => p.kind),
    ['config.not_json'],
  );
});

test('the MoE and float checks of a config are kinded too, and worded in zh without English', () => {
  const moe = mm.presetConfig('minimind-3-moe');
  const error = caught(() => mm.createModel({ config: { ...moe, num_experts_per_tok: moe.num_experts + 5, rms_norm_eps: 0 } }));
  assert.equal(error.kind, 'config.invalid');
  const byKind = Object.fromEntries(error.problems.map((p) => [p.kind, p.values]));
  assert.deepEqual(byKind['config.out_of_range'], { key: 'num_experts_per_tok', value: moe.num_experts + 5, min: 1, max: moe.num_experts });
  assert.deepEqual(byKind['config.not_positive_number'], { key: 'rms_norm_eps', value: '0' });
  const zh = errorText('zh-CN', errorFields(error));
  assert.equal(zh.complete, true);
  assert.doesNotMatch(zh.text, /must be|got/);
  assert.match(zh.text, new RegExp(`num_experts_per_tok 必须在 1 到 ${moe.num_experts} 之间，这里却是 ${moe.num_experts + 5}`));
  stillWorks();
});

test('an id out of range: token_id.out_of_range with the id, its position and the last id', () => {
  const model = mm.createModel({ preset: 'lab-a', seed: 2 });
  const V = model.info().vocab_size;
  const error = caught(() => model.forward([5, V + 3]));
  assert.ok(error instanceof MiniMindError);
  assert.equal(error.kind, 'token_id.out_of_range');
  assert.deepEqual(error.values, { id: V + 3, position: 1, last: V - 1 });
  assert.match(error.message, new RegExp(`token id ${V + 3} at position 1 is outside the vocabulary`));
  assert.deepEqual(model.forward([5, 6]).logits.shape, [1, 2, V]); // the same model still runs
  model.dispose();
  stillWorks();
});

test('errorFields keeps kind, values and problems through structured clone', () => {
  const error = caught(() => mm.createModel({ config: { num_attention_heads: 6, num_key_value_heads: 4 } }));
  const copy = structuredClone(errorFields(error));
  assert.equal(copy.kind, 'config.invalid');
  assert.equal(copy.message, error.message);
  assert.deepEqual(copy.problems, error.problems);
  assert.deepEqual(errorFields(new TypeError('x')), { message: 'x', kind: '', values: {} });
});

test('the page words each kind in zh-CN and en with its values; the raw message stays the detail', () => {
  for (const lang of ['zh-CN', 'en']) {
    assert.deepEqual(Object.keys(ERROR_TERMS[lang]).sort(), Object.keys(ERROR_TERMS.en).sort(), lang);
    for (const kind of ERROR_KINDS) assert.ok(ERROR_TERMS[lang][kind], `${lang}: ${kind}`);
  }
  const bytes = new Uint8Array(16).fill(0);
  new DataView(bytes.buffer).setUint32(0, 20000000, true);
  const error = caught(() => mm.loadModel({ config: mm.presetConfig('lab-a'), weights: bytes }));
  const zh = errorText('zh-CN', error);
  assert.equal(zh.text, '文件开头写的头部长度是 20,000,000 字节，超过了 16,777,216 字节的上限：这大概不是 safetensors 文件。');
  assert.equal(zh.detail, error.message);
  assert.equal(zh.complete, true);
  assert.match(errorText('en', error).text, /header length of 20,000,000 bytes, over the limit of 16,777,216 bytes/);

  const config = caught(() => mm.createModel({ config: { num_attention_heads: 6, num_key_value_heads: 4 } }));
  const words = errorText('zh-CN', config);
  assert.match(words.text, /^config\.json 有 \d+ 个问题：/);
  assert.match(words.text, /num_attention_heads（6）不是 num_key_value_heads（4）的整数倍/);

  // A loader's error that names only its format: that format's sentence, the English under details.
  const raw = 'tensor "w": shape [-1] is not a list of sizes';
  const family = errorText('zh-CN', { message: raw, kind: 'safetensors', values: {} });
  assert.deepEqual(family, { text: '这个 safetensors 文件无法使用。', detail: raw, complete: true });
  // An error with no kind (not the core's): a lead sentence, then the English itself.
  assert.deepEqual(errorText('zh-CN', new Error('odd')), { text: '计算出错了。 odd', detail: 'odd', complete: false });
  assert.equal(errorText('en', new Error('odd')).text, 'The computation failed. odd');
});
