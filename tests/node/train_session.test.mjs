// A training run as the page's Train panel runs it (js/train_session.mjs in
// the training worker), through the Wasm module in Node: the page's default
// model on the generated corpus, tokenized with MiniMind's tokenizer; the
// loss falls, snapshots hold the probe's real attention and predictions, the
// light head-role scores (js/head_roles.mjs) agree with attentionMass, and
// the exported files load back to the same logits.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

import { makeCorpusLines } from '../../js/corpus.mjs';
import { lightHeadProbes, scoreHeadRoles } from '../../js/head_roles.mjs';
import { loadMiniMind } from '../../js/minimind.mjs';
import { tokenizeTexts, trainingSamples } from '../../js/train_data.mjs';
import { DEFAULT_CONFIG, DEFAULT_OPTIONS, LESSON_PROBE, TrainSession, topTokens } from '../../js/train_session.mjs';

const TOKENIZER = readFileSync(new URL('../../models/minimind-tokenizer/tokenizer.json', import.meta.url), 'utf8');

test('topTokens gives the k largest logits with their softmax probabilities', () => {
  const logits = Float32Array.from([0, 2, 1, 5, -1]);
  const top = topTokens(logits, 3);
  assert.deepEqual(
    top.map((c) => c.id),
    [3, 1, 2],
  );
  const sum = [...logits].reduce((s, x) => s + Math.exp(x), 0);
  for (const c of top) assert.ok(Math.abs(c.p - Math.exp(logits[c.id]) / sum) < 1e-12);
});

test('light head probes are well formed and score like attentionMass', async () => {
  const mm = await loadMiniMind();
  const tokenizer = mm.loadTokenizer(TOKENIZER);
  const model = mm.createModel({ config: DEFAULT_CONFIG, seed: 3, init: 'minimind' });
  const probes = lightHeadProbes(tokenizer, { pronouns: 6, texts: 2, repeats: 2, inductionLength: 8 });
  assert.equal(probes.pronoun.length, 6);
  assert.equal(probes.induction.length, 2 * 7);
  for (const p of [...probes.previousToken, ...probes.induction, ...probes.pronoun]) {
    assert.ok(p.query < p.ids.length && p.keys.every((k) => k < p.query), 'keys before the query');
  }
  for (const p of probes.previousToken) assert.deepEqual(p.keys, [p.query - 1]);
  // The repeated half: the key is the token after the query's first occurrence.
  for (const p of probes.induction) assert.equal(p.ids[p.keys[0] - 1], p.ids[p.query]);
  const scores = scoreHeadRoles(model, probes);
  assert.deepEqual(scores.pronoun, model.attentionMass(probes.pronoun));
  for (const kind of ['previousToken', 'induction', 'pronoun'])
    for (const row of scores[kind]) for (const v of row) assert.ok(v >= 0 && v <= 1 + 1e-6, `${kind} ${v}`);
  model.dispose();
  tokenizer.dispose();
});

test("the page's default run: the loss falls, snapshots are the model's own, files load back", async () => {
  const mm = await loadMiniMind();
  const tokenizer = mm.loadTokenizer(TOKENIZER);
  const model = mm.createModel({ config: DEFAULT_CONFIG, seed: 42, init: 'minimind' });
  const ids = await tokenizeTexts(makeCorpusLines(1500, 1), (text) => tokenizer.encode(text));
  const samples = trainingSamples(ids, { maxSeqLen: 48 });
  for (const s of samples) {
    assert.equal(s[0], 1, 'bos first');
    assert.equal(s.at(-1), 2, 'eos last');
    assert.ok(s.length <= 48);
  }
  const session = new TrainSession({
    model,
    tokenizer,
    samples,
    options: { ...DEFAULT_OPTIONS, maxSeqLen: 48, batchSize: 8, epochs: 1 },
    snapshotEvery: 15,
  });
  const first = session.snapshot();
  assert.equal(first.step, 0);
  const T = first.T;
  assert.equal(first.tokens.length, T);
  assert.equal(first.ids[0], 1, 'the probe is read after the bos');
  assert.equal(first.attention.length, DEFAULT_CONFIG.num_hidden_layers * DEFAULT_CONFIG.num_attention_heads * T * T);
  // Every attention row sums to 1 and the future gets nothing.
  for (let r = 0; r < first.attention.length / T; r += 1) {
    const row = first.attention.subarray(r * T, (r + 1) * T);
    const i = r % T;
    assert.ok(Math.abs(row.reduce((a, b) => a + b, 0) - 1) < 1e-4);
    for (let j = i + 1; j < T; j += 1) assert.equal(row[j], 0);
  }
  const losses = [];
  const snapshots = [first];
  let steps = 0;
  while (steps < 60) {
    const { steps: done, snapshot } = session.runSlice(30);
    assert.ok(done.length >= 1, 'every slice runs a batch');
    for (const s of done) {
      steps += 1;
      assert.equal(s.step, steps, 'steps count batches');
      losses.push(s.loss);
      assert.equal(s.positions, 8 * 48);
    }
    if (snapshot) snapshots.push(snapshot);
  }
  const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
  assert.ok(losses[0] > 8 && losses[0] < 9.5, `the first loss is near ln 6400 = 8.76, got ${losses[0]}`);
  assert.ok(
    mean(losses.slice(-10)) < 0.75 * mean(losses.slice(0, 10)),
    `loss falls: ${mean(losses.slice(0, 10))} -> ${mean(losses.slice(-10))}`,
  );
  assert.deepEqual(
    snapshots.map((s) => s.step),
    [0, 15, 30, 45, 60],
  );
  const moved = snapshots.at(-1).attention.some((v, k) => Math.abs(v - first.attention[k]) > 1e-3);
  assert.ok(moved, 'the attention changed while training');
  const info = session.info();
  assert.equal(info.batchesDone, 60);
  assert.equal(info.positions, 60 * 8 * 48);
  assert.ok(info.trainMs > 0 && info.memory.total > 0);

  // The snapshot's predictions are the model's logits now.
  const last = session.snapshot();
  const { logits } = model.forward(last.ids);
  const V = logits.shape[2];
  const row = last.T - 1;
  const top = topTokens(logits.data.subarray(row * V, (row + 1) * V));
  assert.deepEqual(
    last.top[row].map((c) => [c.id, c.logit]),
    top.map((c) => [c.id, c.logit]),
  );
  assert.equal(last.top[row][0].label, tokenizer.display([top[0].id])[0].text);

  // Exported F32 files load back to the same logits.
  const files = session.files('F32');
  const again = mm.loadModel({ config: files.config, weights: files.weights });
  assert.deepEqual(again.forward(last.ids).logits.data, logits.data);
  again.dispose();

  assert.deepEqual(session.setProbe(LESSON_PROBE), first.tokens);
  assert.throws(() => session.setProbe('   '), /at least one token/);
  session.dispose();
  model.dispose();
  tokenizer.dispose();
});
