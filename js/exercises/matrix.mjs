// The exercises of the matrix's first chapters (lesson 2.5): the tokens and
// the bos, the raw scores QKᵀ, the causal mask, ÷√d. Each reads the row and
// head on screen and computes its answer from the model's own trace.
//
// Every exercise: {name, chapter, available(model, screen) -> null | {kind, params},
// question(model, screen) -> {key, params}, answers(model, screen) -> [answer],
// check(model, screen, answer) -> {solved, hint?: {key, params}}}.
import { bosId } from '../text_encoding.mjs';
import { namesIn } from '../why_text.mjs';
import { encodeSpan } from '../text_encoding.mjs';
import { hasText, largestPositions, range, shownHead, shownRow, stageRow } from './screen.mjs';

// Weights and scores are shown with 2 decimals: entries this close to the largest are as right as it.
const WEIGHT_TIE = 0.005;
const fixed = (value, digits = 2) => value.toFixed(digits);

/** A key position the learner chose, or null when it is none of the text's. */
function position(answer, T) {
  const k = typeof answer === 'string' && answer.trim() !== '' ? Number(answer) : answer;
  return Number.isInteger(k) && k >= 0 && k < T ? k : null;
}

function noTokens(screen) {
  return screen.ids.length === 0 ? { kind: 'noText', params: {} } : null;
}

// ---------------------------------------------------------------- tokens

export const tokensCount = {
  name: 'tokens-count',
  chapter: 'tokens',
  available: (model, screen) => noTokens(screen),
  question(model, screen) {
    const bos = hasBos(screen);
    return { key: bos ? 'exercise.q.tokensCountBos' : 'exercise.q.tokensCount', params: { bos: bos ? screen.labels[0] : '' } };
  },
  answers: (model, screen) => [screen.ids.length],
  check(model, screen, answer) {
    const T = screen.ids.length;
    const n = Number(answer);
    if (n === T) return { solved: true };
    if (!Number.isInteger(n) || n < 0) return { solved: false, hint: { key: 'exercise.hint.aNumber', params: {} } };
    if (hasBos(screen) && n === T - 1)
      return { solved: false, hint: { key: 'exercise.hint.tokensBos', params: { bos: screen.labels[0] } } };
    if (typeof screen.text === 'string' && n === [...screen.text].length && screen.tokenizer)
      return { solved: false, hint: { key: 'exercise.hint.tokensChars', params: {} } };
    return { solved: false, hint: { key: 'exercise.hint.tokensCount', params: {} } };
  },
};

function hasBos(screen) {
  return Boolean(screen.tokenizer) && screen.ids.length > 0 && screen.ids[0] === bosId(screen.tokenizer);
}

// ---------------------------------------------------------------- scores

/** The keys row `row` sees: itself and those before it under the mask, all without it. */
function visibleKeys(screen, row) {
  return screen.causal === false ? range(0, screen.ids.length) : range(0, row + 1);
}

function rowParams(model, screen) {
  const { layer, head } = shownHead(model, screen);
  const row = shownRow(screen);
  return { layer, head, row, token: screen.labels[row] };
}

export const scoresTop = {
  name: 'scores-top',
  chapter: 'scores',
  available: (model, screen) => noTokens(screen),
  question: (model, screen) => ({ key: 'exercise.q.scoresTop', params: rowParams(model, screen) }),
  answers(model, screen) {
    const { layer, head, row } = rowParams(model, screen);
    const scores = stageRow(model, screen, { layer, head, row, stage: 'scores_raw' });
    return largestPositions(scores, visibleKeys(screen, row), WEIGHT_TIE);
  },
  check(model, screen, answer) {
    const { layer, head, row } = rowParams(model, screen);
    const k = position(answer, screen.ids.length);
    if (k === null || !visibleKeys(screen, row).includes(k))
      return { solved: false, hint: { key: 'exercise.hint.aVisibleKey', params: { row } } };
    if (scoresTop.answers(model, screen).includes(k)) return { solved: true };
    const scores = stageRow(model, screen, { layer, head, row, stage: 'scores_raw' });
    return { solved: false, hint: { key: 'exercise.hint.scoresTop', params: { token: screen.labels[k], score: fixed(scores[k]), row } } };
  },
};

// ---------------------------------------------------------------- mask

/**
 * The row the mask question asks about: the last token of the first name in
 * the text (小明 in the lesson's sentence), else the selected row, else the
 * first; always one with later tokens.
 */
function cheatRow(screen) {
  const T = screen.ids.length;
  if (hasText(screen)) {
    for (const { name, at } of namesIn(screen.text)) {
      const span = encodeSpan(screen.tokenizer, screen.text, at, at + name.length);
      if (span && span.end - 1 < T - 1 && span.end > span.start) return span.end - 1;
    }
  }
  const row = shownRow(screen);
  return row < T - 1 ? row : 0;
}

function cheatWeights(model, screen) {
  const { layer, head } = shownHead(model, screen);
  const row = cheatRow(screen);
  const weights = stageRow(model, screen, { layer, head, row, over: { causalMask: false } });
  return { layer, head, row, weights, later: range(row + 1, screen.ids.length) };
}

export const maskCheat = {
  name: 'mask-cheat',
  chapter: 'mask',
  available: (model, screen) => (screen.ids.length < 2 ? { kind: 'noLater', params: {} } : null),
  question(model, screen) {
    const { layer, head } = shownHead(model, screen);
    const row = cheatRow(screen);
    return { key: 'exercise.q.maskCheat', params: { layer, head, row, token: screen.labels[row] } };
  },
  answers(model, screen) {
    const { weights, later } = cheatWeights(model, screen);
    return largestPositions(weights, later, WEIGHT_TIE);
  },
  check(model, screen, answer) {
    const { row, weights, later } = cheatWeights(model, screen);
    const k = position(answer, screen.ids.length);
    if (k === null || !later.includes(k))
      return { solved: false, hint: { key: 'exercise.hint.aLaterKey', params: { row, token: screen.labels[row] } } };
    if (largestPositions(weights, later, WEIGHT_TIE).includes(k)) return { solved: true };
    return { solved: false, hint: { key: 'exercise.hint.maskCheat', params: { token: screen.labels[k], weight: fixed(weights[k]) } } };
  },
};

// ---------------------------------------------------------------- √d

// A weight "grows" when it is larger without ÷√d by more than float noise.
const GROWS = 1e-6;

function scaleWeights(model, screen) {
  const { layer, head } = shownHead(model, screen);
  const row = shownRow(screen);
  const on = stageRow(model, screen, { layer, head, row, over: { scaleScores: true } });
  const off = stageRow(model, screen, { layer, head, row, over: { scaleScores: false } });
  const keys = visibleKeys(screen, row);
  return { layer, head, row, on, off, keys, grows: keys.filter((j) => off[j] > on[j] + GROWS) };
}

export const scaleSharper = {
  name: 'scale-sharper',
  chapter: 'scale',
  available(model, screen) {
    if (screen.ids.length === 0) return { kind: 'noText', params: {} };
    const { keys, grows, row } = scaleWeights(model, screen);
    if (keys.length < 2) return { kind: 'oneKey', params: { row } };
    if (grows.length === 0) return { kind: 'flatRow', params: { row } };
    return null;
  },
  question(model, screen) {
    const { layer, head, row } = rowParams(model, screen);
    const dh = model.info().head_dim;
    return { key: 'exercise.q.scaleSharper', params: { layer, head, row, token: screen.labels[row], sqrtD: fixed(Math.sqrt(dh)), dh } };
  },
  answers: (model, screen) => scaleWeights(model, screen).grows,
  check(model, screen, answer) {
    const { on, off, keys, grows, row } = scaleWeights(model, screen);
    const k = position(answer, screen.ids.length);
    if (k === null || !keys.includes(k)) return { solved: false, hint: { key: 'exercise.hint.aVisibleKey', params: { row } } };
    if (grows.includes(k)) return { solved: true };
    const sqrtD = fixed(Math.sqrt(model.info().head_dim));
    return {
      solved: false,
      hint: { key: 'exercise.hint.scaleSharper', params: { token: screen.labels[k], on: fixed(on[k], 3), off: fixed(off[k], 3), sqrtD } },
    };
  },
};
