// <minimind-attention>: a live attention figure for a course page, computed
// in the reader's browser by the MiniMind Wasm module, with the page's
// tokenisation, colour scales and defaults, so it shows the numbers the
// playground shows. One <script type="module"> defines it; every attribute
// may change later (docs/embed.md, "The element").
//
// view="lesson" and view="lab" draw the lessons' own numbers instead of a
// model's matrix: lesson 2.5's hand computation and lesson 11's lab record
// (lesson_figure.mjs).
//
// Everything lives in a shadow root. The module loads once, when the first
// element scrolls near the viewport; one model per (preset, config, seed)
// serves every element that shows it. Errors are shown inside the element
// and never thrown into the host page, in the element's language: a bad
// attribute, and files that do not load (the Wasm module, the .wasm, the
// trained model: not hosted where the script points, or blocked across
// origins), with where they were looked for.
//
// Importing this file where there is no DOM (Node, server-side rendering)
// defines nothing and throws nothing.
//
// With no `preset` the element shows the project's trained MiniMind
// (demo_model.mjs) at its pronoun head, its text read by MiniMind's tokenizer
// after the bos, with a sentence on what the head does (from heads.json);
// the presets are random weights, and their model line says so.
import { scaleFor } from '../colors.mjs';
import { hostLanguage } from '../browser_language.mjs';
import { DEMO, tokenizeText } from '../demo_model.mjs';
import { switchMarks } from '../../js/head_note.mjs';
import { headNote } from '../demo_text.mjs';
import { errorText, showErrorDetails } from '../error_text.mjs';
import { tokenize } from '../../js/preset_tokens.mjs';
import { renderLegend } from '../views/legend.mjs';
import { renderMatrixTable } from '../views/matrix_table.mjs';
import { ATTRIBUTES, readAttributes } from './attributes.mjs';
import { cellAt, drawFigure, layoutFigure } from './figure.mjs';
import { computeLab, computeLesson, renderLab, renderLesson, rowsOf } from './lesson_figure.mjs';
import { embedText } from './messages.mjs';
import { playgroundUrl } from './playground_link.mjs';
import { LoadError, acquireModel, describeModel, loadRuntime } from './runtime.mjs';
import { STYLE } from './style.mjs';
import { TRAIN_ATTRIBUTES, TrainFigure, readTrainAttributes } from './train_figure.mjs';
// The same script defines <minimind-exercise>, the tour's exercises for course pages.
import './minimind_exercise.mjs';
import { make } from '../panels/make_element.mjs';
import { watchNearViewport } from './near_viewport.mjs';

const MAX_TOKENS = 128; // as the page
// Models this large take a noticeable time to build on the main thread:
// "building" is painted first.
const BIG_MODEL_PARAMETERS = 2_000_000;

const nextPaint = () =>
  new Promise((resolve) => {
    requestAnimationFrame(() => setTimeout(resolve, 0));
    setTimeout(resolve, 100); // hidden tabs run no animation frames
  });

// Without a DOM there is no HTMLElement to extend; nothing is defined then.
const ElementBase = typeof HTMLElement === 'function' ? HTMLElement : class {};

// What a LoadError says: the message's key and parameters, the hint's key.
function loadFailure(error) {
  if (error.url === null) return { key: 'embed.moduleInlineFailed', params: {}, hint: 'embed.inlineHint' }; // the single file's own
  const key = error.kind === 'model' ? 'embed.modelFailed' : 'embed.moduleFailed';
  return { key, params: { url: error.url }, hint: 'embed.hostHint' };
}

class MiniMindAttention extends ElementBase {
  static get observedAttributes() {
    return [...ATTRIBUTES, ...TRAIN_ATTRIBUTES];
  }

  #parts;
  #visible = false;
  #visibility = null; // IntersectionObserver until first visible
  #resize = null; // ResizeObserver of the plot
  #scheduled = false;
  #run = 0; // the newest update; older ones drop their results
  #spec = null;
  #held = null; // {key, model, release} of the model shown
  #trace = null; // {key, entry}: the last forward's traced stage
  #shown = null; // what is drawn: {tokens, values, T, masked, stage, ...}, or a lesson view's {view, rows, matrices, ...}
  #layout = null;
  #drawnSize = null;
  #focus = null; // {i, j} under the pointer
  #train = null; // the training view (train_figure.mjs), once the `train` attribute was set

  constructor() {
    super();
    const root = this.attachShadow({ mode: 'open' });
    make('style', null, root).textContent = STYLE;
    const frame = make('figure', 'frame', root);
    const caption = make('figcaption', 'caption', frame);
    const parts = { frame, caption, title: make('span', 'title', caption), model: make('span', 'model', caption) };
    parts.note = make('p', 'note', frame);
    parts.plot = make('div', 'plot', frame);
    parts.canvas = make('canvas', null, parts.plot);
    parts.canvas.setAttribute('role', 'img');
    parts.table = make('table', null, parts.plot);
    parts.panels = make('div', 'panels', parts.plot);
    parts.status = make('div', 'status', frame);
    parts.status.setAttribute('role', 'status');
    parts.progress = make('progress', null, parts.status);
    parts.message = make('span', 'message', parts.status);
    parts.hint = make('span', 'hint', parts.status);
    parts.details = make('details', 'details', parts.status); // the raw English of an error (error_text.mjs)
    parts.footer = make('div', 'footer', frame);
    parts.legend = make('div', 'legend', parts.footer);
    parts.readout = make('span', 'readout', parts.footer);
    parts.link = make('a', 'open', parts.footer);
    parts.link.target = '_blank';
    parts.link.rel = 'noopener';
    this.#parts = parts;
    parts.canvas.addEventListener('mousemove', (event) => {
      const rect = parts.canvas.getBoundingClientRect();
      this.#setFocus(this.#layout && cellAt(this.#layout, this.#shown.T, event.clientX - rect.left, event.clientY - rect.top));
    });
    parts.canvas.addEventListener('mouseleave', () => this.#setFocus(null));
    this.#showStatus('loading', '', { attribute: false }); // an element may not gain attributes in its constructor
  }

  connectedCallback() {
    if (!this.#visible && !this.#visibility) {
      this.#visibility = watchNearViewport(this, () => {
        this.#visibility = null;
        this.#visible = true;
        this.#schedule();
      });
    }
    this.#resize = new ResizeObserver(() => requestAnimationFrame(() => this.#redrawIfResized()));
    this.#resize.observe(this.#parts.plot);
    this.#schedule();
  }

  disconnectedCallback() {
    this.#train?.dispose();
    this.#visibility?.disconnect();
    this.#visibility = null;
    this.#resize?.disconnect();
    this.#resize = null;
    this.#run += 1; // whatever is in flight is dropped
    this.#held?.release();
    this.#held = null;
    this.#trace = null;
  }

  attributeChangedCallback() {
    this.#schedule();
  }

  /** The drawn matrix (rows = queries, columns = keys) as number[][], or null; the first step drawn in a lesson view. */
  get weights() {
    if (this.#train && !this.#train.root.hidden) return this.#train.weights;
    return this.#shown ? (this.#shown.rows ?? this.#rows()) : null;
  }

  /** A lesson view's matrices by step ({raw, scaled, masked, weights, output?}; the lab: {weights}) as number[][], else null. */
  get matrices() {
    return this.#shown?.matrices ?? null;
  }

  #rows() {
    const { values, T } = this.#shown;
    return Array.from({ length: T }, (_, i) => Array.from(values.subarray(i * T, (i + 1) * T)));
  }

  // Attribute changes of one task are applied together.
  #schedule() {
    if (this.#scheduled) return;
    this.#scheduled = true;
    queueMicrotask(() => {
      this.#scheduled = false;
      if (this.isConnected) this.#update();
    });
  }

  async #update() {
    const run = ++this.#run;
    const t = (key, params) => embedText(this.#spec.lang, key, params);
    try {
      const { spec, problems } = readAttributes((name) => this.getAttribute(name), hostLanguage(this));
      this.#spec = spec;
      this.#parts.frame.lang = spec.lang;
      this.#parts.frame.classList.toggle('fixed', spec.height !== null);
      this.#parts.frame.style.height = spec.height ?? '';
      if (this.#training()) return this.#showTraining(spec, problems);
      if (this.#train && !this.#train.root.hidden) {
        this.#train.dispose();
        this.#train.root.hidden = true;
      }
      if (problems.length) {
        const detail = problems
          .map((p) => p.detail)
          .filter(Boolean)
          .join('\n'); // e.g. the JSON parser's words
        return this.#fail(problems.map((p) => t(p.key, p.params)).join('; '), { detail: detail ? { detail, complete: true } : null });
      }
      if (!this.#visible) return this.#showStatus('loading', t('embed.loading'));
      if (!this.#shown) this.#showStatus('loading', t('embed.loading'));
      const mm = await loadRuntime();
      if (run !== this.#run) return;
      if (this.getAttribute('data-threads') !== String(mm.threads)) this.setAttribute('data-threads', String(mm.threads));
      if (this.getAttribute('data-variant') !== mm.variant) this.setAttribute('data-variant', mm.variant); // the build: 'relaxed', 'simd', ...
      if (spec.view === 'lesson' || spec.view === 'lab') return this.#showLesson(mm, spec);
      if (spec.preset === DEMO && !this.#shown) this.#showStatus('loading', t('embed.downloading', { name: DEMO }), { progress: true });
      const described = await describeModel(mm, spec, (fraction) => (this.#parts.progress.value = fraction));
      if (run !== this.#run) return;
      const { info, name, trained } = described;
      // Without layer and head: the trained model's pronoun head, else layer 0, head 0.
      const own = trained?.files.heads.pronounHead ?? { layer: 0, head: 0 };
      const view = { ...spec, layer: spec.layer ?? own.layer, head: spec.head ?? own.head };
      for (const [key, value, count] of [
        ['embed.noLayer', view.layer, info.num_hidden_layers],
        ['embed.noHead', view.head, info.num_attention_heads],
      ]) {
        if (value >= count) return this.#fail(t(key, { value, name, count, last: count - 1 }));
      }
      const { tokens, ids, dropped } = trained
        ? tokenizeText(trained.tokenizer, spec.text, MAX_TOKENS)
        : tokenize(spec.text, info.vocab_size, MAX_TOKENS);
      if (ids.length === 0) return this.#fail(t('embed.noTokens'));
      if (this.#held?.key !== described.key) {
        this.#held?.release();
        this.#held = null;
        this.#trace = null;
        const big = info.parameters >= BIG_MODEL_PARAMETERS;
        if (big) {
          const params = info.parameters.toLocaleString(spec.lang);
          this.#showStatus('loading', t('embed.building', { name, params }), { progress: true });
        }
        const { model, release } = await acquireModel(mm, described, big ? nextPaint : null);
        if (run !== this.#run) return release();
        this.#held = { key: described.key, model, release };
      }
      this.#show(view, described, tokens, ids, dropped);
    } catch (error) {
      if (run !== this.#run) return;
      if (error instanceof LoadError) {
        const { key, params, hint } = loadFailure(error);
        this.#fail(t(key, params), { hint, cause: error.message });
      } else {
        // The core's error in the element's language; its English under "details".
        const words = errorText(this.#spec?.lang ?? 'en', error);
        this.#fail(words.text, { detail: words });
      }
    }
  }

  // spec: the attributes with the layer and head resolved.
  #show(spec, { key, info, name, trained }, tokens, ids, dropped) {
    const { layer, head, stage, causal, scale } = spec;
    const traceKey = JSON.stringify([key, ids, causal, scale, layer, stage]);
    if (this.#trace?.key !== traceKey) {
      // Only the stage and layer shown are traced (a [1, H, T, T] matrix), and
      // the trained model's softmax weights there, which its head note reads.
      const stages = trained && stage !== 'attn_weights' ? [stage, 'attn_weights'] : [stage];
      const { trace } = this.#held.model.forward(ids, {
        trace: { layers: [layer], stages },
        causalMask: causal,
        scaleScores: scale,
      });
      this.#trace = { key: traceKey, entry: trace.get(layer, stage), weights: trained ? trace.get(layer, 'attn_weights') : null };
    }
    const T = ids.length;
    const values = this.#trace.entry.data.slice(head * T * T, (head + 1) * T * T);
    // What this head of the trained model does (heads.json) and what its rows show, composed from them (js/head_note.mjs).
    const note = trained
      ? headNote((k, params) => embedText(spec.lang, k, params), trained.files.heads, {
          tokens,
          weights: this.#trace.weights.data.subarray(head * T * T, (head + 1) * T * T),
          row: null,
          layer,
          head,
          causal,
          scale,
          stage,
        }).text
      : '';
    // The causal mask hides keys after the query from "+ mask" on (as the page).
    const maskedStage = causal && (stage === 'scores_masked' || stage === 'attn_weights');
    this.#shown = {
      tokens,
      values,
      T,
      stage,
      layer,
      head,
      maskedStage,
      switches: { causal, scale },
      masked: (i, j) => maskedStage && j > i,
      scale: scaleFor(stage, values),
      kv: Math.floor(head / (info.num_attention_heads / info.num_key_value_heads)),
      model: [
        trained ? embedText(spec.lang, 'model.trainedName') : embedText(spec.lang, 'embed.model', { name, seed: spec.seed }),
        dropped ? embedText(spec.lang, 'embed.dropped', { max: MAX_TOKENS }) : '',
      ]
        .filter(Boolean)
        .join(' · '),
      note,
    };
    this.#ready({ tokens: [...tokens], matrix: this.#rows(), layer, head, stage });
  }

  #training() {
    const value = this.getAttribute('train');
    return value !== null && !/^(false|0|off|no)$/i.test(value.trim());
  }

  // <minimind-attention train>: a live training run (train_figure.mjs) in place of the matrix.
  #showTraining(spec, problems) {
    const t = (key, params) => embedText(spec.lang, key, params);
    const own = readTrainAttributes((name) => this.getAttribute(name), spec.lang);
    // The training view has no preset: a config is on top of its own default shape.
    const all = [...problems.filter((p) => p.key !== 'embed.trainedConfig').map((p) => t(p.key, p.params)), ...own.problems];
    if (all.length || !this.#visible) {
      this.#train?.dispose();
      if (this.#train) this.#train.root.hidden = true;
      return all.length ? this.#fail(all.join('; ')) : this.#showStatus('loading', t('embed.loading'));
    }
    this.#held?.release();
    this.#held = null;
    this.#trace = null;
    this.#shown = null;
    this.#train ??= new TrainFigure({
      shadow: this.shadowRoot,
      frame: this.#parts.frame,
      host: this,
      onReady: (detail) => {
        if (this.getAttribute('data-state') !== 'ready') this.setAttribute('data-state', 'ready');
        this.dispatchEvent(new CustomEvent('minimind-ready', { bubbles: true, composed: true, detail }));
      },
    });
    for (const name of ['caption', 'note', 'plot', 'footer', 'status']) this.#parts[name].hidden = true;
    this.#train.root.hidden = false;
    this.#train.update({ lang: spec.lang, text: spec.text, layer: spec.layer, head: spec.head }, own.run);
  }

  // The lessons' views need no model: the core computes them from the attributes (or the lab's preset) at once.
  #showLesson(mm, spec) {
    this.#held?.release();
    this.#held = null;
    this.#trace = null;
    if (spec.view === 'lab') {
      const lab = computeLab(mm, spec);
      this.#shown = { view: 'lab', lab, tokens: lab.labels, rows: lab.weights, matrices: { weights: lab.weights } };
      return this.#ready({ tokens: [...lab.labels], matrix: lab.weights, layer: 0, head: 0, stage: 'attn_weights' });
    }
    const lesson = computeLesson(mm, spec);
    if (lesson.problems) return this.#fail(lesson.problems.map((p) => embedText(spec.lang, p.key, p.params)).join('; '));
    const matrices = {};
    for (const [name, matrix] of Object.entries(lesson.result)) if (matrix) matrices[name] = rowsOf(matrix);
    const tokens = lesson.validation.labels.cols;
    this.#shown = { view: 'lesson', lesson, tokens, rows: matrices[lesson.stages[0]], matrices };
    this.#ready({ tokens: [...tokens], matrix: this.#shown.rows, layer: null, head: null, stage: lesson.stages.join(' '), matrices });
  }

  #ready(detail) {
    this.#focus = null;
    this.#showStatus('ready', ''); // first, so that the plot has its size when drawn
    this.#render();
    this.dispatchEvent(new CustomEvent('minimind-ready', { bubbles: true, composed: true, detail }));
  }

  #render() {
    const spec = this.#spec;
    const shown = this.#shown;
    const parts = this.#parts;
    const t = (key, params) => embedText(spec.lang, key, params);
    parts.readout.textContent = '';
    parts.link.href = playgroundUrl(spec);
    parts.link.textContent = `${t('embed.open')} ↗`;
    const lessonView = shown.view === 'lesson' || shown.view === 'lab';
    parts.note.textContent = lessonView ? '' : shown.note;
    parts.note.hidden = !parts.note.textContent;
    parts.panels.hidden = !lessonView;
    parts.legend.hidden = lessonView;
    if (lessonView) {
      parts.canvas.hidden = true;
      parts.table.hidden = true;
      const { title, details } =
        shown.view === 'lab' ? renderLab(parts.panels, t, shown.lab) : renderLesson(parts.panels, t, spec, shown.lesson, shown.matrices);
      parts.title.textContent = title;
      parts.model.textContent = details;
      return;
    }
    // A switch that is off and changes this stage is named in the title ("softmax · mask off").
    const stageName = [t(`stage.${shown.stage}`), ...switchMarks(t, { stage: shown.stage, ...shown.switches })].join(' · ');
    parts.title.textContent = t('view.title', {
      layer: shown.layer,
      head: shown.head,
      kvNote: t('view.kvHead', { kv: shown.kv }),
      stage: stageName,
    });
    parts.model.textContent = shown.model;
    parts.canvas.setAttribute('aria-label', `${t('matrix.label')}. ${parts.title.textContent}`);
    renderLegend(parts.legend, { scale: shown.scale, stage: shown.stage, maskedLabel: t('matrix.masked'), showMasked: shown.maskedStage });
    const table = spec.view === 'table';
    parts.canvas.hidden = table;
    parts.table.hidden = !table;
    if (table) {
      const masked = t('matrix.masked');
      renderMatrixTable(parts.table, {
        caption: t('matrix.tableCaption', { layer: shown.layer, head: shown.head, stage: stageName }),
        tokens: shown.tokens,
        values: shown.values,
        masked: shown.masked,
        maskedText: shown.stage === 'attn_weights' ? `0.000 (${masked})` : `−∞ (${masked})`,
        queryLabel: `${t('matrix.query')} \\ ${t('matrix.key')}`,
      });
    } else {
      this.#drawCanvas();
    }
  }

  #drawCanvas() {
    const { plot, canvas } = this.#parts;
    const size = { width: plot.clientWidth, height: this.#spec.height !== null ? plot.clientHeight : null };
    const t = (key) => embedText(this.#spec.lang, key);
    const titles = { query: t('matrix.queryAxis'), key: t('matrix.keyAxis') };
    this.#layout = layoutFigure(canvas.getContext('2d'), this.#shown.tokens, size.width, size.height, titles);
    drawFigure(canvas, this.#layout, { ...this.#shown, decimals: this.#shown.stage === 'attn_weights' ? 2 : 1, focus: this.#focus });
    this.#drawnSize = size;
  }

  #redrawIfResized() {
    if (!this.#shown || this.#spec.view !== 'heatmap' || !this.#drawnSize) return;
    const { plot } = this.#parts;
    const height = this.#spec.height !== null ? plot.clientHeight : null;
    if (plot.clientWidth !== this.#drawnSize.width || height !== this.#drawnSize.height) this.#drawCanvas();
  }

  #setFocus(cell) {
    const same = cell && this.#focus && cell.i === this.#focus.i && cell.j === this.#focus.j;
    if (same || (!cell && !this.#focus) || !this.#shown) return;
    this.#focus = cell;
    this.#drawCanvas();
    const { tokens, values, T, masked } = this.#shown;
    const t = (key, params) => embedText(this.#spec.lang, key, params);
    const params = cell && { query: tokens[cell.i], key: tokens[cell.j] };
    this.#parts.readout.textContent = !cell
      ? ''
      : masked(cell.i, cell.j)
        ? t('embed.cellMasked', params)
        : t('embed.cell', { ...params, value: values[cell.i * T + cell.j].toFixed(3) });
  }

  // hint: the key of what to do about it (an attribute to fix, files to host);
  // cause: the browser's own words on a file that did not load (event only).
  // detail: {detail, complete} of error_text.mjs, the raw words behind "details".
  #fail(message, { hint = 'embed.fixHint', cause, detail: words = null } = {}) {
    this.#shown = null;
    const text = embedText(this.#spec?.lang ?? 'en', 'embed.error', { message });
    this.#showStatus('error', text, { hint });
    showErrorDetails(this.#parts.details, this.#spec?.lang ?? 'en', words);
    const detail = cause === undefined ? { message: text } : { message: text, cause };
    this.dispatchEvent(new CustomEvent('minimind-error', { bubbles: true, composed: true, detail }));
  }

  // state: 'loading' | 'ready' | 'error', mirrored in the data-state attribute.
  #showStatus(state, message, { progress = false, attribute = true, hint = 'embed.fixHint' } = {}) {
    const parts = this.#parts;
    const drawn = state === 'ready' || (state === 'loading' && this.#shown !== null);
    parts.caption.hidden = !drawn;
    parts.note.hidden = !drawn || !parts.note.textContent;
    parts.plot.hidden = !drawn;
    parts.footer.hidden = !drawn;
    parts.status.hidden = message === '';
    parts.status.classList.toggle('error', state === 'error');
    parts.message.textContent = message;
    parts.hint.textContent = state === 'error' ? embedText(this.#spec?.lang ?? 'en', hint) : '';
    if (state !== 'error') parts.details.hidden = true;
    parts.progress.hidden = !progress;
    if (attribute && this.getAttribute('data-state') !== state) this.setAttribute('data-state', state);
  }
}

if (typeof customElements === 'object' && customElements && !customElements.get('minimind-attention')) {
  customElements.define('minimind-attention', MiniMindAttention);
}
