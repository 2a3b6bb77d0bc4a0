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

// The switches that are off, as the note names them ([] with both on): the
// roles were measured with the causal mask on and ÷ √d, and hold only then.
function switchesOff(t, { causal = true, scale = true }) {
  return [!causal && t('note.maskOff'), !scale && t('note.scaleOff')].filter(Boolean);
}

/**
 * The overview's title of a head: what it does, measured ('' without a
 * measurement); with a switch off, that the measured role holds only with
 * both on (as the note says). switches: {causal, scale}.
 */
export function headTitle(t, heads, layer, head, switches = {}) {
  const off = switchesOff(t, switches);
  const entry = off.length ? headEntry(heads, layer, head) : null;
  if (entry) return t('note.switchesOff', { switches: off.join(t('note.listSeparator')), role: t(`role.${headLabel(entry).role}`) });
  return roleSentence(t, heads, layer, head);
}

/**
 * The overview's label of a head: {role, score, mixed, switchesOff} texts
 * ("代词头", "代词 0.66"), or null. With a switch off the score gives way to
 * the switches that are off ("mask off", as the matrix title marks them): the
 * measured role is not what these weights show; headTitle says why.
 */
export function headTag(t, heads, layer, head, switches = {}) {
  const entry = headEntry(heads, layer, head);
  if (!entry) return null;
  const label = headLabel(entry);
  const off = switchesOff(t, switches);
  const { causal = true, scale = true } = switches;
  if (off.length)
    return {
      role: t(`role.${label.role}`),
      score: [!causal && t('view.maskOff'), !scale && t('view.scaleOff')].filter(Boolean).join(' · '), // the matrix title's marks
      mixed: label.role === 'mixed',
      switchesOff: true,
    };
  return { role: t(`role.${label.role}`), score: `${t(`score.${label.score}`)} ${label.value.toFixed(2)}`, mixed: label.role === 'mixed' };
}
