// The compute worker's side of "ask the model why" (worker.mjs dispatches
// here): the logit lens and direct logit attribution for the page's text at
// one row, activation patching for two texts. Tokens the page names as text
// are encoded here, with the worker's tokenizer; the defaults (the lesson's
// answer and wrong tokens) are the first tokens of the two habits that
// js/why_text.mjs read from the corpus. The causal mask and √d are as set.
//
// main -> worker: {type: 'lens', id, ids | text, row, token: id | null, story, causal, scale}
//                 {type: 'attribute', id, ids | text, row, answer, wrong, story, causal, scale}
//                 {type: 'patch', id, clean, corrupt ({ids} | {text}), answer, wrong, story, causal, scale}
//                 {type: 'patch', id, pairFrom: {story}, causal, scale}: the pair storyPair() derives
//                   from the story (js/why_text.mjs; the lesson's when story is null), with its habits
//   answer, wrong: {id} | {text} (its first token) | null (the story's habit, else the row's top two)
//   story: rowStory() of the text ({pronoun, at, row, referent, other, answer, wrong} habits) or null
//                 {type: 'qk', id, ids | text, layer, head, query, key, rankKeys, causal, scale}: why one weight (model.qk)
//                 {type: 'circuit', id, pairFrom: {story} | induction: {ids}, top, ablate}: the circuit of the why
//                   section's pair, or of a text typed twice (js/circuit_text.mjs inductionPair), model.circuit
//   every request may carry ablate: [[layer, head], ...], the heads switched off
// worker -> main: {type: 'lens-result', id, row, ids, tokens, lens, token, labels, raws, kinds, storyRow, causal, scale}
//                 {type: 'attribution', id, row, attribution, answer, wrong, storyRow, causal, scale}
//                 {type: 'patch-result', id, result | lengths: {clean, corrupt}, answer, wrong, pair?, causal, scale}
//                 {type: 'qk-result', id, ids, tokens, qk, labels: {id: label} of the ranked tokens, causal, scale}
//                 {type: 'circuit-result', id, result | lengths, pair | induction, answer, wrong, top}
import { MiniMindError } from '../js/minimind_error.mjs';
import { nextToken } from '../js/pronoun_pair.mjs';
import { storyPair, storyRow } from '../js/why_text.mjs';
import { inductionPair } from '../js/circuit_text.mjs';
import { encodeText } from '../js/text_encoding.mjs';

const LENS_TOP = 5;

/** ctx: {model, tokenizer, tokensOf(message), labelOf(id), predictedName(ids, row, id, options), sequenceLabels(ids)} of the worker now. */
export function handleLens(ctx, message) {
  const { ids, labels } = ready(ctx).tokensOf(message);
  const row = Math.min(message.row, ids.length - 1);
  const switches = switchesOf(message);
  const atStory = storyRow(labels, row, message.story);
  // The token mapped: the one asked for, else the story's answer at its pronoun, else the model's own top 1.
  let token = message.token ?? (atStory ? habitToken(ctx, message.story, 'answer') : null);
  if (token === null) token = ctx.model.lens(ids, { top: 1, ...switches }).lens.at(-1)[row][0].id;
  const lens = ctx.model.lens(ids, { top: LENS_TOP, token, ...switches });
  const { labels: labelsOf, raws, kinds } = lensNames(ctx, ids, row, lens, token, switches);
  self.postMessage({
    type: 'lens-result',
    id: message.id,
    ...echo(message),
    row,
    ...lens,
    tokens: labels,
    labels: labelsOf,
    raws,
    kinds,
    storyRow: atStory,
  });
}

export function handleAttribute(ctx, message) {
  const { ids, labels } = ready(ctx).tokensOf(message);
  const row = Math.min(message.row, ids.length - 1);
  const switches = switchesOf(message);
  const atStory = storyRow(labels, row, message.story);
  let answer = resolve(ctx, message.answer) ?? (atStory ? habitToken(ctx, message.story, 'answer') : null);
  let wrong = resolve(ctx, message.wrong) ?? (atStory ? habitToken(ctx, message.story, 'wrong') : null);
  if (answer === null || wrong === null) {
    // The row's own top two at the last layer: why the model prefers its first choice to its second.
    const lastLayer = ctx.model.lens(ids, { top: 3, ...switches }).lens.at(-1);
    const top = lastLayer[row].map((e) => e.id);
    answer ??= top[0];
    wrong ??= top.find((id) => id !== answer);
  }
  const attribution = ctx.model.attribute(ids, { position: row, answer, wrong, ...switches });
  self.postMessage({
    type: 'attribution',
    id: message.id,
    ...echo(message),
    row,
    tokens: labels,
    attribution,
    answer: named(ctx, ids, row, answer, switches),
    wrong: named(ctx, ids, row, wrong, switches),
    storyRow: atStory,
  });
}

export function handlePatch(ctx, message) {
  ready(ctx);
  // A pair derived from the text on screen: its texts, and its habits' first tokens as the defaults.
  const pair = message.pairFrom ? derivedPair(ctx, message.pairFrom.story) : null;
  const story = pair ? { prefix: pair.clean, answer: pair.answer, wrong: pair.wrong } : message.story;
  const clean = idsOf(ctx, pair ? { text: pair.clean } : message.clean);
  const corrupt = idsOf(ctx, pair ? { text: pair.corrupt } : message.corrupt);
  const base = { type: 'patch-result', id: message.id, ...echo(message), pair };
  if (clean.length !== corrupt.length) return self.postMessage({ ...base, lengths: { clean: clean.length, corrupt: corrupt.length } });
  if (message.pairOnly) return self.postMessage(base); // a large model: the pair now, the sweeps on request
  const answer = resolve(ctx, message.answer) ?? (story ? habitToken(ctx, story, 'answer') : null);
  const wrong = resolve(ctx, message.wrong) ?? (story ? habitToken(ctx, story, 'wrong') : null);
  if (answer === null || wrong === null) throw new Error('patching needs an answer token and a wrong token');
  const result = ctx.model.patch({ clean, corrupt, answer, wrong, ...switchesOf(message) });
  const label = (list) => ctx.sequenceLabels(list).map((l) => l.label);
  self.postMessage({
    ...base,
    result: { ...result, tokens: { clean: label(clean), corrupt: label(corrupt) } },
    answer: named(ctx, clean, clean.length - 1, answer, switchesOf(message)),
    wrong: named(ctx, clean, clean.length - 1, wrong, switchesOf(message)),
  });
}

// One attention score of (layer, head) from query to key, split by what wrote
// them, against the row's weighted mean; block 0 also ranks the vocabulary's keys.
export function handleQK(ctx, message) {
  const { ids, labels } = ready(ctx).tokensOf(message);
  const { layer, head, query, key } = message;
  const rank = layer === 0 && message.rankKeys > 0 ? { rankKeys: message.rankKeys } : {};
  const qk = ctx.model.qk({ ids, layer, head, query, key, versus: 'mean', ...rank, ...switchesOf(message) });
  const rankedLabels = Object.fromEntries((qk.ranked ?? []).map(({ id }) => [id, ctx.labelOf(id)]));
  self.postMessage({ type: 'qk-result', id: message.id, ...echo(message), ids, tokens: labels, qk, labels: rankedLabels });
}

// The circuit behind the pair's answer (model.circuit): every edge scored, the
// `top` strongest path-patched, both faithfulness curves, each score split by
// position, with the page's switched-off heads off in every run (ablate); the
// mask and √d switches it does not take: always on.
export function handleCircuit(ctx, message) {
  ready(ctx);
  const induction = message.induction ? inductionPair(message.induction.ids) : null;
  const pair = message.pairFrom ? derivedPair(ctx, message.pairFrom.story) : null;
  const base = { type: 'circuit-result', id: message.id, ...echo(message), pair, induction, top: message.top };
  if (message.induction && !induction) throw new Error('the text is not typed twice');
  const clean = induction ? induction.clean : idsOf(ctx, { text: pair.clean });
  const corrupt = induction ? induction.corrupt : idsOf(ctx, { text: pair.corrupt });
  if (clean.length !== corrupt.length) return self.postMessage({ ...base, lengths: { clean: clean.length, corrupt: corrupt.length } });
  const story = pair ? { prefix: pair.clean, answer: pair.answer, wrong: pair.wrong } : null;
  const answer = induction ? induction.answer : habitToken(ctx, story, 'answer');
  const wrong = induction ? induction.wrong : habitToken(ctx, story, 'wrong');
  if (answer === null || wrong === null) throw new Error('the circuit needs an answer token and a wrong token');
  const ablate = message.ablate?.length ? { ablate: message.ablate } : {};
  const result = ctx.model.circuit({ clean, corrupt, answer, wrong, top: message.top, positions: true, ...ablate });
  const label = (list) => ctx.sequenceLabels(list).map((l) => l.label);
  const plain = { causalMask: true, scaleScores: true, ...ablate };
  self.postMessage({
    ...base,
    result: { ...result, tokens: { clean: label(clean), corrupt: label(corrupt) } },
    answer: named(ctx, clean, clean.length - 1, answer, plain),
    wrong: named(ctx, clean, clean.length - 1, wrong, plain),
  });
}

// storyPair() with the worker's tokenizer, as plain data for the page: {kind, clean, corrupt, answer,
// wrong (habits), pronoun, referent, other, replacement?, tokens?}.
function derivedPair(ctx, story) {
  if (!ctx.tokenizer) throw new Error('this model has no tokenizer: give token ids');
  const pair = storyPair(story, ctx.tokenizer);
  const { pronoun, referent, other } = pair.story;
  const { kind, clean, corrupt, answer, wrong, replacement = null, tokens = null } = pair;
  return { kind, clean, corrupt, answer, wrong, pronoun, referent, other, replacement, tokens };
}

function ready(ctx) {
  if (!ctx.model) throw new Error('no model is loaded');
  return ctx;
}

// The page's switches: the causal mask, √d, and the heads switched off (only when some are).
function switchesOf(message) {
  const switches = { causalMask: message.causal !== false, scaleScores: message.scale !== false };
  return message.ablate?.length ? { ...switches, ablate: message.ablate } : switches;
}

// What the answer is for: the page draws only an answer to what it shows now.
function echo(message) {
  return { causal: message.causal !== false, scale: message.scale !== false, ablate: message.ablate ?? [], asked: message.asked ?? null };
}

// A text's ids as the page's matrix reads it (the bos first), or ids as given.
function idsOf(ctx, tokens) {
  if (tokens.ids) return tokens.ids;
  if (!ctx.tokenizer) throw new Error('this model has no tokenizer: give token ids');
  return encodeText(ctx.tokenizer, tokens.text);
}

// The first token of the story's habit `which` ('answer' | 'wrong') as the model would write it after the pronoun.
function habitToken(ctx, story, which) {
  if (!ctx.tokenizer) return null;
  try {
    return nextToken(ctx.tokenizer, story.prefix, story[which]);
  } catch {
    return firstToken(ctx, story[which]); // the habit merges with the pronoun: its own first token
  }
}

// The first token of a text, as it is written after other text (no bos).
function firstToken(ctx, text) {
  if (!ctx.tokenizer) return null;
  return ctx.tokenizer.encode(text)[0] ?? null;
}

function resolve(ctx, field) {
  if (!field) return null;
  if (field.id !== undefined) {
    const V = ctx.model.info().vocab_size;
    if (!(field.id >= 0 && field.id < V))
      throw new MiniMindError(`token id ${field.id} is outside the vocabulary (0..${V - 1})`, {
        kind: 'token_id.out_of_range',
        values: { id: field.id, last: V - 1 },
      });
    return field.id;
  }
  const id = firstToken(ctx, field.text);
  if (id === null) throw new Error('this model has no tokenizer: give the answer as a token id');
  return id;
}

// {id, label, raw, kind}: a token that is only a character's first bytes
// (唱 is <0xE5><0x94> + <0xB1>) by the character the model's greedy next
// tokens complete after ids[0..row], under the causal mask (唱…).
function named(ctx, ids, row, id, switches) {
  return { id, ...ctx.predictedName(ids, row, id, { ...switches, causalMask: true }) };
}

// The lens grid's tokens at `row`: {labels, raws, kinds}, each {id: label | raw | kind}.
// Byte tokens are completed greedily (one to three forwards each), the
// mapped token and the last layers' first, at most LENS_COMPLETIONS of them;
// the rest read as bytes (E5 94).
const LENS_COMPLETIONS = 12;
function lensNames(ctx, ids, row, lens, token, switches) {
  const labels = {};
  const raws = {};
  const kinds = {};
  let budget = LENS_COMPLETIONS;
  const order = [token, ...lens.lens.toReversed().flatMap((layer) => layer[row].map((entry) => entry.id))];
  for (const id of order) {
    if (Object.hasOwn(labels, id)) continue;
    const complete = budget > 0 && ctx.tokenizer?.display([id])[0].partial;
    if (complete) budget -= 1;
    const name = ctx.predictedName(ids, row, id, complete ? { ...switches, causalMask: true } : null);
    labels[id] = name.label;
    raws[id] = name.raw;
    kinds[id] = name.kind;
  }
  return { labels, raws, kinds };
}
