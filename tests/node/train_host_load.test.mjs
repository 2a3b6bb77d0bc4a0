// The training host (web/train_host.mjs) loads a run's model through the same
// path as the page's worker (js/model_pair.mjs): files that fail to load leave
// the run before them in place, paused, and say why.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { test } from 'node:test';

import { loadMiniMind } from '../../js/minimind.mjs';
import { createTrainHost } from '../../web/train_host.mjs';

const ROOT = new URL('../../', import.meta.url);
const CONFIG = {
  hidden_size: 32,
  num_hidden_layers: 1,
  num_attention_heads: 2,
  num_key_value_heads: 1,
  intermediate_size: 64,
  vocab_size: 6400,
  max_position_embeddings: 64,
};

// A host whose answers are collected; `next(type)` waits for the next answer of that type.
function host() {
  const answers = [];
  let waiting = [];
  const post = (message) => {
    answers.push(message);
    waiting = waiting.filter(({ type, resolve }) => (type === message.type ? (resolve(message), false) : true));
  };
  const h = createTrainHost({
    post,
    loadRuntime: () => loadMiniMind(),
    fetchText: (path) => readFile(new URL(path, ROOT), 'utf8'),
  });
  return { handle: h.handle, answers, next: (type) => new Promise((resolve) => waiting.push({ type, resolve })) };
}

function prepare(id, model) {
  return {
    type: 'prepare',
    id,
    model,
    data: { source: 'text', text: '小红是学生。\n她喜欢读书。\n小明在学校。' },
    pack: true,
    options: { batchSize: 2, maxSeqLen: 16, learningRate: 1e-3, accumulationSteps: 1, gradClip: 1, epochs: 1, seed: 1 },
    probe: '小红说她喜欢读书。',
    snapshotEvery: 100,
    start: false,
  };
}

test('files that fail to load leave the run before them, paused, with the error', async () => {
  const h = host();
  await h.handle(prepare(1, { kind: 'new', config: CONFIG, seed: 3 }));
  const ready = h.answers.find((a) => a.type === 'ready');
  assert.equal(ready?.info.hidden_size, 32);
  assert.equal(h.answers.at(-1).state, 'paused');

  const bad = new TextEncoder().encode('not a safetensors file').buffer;
  const error = h.next('error');
  await h.handle(prepare(2, { kind: 'files', config: JSON.stringify(CONFIG), weights: bad }));
  assert.equal((await error).request, 'prepare');
  const states = h.answers.filter((a) => a.type === 'state').map((a) => a.state);
  assert.deepEqual(states.slice(-2), ['preparing', 'paused'], 'back to the run it had');

  // The run before is still there: its model exports, as built with seed 3.
  const exported = h.next('exported');
  await h.handle({ type: 'export', id: 3, dtype: 'F32' });
  const files = await exported;
  assert.equal(JSON.parse(files.config).hidden_size, 32);
  assert.ok(files.weights.byteLength > 32 * 6400 * 4, 'the embedding of the run before');
});

test('with no run before, a failed load leaves the host idle', async () => {
  const h = host();
  const error = h.next('error');
  await h.handle(prepare(1, { kind: 'new', config: { ...CONFIG, num_attention_heads: 3 }, seed: 1 }));
  assert.equal((await error).request, 'prepare');
  assert.equal(h.answers.filter((a) => a.type === 'state').at(-1).state, 'idle');
  const noRun = h.next('error');
  await h.handle({ type: 'export', id: 2 });
  assert.match((await noRun).message, /no trained model/);
});

test('a pause is handled between two slices: no batch runs after it', async () => {
  const h = host();
  const long = prepare(1, { kind: 'new', config: CONFIG, seed: 3 });
  await h.handle({ ...long, options: { ...long.options, epochs: 1000 } }); // more batches than the test runs
  await h.handle({ type: 'resume' });
  // Pause as soon as the second slice's batches arrive: the host must not start a third.
  await h.next('steps');
  const second = await h.next('steps');
  await h.handle({ type: 'pause' });
  const stepsBefore = h.answers.filter((a) => a.type === 'steps').length;
  await new Promise((resolve) => setTimeout(resolve, 300)); // slices would come every macrotask
  const after = h.answers.filter((a) => a.type === 'steps').length - stepsBefore;
  assert.equal(after, 0, `${after} slices ran after the pause`);
  assert.equal(h.answers.at(-1).type, 'state');
  assert.equal(h.answers.at(-1).state, 'paused');
  assert.equal(h.answers.at(-1).step, second.trainer.batchesDone, 'paused at the step of the last slice reported');
});
