// The pthreads build (dist/wasm/minimind-threads.*) under Node: the same
// bits as the one-thread SIMD build on 1, 2 and 4 threads, for a long
// prompt's logits and attention, cached generation and training steps;
// loadMiniMind's thread choice and its errors.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

import { defaultThreadCount, loadMiniMind, threadsAllowed } from '../../js/minimind.mjs';

const CONFIG = JSON.parse(readFileSync(new URL('../../scripts/demo_config.json', import.meta.url), 'utf8'));

// A long prompt (its products and heads split across threads) and training data.
const PROMPT = Array.from({ length: 200 }, (_, i) => 3 + ((i * 131) % 6000));
const DATA = Array.from({ length: 48 }, (_, i) => Array.from({ length: 40 + (i % 24) }, (_, j) => 3 + ((i * 131 + j * 17) % 6000)));

async function run(variant, threads) {
  const mm = await loadMiniMind({ variant, threads });
  const model = mm.createModel({ config: CONFIG, seed: 42, init: 'minimind' });
  const { logits, trace } = model.forward(PROMPT, { trace: { layers: [3], stages: ['attn_weights'] } });
  const generator = model.generator(PROMPT.slice(0, 20), { greedy: true });
  const generated = Array.from({ length: 5 }, () => generator.step().id);
  generator.dispose();
  const trainer = model.trainer({ data: DATA, batchSize: 16, maxSeqLen: 64, learningRate: 1e-3 });
  const losses = [trainer.step().loss, trainer.step().loss];
  trainer.dispose();
  const after = model.forward(PROMPT.slice(0, 30)).logits.data;
  model.dispose();
  return { threads: mm.threads, logits: logits.data, weights: trace.get(3, 'attn_weights').data, generated, losses, after };
}

test('the threads build gives the one-thread build’s bits on 1, 2 and 4 threads', async () => {
  const reference = await run('simd', 1);
  for (const threads of [1, 2, 4]) {
    const r = await run('threads', threads);
    assert.equal(r.threads, threads);
    assert.deepEqual(r.logits, reference.logits, `logits on ${threads} threads`);
    assert.deepEqual(r.weights, reference.weights, `attention on ${threads} threads`);
    assert.deepEqual(r.generated, reference.generated, `generation on ${threads} threads`);
    assert.deepEqual(r.losses, reference.losses, `training losses on ${threads} threads`);
    assert.deepEqual(r.after, reference.after, `weights after training on ${threads} threads`);
  }
});

test('loadMiniMind chooses threads as ONNX Runtime Web does, and says what it cannot do', async () => {
  assert.equal(threadsAllowed(), true, 'Node has SharedArrayBuffer and worker threads');
  const cores = process.getBuiltinModule('node:os').availableParallelism();
  assert.equal(defaultThreadCount(), Math.min(4, Math.ceil(cores / 2)));
  const auto = await loadMiniMind();
  assert.equal(auto.threads, defaultThreadCount());
  assert.equal(auto.variant, auto.threads > 1 ? 'threads' : 'simd');
  assert.equal((await loadMiniMind({ variant: 'simd' })).threads, 1);
  assert.throws(() => loadMiniMind({ variant: 'simd', threads: 2 }), /threads 2 needs the "threads" variant or "relaxed-threads"/);
  assert.throws(() => loadMiniMind({ variant: 'threads', threads: 0 }), /threads must be between 1 and 16, got 0/);
  assert.throws(() => loadMiniMind({ variant: 'threads', threads: 1.5 }), /threads must be an integer/);
  assert.throws(
    () => loadMiniMind({ variant: 'gpu' }),
    /variant must be "auto", "simd", "relaxed", "scalar", "threads", "relaxed-threads", got gpu/,
  );
  // After an error in a task the module keeps working on its threads.
  const mm = await loadMiniMind({ variant: 'threads', threads: 2 });
  const model = mm.createModel({ config: CONFIG, seed: 1 });
  assert.throws(() => model.forward([1, 2, 99999]), /99999/);
  assert.equal(model.forward(PROMPT.slice(0, 8)).logits.shape[1], 8);
  model.dispose();
});
