// Sentences about a model's heads in the page's or the element's language
// (`t` is the caller's catalogue function; the keys are
// messages/demo_terms.mjs's). The note under the matrix is composed from
// what is on screen (js/head_note.mjs); the overview's labels and titles
// from the measured roles (heads.json, or a model trained in the page).
import { composeHeadNote, roleSentence } from '../js/head_note.mjs';
import { headEntry, headLabel } from './demo_model.mjs';

/**
 * The note under the matrix: {text, row}. view: {tokens, weights (the head's
 * softmax [T, T]), row, layer, head, causal, scale}; heads: the measured
 * roles, or null (then only what the row shows).
 */
export function headNote(t, heads, view) {
  return composeHeadNote(t, { ...view, heads });
}

/** The overview's title of a head: what it does, measured ('' without a measurement). */
export function headTitle(t, heads, layer, head) {
  return roleSentence(t, heads, layer, head);
}

/** The overview's label of a head: {role, score} texts ("代词头", "代词 0.66"), or null. */
export function headTag(t, heads, layer, head) {
  const entry = headEntry(heads, layer, head);
  if (!entry) return null;
  const label = headLabel(entry);
  return { role: t(`role.${label.role}`), score: `${t(`score.${label.score}`)} ${label.value.toFixed(2)}`, mixed: label.role === 'mixed' };
}
