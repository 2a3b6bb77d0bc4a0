// What a model in training writes at each snapshot (js/snapshot_generation.mjs):
// the repeated span prompt, the copy target read off a prompt, and the
// greedy continuation, checked against the model's own argmax step by step;
// and a TrainSession's snapshots carrying the continuations of the probe and
// the prompts.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

import { loadMiniMind } from '../../js/minimind.mjs';
import {
  GENERATED_TOKENS,
  PRONOUN_PROMPT,
  continuePrompt,
  copiedCount,
  copyTarget,
  defaultPrompts,
  repeatedSpanPrompt,
} from '../../js/snapshot_generation.mjs';
import { encodeText } from '../../js/text_encoding.mjs';
import { DEFAULT_CONFIG, LESSON_PROBE, TrainSession } from '../../js/train_session.mjs';

const TOKENIZER = readFileSync(new URL('../../models/minimind-tokenizer/tokenizer.json', import.meta.url), 'utf8');
const DEMO = new URL('../../models/minimind-demo/', import.meta.url);

test('a prompt that repeats itself asks for the rest of its span; others ask for nothing', () => {
  assert.equal(copyTarget('ABCDEAB'), 'CDE');
  assert.equal(copyTarget('ABCDEABC'), 'DE');
  assert.equal(copyTarget('ABCDEA'), null, 'one repeated character is not a repeat');
  assert.equal(copyTarget('ABCDEABX'), null);
  assert.equal(copyTarget(LESSON_PROBE), null);
  assert.equal(copyTarget(PRONOUN_PROMPT), null);
  assert.equal(copyTarget('朝扫朋找雨不理他朝扫朋'), '找雨不理他');
  assert.equal(copiedCount('找雨不吃', '找雨不理他'), 3);
  assert.equal(copiedCount('', '找雨'), 0);
  assert.equal(copiedCount('找雨不理他。今天', '找雨不理他'), 5);
});

test('the repeated span: distinct one-token characters, the same for a seed, its target the span’s rest', async () => {
  const mm = await loadMiniMind();
  const tokenizer = mm.loadTokenizer(TOKENIZER);
  const a = repeatedSpanPrompt(tokenizer);
  assert.deepEqual(repeatedSpanPrompt(tokenizer), a);
  assert.notEqual(repeatedSpanPrompt(tokenizer, { seed: 12 }).text, a.text);
  const span = [...a.span];
  assert.equal(span.length, 8);
  assert.equal(new Set(span).size, 8);
  assert.equal(a.text, a.span + span.slice(0, 3).join(''));
  assert.equal(tokenizer.encode(a.text).length, 11, 'one token per character');
  assert.equal(copyTarget(a.text), span.slice(3).join(''));
  assert.deepEqual(defaultPrompts(tokenizer, LESSON_PROBE), [LESSON_PROBE, PRONOUN_PROMPT, a.text]);
  tokenizer.dispose();
});

test("the continuation is the model's greedy choice at every step, decoded", async () => {
  const mm = await loadMiniMind();
  const tokenizer = mm.loadTokenizer(TOKENIZER);
  const model = mm.loadModel({
    config: readFileSync(new URL('config.json', DEMO), 'utf8'),
    weights: readFileSync(new URL('model.safetensors', DEMO)),
  });
  const out = continuePrompt(model, tokenizer, PRONOUN_PROMPT, { tokens: 8 });
  // The same ids by full forward passes, one argmax at a time.
  const ids = encodeText(tokenizer, PRONOUN_PROMPT);
  const want = [];
  for (let k = 0; k < 8; k += 1) {
    const { logits } = model.forward([...ids, ...want]);
    const V = logits.shape[2];
    const last = logits.data.subarray((ids.length + want.length - 1) * V, (ids.length + want.length) * V);
    let best = 0;
    for (let i = 1; i < V; i += 1) if (last[i] > last[best]) best = i;
    if (best === 2) break; // eos
    want.push(best);
  }
  assert.deepEqual(out.ids, want);
  assert.equal(out.text, tokenizer.decode(want, { skipSpecialTokens: true }).replace(/\uFFFD+$/u, ''));
  assert.equal(out.prompt, PRONOUN_PROMPT);
  assert.equal(out.target, null);
  assert.equal(out.copied, 0);
  assert.match(out.text, /\p{Script=Han}/u, `the trained model writes characters: ${out.text}`);
  const span = repeatedSpanPrompt(tokenizer);
  const copy = continuePrompt(model, tokenizer, span.text);
  assert.equal(copy.target, copyTarget(span.text));
  assert.equal(copy.copied, copiedCount(copy.text, copy.target));
  assert.ok(copy.ids.length <= GENERATED_TOKENS);
  assert.deepEqual(continuePrompt(model, tokenizer, '   '), { prompt: '   ', ids: [], text: '', ended: false, target: null, copied: 0 });
  model.dispose();
  tokenizer.dispose();
});

test('each snapshot of a session with prompts holds the continuations of the probe and the prompts', async () => {
  const mm = await loadMiniMind();
  const tokenizer = mm.loadTokenizer(TOKENIZER);
  const model = mm.createModel({ config: DEFAULT_CONFIG, seed: 5, init: 'minimind' });
  const samples = Array.from({ length: 8 }, (_, k) => [1, ...tokenizer.encode(`小明把第${k}本书给了小红，她唱起了歌。`), 2]);
  const options = { batchSize: 4, maxSeqLen: 24, epochs: 1, learningRate: 1e-3 };
  const session = new TrainSession({
    model,
    tokenizer,
    samples,
    options,
    snapshotEvery: 1,
    roles: false,
    prompts: [PRONOUN_PROMPT, null, ' '],
  });
  const span = repeatedSpanPrompt(tokenizer).text;
  const first = session.snapshot();
  assert.deepEqual(
    first.generated.map((g) => g.prompt),
    [LESSON_PROBE, PRONOUN_PROMPT, span],
    'the probe first, null a repeated span, a blank prompt left out',
  );
  for (const g of first.generated) assert.deepEqual(g, continuePrompt(model, tokenizer, g.prompt));
  const { snapshot } = session.runSlice(1e9);
  assert.equal(snapshot.step, 1);
  assert.equal(snapshot.generated.length, 3);
  assert.deepEqual(session.setPrompts(['你好']), ['你好']);
  assert.deepEqual(
    session.snapshot().generated.map((g) => g.prompt),
    [LESSON_PROBE, '你好'],
  );
  session.setPrompts(null);
  assert.equal(session.snapshot().generated, null, 'no prompts: nothing written');
  session.dispose();
  model.dispose();
  tokenizer.dispose();
});
