// <minimind-exercise name="…">: one of the tour's exercises (js/exercises.mjs)
// in course material, checked in the reader's browser against the project's
// trained MiniMind, with its own small figure and controls (the text, the
// layer and head, the row, the switches; the heads to switch off; the Train
// panel's settings), so that it is answerable without the playground.
// Every check dispatches `minimind-exercise` ({detail: {name, solved, tries}},
// bubbling and composed) on the element, for a course platform to record.
//
// Everything lives in a shadow root; the language is the `lang` attribute's,
// else the host page's. Errors (an unknown name, files that do not load) are
// shown inside the element in its language, never thrown into the host page.
// Attributes: name (required), lang, text (the sentence it opens on).
import { argmax } from '../../js/argmax.mjs';
import { EXERCISES, runExercise, textScreen } from '../../js/exercises.mjs';
import { viewOf } from '../../js/exercises/screen.mjs';
import { LESSON_PROBE } from '../../js/train_session.mjs';
import { TRAIN_RECIPES } from '../../js/train_recipes.mjs';
import { defaultRow } from '../../js/why_text.mjs';
import { hostLanguage } from '../browser_language.mjs';
import { DEMO } from '../demo_model.mjs';
import { errorText } from '../error_text.mjs';
import { EXERCISE_CSS } from '../exercises/exercise_style.mjs';
import { exerciseView } from '../exercises/exercise_view.mjs';
import { EXERCISE_TERMS } from '../messages/exercise_terms.mjs';
import { buildControls, syncControls } from './exercise_controls.mjs';
import { drawExerciseFigure } from './exercise_figure.mjs';
import { embedText } from './messages.mjs';
import { LoadError, acquireModel, describeModel, loadRuntime } from './runtime.mjs';
import { make } from '../panels/make_element.mjs';
import { watchNearViewport } from './near_viewport.mjs';

// The controls each exercise offers besides its answer.
const MATRIX = ['text', 'layer', 'head', 'row', 'causal', 'scale', 'stage'];
const CONTROLS = {
  'forward-gqa': ['head'],
  'pronoun-head': ['text', 'layer', 'head'],
  'other-name': ['text'],
  'switch-off': ['text', 'ablate'],
  'lens-block': ['text'],
  'weight-source': ['text', 'layer', 'head', 'row', 'key'],
  'circuit-edge': ['text'],
  'train-setting': ['train'],
};

const ELEMENT_CSS = `
:host { display: block; font: 15px/1.45 system-ui, sans-serif; color: var(--ink, #1a1a1a); }
.ex-frame { max-width: 100%; box-sizing: border-box; }
.ex-context { display: flex; flex-wrap: wrap; gap: 0.4rem 0.8rem; align-items: center; margin: 0.4rem 0; }
.ex-context label { display: inline-flex; gap: 0.3rem; align-items: center; }
.ex-context input[type='text'] { min-width: 12rem; max-width: 100%; font: inherit; }
.ex-context input[type='number'] { width: 6rem; font: inherit; }
.ex-context select { font: inherit; }
.ex-ablate { display: flex; flex-wrap: wrap; gap: 0.2rem 0.6rem; }
.ex-figure-title { margin: 0.4rem 0 0.2rem; font-size: 0.9rem; color: var(--muted, #5b5b5b); }
.ex-strip { display: flex; flex-wrap: wrap; gap: 0.25rem; list-style: none; padding: 0; margin: 0 0 0.4rem; }
.ex-strip li { display: flex; flex-direction: column; align-items: center; padding: 0.15rem 0.35rem; border: 1px solid var(--line, #d0d0d0);
  border-radius: 4px; background: rgba(59, 76, 192, calc(var(--ex-shade, 0) * 0.55)); font-size: 0.85rem; }
.ex-value { font-variant-numeric: tabular-nums; font-size: 0.75rem; }
.ex-status { margin: 0.3rem 0; }
.ex-status.error { color: var(--error, #b00020); }
`;

const ElementBase = typeof HTMLElement === 'function' ? HTMLElement : class {};

function fill(template, params) {
  return template.replace(/\{(\w+)\}/g, (match, name) => (name in params ? String(params[name]) : match));
}

/**
 * The page's names of the lens's rows (web/messages/why_terms.mjs), copied so that the
 * script does not carry the page's whole catalogue; tests/browser/exercise_element.test.mjs
 * checks that they stay equal.
 */
export const LENS_TERMS = {
  'zh-CN': { 'why.emb': '嵌入（embed）', 'why.after': '{layer} 之后' },
  en: { 'why.emb': 'embed', 'why.after': 'after {layer}' },
};

/** The element's words: the exercises' catalogue, the lens rows' names, the embed element's load messages. */
function translator(lang) {
  const own = (l) => ({ ...LENS_TERMS[l], ...EXERCISE_TERMS[l] });
  const words = own(lang);
  const en = own('en');
  return (key, params = {}) => {
    const template = words[key] ?? en[key];
    return template === undefined ? embedText(lang, key, params) : fill(template, params);
  };
}

class MiniMindExercise extends ElementBase {
  static get observedAttributes() {
    return ['name', 'lang', 'text'];
  }

  #parts;
  #held = null; // {model, release, tokenizer, heads}
  #state = null; // the element's screen: {name, text, layer, head, row, key, stage, causal, scale, ablate, train}
  #view = null;
  #verdict = null;
  #answers = null;
  #result = null;
  #tries = 0;
  #run = 0;
  #visible = false;
  #visibility = null; // IntersectionObserver until first near the viewport

  constructor() {
    super();
    const root = this.attachShadow({ mode: 'open' });
    make('style', null, root).textContent = EXERCISE_CSS + ELEMENT_CSS;
    const frame = make('div', 'ex-frame', root);
    this.#parts = {
      frame,
      status: make('p', 'ex-status', frame),
      context: make('div', 'ex-context', frame),
      figure: make('div', 'ex-figure', frame),
      host: make('div', null, frame),
    };
    this.#parts.status.setAttribute('role', 'status');
  }

  // The module and the model load when the element first comes near the viewport (as <minimind-attention>).
  connectedCallback() {
    if (this.#visible || this.#visibility) return this.#load();
    this.#visibility = watchNearViewport(this, () => {
      this.#visibility = null;
      this.#visible = true;
      this.#load();
    });
    if (this.#visibility) this.#load();
  }

  disconnectedCallback() {
    this.#visibility?.disconnect();
    this.#visibility = null;
    this.#run += 1;
    this.#held?.release();
    this.#held = null;
  }

  attributeChangedCallback() {
    if (this.isConnected) this.#load();
  }

  get #lang() {
    const given = this.getAttribute('lang');
    if (given && /^zh\b/i.test(given.trim())) return 'zh-CN';
    if (given && /^en\b/i.test(given.trim())) return 'en';
    return hostLanguage(this);
  }

  async #load() {
    const run = ++this.#run;
    const t = translator(this.#lang);
    this.#parts.frame.lang = this.#lang;
    const name = this.getAttribute('name');
    try {
      if (!EXERCISES.some((e) => e.name === name))
        return this.#fail(t('exercise.el.badName', { name: name ?? '', names: EXERCISES.map((e) => e.name).join(', ') }));
      this.#status(t('exercise.el.loading'));
      this.setAttribute('data-state', 'loading');
      if (!this.#visible) return;
      const mm = await loadRuntime();
      if (run !== this.#run) return;
      const described = await describeModel(mm, { preset: DEMO, seed: 0 });
      if (run !== this.#run) return;
      if (!this.#held) {
        const { model, release } = await acquireModel(mm, described);
        if (run !== this.#run) return release();
        this.#held = { model, release, tokenizer: described.trained.tokenizer, heads: described.trained.files.heads };
      }
      this.#start(name, t);
    } catch (error) {
      if (run !== this.#run) return;
      if (error instanceof LoadError) {
        const key = error.kind === 'model' ? 'embed.modelFailed' : error.url === null ? 'embed.moduleInlineFailed' : 'embed.moduleFailed';
        this.#fail(t(key, { url: error.url }));
      } else this.#fail(errorText(this.#lang, error).text);
    }
  }

  #status(text, error = false) {
    this.#parts.status.textContent = text;
    this.#parts.status.className = `ex-status${error ? ' error' : ''}`;
    this.#parts.status.hidden = text === '';
  }

  #fail(message) {
    this.#status(translator(this.#lang)('exercise.el.failed', { message }), true);
    this.setAttribute('data-state', 'error');
  }

  // A fresh screen for exercise `name`: the trained model's pronoun head (block 0's head 0 to choose from, block 1 for a weight's source).
  #start(name, t) {
    const own = this.#held.heads.pronounHead;
    const text = this.getAttribute('text') ?? LESSON_PROBE;
    if (this.#state?.name !== name || this.#state.given !== text) {
      const layer = name === 'pronoun-head' ? 0 : name === 'weight-source' ? 1 : own.layer;
      const head = name === 'pronoun-head' ? 0 : own.head;
      const recipe = TRAIN_RECIPES.default;
      const train = { batches: recipe.batches, batchSize: recipe.options.batchSize, maxSeqLen: recipe.options.maxSeqLen, source: 'stream' };
      this.#state = {
        name,
        given: text,
        text,
        layer,
        head,
        row: null,
        key: null,
        stage: 'attn_weights',
        causal: true,
        scale: true,
        ablate: [],
        train,
      };
      this.#tries = 0;
      this.#verdict = null;
      this.#answers = null;
    }
    this.#status('');
    this.setAttribute('data-state', 'ready');
    this.#parts.host.replaceChildren();
    this.#view = exerciseView(this.#parts.host, {
      name,
      poke: 'exercise.el.poke',
      onCheck: (answer) => this.#check(answer),
      onReveal: () => this.#reveal(),
    });
    buildControls(this.#parts.context, {
      t,
      info: this.#held.model.info(),
      state: this.#state,
      wanted: CONTROLS[name] ?? MATRIX,
      set: (patch) => this.#set(patch),
    });
    this.#refresh();
  }

  // The element's screen as js/exercises.mjs reads it; the row follows the text (its pronoun's), the cell is the row's top key.
  #screen() {
    const s = this.#state;
    const screen = textScreen(this.#held.tokenizer, s.text, { ...viewOf(s), train: s.train });
    const T = screen.ids.length;
    if (s.name !== 'mask-cheat' && !(Number.isInteger(s.row) && s.row >= 0 && s.row < T))
      s.row = T ? defaultRow(s.text, screen.labels) : null;
    if (T && s.name === 'mask-cheat' && s.row === null) s.row = this.#askedRow(screen);
    if (!(Number.isInteger(s.key) && s.key >= 0 && s.key < T)) s.key = T ? this.#topKey({ ...screen, row: s.row }) : null;
    return { ...screen, row: s.row, cell: T ? { query: s.row, key: s.key } : null };
  }

  // The row the mask question asks about (js/exercises/matrix.mjs picks it from the text), drawn in the figure.
  #askedRow(screen) {
    const result = runExercise(this.#held.model, { ...screen, row: null }, { name: 'mask-cheat' });
    return result.available ? result.question.params.row : defaultRow(this.#state.text, screen.labels);
  }

  // The key the row attends to most at the head shown: the cell a weight's source is asked of.
  #topKey(screen) {
    const { layer, head, row, ids } = screen;
    const { trace } = this.#held.model.forward(ids, { trace: { layers: [layer], stages: ['attn_weights'] } });
    const T = ids.length;
    const weights = trace.get(layer, 'attn_weights').data.subarray((head * T + row) * T, (head * T + row + 1) * T);
    return argmax(weights);
  }

  #refresh(kind = 'question', answer) {
    const t = translator(this.#lang);
    try {
      const screen = this.#screen();
      syncControls(this.#parts.context, this.#state, screen);
      const model = this.#held.model;
      const options = { name: this.#state.name, ...(kind === 'check' ? { answer } : {}), reveal: kind === 'reveal' };
      this.#result = runExercise(model, screen, options);
      if (kind === 'check' && this.#result.available) this.#verdict = { solved: this.#result.solved, hint: this.#result.hint ?? null };
      if (kind === 'reveal') this.#answers = this.#result.answers ?? null;
      drawExerciseFigure(this.#parts.figure, { name: this.#state.name, model, screen, t });
      this.#view.update({
        t,
        info: model.info(),
        labels: screen.labels,
        layer: screen.layer,
        result: this.#result,
        verdict: this.#verdict,
        answers: this.#answers,
        tries: this.#tries,
        busy: false,
        error: null,
      });
      this.#status('');
    } catch (error) {
      this.#status(t('exercise.error', { message: errorText(this.#lang, error).text }), true);
    }
  }

  #check(answer) {
    this.#tries += 1;
    this.#refresh('check', answer);
    const solved = Boolean(this.#verdict?.solved);
    this.dispatchEvent(
      new CustomEvent('minimind-exercise', {
        detail: { name: this.#state.name, solved, tries: this.#tries },
        bubbles: true,
        composed: true,
      }),
    );
  }

  #reveal() {
    this.#refresh('reveal');
  }

  // A change of the screen: the old verdict and answers were for another one.
  #set(patch) {
    Object.assign(this.#state, patch);
    this.#answers = null;
    this.#refresh();
  }
}

if (typeof customElements === 'object' && customElements && !customElements.get('minimind-exercise')) {
  customElements.define('minimind-exercise', MiniMindExercise);
}
