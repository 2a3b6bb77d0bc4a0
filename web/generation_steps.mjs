// The generation panel's state from the worker's answers (generation_panel.mjs):
// the prompt's state, then one token at a time. A generation ends when the
// model chooses its end-of-sequence token ('eos'), when the model has no
// position left ('positions', said by the worker), or when the matrix is full
// ('tokens': it holds at most maxTokens rows). The limit is checked before a
// token is fed: a prompt that already fills the matrix ends at once, and no
// step ever adds a row past maxTokens.
import { appendRows, withLookup } from './generation_matrix.mjs';

/** The state after the prompt's prefill (the worker's gen-state answer). */
export function startedGeneration({ ids, labels, raw, entries, cache, candidates, text }, maxTokens) {
  const end = ids.length >= maxTokens ? 'tokens' : null;
  return {
    ids,
    tokens: labels, // a byte token by the character it completes (js/token_text.mjs)
    raw: raw ?? labels, // the tokenizer's text, for tooltips and exports
    entries: withLookup(entries),
    T: ids.length,
    promptT: ids.length,
    cache,
    candidates: end ? [] : candidates,
    text, // {prompt, generated} decoded by the tokenizer, or null (no tokenizer)
    end, // why generation ended: 'eos' | 'positions' | 'tokens'
    finished: end !== null,
    step: 0,
    chosen: null,
  };
}

/**
 * The state after one step (the worker's gen-token answer): a token fed
 * through the cache adds its row; one that ended generation unfed (the eos,
 * or the last position) adds none, nor does one past the matrix's room. The
 * worker labels every token again: a byte that completes a character
 * relabels its first bytes.
 */
export function nextGeneration(g, message, maxTokens) {
  const room = g.ids.length < maxTokens;
  const fed = room && message.entries.length > 0;
  const ids = fed ? [...g.ids, message.token] : g.ids;
  const end = message.end ?? (ids.length >= maxTokens ? 'tokens' : null);
  const chosen = { label: message.label, whole: message.whole ?? null, p: message.chosenP, isEos: message.isEos };
  return {
    ...g,
    ids,
    tokens: fed ? (message.labels?.slice(0, ids.length) ?? [...g.tokens, message.label]) : g.tokens,
    raw: fed ? (message.raw?.slice(0, ids.length) ?? [...g.raw, message.label]) : g.raw,
    entries: fed ? appendRows(g.entries, message.entries) : g.entries,
    T: ids.length,
    cache: message.cache,
    candidates: end ? [] : message.candidates,
    text: message.text,
    end,
    finished: end !== null,
    step: g.step + 1,
    chosen,
  };
}
