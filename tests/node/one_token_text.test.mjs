// bench/speed/one_token_text.mjs: its characters are one token each and no two of
// them merge, so its texts have one token per character.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

import { ONE_TOKEN_CHARACTERS, oneTokenText } from '../../bench/speed/one_token_text.mjs';
import { loadMiniMind } from '../../js/minimind.mjs';

const mm = await loadMiniMind();
const tokenizer = mm.loadTokenizer(readFileSync(new URL('../../models/minimind-tokenizer/tokenizer.json', import.meta.url), 'utf8'));

test('the one-token characters are one token each, and no two of them merge (so "abab" is 4 tokens)', async () => {
  assert.equal(new Set(ONE_TOKEN_CHARACTERS).size, ONE_TOKEN_CHARACTERS.length);
  for (const a of ONE_TOKEN_CHARACTERS) {
    assert.equal(tokenizer.encode(a).length, 1, a);
    for (const b of ONE_TOKEN_CHARACTERS) {
      if (a !== b && tokenizer.encode(`${a}${b}${a}${b}`).length !== 4) assert.fail(`${a}${b}${a}${b} is not 4 tokens`);
    }
  }
});

test('oneTokenText(n, v) is n tokens, and variants differ in their first token', () => {
  for (const n of [1, 24, 256]) {
    const a = Array.from(tokenizer.encode(oneTokenText(n, 0)));
    const b = Array.from(tokenizer.encode(oneTokenText(n, 1)));
    assert.equal(a.length, n);
    assert.equal(b.length, n);
    assert.notEqual(a[0], b[0]);
  }
});
