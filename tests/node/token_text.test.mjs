// Text as a learner reads it from the tokenizer's display (js/token_text.mjs),
// with the trained model's tokenizer: a character split over byte tokens
// reads as the character once its last byte is there, and the prompt and the
// generated part split where the tokens do.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

import { loadMiniMind } from '../../js/minimind.mjs';
import {
  byteForm,
  completedCharacter,
  greedyCompletion,
  PREDICTED_MARK,
  predictedLabel,
  splitText,
  tokenLabels,
} from '../../js/token_text.mjs';

const mm = await loadMiniMind();
const tokenizer = mm.loadTokenizer(readFileSync(new URL('../../models/minimind-demo/tokenizer.json', import.meta.url), 'utf8'));

// A character the tokenizer spells in bytes, split over two or more tokens.
function splitCharacter() {
  for (const c of '踢蹦跷嚼嗅甄') {
    const ids = tokenizer.encode(c);
    if (ids.length > 1) return { c, ids };
  }
  throw new Error('no character of the list is split into byte tokens by this tokenizer');
}

test('a character split over byte tokens reads as the character once complete, as bytes before', () => {
  const { c, ids } = splitCharacter();
  const prompt = tokenizer.encode('他');
  const whole = tokenizer.display([...prompt, ...ids]);
  assert.deepEqual(splitText(whole, prompt.length), { prompt: '他', generated: c });
  assert.equal(completedCharacter(whole, whole.length - 1), c);
  assert.equal(completedCharacter(whole, whole.length - 2), null, 'not the last byte');
  // Before its last byte the character is still bytes: nothing is completed.
  const part = tokenizer.display([...prompt, ...ids.slice(0, -1)]);
  assert.match(splitText(part, prompt.length).generated, /^(<0x[0-9A-F]{2}>)+$/);
  assert.equal(completedCharacter(part, part.length - 1), null);
});

test('the text equals the tokenizer’s decode, split between the prompt and the generated tokens', () => {
  const prompt = [tokenizer.tokenToId('<|im_start|>'), ...tokenizer.encode('小明把苹果给了小红，')];
  const generated = tokenizer.encode('她很开心，他踢起了球');
  const shown = tokenizer.display([...prompt, ...generated]);
  const text = splitText(shown, prompt.length);
  assert.equal(text.prompt, tokenizer.decode(prompt));
  assert.equal(text.generated, tokenizer.decode(generated));
  assert.equal(completedCharacter(shown, prompt.length), null, 'a whole token completes nothing');
});

// ---- the labelling rule (tokenLabels, predictedLabel, greedyCompletion) ----

const ids = (text) => tokenizer.encode(text);
const bos = tokenizer.tokenToId('<|im_start|>');

test('every byte token of a character completed in the sequence is labelled by that character, its raw bytes kept', () => {
  const [first, last] = ids('唱');
  assert.deepEqual(tokenLabels(tokenizer.display([bos, ...ids('她'), first, last, ...ids('歌')])), [
    { label: '<|im_start|>', raw: '<|im_start|>', kind: 'text' },
    { label: '她', raw: '她', kind: 'text' },
    { label: '唱', raw: '<0xE5><0x94>', kind: 'completes' },
    { label: '唱', raw: '<0xB1>', kind: 'completes' },
    { label: '歌', raw: '歌', kind: 'text' },
  ]);
});

test('bytes of a character not completed in the sequence read in the short byte form, never <0x..>', () => {
  const [first] = ids('唱');
  const labels = tokenLabels(tokenizer.display([bos, ...ids('她'), first]));
  assert.deepEqual(labels.at(-1), { label: 'E5 94', raw: '<0xE5><0x94>', kind: 'bytes' });
  // A lone continuation byte (its lead byte is not in the sequence) is bytes too.
  const [, last] = ids('踢');
  assert.deepEqual(tokenLabels(tokenizer.display([last])), [{ label: 'A2', raw: '<0xA2>', kind: 'bytes' }]);
});

test('a token that holds whole characters and bytes shows each character it has a byte of', () => {
  // As the tokenizer shows "好唱的" cut as 好<0xE5> | <0x94><0xB1>的 (two groups share one character).
  const shown = [
    { text: '好<0xE5>', partial: true, special: false, group: 0, groupText: '好唱的' },
    { text: '<0x94><0xB1>的', partial: true, special: false, group: 0, groupText: '好唱的' },
    { text: '<0xE8>', partial: true, special: false, group: 1, groupText: '<0xE8>' },
  ];
  assert.deepEqual(
    tokenLabels(shown).map((l) => [l.label, l.kind]),
    [
      ['好唱', 'completes'],
      ['唱的', 'completes'],
      ['E8', 'bytes'],
    ],
  );
  assert.equal(byteForm('好<0xE5><0x94>'), '好E5 94');
});

test('a predicted byte token is named by its greedy completion, marked; else by its bytes; a whole token by its text', () => {
  const [first] = ids('唱');
  const shown = tokenizer.display([first])[0];
  assert.deepEqual(predictedLabel(shown, '唱'), { label: `唱${PREDICTED_MARK}`, raw: '<0xE5><0x94>', kind: 'predicted' });
  assert.equal(PREDICTED_MARK, '…');
  assert.deepEqual(predictedLabel(shown, null), { label: 'E5 94', raw: '<0xE5><0x94>', kind: 'bytes' });
  const whole = tokenizer.display(ids('她'))[0];
  assert.deepEqual(predictedLabel(whole, '她'), { label: '她', raw: '她', kind: 'text' });
});

test('greedyCompletion reads on with the next tokens it is given until the character is whole, at most `max` of them', () => {
  const [first, last] = ids('唱');
  const prefix = [bos, ...ids('她')];
  const asked = [];
  const next = (sequence) => (asked.push(sequence.length), last);
  assert.equal(greedyCompletion(tokenizer, prefix, first, next), '唱');
  assert.deepEqual(asked, [prefix.length + 1], 'one token after the prefix and the byte token');
  assert.equal(greedyCompletion(tokenizer, prefix, ids('她')[0], next), null, 'a whole token needs no completion');
  // A next token that never completes it (another lead byte): no character within max tokens.
  let calls = 0;
  assert.equal(
    greedyCompletion(tokenizer, prefix, first, () => (calls++, first), 3),
    null,
  );
  assert.equal(calls, 3);
});

test('the trained model completes the lesson answer’s first bytes after 她 as 唱', async () => {
  const model = mm.loadModel({
    config: readFileSync(new URL('../../models/minimind-demo/config.json', import.meta.url), 'utf8'),
    weights: readFileSync(new URL('../../models/minimind-demo/model.safetensors', import.meta.url)),
  });
  const prefix = [bos, ...ids('小明把苹果给了小红，她')];
  const next = (sequence) => {
    const { logits } = model.forward(sequence);
    const V = logits.shape[2];
    const last = logits.data.subarray((sequence.length - 1) * V, sequence.length * V);
    return last.indexOf(Math.max(...last));
  };
  assert.equal(greedyCompletion(tokenizer, prefix, ids('唱')[0], next), '唱');
  model.dispose?.();
});
