// Generation at its limits, as the page runs it: the generation panel's state
// (web/generation_steps.mjs) fed with the answers the JS API's generator gives.
// The matrix holds at most 128 tokens: a prompt that fills it ends before any
// step, and no step adds a row past it; the model's positions end generation
// with the chosen token unfed; a chat prompt longer than the limit is cut in
// the user's text, the template kept whole (js/chat_fit.mjs).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

import { fitChatPrompt } from '../../js/chat_fit.mjs';
import { chatPrompt } from '../../js/chat_template.mjs';
import { loadMiniMind } from '../../js/minimind.mjs';
import { nextGeneration, startedGeneration } from '../../web/generation_steps.mjs';
import { MAX_TOKENS } from '../../web/panels/input_panel.mjs';

const mm = await loadMiniMind({ variant: 'simd' });
const STAGE = { layers: [0], stages: ['attn_weights'] };

// A small model whose positions end early: max_position_embeddings `positions`.
function smallModel(positions) {
  const config = { hidden_size: 64, num_attention_heads: 4, num_key_value_heads: 2, num_hidden_layers: 2, vocab_size: 128 };
  return mm.createModel({ config: { ...config, max_position_embeddings: positions }, seed: 1 });
}

// The worker's answers (web/worker.mjs handleGenStart / handleGenStep), from the JS API's generator.
function startMessage(generator) {
  const entries = generator.prefillTrace.map(({ layer, stage, shape, data }) => ({ layer, stage, shape, data }));
  const ids = [...generator.ids];
  return { ids, labels: ids.map((id) => `#${id}`), entries, cache: generator.cache, candidates: [], text: null };
}
function stepMessage(generator) {
  const step = generator.step({ trace: STAGE });
  const entries = step.trace.map(({ layer, stage, shape, data }) => ({ layer, stage, shape, data }));
  const end = step.isEos ? 'eos' : generator.finished ? 'positions' : null;
  const ids = generator.ids;
  return {
    token: step.token,
    label: `#${step.token}`,
    labels: ids.map((id) => `#${id}`),
    isEos: step.isEos,
    end,
    chosenP: 0.5,
    entries,
    cache: generator.cache,
    candidates: [],
    text: null,
  };
}

// Steps until the state ends (as Play does): [state after the prompt, ..., the last].
function play(model, prompt) {
  const generator = model.generator(prompt, { greedy: true }, { prefillTrace: STAGE });
  const states = [startedGeneration(startMessage(generator), MAX_TOKENS)];
  while (!states.at(-1).end) states.push(nextGeneration(states.at(-1), stepMessage(generator), MAX_TOKENS));
  generator.dispose();
  return states;
}

const rows = (state) => state.entries.get(0, 'attn_weights').shape[2]; // [1, H, T, T]

test('a prompt that fills the matrix ends before any step, with 128 rows, not 129', () => {
  const model = smallModel(4096);
  const states = play(
    model,
    Array.from({ length: MAX_TOKENS }, (_, i) => 3 + (i % 100)),
  );
  assert.equal(states.length, 1, 'no step');
  assert.equal(states[0].end, 'tokens');
  assert.equal(states[0].T, MAX_TOKENS);
  assert.equal(rows(states[0]), MAX_TOKENS);
  model.dispose();
});

test('generation that reaches the matrix stops at 128 rows, each step one row', () => {
  const model = smallModel(4096);
  const prompt = Array.from({ length: MAX_TOKENS - 3 }, (_, i) => 3 + (i % 100));
  const states = play(model, prompt);
  const last = states.at(-1);
  assert.equal(last.end, 'tokens');
  assert.equal(last.step, 3);
  assert.deepEqual(
    states.map((s) => s.T),
    [MAX_TOKENS - 3, MAX_TOKENS - 2, MAX_TOKENS - 1, MAX_TOKENS],
  );
  assert.equal(rows(last), MAX_TOKENS);
  assert.deepEqual(last.candidates, []);
  model.dispose();
});

test("generation that reaches the model's positions ends there, the chosen token unfed", () => {
  const positions = 8;
  const model = smallModel(positions);
  assert.equal(model.info().max_position_embeddings, positions);
  const states = play(model, [3, 4, 5, 6, 7]);
  const last = states.at(-1);
  assert.equal(last.end, 'positions');
  assert.equal(last.chosen.isEos, false);
  // Positions 5 and 6 are fed; the token chosen for position 7 has no next position to predict.
  assert.deepEqual(
    states.map((s) => s.T),
    [5, 6, 7, 7],
  );
  assert.equal(rows(last), positions - 1);
  // The model's end comes before the matrix's: a prompt of 8 on 8 positions ends at the first step.
  const full = play(model, [3, 4, 5, 6, 7, 8, 9, 10]);
  assert.deepEqual(
    full.map((s) => [s.T, s.end]),
    [
      [8, null],
      [8, 'positions'],
    ],
  );
  model.dispose();
});

test("a chat prompt longer than the limit is cut in the user's text; the template stays whole", () => {
  const tokenizer = mm.loadTokenizer(readFileSync(new URL('../../models/minimind-tokenizer/tokenizer.json', import.meta.url), 'utf8'));
  const encode = (text) => tokenizer.encode(text);
  const text = '小明把苹果给了小红，她很开心。'.repeat(30);
  const whole = encode(chatPrompt(text));
  assert.ok(whole.length > MAX_TOKENS, `${whole.length} tokens: the test needs a prompt over the limit`);
  const { ids, cut } = fitChatPrompt(encode, text, MAX_TOKENS);
  assert.ok(ids.length <= MAX_TOKENS && ids.length > MAX_TOKENS - 8, `${ids.length} tokens: as many as fit`);
  assert.ok(cut > 0);
  const kept = [...text].slice(0, [...text].length - cut).join('');
  assert.deepEqual(ids, encode(chatPrompt(kept)), "the template around the text's beginning");
  const shown = tokenizer.decode(ids, { skipSpecialTokens: false });
  assert.ok(shown.startsWith('<|im_start|>user\n小明把苹果'), shown.slice(0, 40));
  assert.ok(shown.endsWith('<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n'), 'it ends with the assistant tag');
  // Cutting the rendered prompt's ids, as the worker did, loses that tag.
  const sliced = tokenizer.decode(whole.slice(0, MAX_TOKENS), { skipSpecialTokens: false });
  assert.ok(!sliced.includes('assistant'));
  // One character more would not fit.
  assert.ok(encode(chatPrompt([...text].slice(0, [...text].length - cut + 1).join(''))).length > MAX_TOKENS);
  // A prompt that fits is untouched; a limit the template alone exceeds is refused by name.
  assert.deepEqual(fitChatPrompt(encode, '你好', MAX_TOKENS), { ids: encode(chatPrompt('你好')), cut: 0 });
  assert.throws(() => fitChatPrompt(encode, text, 5), /the chat template alone takes \d+ tokens, more than the 5 allowed/);
  tokenizer.dispose();
});
