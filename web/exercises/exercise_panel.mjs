// The page's side of the tour's exercises: draws one exercise into a
// container (the tour's last step of a chapter, or the page's own box for an
// #exercise/NAME link) and asks the compute worker to compute its question,
// check an answer and reveal the right ones against the model in use
// (js/exercises.mjs through web/worker.mjs). A poke-answer (a head chosen, a
// head switched off, a sentence typed) is what the store holds when Check is
// pressed. The question is asked again whenever what it reads changes.
import { errorText } from '../error_text.mjs';
import { addExerciseStyles } from './exercise_style.mjs';
import { exerciseView } from './exercise_view.mjs';

// What a question reads from the page: a change to any of these asks again.
const READS = ['text', 'inputMode', 'layer', 'head', 'stage', 'causal', 'scale', 'ablate', 'row', 'cell', 'model', 'result', 'lang'];
const SCREEN = ['text', 'layer', 'head', 'row', 'cell', 'causal', 'scale', 'ablate'];
const ASK_DELAY_MS = 120;

/** The Train panel's settings as shown (its inputs, web/train/settings_view.mjs), or null before it is built. */
function trainSettings() {
  const field = (name) => document.querySelector(`#train [name="${name}"]`);
  if (!field('batches')) return null;
  const number = (name) => Number(field(name)?.value);
  return {
    batches: number('batches'),
    batchSize: number('batchSize'),
    maxSeqLen: number('maxSeqLen'),
    source: field('source')?.value ?? 'stream',
  };
}

/**
 * store, t(key, params), client (ModelClient), input (the input panel: the
 * tokens to send). Returns {show(container, name), hide(), receive(message)}:
 * receive takes the worker's 'exercise-result' and errors of 'exercise'.
 */
export function setupExercises({ store, t, client, input }) {
  addExerciseStyles();
  const tries = new Map(); // name -> checks so far on this page
  let current = null; // {name, view, result, verdict, answers, error, busy}
  let timer = null;

  function screen() {
    const s = store.get();
    const { layer, head, stage, causal, scale, ablate, row, cell } = s;
    return { layer, head, stage, causal, scale, ablate, row, cell, train: trainSettings() };
  }

  // kind: 'question' | 'check' | 'reveal'.
  function ask(kind, answer) {
    clearTimeout(timer);
    const s = store.get();
    if (!current || !s.model.info) return;
    if (s.inputMode === 'manual') {
      // Lesson mode's typed matrices are no model's text: nothing to ask the model.
      current.result = { name: current.name, available: false, reason: { kind: 'noText', params: {} } };
      return draw();
    }
    const tokens = input.requestTokens(input.currentTokens());
    current.asked = kind;
    current.busy = true;
    client.exercise(tokens, { name: current.name, screen: screen(), ...(kind === 'check' ? { answer } : {}), reveal: kind === 'reveal' });
    draw();
  }

  function askSoon() {
    clearTimeout(timer);
    timer = setTimeout(() => ask('question'), ASK_DELAY_MS);
  }

  function draw() {
    if (!current) return;
    const s = store.get();
    current.view.update({
      t,
      info: s.model.info,
      labels: s.result?.tokens ?? [],
      layer: s.layer ?? 0,
      result: current.result,
      verdict: current.verdict,
      answers: current.answers,
      tries: tries.get(current.name) ?? 0,
      busy: current.busy,
      error: current.error,
    });
  }

  function show(container, name) {
    const view = exerciseView(container, {
      name,
      onCheck: (answer) => {
        tries.set(name, (tries.get(name) ?? 0) + 1);
        ask('check', answer);
      },
      onReveal: () => ask('reveal'),
    });
    current = { name, view, container, result: null, verdict: null, answers: null, error: null, busy: false };
    draw();
    ask('question');
  }

  function hide() {
    clearTimeout(timer);
    current?.view.element.remove();
    current = null;
  }

  function receive(message) {
    if (!current) return;
    current.busy = false;
    if (message.type === 'error') {
      current.error = errorText(store.get().lang, message).text;
      return draw();
    }
    if (message.name !== current.name) return;
    current.error = null;
    current.result = message;
    if (current.asked === 'check' && message.available) {
      current.verdict = { solved: message.solved, hint: message.hint ?? null };
      const detail = { name: current.name, solved: message.solved, tries: tries.get(current.name) ?? 0 };
      current.view.element.dispatchEvent(new CustomEvent('minimind-exercise', { detail, bubbles: true, composed: true }));
    }
    if (message.answers) current.answers = message.answers;
    draw();
  }

  store.subscribe((state, changed) => {
    if (!current) return;
    if (READS.some((key) => changed.has(key))) {
      if (SCREEN.some((key) => changed.has(key))) current.answers = null; // they were for another screen
      if (changed.has('lang')) draw();
      if (changed.has('cell') && state.cell) current.view.chooseKey(state.cell.key); // a cell clicked: its key is the answer chosen
      askSoon();
    }
  });

  return { show, hide, receive };
}
