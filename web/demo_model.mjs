// The project's own trained MiniMind (models/minimind-demo/, made by
// `npm run train:demo`): the default model of the playground and of
// <minimind-attention>. Its files come from demo_source.mjs (fetched next to
// the script, or inlined in the single-file element). What each of its heads
// does is measured, not assumed: heads.json is what `minimind heads --json`
// prints ({heads: [{layer, head, previousToken, induction, pronoun, entropy,
// sink, role}], pronounHead, lesson: [{text, referent, mass}],
// referentAccuracy: {on, off}, probes}), and everything shown about a head
// is read from it, never written here.
import { componentRoles } from '../js/qk_text.mjs';
import { encodeSpan, encodeText } from '../js/text_encoding.mjs';

/** The trained model's name, where a preset's name goes (the selector, the URL, the element's `preset`). */
export const DEMO = 'minimind-demo';

/** {tokens, ids, special, dropped} of `text` (at most `max` tokens) for the chips and the matrix. */
export function tokenizeText(tokenizer, text, max) {
  const all = encodeText(tokenizer, text);
  const ids = all.slice(0, max);
  const shown = tokenizer.display(ids);
  return { ids, tokens: shown.map((t) => t.text), special: shown.map((t) => t.special), dropped: all.length - ids.length };
}

/**
 * Where the lesson's sentence (heads.json's first `lesson` entry) has its
 * pronoun and its referent, as token positions of encodeText()
 * (js/text_encoding.mjs):
 * {text, pronounText, referentText, pronoun, referent: [positions], mass},
 * or null when the referent's tokens are not its own in the sentence.
 */
export function lessonPositions(tokenizer, lesson) {
  if (!lesson) return null;
  const { text, referent, mass } = lesson;
  const p = Math.max(text.lastIndexOf('他'), text.lastIndexOf('她'));
  const c0 = text.indexOf(referent);
  if (p < 0 || c0 < 0) return null;
  const span = encodeSpan(tokenizer, text, c0, c0 + referent.length);
  // The pronoun is the last token of the text through it.
  const through = encodeSpan(tokenizer, text, p + 1, p + 1);
  if (!span || !through) return null;
  const { start, end: stop } = span;
  const pronoun = through.end - 1;
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
const SCORES = ['previousToken', 'induction', 'pronoun', 'sink'];

/** The QK components' measured roles (js/qk_text.mjs componentRoles of heads.json) while the trained model is the one in use, else {}. */
export function demoRoles(s) {
  return s.preset === DEMO && !s.files ? componentRoles(s.demo?.heads) : {};
}

/** A head's label: {role, score: the score key shown, value}; a mixed head shows its largest score. */
export function headLabel(entry) {
  const score = ROLE_SCORE[entry.role] ?? SCORES.reduce((best, key) => (entry[key] > entry[best] ? key : best), SCORES[0]);
  return { role: entry.role, score, value: entry[score] };
}

/** heads.json's entry of (layer, head), or null. */
export function headEntry(heads, layer, head) {
  return heads?.heads?.find((h) => h.layer === layer && h.head === head) ?? null;
}
