// Training through the Wasm module: the JS API's trainer and the CLI's
// train and grad commands against the PyTorch fixtures of tests/fixtures/train/,
// native and Wasm training giving the same bits, and bad input refused.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

import { loadMiniMind } from '../../js/minimind.mjs';
import { readSafetensors, recipeTrainerOptions } from './helpers.mjs';
import { loadVariants } from './variants.mjs';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CLI = join(ROOT, 'js/cli.mjs');
const NATIVE_TRAIN = join(ROOT, 'build/native/core/minimind-train');
const TRAIN_FIXTURES = new URL('../fixtures/train/', import.meta.url);
const TRAIN_FORMAT_VERSION = 1;

function trainCase(name) {
  const dir = new URL(`${name}/`, TRAIN_FIXTURES);
  const data = JSON.parse(readFileSync(new URL('data.json', dir), 'utf8'));
  assert.equal(data.train_format_version, TRAIN_FORMAT_VERSION, `${name}: re-run /usr/bin/python3 tests/make_fixtures.py`);
  return {
    dir: fileURLToPath(dir),
    config: readFileSync(new URL('config.json', dir), 'utf8'),
    weights: new Uint8Array(readFileSync(new URL('model.safetensors', dir))),
    data,
    jsonl: data.sequences.map((ids) => JSON.stringify({ ids })).join('\n') + '\n',
    file: (file) => new Uint8Array(readFileSync(new URL(file, dir))),
  };
}

function maxAbs(values) {
  let m = 0;
  for (const v of values) m = Math.max(m, Math.abs(v));
  return m;
}

// Every element within rel · max|expected| (the C++ tests' tolerance).
function assertScaled(actual, expected, rel, what) {
  const scale = rel * maxAbs(expected);
  assert.equal(actual.length, expected.length, what);
  for (let i = 0; i < actual.length; i += 1) {
    if (!(Math.abs(actual[i] - expected[i]) <= scale)) assert.fail(`${what}: index ${i}: ${actual[i]} vs ${expected[i]}`);
  }
}

async function cli(...args) {
  try {
    const { stdout, stderr } = await run(process.execPath, [CLI, ...args]);
    return { code: 0, stdout, stderr };
  } catch (error) {
    return { code: error.code, stdout: error.stdout, stderr: error.stderr };
  }
}

// The SIMD build: the tests below compare with the native build, bit for bit.
const mm = await loadMiniMind({ variant: 'simd' });

for (const [variant, build] of await loadVariants()) {
  test(`trainer.lossAndGradients matches PyTorch autograd in Wasm (${variant}), for every parameter`, () => {
    for (const name of ['gen3_r2_tied', 'gen2_r4_tied', 'gen3_r1_untied', 'gen3_wide_heads']) {
      const c = trainCase(name);
      const expected = readSafetensors(c.file('gradients.safetensors'));
      const model = build.loadModel({ config: c.config, weights: c.weights });
      const trainer = model.trainer({ data: c.data.sequences, maxSeqLen: c.data.max_seq_len, order: 'file' });
      const result = trainer.lossAndGradients([0, 1, 2, 3]);
      assert.equal(result.tokens, expected.tensors.tokens.data[0]);
      assert.ok(Math.abs(result.loss - expected.tensors.loss.data[0]) <= 1e-5 * expected.tensors.loss.data[0], `${name} loss`);
      const names = result.gradients.map((g) => `grad.${g.name}`).sort();
      assert.deepEqual(
        names,
        Object.keys(expected.tensors)
          .filter((k) => k.startsWith('grad.'))
          .sort(),
      );
      for (const g of result.gradients) assertScaled(g.data, expected.tensors[`grad.${g.name}`].data, 1e-5, `${name} ${g.name}`);
      // The same gradients as a safetensors file, keyed by parameter name.
      const file = readSafetensors(result.safetensors);
      assert.deepEqual(file.tensors[result.gradients[0].name].data, result.gradients[0].data);
      trainer.dispose();
      model.dispose();
    }
  });

  test(`20 batches of the recipe in Wasm (${variant}) match torch.optim.AdamW batch by batch`, () => {
    const c = trainCase('gen3_r2_tied');
    const recipes = JSON.parse(readFileSync(join(c.dir, 'recipes.json'), 'utf8'));
    for (const r of recipes.runs) {
      const model = build.loadModel({ config: c.config, weights: c.weights });
      const trainer = model.trainer(recipeTrainerOptions(r, c.data));
      assert.equal(trainer.info().totalBatches, r.batches.length);
      for (const expected of r.batches) {
        const s = trainer.step();
        const where = `run ${r.name} epoch ${s.epoch} batch ${s.batch}`;
        assert.equal(s.batch, expected.batch, where);
        assert.equal(s.optimizerStep, expected.optimizer_step, where);
        assert.ok(Math.abs(s.loss - expected.loss) <= 1e-5 * expected.loss, `${where}: loss ${s.loss} vs ${expected.loss}`);
        if (expected.optimizer_step) assert.ok(Math.abs(s.gradNorm - expected.grad_norm) <= 1e-5 * expected.grad_norm, where);
        else assert.equal(s.gradNorm, null, where);
        assert.ok(s.ms >= 0);
      }
      assert.equal(trainer.done, true);
      assert.throws(() => trainer.step(), /done/);
      trainer.dispose();
      model.dispose();
    }
  });
}

test('the trained model in memory: forward sees each step, and saved weights reload to the same logits', () => {
  const c = trainCase('gen3_r1_untied');
  const model = mm.loadModel({ config: c.config, weights: c.weights });
  const ids = [1, 5, 9, 13, 2];
  const before = model.forward(ids).logits.data;
  const trainer = model.trainer({ data: c.data.sequences, maxSeqLen: 12, batchSize: 4, accumulationSteps: 1, learningRate: 1e-2 });
  trainer.step();
  const after = model.forward(ids).logits.data;
  assert.notDeepEqual(after, before);
  for (const dtype of ['F32', 'F16']) {
    const bytes = model.safetensors({ dtype });
    const reloaded = mm.loadModel({ config: model.configJson(), weights: bytes });
    const logits = reloaded.forward(ids).logits.data;
    if (dtype === 'F32') assert.deepEqual(logits, after);
    else assertScaled(logits, after, 1e-2, 'F16 logits');
    reloaded.dispose();
  }
  trainer.dispose();
  // The model outlives its trainer and stays usable.
  assert.deepEqual(model.forward(ids).logits.data, after);
  model.dispose();
});

test('a seed gives the same weights in Wasm and natively, bit for bit; another seed other ones', async (t) => {
  const c = trainCase('gen3_r2_tied');
  const dir = mkdtempSync(join(tmpdir(), 'minimind-train-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const options = { maxSeqLen: 12, batchSize: 3, accumulationSteps: 2, epochs: 2, learningRate: 5e-3 };
  const trained = (seed) => {
    const model = mm.loadModel({ config: c.config, weights: c.weights });
    const trainer = model.trainer({ data: c.jsonl, seed, ...options });
    while (!trainer.done) trainer.step();
    const bytes = model.safetensors();
    trainer.dispose();
    model.dispose();
    return Buffer.from(bytes);
  };
  const a = trained(7);
  assert.ok(a.equals(trained(7)));
  assert.ok(!a.equals(trained(8)));
  if (!existsSync(NATIVE_TRAIN)) return t.skip('build/native/core/minimind-train is not built (npm test builds it)');
  const data = join(dir, 'data.jsonl');
  writeFileSync(data, c.jsonl);
  await run(NATIVE_TRAIN, [
    ...['--model', c.dir, '--data', data, '--out', join(dir, 'native'), '--seed', '7', '--max-seq-len', '12'],
    ...['--batch-size', '3', '--accumulation-steps', '2', '--epochs', '2', '--lr', '5e-3'],
  ]);
  assert.ok(readFileSync(join(dir, 'native/model.safetensors')).equals(a), 'native and Wasm training differ');
});

test('minimind train writes a loadable folder, a per-batch log and a progress line; the loss falls', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'minimind-train-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const names = ['小明', '小红', '小刚', '小丽'];
  const lines = [];
  for (let i = 0; i < 96; i += 1) {
    const [a, b] = [names[i % 4], names[(i + 1 + (i >> 2)) % 4]];
    lines.push(JSON.stringify({ text: `${a}把苹果给了${b}，${b}很开心。` }));
  }
  writeFileSync(join(dir, 'corpus.jsonl'), lines.join('\n'));
  const config = { hidden_size: 64, num_hidden_layers: 2, num_attention_heads: 4, num_key_value_heads: 2, vocab_size: 6400 };
  writeFileSync(join(dir, 'config.json'), JSON.stringify(config));
  const out = join(dir, 'out');
  const args = ['--config', join(dir, 'config.json'), '--data', join(dir, 'corpus.jsonl'), '--out', out, '--log', join(dir, 'log.jsonl')];
  const r = await cli(
    'train',
    ...args,
    '--max-seq-len',
    '24',
    '--batch-size',
    '16',
    '--accumulation-steps',
    '2',
    '--epochs',
    '2',
    '--lr',
    '5e-3',
  );
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /epoch 2\/2 batch 6\/6 loss \d+\.\d+ lr [\d.e+-]+ \d+ tokens\/s ETA 0:00/);
  const log = readFileSync(join(dir, 'log.jsonl'), 'utf8').trim().split('\n').map(JSON.parse);
  assert.equal(log.length, 12);
  assert.deepEqual(Object.keys(log[0]), ['epoch', 'batch', 'loss', 'lr', 'optimizer_step', 'grad_norm', 'tokens', 'ms']);
  assert.deepEqual(
    log.map((e) => e.optimizer_step),
    [false, true, false, true, false, true, false, true, false, true, false, true],
  );
  assert.ok(log.every((e) => (e.optimizer_step ? e.grad_norm > 0 : e.grad_norm === null)));
  // From near ln(6400) = 8.76 (the from-scratch init) down by a quarter at least (measured: 8.93 -> 5.65).
  assert.ok(log[0].loss > 8 && log[0].loss < 9.5, `first loss ${log[0].loss}`);
  assert.ok(log.at(-1).loss < 0.75 * log[0].loss, `loss ${log[0].loss} -> ${log.at(-1).loss}`);
  for (const file of ['config.json', 'model.safetensors', 'tokenizer.json', 'tokenizer_config.json'])
    assert.ok(existsSync(join(out, file)), file);
  // Tied: both state-dict keys, as MiniMind's load_state_dict(strict=True) wants them.
  const written = readSafetensors(new Uint8Array(readFileSync(join(out, 'model.safetensors'))));
  assert.ok(written.tensors['lm_head.weight'] && written.tensors['model.embed_tokens.weight']);
  assert.deepEqual(written.tensors['lm_head.weight'].data, written.tensors['model.embed_tokens.weight'].data);
  const again = await cli('run', '--model', out, '--text', '小明把苹果给了', '--json');
  assert.equal(again.code, 0, again.stderr);
  assert.deepEqual(JSON.parse(again.stdout).tokens.slice(0, 3), ['<|im_start|>', '小明', '把']);
});

test('minimind grad prints the loss and writes every gradient, as PyTorch computes them', async (t) => {
  const c = trainCase('gen3_r1_untied');
  const dir = mkdtempSync(join(tmpdir(), 'minimind-grad-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'data.jsonl'), c.jsonl);
  const out = join(dir, 'grads.safetensors');
  const r = await cli(
    'grad',
    '--model',
    c.dir,
    '--data',
    join(dir, 'data.jsonl'),
    '--batch-size',
    '4',
    '--max-seq-len',
    '12',
    '--out',
    out,
  );
  assert.equal(r.code, 0, r.stderr);
  const printed = JSON.parse(r.stdout);
  const expected = readSafetensors(c.file('gradients.safetensors'));
  assert.equal(printed.tokens, expected.tensors.tokens.data[0]);
  assert.ok(Math.abs(printed.loss - expected.tensors.loss.data[0]) <= 1e-5 * expected.tensors.loss.data[0]);
  const grads = readSafetensors(new Uint8Array(readFileSync(out)));
  for (const [name, tensor] of Object.entries(expected.tensors)) {
    if (!name.startsWith('grad.')) continue;
    assertScaled(grads.tensors[name.slice(5)].data, tensor.data, 1e-5, name);
  }
});

test('training refuses bad input with a message and the module stays usable', async () => {
  const model = mm.createModel({ preset: 'lab-a' });
  assert.throws(() => model.trainer({ data: '{"text": "hi"}' }), /needs a tokenizer/);
  assert.throws(() => model.trainer({ data: 'not json\n' }), /line 1: not valid JSON/);
  assert.throws(() => model.trainer({ data: '' }), /no training samples/);
  assert.throws(() => model.trainer({ data: [[1, 500, 2]] }), /token id 500/);
  assert.throws(() => model.trainer({ data: [[1, 5, 2]], batchSize: 0 }), RangeError);
  assert.throws(() => model.trainer({ data: [[1, 5, 2]], learningRate: -1 }), /learningRate must be positive/);
  assert.throws(() => model.trainer({ data: [[1, 5, 2]], order: 'random' }), /order must be/);
  assert.throws(() => model.trainer({ data: 42 }), TypeError);
  const moe = mm.createModel({
    config: {
      ...mm.presetConfig('minimind-3-moe'),
      hidden_size: 32,
      num_hidden_layers: 1,
      head_dim: 8,
      moe_intermediate_size: 64,
      vocab_size: 64,
    },
  });
  assert.throws(() => moe.trainer({ data: [[1, 5, 2]] }), /MoE/);
  moe.dispose();
  const trainer = model.trainer({ data: [[1, 5, 6, 2]], maxSeqLen: 8 });
  assert.ok(Number.isFinite(trainer.step().loss));
  trainer.dispose();
  assert.throws(() => trainer.step(), /disposed/);
  model.dispose();
  const missing = await cli('train', '--preset', 'lab-a', '--out', join(tmpdir(), 'never'));
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /--data/);
  const badOrder = await cli('train', '--preset', 'lab-a', '--data', CLI, '--out', join(tmpdir(), 'never'), '--order', 'x');
  assert.equal(badOrder.code, 2);
  assert.match(badOrder.stderr, /--order must be shuffle or file/);
});
