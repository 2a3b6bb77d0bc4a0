// The exercises that end the tour's chapters, checked against the live model:
// each computes its question, its right answers and its verdict from the
// model and what is on screen (js/exercises/screen.mjs), never from a fixed
// token or head, and says first whether the loaded model has an answer at all.
// The page's compute worker, the <minimind-exercise> element and the Node
// tests call the same functions.
//
//   available(model, screen) -> null | {kind, params}   why there is no answer (the catalogue's exercise.none.<kind>)
//   question(model, screen)  -> {key, params}           the question, worded by the page's catalogue
//   answers(model, screen)   -> [answer]                 every right answer
//   check(model, screen, answer) -> {solved, hint?: {key, params}}
//   choices(model, screen) -> [answer]            (optional) what the answer control offers, when the model decides it
import { circuitEdge } from './exercises/circuit.mjs';
import { maskCheat, scaleSharper, scoresTop, tokensCount } from './exercises/matrix.mjs';
import { forwardGqa, trainSetting, weightSource } from './exercises/model.mjs';
import { lensBlock, otherName, pronounHead, switchOff } from './exercises/pronoun.mjs';
import { argumentError } from './minimind_error.mjs';

export { textScreen } from './exercises/screen.mjs';

const ALL = [
  tokensCount,
  scoresTop,
  maskCheat,
  scaleSharper,
  forwardGqa,
  pronounHead,
  otherName,
  switchOff,
  lensBlock,
  weightSource,
  circuitEdge,
  trainSetting,
];

/** The exercises in the tour's order: [{name, chapter}]. */
export const EXERCISES = Object.freeze(ALL.map(({ name, chapter }) => Object.freeze({ name, chapter })));

/** How each exercise is answered: 'poke' (by what is on screen: a head, the heads off, the text), else the control it needs. */
export const ANSWER_KINDS = Object.freeze({
  'tokens-count': 'number',
  'scores-top': 'key',
  'mask-cheat': 'later-key',
  'scale-sharper': 'key',
  'forward-gqa': 'heads',
  'pronoun-head': 'poke-head',
  'other-name': 'poke-text',
  'switch-off': 'poke-ablate',
  'lens-block': 'block',
  'weight-source': 'component',
  'circuit-edge': 'edge',
  'train-setting': 'number',
});

/** The exercise named `name`; throws for a name that is none. */
export function exercise(name) {
  const found = ALL.find((e) => e.name === name);
  if (!found)
    throw argumentError(
      RangeError,
      'exercise.unknown',
      { name, known: ALL.map((e) => e.name).join(', ') },
      `no exercise is named "${name}" (${ALL.map((e) => e.name).join(', ')})`,
    );
  return found;
}

/**
 * One exercise on the screen as the page shows it: {available: true, question,
 * choices?, solved?, hint?, answers?} or {available: false, reason: {kind, params}}.
 * `answer` undefined: no check (only the question); `reveal`: with every right answer.
 */
export function runExercise(model, screen, { name, answer, reveal = false }) {
  const e = exercise(name);
  const reason = e.available(model, screen);
  if (reason) return { name, available: false, reason };
  const out = { name, available: true, question: e.question(model, screen) };
  if (e.choices) out.choices = e.choices(model, screen);
  if (answer !== undefined) Object.assign(out, e.check(model, screen, answer));
  if (reveal) out.answers = e.answers(model, screen);
  return out;
}
