// One exercise drawn into a container: its title, the question (computed by
// the model: js/exercises.mjs), an answer control where the answer is not a
// poke of the figure, Check and Show answer, the tries, the verdict with a
// hint, the answers on request. Shared by the page's panel
// (exercise_panel.mjs) and the <minimind-exercise> element; it sends nothing
// itself: onCheck(answer) and onReveal() do.
//
// The container carries data-exercise (the name), data-available, data-solved
// and data-tries, for tests and course platforms.
import { ANSWER_KINDS } from '../../js/exercises.mjs';
import { residualName, wordParams } from '../../js/why_text.mjs';
import { make } from '../panels/make_element.mjs';

// Reasons that are about what is on screen (a cell to select, a later block to choose), not the model:
// another poke makes the exercise answerable.
const SCREEN_REASONS = new Set(['noText', 'noLater', 'oneKey', 'noStory', 'noCell', 'blockZero', 'fileData', 'badSettings', 'pairLengths']);

/** A sentence {key, params} in the reader's language, nested parts worded too. */
function word(t, sentence) {
  return t(sentence.key, wordParams(t, sentence.params));
}

/** The query heads, lens rows, components or edges the controls offer, from the model's info, the layer shown and the exercise's result. */
function choices(kind, { t, info, labels, layer, result }) {
  if (kind === 'edge') return (result?.choices ?? []).map((edge) => ({ value: edge, text: edge }));
  if (kind === 'key' || kind === 'later-key') return labels.map((label, j) => ({ value: String(j), text: `${j} ${label}` }));
  if (kind === 'block')
    return Array.from({ length: info.num_hidden_layers + 1 }, (_, l) => ({ value: String(l), text: word(t, residualName(l)) }));
  if (kind === 'component') {
    const out = [{ value: 'embed', text: 'embed' }];
    for (let k = 0; k < layer; k += 1) {
      for (let h = 0; h < info.num_attention_heads; h += 1) out.push({ value: `L${k}H${h}`, text: `L${k}H${h}` });
      out.push({ value: `L${k}ffn`, text: `L${k}ffn` });
    }
    return out;
  }
  return [];
}

/** An answer as the reader sees it: a position with its token, a head, the heads off, a lens row's name. */
function answerText(kind, answer, { t, labels }) {
  if (kind === 'key' || kind === 'later-key') return `${answer} “${labels[answer] ?? ''}”`;
  if (kind === 'heads') return answer.length ? answer.map((h) => `h${h}`).join(', ') : t('exercise.none');
  if (kind === 'poke-head') return `L${answer.layer}H${answer.head}`;
  if (kind === 'poke-ablate') return answer.map(([l, h]) => `L${l}H${h}`).join(', ');
  if (kind === 'poke-text') return `“${answer}”`;
  if (kind === 'block') return word(t, residualName(answer));
  return String(answer);
}

/**
 * The view of exercise `name` in `container`. update(state) redraws it:
 * state {t, info (the model's), labels (the tokens on screen), layer (shown),
 * result (the last answer of js/exercises.mjs runExercise), verdict ({solved,
 * hint} of the last check) | null, answers | null, tries, busy, error (text) | null}.
 * poke: the catalogue's prefix of the sentences that say what to poke ('exercise.poke': the page's figure).
 */
export function exerciseView(container, { name, onCheck, onReveal, poke = 'exercise.poke' }) {
  const kind = ANSWER_KINDS[name];
  const root = make('div', 'exercise', container);
  root.dataset.exercise = name;
  root.setAttribute('role', 'group');
  const title = make('h3', 'exercise-title', root);
  const question = make('p', 'exercise-question', root);
  question.setAttribute('aria-live', 'polite');
  const controls = make('div', 'exercise-controls', root);
  const buttons = make('div', 'exercise-buttons', root);
  const check = make('button', 'exercise-check', buttons);
  check.type = 'button';
  const reveal = make('button', 'exercise-reveal', buttons);
  reveal.type = 'button';
  const tries = make('span', 'exercise-tries', buttons);
  const verdict = make('p', 'exercise-verdict', root);
  verdict.setAttribute('role', 'status');
  const shown = make('p', 'exercise-answers', root);
  let control = null;
  let controlKey = null;
  let last = null;
  check.addEventListener('click', () => onCheck(answer()));
  reveal.addEventListener('click', () => onReveal());

  // The control's value as js/exercises.mjs takes it; null for a poke (read from the screen).
  function answer() {
    if (!control || kind.startsWith('poke')) return null;
    if (kind === 'heads') return [...control.querySelectorAll('input:checked')].map((box) => Number(box.value));
    if (kind === 'number') return control.value.trim();
    if (kind === 'component' || kind === 'edge') return control.value === '' ? null : control.value;
    return control.value === '' ? null : Number(control.value);
  }

  function buildControl(state) {
    const { t, info, labels, layer } = state;
    const offered = kind === 'edge' ? (state.result?.choices ?? null) : null;
    const key = JSON.stringify([t('exercise.answer'), info?.num_hidden_layers, info?.num_attention_heads, labels, layer, offered]);
    if (key === controlKey) return;
    controlKey = key;
    controls.replaceChildren();
    control = null;
    if (kind.startsWith('poke')) return void make('p', 'exercise-poke hint', controls, t(`${poke}.${kind.slice('poke-'.length)}`));
    const label = make('label', 'exercise-answer', controls);
    make('span', null, label, t('exercise.answer'));
    if (kind === 'number') {
      control = make('input', null, label);
      control.type = 'text';
      control.inputMode = 'numeric';
      control.autocomplete = 'off';
      control.addEventListener('keydown', (event) => event.key === 'Enter' && !check.disabled && onCheck(answer())); // as pressing Check
    } else if (kind === 'heads') {
      control = make('span', 'exercise-heads', label);
      for (let h = 0; h < (info?.num_attention_heads ?? 0); h += 1) {
        const box = make('label', 'check', control);
        const input = make('input', null, box);
        input.type = 'checkbox';
        input.value = String(h);
        make('span', null, box, `h${h}`);
      }
    } else {
      control = make('select', null, label);
      make('option', null, control, '—').value = '';
      for (const { value, text } of info ? choices(kind, state) : []) make('option', null, control, text).value = value;
    }
  }

  function update(state) {
    last = state;
    const { t, result, verdict: v, answers, busy, error } = state;
    title.textContent = t('exercise.titled', { title: t(`exercise.title.${name}`) });
    check.textContent = t('exercise.check');
    reveal.textContent = t('exercise.show');
    tries.textContent = t('exercise.tries', { count: state.tries });
    root.dataset.tries = String(state.tries);
    buildControl(state);
    const available = result ? result.available : null;
    root.dataset.available = String(available);
    root.dataset.solved = String(Boolean(v?.solved));
    if (error) question.textContent = t('exercise.error', { message: error });
    else if (result && !result.available)
      question.textContent = t(SCREEN_REASONS.has(result.reason.kind) ? 'exercise.notYet' : 'exercise.noAnswer', {
        reason: word(t, { key: `exercise.none.${result.reason.kind}`, params: result.reason.params }),
      });
    else if (result) question.textContent = word(t, result.question);
    else question.textContent = t('exercise.checking');
    check.disabled = reveal.disabled = available !== true;
    root.setAttribute('aria-busy', String(Boolean(busy)));
    verdict.className = `exercise-verdict${v ? (v.solved ? ' solved' : ' wrong') : ''}`;
    verdict.textContent = !v ? '' : v.solved ? t('exercise.solved') : [t('exercise.wrong'), v.hint ? word(t, v.hint) : ''].join(' ');
    shown.hidden = !answers;
    shown.textContent = answers ? t('exercise.answersAre', { answers: answers.map((a) => answerText(kind, a, state)).join(' · ') }) : '';
  }

  /** Puts a key position into a key control (a cell clicked in the matrix answers with its key). */
  function chooseKey(key) {
    if ((kind === 'key' || kind === 'later-key') && control?.querySelector(`option[value="${key}"]`)) control.value = String(key);
  }

  return { element: root, update, answer, chooseKey, redraw: () => last && update(last) };
}
