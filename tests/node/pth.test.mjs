// MiniMind's files through the JS API: the resume checkpoint, protocol-4 and
// nn.Parameter pickles, a tied head that differs from the embedding, config
// warnings and refusals, and a .pth read into Wasm memory once per call.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

import createMiniMindModule from '../../dist/wasm/minimind.mjs';
import { loadMiniMind } from '../../js/minimind.mjs';
import { FIXTURES, assertClose, loadCase, rows } from './helpers.mjs';

const mm = await loadMiniMind();
const fixture = (path) => new Uint8Array(readFileSync(new URL(path, FIXTURES)));

test("MiniMind's resume checkpoint loads its model weights, and says what it is", () => {
  const c = loadCase('gen2_dense');
  const resume = fixture('pth/pretrain_32_resume.pth');
  const ids = rows(c.expected.tensors.input_ids)[0];
  const [, T, V] = c.expected.tensors.logits.shape;
  const model = mm.loadModel({ weights: resume, hints: { numAttentionHeads: 4, rmsNormEps: 1e-5 }, name: 'pretrain_32_resume.pth' });
  assertClose(model.forward(ids).logits.data, c.expected.tensors.logits.data.subarray(0, T * V), { what: 'resume logits' });
  const info = model.info();
  assert.match(info.file, /^pretrain_32_resume\.pth is MiniMind's resume checkpoint \(a dict of model, optimizer, epoch, step/);
  assert.match(info.file, /epoch 0, step 7, world_size 1\): its weights are the 'model' entry/);
  assert.deepEqual(info.warnings, []);
  assert.deepEqual(info.inferred.assumed, [
    'num_attention_heads',
    'rms_norm_eps',
    'rope_theta',
    'max_position_embeddings',
    'inference_rope_scaling',
  ]);
  assert.equal(info.inferred.fields.find((f) => f.key === 'num_attention_heads').source, 'hint');
  assert.equal(info.inferred.config.num_attention_heads, 4);
  model.dispose();

  // With its config.json too; inferConfig says what the file is; a mismatch says it as well.
  const withConfig = mm.loadModel({ config: c.config, weights: resume });
  assert.equal(withConfig.info().inferred, undefined);
  assert.match(withConfig.info().file, /^model\.pth is MiniMind's resume checkpoint/);
  withConfig.dispose();
  const inferred = mm.inferConfig(resume, { numKeyValueHeads: 1 }, { name: 'r.pth' });
  assert.equal(inferred.config.num_attention_heads, 4, 'the kv heads give head_dim, and head_dim the heads');
  assert.equal(inferred.fields.find((f) => f.key === 'num_key_value_heads').source, 'hint');
  assert.match(inferred.file, /^r\.pth is MiniMind's resume checkpoint/);
  assert.throws(
    () => mm.loadModel({ config: loadCase('gen3_dense').config, weights: resume, name: 'pretrain_32_resume.pth' }),
    /has shape \(8, 32\), expected \(16, 32\)[^]*\(pretrain_32_resume\.pth is MiniMind's resume checkpoint/,
  );
});

test('protocol-4 pickles and nn.Parameter values are read as data (not refused as code)', () => {
  // Neither is a MiniMind model: what fails is the missing embedding, not the pickle.
  for (const name of ['protocol4.pth', 'parameters.pth']) {
    assert.throws(() => mm.inferConfig(fixture(`pth/${name}`)), /missing tensor model\.embed_tokens\.weight/, name);
  }
  assert.throws(() => mm.inferConfig(fixture('pth/hostile_os_system.pth')), /GLOBAL '\w+ system' is not allowed/);
});

// A tied model's safetensors (both names, as model.safetensors() writes them)
// whose lm_head.weight is changed to `head(values)`; optionally the embedding too.
function tiedFile(model, head, { embeddingToo = false } = {}) {
  const bytes = model.safetensors();
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const n = Number(view.getBigUint64(0, true));
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + n)));
  const floats = (name) =>
    new Float32Array(bytes.buffer, bytes.byteOffset + 8 + n + header[name].data_offsets[0], header[name].shape[0] * header[name].shape[1]);
  const lm = floats('lm_head.weight');
  lm.set(lm.map(head));
  if (embeddingToo) floats('model.embed_tokens.weight').set(lm);
  return bytes;
}

test('tied, but lm_head.weight differs: the model uses lm_head.weight, as MiniMind does, and warns', () => {
  const source = mm.createModel({ preset: 'lab-a', seed: 3 });
  const config = source.configJson();
  assert.equal(JSON.parse(config).tie_word_embeddings, true);
  const differing = mm.loadModel({ config, weights: tiedFile(source, (x) => -2 * x) });
  const [warning, ...rest] = differing.info().warnings;
  assert.deepEqual(rest, []);
  assert.match(warning, /lm_head\.weight differs from its model\.embed_tokens\.weight/);
  assert.match(warning, /the model uses lm_head\.weight for both/);
  // The same numbers as a file whose two names hold lm_head's values.
  const both = mm.loadModel({ config, weights: tiedFile(source, (x) => -2 * x, { embeddingToo: true }) });
  assert.deepEqual(both.info().warnings, []);
  const ids = [3, 4, 5, 6];
  assert.deepEqual(Array.from(differing.forward(ids).logits.data), Array.from(both.forward(ids).logits.data));
  assert.notDeepEqual(Array.from(differing.forward(ids).logits.data), Array.from(source.forward(ids).logits.data));
  const same = mm.loadModel({ config, weights: source.safetensors() });
  assert.deepEqual(same.info().warnings, [], 'equal tied tensors: nothing to say');
  for (const m of [source, differing, both, same]) m.dispose();
});

test('unknown config keys are warnings; infinite or float32-zero values are refused with their names', () => {
  const config = { ...mm.presetConfig('lab-a'), num_attention_head: 4 };
  assert.deepEqual(mm.configWarnings(config), [
    'config.json key "num_attention_head" is not a MiniMind config key and was ignored (a typo?)',
  ]);
  assert.deepEqual(mm.configWarnings(mm.presetConfig('lab-a')), []);
  const model = mm.createModel({ config });
  assert.deepEqual(model.info().warnings, mm.configWarnings(config));
  model.dispose();
  const c = loadCase('gen3_dense');
  const loaded = mm.loadModel({ config: { ...JSON.parse(c.config), flash_attn: true, colour: 'red' }, weights: c.weights });
  assert.deepEqual(loaded.info().warnings, ['config.json key "colour" is not a MiniMind config key and was ignored (a typo?)']);
  loaded.dispose();

  assert.deepEqual(mm.configProblems('{"rope_theta": 1e999}'), [
    'rope_theta is 1e999, beyond the range of a float64 (JSON numbers past about 1.8e308 would read as infinity): give a finite number',
  ]);
  assert.deepEqual(mm.configProblems({ rope_theta: Infinity }), ['rope_theta is Infinity, which JSON cannot hold: give a finite number']);
  assert.throws(() => mm.createModel({ config: { rope_theta: Infinity } }), { name: 'RangeError', message: /rope_theta is Infinity/ });
  assert.throws(() => mm.createModel({ config: '{"rope_theta": 1e999}' }), /rope_theta is 1e999/);
  assert.match(mm.configProblems({ rms_norm_eps: 1e-50 })[0], /^rms_norm_eps 1e-50 rounds to 0 in float32/);
  assert.throws(() => mm.inferConfig(fixture('pth/pretrain_32_resume.pth'), { rmsNormEps: 1e-50 }), /rms_norm_eps 1e-50 rounds to 0/);
});

test('a .pth is copied into Wasm memory once per loadModel or inferConfig call, and freed after', async () => {
  const counts = { opened: 0, closed: 0 };
  const counting = async (options) => {
    const module = await createMiniMindModule(options);
    const open = module.NativePth.fromBytes;
    module.NativePth.fromBytes = (...args) => {
      counts.opened += 1;
      const handle = open.apply(module.NativePth, args);
      const close = handle.delete.bind(handle);
      handle.delete = () => {
        counts.closed += 1;
        close();
      };
      return handle;
    };
    return module;
  };
  const wasmBinary = readFileSync(new URL('../../dist/wasm/minimind.wasm', import.meta.url));
  const spied = await loadMiniMind({ moduleFactory: counting, wasmBinary });
  const resume = fixture('pth/pretrain_32_resume.pth');
  const model = spied.loadModel({ weights: resume, hints: { numAttentionHeads: 4 } });
  assert.deepEqual(counts, { opened: 1, closed: 1 }, 'inferring the config and loading share one copy');
  assert.ok(model.info().inferred, 'the inferred config comes with the model: no second read needed');
  spied.inferConfig(resume);
  assert.deepEqual(counts, { opened: 2, closed: 2 });
  assert.throws(() => spied.loadModel({ weights: resume, hints: { numAttentionHeads: 3 } }), /not a multiple of 3/);
  assert.deepEqual(counts, { opened: 3, closed: 3 }, 'freed when loading fails too');
  model.dispose();
});
