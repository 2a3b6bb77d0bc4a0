// A stream data request made into the trainer's samples a chunk at a time
// (js/train_data.mjs streamSamples), as the training worker makes them: the
// very samples of the recipe (js/train_recipes.mjs recipeSamples), progress
// between chunks, and a stop between chunks when the run is dropped.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { TRAIN_RECIPES, recipeSamples } from '../../js/train_recipes.mjs';
import { SOURCES, streamSamples } from '../../js/train_data.mjs';

// A stand-in tokenizer (one id per character): the stream's packing is what is tested, not BPE.
const encode = (text) => [...text].map((c) => 3 + (c.codePointAt(0) % 6000));

// The induction recipe cut to a few batches: its mix, seed, batch size and length.
const recipe = { ...TRAIN_RECIPES.induction, batches: 5 };
const { batchSize, maxSeqLen } = recipe.options;
const request = { ...recipe.data, batches: recipe.batches };

test("a stream request gives exactly batches × batchSize samples, the recipe's own", async () => {
  assert.ok(SOURCES.includes('stream'));
  const { samples, lines } = await streamSamples(request, { batchSize, maxSeqLen, encode, chunk: 7, pause: async () => {} });
  assert.equal(samples.length, recipe.batches * batchSize);
  assert.deepEqual(samples, recipeSamples(recipe, encode));
  assert.ok(lines > samples.length, `packed: more lines (${lines}) than samples`);
  for (const s of samples) {
    assert.equal(s[0], 1);
    assert.equal(s.at(-1), 2);
    assert.ok(s.length <= maxSeqLen);
  }
  // The corpus's own shares (mix null) and unpacked lines are the stream's too.
  const plain = await streamSamples({ ...TRAIN_RECIPES.default.data, batches: 2 }, { batchSize: 3, maxSeqLen: 32, encode, pack: false });
  assert.equal(plain.samples.length, 6);
  assert.equal(plain.lines, 6, 'one line a sample');
});

test('progress after every chunk, a pause between chunks', async () => {
  const calls = [];
  let pauses = 0;
  await streamSamples(request, {
    batchSize,
    maxSeqLen,
    encode,
    chunk: 32,
    onProgress: (done, total) => calls.push([done, total]),
    pause: async () => (pauses += 1),
  });
  const total = recipe.batches * batchSize;
  // Before the first chunk, then after each chunk of 32 and after the last (shorter) one.
  const expected = [];
  for (let done = 0; done < total; done += 32) expected.push([done, total]);
  expected.push([total, total]);
  assert.ok(expected.length >= 3, 'at least two chunks');
  assert.deepEqual(calls, expected);
  assert.equal(pauses, expected.length - 2, 'a pause between chunks, none after the last');
});

test('an aborted signal stops it after the chunk in progress', async () => {
  const signal = { aborted: false };
  const done = [];
  const made = streamSamples(request, {
    batchSize,
    maxSeqLen,
    encode,
    chunk: 10,
    signal,
    onProgress: (n) => done.push(n),
    pause: async () => {
      if (done.at(-1) >= 20) signal.aborted = true;
    },
  });
  await assert.rejects(made, { name: 'AbortError' });
  assert.deepEqual(done, [0, 10, 20]);
});

test('a request that is not a stream, or has no batches, is refused', async () => {
  await assert.rejects(streamSamples({ source: 'corpus', lines: 10 }, { batchSize, maxSeqLen, encode }), /not a stream data request/);
  await assert.rejects(streamSamples({ ...request, batches: 0 }, { batchSize, maxSeqLen, encode }), /batches must be a positive integer/);
});
