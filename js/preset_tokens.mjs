// The tokenisation of a model without a tokenizer (the presets, a weights
// file without tokenizer.json): the page's, the element's and the CLI's, so a
// number on the page can be reproduced with the CLI. Spaces separate
// tokens, so the lessons' "小明 把 苹果 给了 小红" gives 小明, 把, 苹果, ...
// Text typed without any whitespace ("今天天气很好") has no boundaries to
// follow: its runs of CJK characters are split into single characters
// (今 天 天 气 很 好), other runs ("GPT", "3.14") stay whole.
// Ids come from a deterministic per-model mapping that the page shows:
//   id = 3 + fnv1a32(UTF-8 bytes of the token) mod (vocab_size - 3)
// (ids 0-2 are MiniMind's special tokens), so a token has the same id in
// every session, every shared link and the CLI. A hash can give two different
// words the same id (lab-a has 128 ids): the model then reads them as one
// token, and idCollisions finds them so that the chips can say so.

const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u3000-\u303f\uff00-\uffef]/u;
const encoder = new TextEncoder();

/** Tokens of `text` in order. */
export function splitTokens(text) {
  const words = text.split(/\s+/u).filter((w) => w.length > 0);
  if (words.length !== 1) return words;
  const tokens = [];
  for (const word of words) {
    let run = '';
    for (const ch of word) {
      if (CJK.test(ch)) {
        if (run) tokens.push(run);
        run = '';
        tokens.push(ch);
      } else {
        run += ch;
      }
    }
    if (run) tokens.push(run);
  }
  return tokens;
}

/** FNV-1a, 32 bit, over the token's UTF-8 bytes. */
export function fnv1a32(token) {
  let hash = 0x811c9dc5;
  for (const byte of encoder.encode(token)) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}

const FIRST_ORDINARY_ID = 3;

/** The id of `token` for a model with `vocabSize` ids. */
export function tokenId(token, vocabSize) {
  return FIRST_ORDINARY_ID + (fnv1a32(token) % (vocabSize - FIRST_ORDINARY_ID));
}

/** Tokens and ids, at most `maxTokens` (the rest is reported as dropped). */
export function tokenize(text, vocabSize, maxTokens) {
  const all = splitTokens(text);
  const tokens = all.slice(0, maxTokens);
  return { tokens, ids: tokens.map((t) => tokenId(t, vocabSize)), dropped: all.length - tokens.length };
}

/**
 * Ids that different tokens share, in order of first appearance:
 * [{id, tokens: the distinct tokens (first appearance order), positions}].
 * The same word twice is not a collision.
 */
export function idCollisions(tokens, ids) {
  const byId = new Map();
  ids.forEach((id, i) => {
    let entry = byId.get(id);
    if (!entry) byId.set(id, (entry = { id, tokens: [], positions: [] }));
    if (!entry.tokens.includes(tokens[i])) entry.tokens.push(tokens[i]);
    entry.positions.push(i);
  });
  return [...byId.values()].filter((entry) => entry.tokens.length > 1);
}
