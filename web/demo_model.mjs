// The project's own trained MiniMind (models/minimind-demo/, made by
// `npm run train:demo`): the default model of the playground and of
// <minimind-attention>. Its files come from demo_source.mjs (fetched next to
// the script, or inlined in the single-file element). What each of its heads
// does is measured, not assumed: heads.json is what `minimind heads --json`
// prints ({heads: [{layer, head, previousToken, induction, pronoun, entropy,
// sink, role}], pronounHead, lesson: [{text, referent, mass}],
// referentAccuracy: {on, off}, probes}), and everything shown about a head
// is read from it, never written here.

/** The trained model's name, where a preset's name goes (the selector, the URL, the element's `preset`). */
export const DEMO = 'minimind-demo';

/** MiniMind's bos token: a pretrained MiniMind reads every text after it. */
export const BOS_TOKEN = '<|im_start|>';

/**
 * ids of `text` as MiniMind feeds a pretrained model (eval_llm.py:
 * `bos_token + prompt`, and as the pretraining corpus is read): the bos,
 * then the tokenizer's ids. A text of nothing but whitespace has no tokens
 * to show, as with the page's own tokenisation.
 */
export function encodeText(tokenizer, text) {
  if (text.trim() === '') return [];
  const ids = tokenizer.encode(text);
  const bos = tokenizer.tokenToId(BOS_TOKEN);
  return ids.length > 0 && bos >= 0 ? [bos, ...ids] : ids;
}

/** {tokens, ids, special, dropped} of `text` (at most `max` tokens) for the chips and the matrix. */
export function tokenizeText(tokenizer, text, max) {
  const all = encodeText(tokenizer, text);
  const ids = all.slice(0, max);
  const shown = tokenizer.display(ids);
  return { ids, tokens: shown.map((t) => t.text), special: shown.map((t) => t.special), dropped: all.length - ids.length };
}

/**
 * Where the lesson's sentence (heads.json's first `lesson` entry) has its
 * pronoun and its referent, as token positions of encodeText():
 * {text, pronounText, referentText, pronoun, referent: [positions], mass},
 * or null when the referent's tokens are not its own in the sentence.
 */
export function lessonPositions(tokenizer, lesson) {
  if (!lesson) return null;
  const { text, referent, mass } = lesson;
  const ids = encodeText(tokenizer, text);
  const p = Math.max(text.lastIndexOf('他'), text.lastIndexOf('她'));
  const c0 = text.indexOf(referent);
  if (p < 0 || c0 < 0) return null;
  // A prefix's encoding is a prefix of the sentence's when its tokens are its own.
  const end = (chars) => {
    const part = encodeText(tokenizer, text.slice(0, chars));
    return part.every((id, i) => ids[i] === id) ? part.length : -1;
  };
  const start = c0 === 0 ? 1 : end(c0);
  const stop = end(c0 + referent.length);
  const pronoun = end(p + 1) - 1;
  if (start < 0 || stop < 0 || pronoun < 0) return null;
  return {
    text,
    pronounText: text[p],
    referentText: referent,
    pronoun,
    referent: Array.from({ length: stop - start }, (_, k) => start + k),
    mass,
  };
}

// The score that names each role (js/head_roles.mjs).
const ROLE_SCORE = { pronoun: 'pronoun', induction: 'induction', 'previous-token': 'previousToken', sink: 'sink' };
export const SCORES = ['previousToken', 'induction', 'pronoun', 'sink'];

/** A head's label: {role, score: the score key shown, value}; a mixed head shows its largest score. */
export function headLabel(entry) {
  const score = ROLE_SCORE[entry.role] ?? SCORES.reduce((best, key) => (entry[key] > entry[best] ? key : best), SCORES[0]);
  return { role: entry.role, score, value: entry[score] };
}

/** heads.json's entry of (layer, head), or null. */
export function headEntry(heads, layer, head) {
  return heads?.heads?.find((h) => h.layer === layer && h.head === head) ?? null;
}
