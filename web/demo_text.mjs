// Sentences about the trained model's heads, from its heads.json, in the
// page's or the element's language (`t` is the caller's catalogue function;
// the keys are messages/demo_terms.mjs's).
import { SCORES, headEntry, headLabel } from './demo_model.mjs';

const percent = (x) => `${Math.round(x * 100)}%`;

/** True when (layer, head) is the head heads.json found for pronouns. */
export function isPronounHead(heads, layer, head) {
  const p = heads?.pronounHead;
  return Boolean(p) && p.layer === layer && p.head === head;
}

/**
 * What the learner sees at (layer, head): at the pronoun head, what it does
 * (measured on held-out sentences) and what the lesson's sentence shows;
 * elsewhere the head's role and scores. '' for a head heads.json lacks.
 */
export function headNote(t, heads, { layer, head }) {
  const entry = headEntry(heads, layer, head);
  if (!entry) return '';
  const lesson = heads.lesson?.[0];
  if (isPronounHead(heads, layer, head) && lesson) {
    const count = heads.probes?.heldOut;
    return t(count ? 'demo.pronounHead' : 'demo.pronounHeadNoCount', {
      layer,
      head,
      count,
      mass: percent(entry.pronoun),
      pronoun: lesson.text[Math.max(lesson.text.lastIndexOf('他'), lesson.text.lastIndexOf('她'))],
      lessonMass: percent(lesson.mass),
      referent: lesson.referent,
    });
  }
  const scores = Object.fromEntries(SCORES.map((key) => [key, entry[key].toFixed(2)]));
  return t('demo.headScores', { layer, head, role: t(`role.${entry.role}`), ...scores });
}

/** The overview's label of a head: {role, score} texts ("代词头", "代词 0.66"), or null. */
export function headTag(t, heads, layer, head) {
  const entry = headEntry(heads, layer, head);
  if (!entry) return null;
  const label = headLabel(entry);
  return { role: t(`role.${label.role}`), score: `${t(`score.${label.score}`)} ${label.value.toFixed(2)}`, mixed: label.role === 'mixed' };
}
