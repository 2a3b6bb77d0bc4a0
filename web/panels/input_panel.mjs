// The input panel: the text (or token ids) typed, its tokens as chips, and
// the forward pass that turns them into matrices. The other panels ask it
// for the current tokens (generation starts from them, the run bar counts
// them) and to compute again when a switch changes.
import { defaultRow } from '../../js/why_text.mjs';
import { DEMO } from '../demo_model.mjs';
import { withLookup } from '../generation_matrix.mjs';
import { idCollisions, tokenize } from '../../js/preset_tokens.mjs';
import { renderChips } from '../views/chips.mjs';

export const MAX_TOKENS = 128;
// Typing waits only when a forward is slow: a model that answers in a few
// milliseconds redraws on every keystroke (the worker drops stale requests).
const SLOW_FORWARD_MS = 8;
const MAX_TYPING_DEBOUNCE_MS = 150;
// After typing, the note's row is selected once no key has come for this long.
const SELECT_PAUSE_MS = 200;

/**
 * inlineModel: the main-thread twin of a tiny model; redrawTimer: keystroke-to-redraw timing.
 * hooks: {resetGeneration()} of the generation panel (typing ends a generation),
 * {lessonMode(inputMode)} of the lesson panel (into or out of lesson mode).
 */
export function setupInputPanel({ store, t, $, client, inlineModel, redrawTimer, hooks }) {
  let lastComputeMs = 0;

  let selectAfterTyping = false; // the text changed: its first answer picks the row
  // A forward pass's answer, from the worker or from the main-thread twin of a tiny model.
  // tokens: the labels drawn (a byte token by its character); raw: the tokenizer's text, for tooltips and exports.
  function showResult({ ids, labels, raw, special, dropped, entries, computeMs, sentAt }) {
    lastComputeMs = computeMs;
    const result = ids.length
      ? {
          tokens: labels,
          raw: raw ?? labels,
          ids,
          special: special ?? null,
          dropped,
          entries: withLookup(entries),
          T: ids.length,
          computeMs,
          sentAt,
        }
      : null;
    if (!result) redrawTimer.drawn(sentAt);
    // After typing, the first answer selects the row the note talks about (the last pronoun with a
    // story, else the last token), so the outline, the note, the prediction and the why section agree.
    store.set({ result, computeError: null, busy: null, stale: false });
    // Selected once typing pauses: a row set between keystrokes would redraw that text's matrix
    // when the next keystroke clears it.
    clearTimeout(selectTimer);
    if (selectAfterTyping && result) selectTimer = setTimeout(() => selectRow(result), SELECT_PAUSE_MS);
  }

  let selectTimer = null;
  function selectRow(result) {
    const s = store.get();
    if (s.result !== result || s.row !== null || s.generation) return;
    selectAfterTyping = false;
    store.set({ row: defaultRow(s.inputMode === 'text' ? s.text : '', result.tokens) });
  }

  // What to send for the current input: {ids, tokens} computed here, or
  // {text, viaWorker} for the loaded tokenizer in the worker, or {error}.
  // Several views ask on every keystroke: the answer is kept until its inputs change.
  let tokensShown = { inputs: [], tokens: null };
  function currentTokens() {
    const { text, model, inputMode, files, lang } = store.get();
    const inputs = [text, model.info, inputMode, files?.tokenizer, lang];
    if (!inputs.every((value, k) => value === tokensShown.inputs[k])) tokensShown = { inputs, tokens: tokensOfInput() };
    return tokensShown.tokens;
  }

  function tokensOfInput() {
    const { text, model, inputMode } = store.get();
    if (!model.info) return { ids: [], tokens: [], dropped: 0 };
    if (inputMode === 'ids') {
      const parts = text.split(/[\s,]+/u).filter(Boolean);
      const bad = parts.find((p) => !/^\d+$/.test(p));
      if (bad !== undefined) return { ids: [], tokens: [], dropped: 0, error: t('input.badIds', { token: bad }) };
      const ids = parts.slice(0, MAX_TOKENS).map(Number);
      return { ids, tokens: ids.map((id) => `#${id}`), dropped: Math.max(0, parts.length - MAX_TOKENS) };
    }
    if (hasTokenizer()) return { text, viaWorker: true };
    return tokenize(text, model.info.vocab_size, MAX_TOKENS);
  }

  // MiniMind's tokenizer (in the worker): the trained model's, or one that came with files.
  function hasTokenizer(s = store.get()) {
    return s.files ? s.files.tokenizer : s.preset === DEMO;
  }

  function requestTokens(current) {
    return current.viaWorker ? { text: current.text, maxTokens: MAX_TOKENS } : { ids: current.ids, labels: current.tokens };
  }

  function compute() {
    const { model, causal, scale, ablate } = store.get();
    if (!model.info || model.status === 'building') return;
    const current = currentTokens();
    if (!current.viaWorker && current.ids.length === 0) {
      redrawTimer.drawn(performance.now());
      return store.set({ result: null, busy: null, stale: false });
    }
    const sentAt = performance.now();
    const inline = current.viaWorker ? null : inlineModel.forward(current, { causal, scale, ablate });
    if (inline) {
      client.supersede('forward'); // an older answer still in flight must not replace this one
      return showResult({ ...inline, sentAt });
    }
    client.forward(requestTokens(current), { causal, scale, ablate });
    store.set({ busy: { kind: 'forward', since: client.pendingSince('forward') } });
  }

  // What a forward pass depends on besides the model.
  function computeKey() {
    const { text, inputMode, causal, scale, ablate } = store.get();
    return JSON.stringify([text, inputMode, causal, scale, ablate]);
  }

  let computeTimer = null;
  function computeSoon() {
    clearTimeout(computeTimer);
    // An emptied text clears the matrix at once: nothing stale waits under the "empty" message.
    const nothing = store.get().text.trim() === '';
    if (lastComputeMs < SLOW_FORWARD_MS || nothing) return compute();
    client.supersede('forward'); // the answer for older text must not be drawn meanwhile
    computeTimer = setTimeout(compute, Math.min(MAX_TYPING_DEBOUNCE_MS, lastComputeMs));
  }

  // A cancel drops the forward pass typing was about to ask for.
  function stopTyping() {
    clearTimeout(computeTimer);
  }

  // A forward pass (or another request about the input) the worker could not run:
  // kept with its kind and values (errorFields), worded in the page's language when drawn.
  function failed(request, message, error) {
    if (request === 'forward') store.set({ busy: null });
    store.set({ computeError: error?.kind !== undefined ? error : message });
  }

  function renderInput() {
    const s = store.get();
    if ($('text').value !== s.text) $('text').value = s.text;
    $('input-mode').value = s.inputMode;
    // MiniMind's tokenizer, or the page's split on spaces: how the text becomes tokens.
    const bpe = hasTokenizer(s);
    // The box is labelled by what it takes: text for a tokenizer, ids, or words split on spaces.
    const label = s.inputMode === 'ids' ? 'input.labelIds' : bpe ? 'input.labelText' : 'input.label';
    $('input-label').dataset.i18n = label; // so a static redraw of the page keeps it
    $('input-label').textContent = t(label);
    $('input-hint').textContent = t(bpe ? 'input.hintTokenizer' : 'input.hint');
    $('input-mapping').textContent = t(bpe ? 'input.mappingTokenizer' : 'input.mapping');
    $('text').placeholder = t(bpe ? 'input.placeholderTokenizer' : 'input.placeholder');
    const current = currentTokens();
    // With a tokenizer the worker tokenizes: the chips follow its answer.
    const { tokens, ids, dropped, special } = current.viaWorker ? (s.result ?? { tokens: [], ids: [], dropped: 0 }) : current;
    // Hashed ids (no tokenizer): different words that got the same id are marked, with a note.
    const collisions = !current.viaWorker && s.inputMode === 'text' ? idCollisions(tokens, ids) : [];
    const marks = collisions.length ? tokens.map(() => null) : null;
    for (const { id, tokens: words, positions } of collisions) {
      for (const i of positions)
        marks[i] = t('chips.collisionTitle', { token: tokens[i], id, others: words.filter((w) => w !== tokens[i]).join(' / ') });
    }
    renderChips($('chips'), tokens, ids, special, t('chips.bos'), marks);
    $('chips-note').hidden = collisions.length === 0;
    $('chips-note').textContent = collisions.length
      ? t('chips.collision', {
          pairs: collisions
            .map(({ id, tokens: words }) => t('chips.collisionPair', { words: words.join(' / '), id }))
            .join(t('overview.separator')),
        })
      : '';
    const message = !s.model.info
      ? ''
      : current.error
        ? current.error
        : tokens.length === 0 && !(current.viaWorker && s.text.trim())
          ? t('input.empty')
          : dropped > 0
            ? t('input.dropped', { max: MAX_TOKENS, dropped })
            : '';
    $('input-message').textContent = message;
  }

  store.subscribe((state, changed) => {
    if (['text', 'model', 'lang', 'inputMode', 'result', 'files', 'preset'].some((k) => changed.has(k))) renderInput();
  });

  $('text').addEventListener('input', (event) => {
    redrawTimer.keystroke(event);
    clearTimeout(selectTimer);
    store.set({ text: event.target.value, row: null });
    selectAfterTyping = true;
    if (store.get().generation) hooks.resetGeneration();
    computeSoon();
  });
  $('input-mode').addEventListener('change', (event) => {
    // Into or out of lesson mode ('manual'): the lesson panel keeps and restores the playground.
    if (event.target.value === 'manual' || store.get().inputMode === 'manual') return hooks.lessonMode(event.target.value);
    hooks.resetGeneration();
    store.set({ inputMode: event.target.value, row: null });
    compute();
  });

  renderInput();
  return { compute, computeKey, currentTokens, requestTokens, showResult, stopTyping, failed };
}
