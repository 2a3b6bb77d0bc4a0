// The exercise of the circuit chapter: of the edges edge attribution patching
// ranks highest for the why section's pair, which one moves the answer most
// when it is path-patched (the corrupt run's sender output into the clean
// run's receiver, model.circuit)? EAP's ranking is a first-order estimate;
// path patching is exact, and the two need not agree. The pair is the
// circuit view's (web/panels/circuit_panel.mjs): a text typed twice its copy
// (js/circuit_text.mjs inductionPair), else the story of the row on screen
// (js/why_text.mjs patchStory, storyPair; the lesson's pair without one).
import { inductionPair } from '../circuit_text.mjs';
import { nextToken } from '../pronoun_pair.mjs';
import { encodeText } from '../text_encoding.mjs';
import { patchStory, storyPair } from '../why_text.mjs';
import { hasText, shownRow } from './screen.mjs';

/** The edges offered (the top by |EAP score|), each path-patched. */
export const EDGE_CHOICES = 10;
/** An edge is right when its |clean − patched| is at least this share of the largest: ties count. */
export const EDGE_SHARE = 0.95;
const fixed = (value, digits = 2) => value.toFixed(digits);

/** An edge as the view and the answers name it: "sender → receiver". */
const edgeName = (edge) => `${edge.from} → ${edge.to}`;

// The first token of `habit` as the model writes it after `prefix` (its own first token where it merges).
function habitToken(tokenizer, prefix, habit) {
  try {
    return nextToken(tokenizer, prefix, habit);
  } catch {
    return tokenizer.encode(habit)[0] ?? null;
  }
}

/**
 * The circuit view's pair for the screen: {clean, corrupt (ids), answer,
 * wrong (token ids), words: {clean, corrupt} (texts, or null for a copy)} or
 * {none: {kind, params}}.
 */
function circuitPair(screen) {
  if (!(screen.ids?.length > 0)) return { none: { kind: 'noText', params: {} } };
  const induction = inductionPair(Array.from(screen.ids));
  if (induction) return { ...induction, words: null };
  if (!screen.tokenizer) return { none: { kind: 'noTokenizer', params: {} } };
  if (!hasText(screen)) return { none: { kind: 'noText', params: {} } };
  const { tokenizer } = screen;
  const pair = storyPair(patchStory(screen.text, screen.labels, shownRow(screen)).story, tokenizer);
  const clean = encodeText(tokenizer, pair.clean);
  const corrupt = encodeText(tokenizer, pair.corrupt);
  if (clean.length !== corrupt.length) return { none: { kind: 'pairLengths', params: { clean: pair.clean, corrupt: pair.corrupt } } };
  const answer = habitToken(tokenizer, pair.clean, pair.answer);
  const wrong = habitToken(tokenizer, pair.clean, pair.wrong);
  if (answer === null || wrong === null) return { none: { kind: 'noStory', params: {} } };
  return {
    clean,
    corrupt,
    answer,
    wrong,
    words: { clean: pair.clean, corrupt: pair.corrupt },
    habits: { answer: pair.answer, wrong: pair.wrong },
  };
}

// One circuit per model and pair: available, question, answers and check all read it.
let cached = { model: null, key: null, value: null };

/**
 * The circuit of the screen's pair: {pair, clean (metric), edges: the top
 * EDGE_CHOICES by |score| [{from, to, score, patched, moved = |patched − clean|}],
 * largest (moved)} or {none}.
 */
function edgeCircuit(model, screen) {
  const pair = circuitPair(screen);
  if (pair.none) return pair;
  const key = JSON.stringify([pair.clean, pair.corrupt, pair.answer, pair.wrong]);
  if (cached.model !== model || cached.key !== key) {
    const { clean, corrupt, answer, wrong } = pair;
    const result = model.circuit({ clean, corrupt, answer, wrong, top: EDGE_CHOICES, faithfulness: false });
    const edges = result.edges
      .slice(0, EDGE_CHOICES)
      .map((edge) => ({ ...edge, moved: edge.patched === null ? 0 : Math.abs(edge.patched - result.metric.clean) }));
    const largest = Math.max(0, ...edges.map((e) => e.moved));
    cached = { model, key, value: { pair, metric: result.metric, edges, largest } };
  }
  return cached.value;
}

// A token as the question names it: its text, or for a byte piece of a character the habit's first character.
function tokenLabel(screen, id, habit) {
  if (!screen.tokenizer) return `#${id}`;
  const shown = screen.tokenizer.display([id])[0];
  return shown.partial && habit ? [...habit][0] : shown.text;
}
const rightEdges = (c) => c.edges.filter((e) => e.moved >= EDGE_SHARE * c.largest);

export const circuitEdge = {
  name: 'circuit-edge',
  chapter: 'circuit',
  available(model, screen) {
    const c = edgeCircuit(model, screen);
    if (c.none) return c.none;
    if (!(c.largest > 0)) return { kind: 'noPatchEffect', params: { count: c.edges.length } };
    return null;
  },
  question(model, screen) {
    const c = edgeCircuit(model, screen);
    const params = {
      count: c.edges.length,
      answer: tokenLabel(screen, c.pair.answer, c.pair.habits?.answer),
      wrong: tokenLabel(screen, c.pair.wrong, c.pair.habits?.wrong),
      share: Math.round(EDGE_SHARE * 100),
    };
    return { key: c.pair.words ? 'exercise.q.circuitEdge' : 'exercise.q.circuitEdgeCopy', params: { ...params, ...c.pair.words } };
  },
  /** The edges the learner chooses from ("sender → receiver"), strongest EAP score first. */
  choices: (model, screen) => edgeCircuit(model, screen).edges.map(edgeName),
  answers: (model, screen) => rightEdges(edgeCircuit(model, screen)).map(edgeName),
  /** answer: an edge's name, "sender → receiver". */
  check(model, screen, answer) {
    const c = edgeCircuit(model, screen);
    const rank = c.edges.findIndex((e) => edgeName(e) === answer);
    if (rank < 0) return { solved: false, hint: { key: 'exercise.hint.anEdge', params: { count: c.edges.length } } };
    const edge = c.edges[rank];
    if (edge.moved >= EDGE_SHARE * c.largest) return { solved: true };
    const params = {
      edge: answer,
      rank: rank + 1,
      score: fixed(edge.score),
      moved: fixed(edge.moved),
      total: fixed(c.metric.clean - c.metric.corrupt),
    };
    return { solved: false, hint: { key: 'exercise.hint.circuitEdge', params } };
  },
};
