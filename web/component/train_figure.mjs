// <minimind-attention train>: a live training run for a course page. A small
// MiniMind (the Train panel's default shape, js/train_session.mjs) trains
// from scratch in the reader's browser on the project's generated corpus, as
// the Train panel's stream of fresh lines for exactly its `steps` batches
// (js/corpus_stream.mjs; or the lessons' sentences, or a .jsonl / .txt at a URL), and the figure
// shows its loss curve and one head's attention on the probe sentence (the
// element's `text`) as it forms, snapshot by snapshot. Attributes:
//   train             turns the figure into a training run
//   corpus            "generated" (default), "lessons", or the URL of a .jsonl / .txt (relative to the page)
//   config            JSON of config.json keys on top of the default shape (hidden 64, 2 layers, 4 heads, 2 kv heads)
//   steps             batches to run (default 200)
//   layer, head       the head shown (default 0, 0); text, lang, height as for the other views
// The run is train_host.mjs's: in a worker (train_worker.js next to the
// element's script, started from a blob: URL so that it also works across
// origins), or, for the single-file element (nothing else to fetch), on the
// page's thread one short batch per task. Every number drawn is the run's.
import { scaleFor } from '../colors.mjs';
import { TRAIN_FIGURE_TERMS as TRAIN_TERMS } from '../messages/train_figure_terms.mjs';
import { TrainClient, inProcessWorker } from '../train_client.mjs';
import { StepHistory, smoothed } from '../../js/train_history.mjs';
import { defaultSnapshotEvery } from '../../js/timeline.mjs';
import { TRAIN_RECIPES } from '../../js/train_recipes.mjs';
import { DEFAULT_CONFIG, LESSON_PROBE } from '../../js/train_session.mjs';
import { LineChart } from '../views/line_chart.mjs';
import { demoFiles } from '../demo_source.mjs';
import { drawFigure, layoutFigure } from './figure.mjs';
import { moduleSource } from './module_source.mjs';
import { loadRuntime } from './runtime.mjs';

/** The attributes this view adds. */
export const TRAIN_ATTRIBUTES = ['train', 'corpus', 'steps'];

/**
 * The run a course page gets: smaller batches and sequences than the panel's, so that a batch is short; the
 * generated corpus as the panel's default stream (its seed, the corpus's own shares) for the run's steps.
 */
const FIGURE_RUN = Object.freeze({
  data: TRAIN_RECIPES.default.data,
  steps: 200, // a snapshot every defaultSnapshotEvery(steps) batches (js/timeline.mjs: about 100 a run)
  options: Object.freeze({ batchSize: 8, maxSeqLen: 48, learningRate: 5e-3, accumulationSteps: 1, gradClip: 1, epochs: null, seed: 42 }),
});
const MAX_STEPS = 100000;

const STYLE = `
.train { display: flex; flex-direction: column; gap: 4px; }
.train[hidden] { display: none; }
.train .bar { display: flex; flex-wrap: wrap; justify-content: space-between; gap: 2px 12px; font-weight: 600; }
.train .sub { font-weight: 400; color: #5b5b5b; }
.train .chart canvas, .train .matrix canvas { display: block; }
.train .matrix { overflow-x: auto; }
.train .head { margin: 2px 0 0; font-size: 12px; color: #333; }
.train .status { font-size: 12px; color: #5b5b5b; }
.train .status.error { color: #b00020; }
.train progress { width: 100%; }
.train progress[hidden] { display: none; }
.train .buttons { display: flex; gap: 6px; }
.train button { font: inherit; font-size: 12px; padding: 2px 8px; border: 1px solid #d0d0d0; background: #fff; border-radius: 4px; cursor: pointer; }
.train button:disabled { opacity: 0.45; cursor: default; }
`;

function text(lang, key, params = {}) {
  const template = TRAIN_TERMS[lang]?.[key] ?? TRAIN_TERMS.en[key] ?? key;
  return template.replace(/\{(\w+)\}/g, (match, name) => (name in params ? String(params[name]) : match));
}

/**
 * The training view's own attributes: {run: {corpus, config, steps}, problems:
 * [text]} (problems in `lang`). get(name) -> the attribute or null.
 */
export function readTrainAttributes(get, lang) {
  const problems = [];
  const corpus = get('corpus')?.trim() || 'generated';
  let steps = FIGURE_RUN.steps;
  const stepsText = get('steps');
  if (stepsText !== null && stepsText.trim() !== '') {
    const n = Number(stepsText.trim());
    if (/^\d+$/.test(stepsText.trim()) && n >= 1 && n <= MAX_STEPS) steps = n;
    else problems.push(text(lang, 'train.figure.badSteps', { value: stepsText, max: MAX_STEPS }));
  }
  let config = { ...DEFAULT_CONFIG };
  const configText = get('config');
  if (configText !== null && configText.trim() !== '') {
    try {
      const given = JSON.parse(configText);
      if (!given || typeof given !== 'object' || Array.isArray(given)) throw new Error(text(lang, 'train.figure.configObject'));
      config = { ...config, ...given };
    } catch (error) {
      problems.push(text(lang, 'train.figure.badConfig', { message: error.message }));
    }
  }
  return { run: { corpus, config, steps }, problems };
}

// Where the run happens: the worker next to the element's script, or (the
// single file, which has its module and the tokenizer inside) the page's thread.
function workerSource() {
  if (moduleSource().moduleUrl) {
    const url = new URL('./train_worker.js', import.meta.url).href;
    return {
      url,
      make: () => {
        const blob = URL.createObjectURL(new Blob([`import ${JSON.stringify(url)};\n`], { type: 'text/javascript' }));
        const worker = new Worker(blob, { type: 'module' });
        setTimeout(() => URL.revokeObjectURL(blob), 30000);
        return worker;
      },
    };
  }
  return {
    url: null,
    make: () =>
      inProcessWorker({
        loadRuntime,
        fetchText: async (path) => {
          if (path.endsWith('models/minimind-demo/tokenizer.json')) return (await demoFiles()).tokenizer;
          const response = await fetch(new URL(path, import.meta.url));
          if (!response.ok) throw new Error(`${path}: HTTP ${response.status}`);
          return response.text();
        },
      }),
  };
}

export class TrainFigure {
  #root; // the element's box for this view
  #host; // the element
  #client = null;
  #source = null;
  #runKey = null;
  #spec = null; // {lang, text, layer, head, height}
  #run = null; // {corpus, config, steps}
  #state = 'idle';
  #history = new StepHistory();
  #snapshot = null;
  #trainer = null;
  #progress = null;
  #error = null;
  #parts;
  #chart;
  #frame = 0;
  #onReady;

  /** shadow: the element's shadow root; frame: its figure; host: the element; onReady(detail) after each snapshot drawn. */
  constructor({ shadow, frame, host, onReady }) {
    this.#host = host;
    this.#onReady = onReady;
    const style = document.createElement('style');
    style.textContent = STYLE;
    shadow.append(style);
    const root = document.createElement('div');
    root.className = 'train';
    const make = (tag, className, parent = root) => {
      const node = document.createElement(tag);
      if (className) node.className = className;
      parent.append(node);
      return node;
    };
    const bar = make('div', 'bar');
    const parts = { title: make('span', 'title', bar), sub: make('span', 'sub', bar) };
    parts.status = make('div', 'status');
    parts.status.setAttribute('role', 'status');
    parts.progress = make('progress');
    parts.progress.max = 1;
    const chart = make('div', 'chart');
    parts.chart = make('canvas', null, chart);
    parts.chart.setAttribute('role', 'img');
    parts.head = make('p', 'head');
    const matrix = make('div', 'matrix');
    parts.matrix = make('canvas', null, matrix);
    parts.matrix.setAttribute('role', 'img');
    const buttons = make('div', 'buttons');
    parts.pause = make('button', null, buttons);
    parts.pause.type = 'button';
    parts.restart = make('button', null, buttons);
    parts.restart.type = 'button';
    parts.pause.addEventListener('click', () => {
      if (this.#state === 'running' || this.#state === 'preparing') this.#client?.pause();
      else if (this.#state === 'paused') this.#client?.resume();
    });
    parts.restart.addEventListener('click', () => {
      this.#runKey = null;
      this.update(this.#spec);
    });
    frame.append(root);
    this.#root = root;
    this.#parts = parts;
    this.#chart = new LineChart(parts.chart, { height: 110 });
  }

  get root() {
    return this.#root;
  }

  /** The drawn attention (rows = queries) as number[][], or null. */
  get weights() {
    const s = this.#snapshot;
    if (!s) return null;
    const { layer, head } = this.#head();
    const offset = (layer * s.heads + head) * s.T * s.T;
    return Array.from({ length: s.T }, (_, i) => Array.from(s.attention.subarray(offset + i * s.T, offset + (i + 1) * s.T)));
  }

  /** Every loss reported so far. */
  get losses() {
    return Array.from(this.#history.loss);
  }

  /**
   * spec: {lang, text, layer, head}; run: {corpus, config, steps}. A new run
   * starts when the run or the text changed; otherwise only the drawing does.
   */
  update(spec, run = this.#run) {
    this.#spec = spec;
    this.#run = run;
    const key = JSON.stringify([run, spec.text]);
    if (key !== this.#runKey) {
      this.#runKey = key;
      this.#start();
    }
    this.#render();
  }

  async #start() {
    const key = this.#runKey;
    this.#history.clear();
    this.#snapshot = null;
    this.#trainer = null;
    this.#error = null;
    this.#state = 'preparing';
    this.#progress = { phase: 'load', done: 0, total: 1 };
    if (!this.#client) {
      this.#source = workerSource();
      this.#client = new TrainClient(this.#source.make, {
        onState: ({ state }) => {
          this.#state = state;
          if (state !== 'preparing') this.#progress = null;
          this.#render();
        },
        onProgress: (progress) => {
          this.#progress = progress;
          this.#render();
        },
        onReady: ({ trainer }) => {
          this.#trainer = trainer;
          this.#render();
        },
        onSteps: ({ steps, trainer }) => {
          this.#history.push(steps);
          this.#trainer = trainer;
          this.#render();
        },
        onSnapshot: (snapshot) => {
          this.#snapshot = snapshot;
          this.#render();
          const { layer, head } = this.#head();
          this.#onReady?.({ tokens: [...snapshot.tokens], matrix: this.weights, layer, head, stage: 'attn_weights', step: snapshot.step });
        },
        onError: ({ request, message }) => {
          this.#error =
            request === 'worker' ? text(this.#spec.lang, 'train.figure.workerFailed', { url: this.#source.url ?? '' }) : message;
          this.#render();
        },
      });
    }
    const { corpus, config, steps } = this.#run;
    let data;
    try {
      if (corpus === 'generated') data = { ...FIGURE_RUN.data, batches: steps };
      else if (corpus === 'lessons') data = { source: 'lessons' };
      else {
        const url = new URL(corpus, document.baseURI).href;
        const response = await fetch(url);
        if (!response.ok) throw new Error(`HTTP ${response.status}`);
        data = { source: 'text', text: await response.text(), name: url };
      }
    } catch (error) {
      if (key !== this.#runKey) return;
      this.#error = text(this.#spec.lang, 'train.figure.corpusFailed', { url: corpus, message: error.message });
      this.#state = 'idle';
      return this.#render();
    }
    if (key !== this.#runKey) return;
    this.#client.prepare({
      model: { kind: 'new', config, seed: 42 },
      data,
      pack: true,
      options: { ...FIGURE_RUN.options },
      probe: this.#spec.text?.trim() || LESSON_PROBE,
      snapshotEvery: defaultSnapshotEvery(steps),
      maxSteps: steps,
      start: true,
    });
  }

  #head() {
    const s = this.#snapshot;
    const layer = Math.min(this.#spec.layer ?? 0, (s?.layers ?? 1) - 1);
    const head = Math.min(this.#spec.head ?? 0, (s?.heads ?? 1) - 1);
    return { layer, head };
  }

  #render() {
    if (this.#frame) return;
    this.#frame = requestAnimationFrame(() => {
      this.#frame = 0;
      this.#draw();
    });
  }

  #draw() {
    const lang = this.#spec.lang;
    const p = this.#parts;
    const t = (key, params) => text(lang, key, params);
    const step = this.#trainer?.batchesDone ?? 0;
    const total = this.#trainer?.totalBatches ?? this.#run.steps;
    const losses = this.#history.loss;
    this.#host.dataset.trainState = this.#state === 'preparing' ? 'running' : this.#state;
    this.#host.dataset.step = String(step);
    if (losses.length) this.#host.dataset.loss = String(losses[losses.length - 1]);
    p.title.textContent = t('train.figure.title', { step, total });
    p.sub.textContent = losses.length ? t('train.figure.loss', { loss: losses[losses.length - 1].toFixed(3) }) : '';
    const prog = this.#progress;
    p.progress.hidden = this.#state !== 'preparing';
    p.progress.value = prog?.total ? prog.done / prog.total : 0;
    p.status.classList.toggle('error', Boolean(this.#error));
    p.status.textContent = this.#error
      ? this.#error
      : this.#state === 'preparing'
        ? prog?.phase === 'tokenize'
          ? t('train.tokenizing', { done: prog.done, total: prog.total })
          : t('train.loading')
        : this.#state === 'done' && losses.length
          ? t('train.figure.done', { step, first: losses[0].toFixed(3), last: losses[losses.length - 1].toFixed(3) })
          : '';
    p.pause.textContent = t(this.#state === 'paused' ? 'train.resume' : 'train.pause');
    p.pause.disabled = !['running', 'paused', 'preparing'].includes(this.#state);
    p.restart.textContent = t('train.figure.restart');
    this.#chart.render({
      series: [
        { y: losses, color: 'rgba(31, 119, 180, 0.35)', width: 1 },
        { y: smoothed(losses, 0.9), color: '#1f4e79', width: 2, label: t('train.lossSmoothed') },
      ],
      xMax: total,
      empty: t('train.noLoss'),
      xLabel: t('train.xBatch'),
    });
    p.chart.setAttribute(
      'aria-label',
      losses.length
        ? t('train.lossLabel', { n: losses.length, loss: losses[losses.length - 1].toFixed(4), first: losses[0].toFixed(4) })
        : t('train.noLoss'),
    );
    const s = this.#snapshot;
    p.matrix.hidden = !s;
    p.head.hidden = !s;
    if (!s) return;
    const { layer, head } = this.#head();
    const offset = (layer * s.heads + head) * s.T * s.T;
    const values = s.attention.subarray(offset, offset + s.T * s.T);
    p.head.textContent = t('train.figure.head', { layer, head, step: s.step });
    const width = this.#root.clientWidth || 320;
    const layout = layoutFigure(p.matrix.getContext('2d'), s.tokens, width, null);
    drawFigure(p.matrix, layout, {
      tokens: s.tokens,
      values,
      masked: (i, j) => j > i,
      scale: scaleFor('attn_weights', values),
      decimals: 2,
      focus: null,
    });
    p.matrix.setAttribute('aria-label', `${t('train.attnLabel')}. ${p.head.textContent}`);
  }

  /** Stops the run and its worker. */
  dispose() {
    this.#client?.terminate();
    this.#client = null;
    this.#runKey = null;
  }
}
