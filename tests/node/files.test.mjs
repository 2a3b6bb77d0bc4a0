// MiniMind's real files through the Wasm module and the JS API: the
// tokenizer against the Hugging Face oracle's corpus, .pth state dicts with
// and without config.json, and hostile files that must be refused cleanly.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';

import { loadMiniMind } from '../../js/minimind.mjs';
import { FIXTURES, assertClose, loadCase, rows } from './helpers.mjs';

const mm = await loadMiniMind();
// MiniMind's tokenizer.json, shipped in models/minimind-tokenizer/.
const TOKENIZER = new URL('../../models/minimind-tokenizer/tokenizer.json', import.meta.url);

function minimindTokenizer() {
  assert.ok(existsSync(TOKENIZER), `MiniMind's tokenizer.json is missing: looked at ${fileURLToPath(TOKENIZER)}`);
  return mm.loadTokenizer(readFileSync(TOKENIZER, 'utf8'));
}

test('the tokenizer encodes and decodes the corpus exactly as Hugging Face tokenizers', () => {
  const tokenizer = minimindTokenizer();
  const corpus = JSON.parse(readFileSync(new URL('tokenizer_corpus.json', FIXTURES), 'utf8'));
  assert.equal(corpus.format_version, 1);
  let checked = 0;
  for (const c of corpus.cases) {
    if (c.input_hex) continue; // invalid UTF-8 bytes: not a JS string; the native tests cover them
    assert.deepEqual(tokenizer.encode(c.text), c.ids, JSON.stringify(c.text));
    assert.equal(tokenizer.decode(c.ids), c.decoded);
    assert.equal(tokenizer.decode(c.ids, { skipSpecialTokens: true }), c.decoded_skip_special);
    checked += 1;
  }
  assert.ok(checked >= 80, `${checked} cases`);
  assert.equal(tokenizer.vocabSize, 6400);
  assert.equal(tokenizer.tokenToId('<|im_start|>'), 1);
  // A lone surrogate is one U+FFFD, as Hugging Face sees it.
  assert.deepEqual(tokenizer.encode('a\uD800b'), tokenizer.encode('a\uFFFDb'));
  tokenizer.dispose();
});

test('token display: readable text, partial characters as bytes, special tokens as themselves', () => {
  const tokenizer = minimindTokenizer();
  const ids = tokenizer.encode('<|im_start|>鼹鼠 hello');
  const shown = tokenizer.display(ids);
  assert.deepEqual(shown[0], { text: '<|im_start|>', partial: false, special: true, group: 0, groupText: '<|im_start|>' });
  const partial = shown.filter((t) => t.partial);
  assert.ok(partial.length >= 2, 'a rare character is split into byte pieces');
  for (const t of partial) assert.match(t.text, /^(<0x[0-9A-F]{2}>)+$/);
  assert.ok(
    shown.some((t) => t.groupText === '鼹'),
    'the pieces of 鼹 form one group',
  );
  assert.equal(
    shown
      .slice(-3)
      .map((t) => t.text)
      .join(''),
    ' hello',
  );
  assert.equal(
    shown
      .map((t) => t.text)
      .join('')
      .includes('\uFFFD'),
    false,
    'no mojibake',
  );
  tokenizer.dispose();
});

test('a .pth state dict loads with its config.json, and without it (config inferred)', () => {
  for (const name of ['gen2_dense', 'gen3_dense', 'gen2_moe']) {
    const c = loadCase(name);
    const pth = new Uint8Array(readFileSync(new URL('model.pth', c.dir)));
    const ids = rows(c.expected.tensors.input_ids)[0];
    const [, T, V] = c.expected.tensors.logits.shape;
    const expected = c.expected.tensors.logits.data.subarray(0, T * V); // batch row 0 has no padding
    const withConfig = mm.loadModel({ config: c.config, weights: pth });
    assertClose(withConfig.forward(ids).logits.data, expected, { what: `${name} .pth with config` });
    withConfig.dispose();
    const heads = JSON.parse(c.config).num_attention_heads;
    const inferred = mm.inferConfig(pth, { numAttentionHeads: heads, rmsNormEps: JSON.parse(c.config).rms_norm_eps });
    assert.equal(inferred.config.hidden_size, 32);
    assert.equal(inferred.config.num_key_value_heads, JSON.parse(c.config).num_key_value_heads);
    assert.ok(inferred.assumed.includes('rope_theta'), `assumed: ${inferred.assumed}`);
    const withoutConfig = mm.loadModel({
      weights: pth,
      hints: { numAttentionHeads: heads, rmsNormEps: JSON.parse(c.config).rms_norm_eps },
    });
    assertClose(withoutConfig.forward(ids).logits.data, expected, { what: `${name} .pth, inferred config` });
    withoutConfig.dispose();
  }
});

test('hostile and broken files are refused with a clear message, and the module keeps working', () => {
  const model = mm.createModel({ preset: 'lab-a' });
  const hostile = new Uint8Array(readFileSync(new URL('pth/hostile_os_system.pth', FIXTURES)));
  assert.throws(() => mm.loadModel({ weights: hostile }), /not allowed/);
  assert.throws(() => mm.inferConfig(hostile), /not allowed/);
  const c = loadCase('gen2_dense');
  const pth = new Uint8Array(readFileSync(new URL('model.pth', c.dir)));
  assert.throws(() => mm.loadModel({ config: c.config, weights: pth.subarray(0, pth.length - 100) }), Error);
  const safetensors = c.weights;
  assert.throws(() => mm.loadModel({ config: c.config, weights: safetensors.subarray(0, 100) }), /runs past the end|truncated/);
  assert.throws(() => mm.loadModel({ weights: safetensors }), { name: 'TypeError', message: /needs its config\.json/ });
  assert.throws(() => mm.loadModel({ config: mm.presetConfig('lab-a'), weights: safetensors }), /missing tensor|has shape/);
  assert.throws(() => mm.loadTokenizer('{"model": {"type": "Unigram"}}'), Error);
  assert.throws(() => mm.loadTokenizer('not json'), Error);
  assert.deepEqual(model.forward([1, 2, 3]).logits.shape, [1, 3, 128]);
  model.dispose();
});
