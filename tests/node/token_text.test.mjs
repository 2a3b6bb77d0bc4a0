// Text as a learner reads it from the tokenizer's display (js/token_text.mjs),
// with the trained model's tokenizer: a character split over byte tokens
// reads as the character once its last byte is there, and the prompt and the
// generated part split where the tokens do.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

import { loadMiniMind } from '../../js/minimind.mjs';
import { completedCharacter, splitText } from '../../js/token_text.mjs';

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
