// The generated corpus as a stream (js/corpus_stream.mjs): the same samples as
// packing the generator's lines with js/train_data.mjs, deterministic from its
// seed, and resumable from a JSON state sample for sample.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { makeCorpusLines, makeRng } from '../../js/corpus.mjs';
import { CorpusStream } from '../../js/corpus_stream.mjs';
import { trainingSamples } from '../../js/train_data.mjs';

// A stand-in tokenizer: one id per character (enough to test packing and state).
const encode = (text) => [...text].map((c) => 3 + (c.codePointAt(0) % 6000));

test('the generator state continues the same numbers', () => {
  const rng = makeRng(11);
  for (let i = 0; i < 5; i += 1) rng.next();
  const state = rng.state();
  assert.equal(state.length, 4);
  assert.ok(state.every((w) => Number.isInteger(w) && w >= 0 && w < 2 ** 32));
  const ahead = Array.from({ length: 20 }, () => rng.next());
  const again = makeRng(11, { state });
  assert.deepEqual(
    Array.from({ length: 20 }, () => again.next()),
    ahead,
  );
  assert.throws(() => makeRng(1, { state: [1, 2, 3] }), /four integers/);
  assert.throws(() => makeRng(1, { state: [1, 2, 3, -1] }), /four integers/);
});

test("the stream's samples are the generator's lines packed as trainingSamples packs them", () => {
  for (const [seed, mix, maxSeqLen] of [
    [1, null, 64],
    [5, { induction: 0.8, pronoun: 0.2 }, 32],
  ]) {
    const stream = new CorpusStream({ seed, mix, maxSeqLen, encode });
    const samples = stream.take(300);
    // Lines drawn past the 300th sample's close keep the first 300 groups as they are.
    const lines = makeCorpusLines(stream.lines + 50, seed, { mix });
    const packed = trainingSamples(lines.map(encode), { maxSeqLen });
    assert.deepEqual(samples, packed.slice(0, 300));
    assert.equal(stream.samples, 300);
    for (const s of samples) {
      assert.ok(s.length <= maxSeqLen);
      assert.equal(s[0], 1);
      assert.equal(s.at(-1), 2);
    }
  }
});

test('the same seed gives the same stream, another seed another', () => {
  const a = new CorpusStream({ seed: 3, maxSeqLen: 64, encode }).take(50);
  const b = new CorpusStream({ seed: 3, maxSeqLen: 64, encode }).take(50);
  const c = new CorpusStream({ seed: 4, maxSeqLen: 64, encode }).take(50);
  assert.deepEqual(a, b);
  assert.notDeepEqual(a, c);
});

test('a stream restored from its JSON state goes on sample for sample', () => {
  const whole = new CorpusStream({ seed: 9, mix: { induction: 1 }, maxSeqLen: 48, encode, bos: 5, eos: 6 }).take(400);
  for (const cut of [0, 1, 37, 250]) {
    const first = new CorpusStream({ seed: 9, mix: { induction: 1 }, maxSeqLen: 48, encode, bos: 5, eos: 6 });
    first.take(cut);
    const state = JSON.parse(JSON.stringify(first.state()));
    if (cut > 0) assert.ok(state.open.length > 0, 'the packer has open groups to carry over');
    const resumed = CorpusStream.fromState(state, encode);
    assert.equal(resumed.samples, cut);
    assert.equal(resumed.lines, first.lines);
    assert.deepEqual(resumed.take(400 - cut), whole.slice(cut));
  }
  assert.throws(() => CorpusStream.fromState({ version: 0 }, encode), /corpus stream state/);
});

test('without packing every line is one sample, cut to max_seq_len', () => {
  const stream = new CorpusStream({ seed: 2, maxSeqLen: 16, encode, pack: false });
  const samples = stream.take(100);
  const lines = makeCorpusLines(100, 2);
  assert.equal(stream.lines, 100);
  samples.forEach((s, i) => assert.deepEqual(s, [1, ...encode(lines[i]).slice(0, 14), 2]));
});

test('bad arguments are refused', () => {
  assert.throws(() => new CorpusStream({ maxSeqLen: 2, encode }), /maxSeqLen/);
  assert.throws(() => new CorpusStream({ maxSeqLen: 64 }), /encode/);
  assert.throws(() => new CorpusStream({ maxSeqLen: 64, encode, mix: { poetry: 1 } }), /unknown line kind/);
  assert.throws(() => new CorpusStream({ maxSeqLen: 64, encode }).take(-1), /count/);
});
