// The Train panel: train a small MiniMind in the page and watch its
// attention form. The run lives in its own worker (train_worker.mjs, through
// train_client.mjs), so the playground's compute worker keeps answering and
// the page keeps drawing; this file only builds the panel, sends requests
// and draws what the worker reports (every number on it is the trainer's or
// the model's own):
//   - the loss of every batch with a smoothed line, the learning rate, tokens/s,
//     batches done, ETA and the trainer's memory;
//   - the probe sentence's attention at the chosen layer and head, snapshot
//     every N batches, with a slider back through the snapshots, and the
//     model's next-token candidates after a chosen position;
//   - head-role scores (previous-token, induction, pronoun) of every head over
//     the snapshots.
// "Use this model" loads the trained model into the playground as files
// (config.json, model.safetensors, tokenizer.json: the playground's own files
// load, so a cancel can load it again); "Download" saves those three files.
// The panel element (#train) carries data-state (idle | running | paused |
// done), data-step (batches done) and data-loss (the last batch's loss);
// element.losses is every reported loss so far, element.snapshots the
// snapshots held and element.trainer the trainer's latest report (positions,
// trainMs, ...), and each report dispatches `minimind-train-steps` ({detail: {steps}}).
import { rolesFromScores } from '../js/head_roles.mjs';
import { scaleFor } from './colors.mjs';
import { download } from './export.mjs';
import { applyTranslations } from './i18n.mjs';
import { TrainClient } from './train_client.mjs';
import { SnapshotStore, StepHistory, smoothed } from '../js/train_history.mjs';
import { DEFAULT_CONFIG, DEFAULT_LINES, DEFAULT_MODEL_SEED, DEFAULT_OPTIONS, LESSON_PROBE } from '../js/train_session.mjs';
import { HeadScoresChart, SCORE_KINDS } from './views/head_scores_chart.mjs';
import { HeatmapView } from './views/heatmap.mjs';
import { LineChart } from './views/line_chart.mjs';
import { renderMatrixTable } from './views/matrix_table.mjs';

/** A performance measure per redraw of the panel. */
export const TRAIN_DRAW = 'minimind:train-draw';

const DEFAULT_SNAPSHOT_EVERY = 10;
const SMOOTHING = 0.9;

// Settings: [name, default, {min, max, step}, kind] in the order shown; each has
// a label key train.field.NAME and a one-line explanation key train.help.NAME.
const MODEL_FIELDS = [
  ['num_hidden_layers', DEFAULT_CONFIG.num_hidden_layers, { min: 1, max: 8, step: 1 }],
  ['hidden_size', DEFAULT_CONFIG.hidden_size, { min: 8, max: 512, step: 8 }],
  ['num_attention_heads', DEFAULT_CONFIG.num_attention_heads, { min: 1, max: 16, step: 1 }],
  ['num_key_value_heads', DEFAULT_CONFIG.num_key_value_heads, { min: 1, max: 16, step: 1 }],
  ['model_seed', DEFAULT_MODEL_SEED, { min: 0, max: 2 ** 31, step: 1 }],
];
const OPTION_FIELDS = [
  ['batchSize', DEFAULT_OPTIONS.batchSize, { min: 1, max: 256, step: 1 }],
  ['maxSeqLen', DEFAULT_OPTIONS.maxSeqLen, { min: 8, max: 512, step: 1 }],
  ['learningRate', DEFAULT_OPTIONS.learningRate, { min: 1e-6, max: 1, step: 'any' }],
  ['accumulationSteps', DEFAULT_OPTIONS.accumulationSteps, { min: 1, max: 64, step: 1 }],
  ['gradClip', DEFAULT_OPTIONS.gradClip, { min: 0.01, max: 100, step: 'any' }],
  ['epochs', DEFAULT_OPTIONS.epochs, { min: 1, max: 100, step: 1 }],
  ['seed', DEFAULT_OPTIONS.seed, { min: 0, max: 2 ** 31, step: 1 }],
  ['snapshotEvery', DEFAULT_SNAPSHOT_EVERY, { min: 1, max: 1000, step: 1 }],
];
const DATA_SOURCES = ['corpus', 'lessons', 'text', 'file'];

function setText(node, text) {
  if (node.textContent !== text) node.textContent = text;
}

function make(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (key === 'class') node.className = value;
    else if (key === 'i18n') node.dataset.i18n = value;
    else if (key === 'text') node.textContent = value;
    else if (value !== undefined && value !== null && value !== false) node.setAttribute(key, value === true ? '' : String(value));
  }
  node.append(...children);
  return node;
}

// A labelled number input with its one-line explanation.
function numberField(name, value, limits) {
  const input = make('input', { name, type: 'number', inputmode: 'decimal', value: String(value), ...limits });
  return make(
    'label',
    { class: 'train-field' },
    make('span', { class: 'train-field-name', i18n: `train.field.${name}` }),
    input,
    make('span', { class: 'train-help', i18n: `train.help.${name}` }),
  );
}

/** "m:ss" (or "h:mm:ss") of a number of seconds. */
export function clock(seconds) {
  if (!Number.isFinite(seconds) || seconds < 0) return '–';
  const s = Math.round(seconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const two = (n) => String(n).padStart(2, '0');
  return h > 0 ? `${h}:${two(m)}:${two(s % 60)}` : `${m}:${two(s % 60)}`;
}

/** The position whose next token the panel shows first: the last 他/她 of the probe, else its last token. */
export function defaultRow(tokens) {
  for (let i = tokens.length - 1; i >= 0; i -= 1) if (/[他她]/.test(tokens[i])) return i;
  return tokens.length - 1;
}

/**
 * Builds the panel into `root` (the #train element) and wires it.
 * store: the page's store (lang, the playground's model); t(key, params);
 * client: the page's ModelClient (the loaded model's files, for "continue
 * training"); loadFiles(files): the playground's files load; workerUrl: the
 * training worker's script.
 */
export function setupTrainPanel({ root, store, t, client, loadFiles, workerUrl, openButton }) {
  const history = new StepHistory();
  const snapshots = new SnapshotStore(200);
  const ui = {
    state: 'idle', // idle | preparing | running | paused | done
    progress: null, // {phase, done, total} while preparing
    error: null,
    notice: null,
    run: null, // {info, trainer, data, source} of the prepared run
    trainer: null, // the newest {batchesDone, totalBatches, memory, trainMs, positions}
    last: null, // the newest step
    layer: 0,
    head: 0,
    row: null, // the probe position whose next token is shown (null: its default)
    follow: true, // the slider follows new snapshots
    shown: null, // the snapshot drawn
    file: null, // {name, text} of a dropped or chosen .jsonl / .txt
    problems: [],
    configInfo: null,
  };
  Object.defineProperty(root, 'losses', { get: () => Array.from(history.loss), configurable: true });
  // Read-only, for scripts (bench/page_training.mjs): the snapshots held and the worker's latest trainer report.
  Object.defineProperty(root, 'snapshots', {
    get: () => Array.from({ length: snapshots.length }, (_, k) => snapshots.get(k)),
    configurable: true,
  });
  Object.defineProperty(root, 'trainer', { get: () => (ui.trainer ? { ...ui.trainer } : null), configurable: true });

  // ------------------------------------------------------------ the DOM

  const el = {};
  const modelForm = make('div', { class: 'train-grid' }, ...MODEL_FIELDS.map(([n, v, l]) => numberField(n, v, l)));
  el.modelNew = make('input', { type: 'radio', name: 'train-model', value: 'new', checked: true });
  el.modelLoaded = make('input', { type: 'radio', name: 'train-model', value: 'loaded' });
  el.loadedName = make('span', { class: 'train-loaded-name' });
  el.configStatus = make('p', { class: 'train-config-status hint small', role: 'status' });
  el.source = make('select', { name: 'source' }, ...DATA_SOURCES.map((s) => make('option', { value: s, i18n: `train.source.${s}` })));
  el.lines = numberField('lines', DEFAULT_LINES, { min: 10, max: 200000, step: 10 });
  el.text = make('textarea', { name: 'text', rows: 4, spellcheck: 'false', 'data-i18n-placeholder': 'train.textPlaceholder' });
  el.fileInput = make('input', { type: 'file', accept: '.jsonl,.txt,.json,text/plain', 'data-i18n-label': 'train.filePick' });
  el.fileStatus = make('span', { class: 'train-file-status', role: 'status' });
  el.drop = make(
    'div',
    { class: 'train-drop' },
    make('p', { i18n: 'train.fileDrop' }),
    make('label', { class: 'file-button' }, make('span', { i18n: 'train.filePick' }), el.fileInput),
    el.fileStatus,
  );
  el.pack = make('input', { type: 'checkbox', name: 'pack', checked: true });
  el.sourceHelp = make('p', { class: 'train-help' });
  const optionsForm = make('div', { class: 'train-grid' }, ...OPTION_FIELDS.map(([n, v, l]) => numberField(n, v, l)));
  el.probe = make('input', { type: 'text', name: 'probe', value: LESSON_PROBE, spellcheck: 'false' });
  el.settings = make(
    'details',
    { class: 'train-settings', open: true },
    make('summary', { i18n: 'train.settings' }),
    make(
      'fieldset',
      {},
      make('legend', { i18n: 'train.model' }),
      make('label', { class: 'check' }, el.modelNew, make('span', { i18n: 'train.modelNew' })),
      modelForm,
      el.configStatus,
      make('label', { class: 'check' }, el.modelLoaded, make('span', { i18n: 'train.modelLoaded' }), el.loadedName),
    ),
    make(
      'fieldset',
      {},
      make('legend', { i18n: 'train.data' }),
      make('label', { class: 'train-field' }, make('span', { class: 'train-field-name', i18n: 'train.source' }), el.source),
      el.sourceHelp,
      el.lines,
      el.text,
      el.drop,
      make('label', { class: 'check' }, el.pack, make('span', { i18n: 'train.pack' })),
      make('p', { class: 'train-help', i18n: 'train.help.pack' }),
    ),
    make('fieldset', {}, make('legend', { i18n: 'train.hyper' }), optionsForm),
  );

  el.start = make('button', { type: 'button', class: 'primary', 'data-train': 'start' });
  el.pause = make('button', { type: 'button', 'data-train': 'pause' });
  el.stop = make('button', { type: 'button', 'data-train': 'stop', i18n: 'train.stop' });
  el.reset = make('button', { type: 'button', 'data-train': 'reset', i18n: 'train.reset' });
  el.use = make('button', { type: 'button', 'data-train': 'use', i18n: 'train.use' });
  el.dtype = make(
    'select',
    { name: 'dtype', 'data-i18n-label': 'train.dtype' },
    make('option', { value: 'F32', text: 'F32' }),
    make('option', { value: 'F16', text: 'F16' }),
  );
  el.download = make('button', { type: 'button', 'data-train': 'download', i18n: 'train.download' });
  el.close = make('button', { type: 'button', class: 'train-close', 'data-i18n-label': 'train.close', text: '×' });
  el.progress = make('progress', { max: 1, value: 0 });
  el.status = make('p', { class: 'train-status', role: 'status', 'aria-live': 'polite' });
  el.stats = make('dl', { class: 'train-stats' });
  el.message = make('p', { class: 'message', role: 'alert' });
  el.downloadNote = make('p', { class: 'train-help', i18n: 'train.downloadNote' });

  el.lossWrap = make('div', { class: 'train-chart-wrap' });
  el.lossCanvas = make('canvas', { role: 'img', 'data-chart': 'loss' });
  el.lossWrap.append(el.lossCanvas);
  el.lossNote = make('p', { class: 'caption' });

  el.layer = make('select', { name: 'layer' });
  el.head = make('select', { name: 'head' });
  el.slider = make('input', { type: 'range', min: 0, max: 0, step: 1, value: 0, 'data-i18n-label': 'train.slider' });
  el.sliderLabel = make('output', { class: 'train-slider-label' });
  el.probeButton = make('button', { type: 'button', i18n: 'train.probeApply' });
  el.attnTitle = make('h4', { class: 'train-attn-title' });
  el.heatWrap = make('div', { class: 'matrix-wrap train-heat-wrap' });
  el.heatCanvas = make('canvas', { role: 'img', 'data-i18n-label': 'train.attnLabel' });
  el.heatWrap.append(el.heatCanvas);
  el.table = make('table', { class: 'train-table' });
  el.predictTitle = make('h4', {});
  el.predict = make('ol', { class: 'candidates train-predict' });
  el.headReadout = make('p', { class: 'note' });
  el.scores = make('div', { class: 'train-scores' });

  root.replaceChildren(
    make(
      'header',
      { class: 'train-head' },
      make('h2', { id: 'train-title', i18n: 'train.title' }),
      make('p', { class: 'hint', i18n: 'train.intro' }),
      el.close,
    ),
    make(
      'div',
      { class: 'train-bar' },
      make('div', { class: 'buttons' }, el.start, el.pause, el.stop, el.reset),
      make('div', { class: 'buttons' }, el.use, el.dtype, el.download),
    ),
    el.downloadNote,
    el.progress,
    el.status,
    el.message,
    el.stats,
    el.settings,
    make(
      'div',
      { class: 'train-body' },
      make(
        'div',
        { class: 'train-main' },
        make('section', { class: 'train-card train-loss' }, make('h3', { i18n: 'train.lossTitle' }), el.lossWrap, el.lossNote),
        make(
          'section',
          { class: 'train-card train-attn' },
          make('h3', { i18n: 'train.attnTitle' }),
          make(
            'div',
            { class: 'train-attn-bar' },
            make('label', {}, make('span', { i18n: 'view.layer' }), el.layer),
            make('label', {}, make('span', { i18n: 'view.head' }), el.head),
            make('label', { class: 'train-slider' }, make('span', { i18n: 'train.sliderName' }), el.slider, el.sliderLabel),
          ),
          make('label', { class: 'train-probe' }, make('span', { i18n: 'train.probe' }), el.probe, el.probeButton),
          el.attnTitle,
          el.heatWrap,
          make('p', { class: 'hint small', i18n: 'train.attnHint' }),
          el.headReadout,
          make(
            'details',
            { class: 'table-details' },
            make('summary', { i18n: 'matrix.table' }),
            make('div', { class: 'table-scroll' }, el.table),
          ),
          el.predictTitle,
          el.predict,
        ),
        make(
          'section',
          { class: 'train-card train-roles' },
          make('h3', { i18n: 'train.scoresTitle' }),
          make('p', { class: 'hint small', i18n: 'train.scoresHint' }),
          el.scores,
        ),
      ),
    ),
  );
  root.dataset.state = 'idle';
  root.dataset.step = '0';

  const lossChart = new LineChart(el.lossCanvas, { height: 190 });
  const heatmap = new HeatmapView(el.heatCanvas, { onRowSelect: (row) => ((ui.row = row), (ui.shown = null), render()) });
  const scoresChart = new HeadScoresChart(el.scores, {
    onSelect: (layer, head) => {
      ui.layer = layer;
      ui.head = head;
      ui.shown = null;
      render();
    },
  });

  // ------------------------------------------------------------ the worker

  const train = new TrainClient(workerUrl, {
    onState: ({ state }) => {
      ui.state = state;
      if (state !== 'preparing') ui.progress = null;
      render();
    },
    onProgress: (progress) => {
      ui.progress = progress;
      render();
    },
    onReady: ({ info, trainer, data }) => {
      ui.run = { info, trainer, data };
      ui.trainer = trainer;
      ui.layer = Math.min(ui.layer, info.num_hidden_layers - 1);
      ui.head = Math.min(ui.head, info.num_attention_heads - 1);
      render();
    },
    onSteps: ({ steps, trainer }) => {
      history.push(steps);
      ui.trainer = trainer;
      ui.last = steps[steps.length - 1] ?? ui.last;
      root.dispatchEvent(new CustomEvent('minimind-train-steps', { detail: { steps } }));
      render();
    },
    onSnapshot: (snapshot) => {
      snapshots.add(snapshot);
      render();
    },
    onError: ({ request, message }) => {
      ui.error = request === 'prepare' ? t('train.prepareFailed', { message }) : t('train.failed', { message });
      render();
    },
  });

  // ------------------------------------------------------------ reading the form

  const field = (form, name) => form.querySelector(`[name="${name}"]`);
  const number = (form, name) => Number(field(form, name).value);

  function modelConfig() {
    const config = { vocab_size: DEFAULT_CONFIG.vocab_size };
    for (const [name] of MODEL_FIELDS) if (name !== 'model_seed') config[name] = number(modelForm, name);
    return config;
  }

  const integerProblem = (form, name, min) => {
    const v = number(form, name);
    return !Number.isSafeInteger(v) || v < min ? t('train.badInteger', { name: t(`train.field.${name}`), min }) : null;
  };

  // What is wrong with the new model's shape, in the page's language (the core checks the rest when it builds).
  function modelProblems() {
    const problems = MODEL_FIELDS.map(([name, , { min }]) => integerProblem(modelForm, name, min)).filter(Boolean);
    if (problems.length) return problems;
    const c = modelConfig();
    if (c.hidden_size % c.num_attention_heads !== 0)
      problems.push(t('train.badHeads', { hidden: c.hidden_size, heads: c.num_attention_heads }));
    else if ((c.hidden_size / c.num_attention_heads) % 2 !== 0)
      problems.push(t('train.badHeadDim', { dim: c.hidden_size / c.num_attention_heads }));
    if (c.num_attention_heads % c.num_key_value_heads !== 0)
      problems.push(t('train.badKv', { heads: c.num_attention_heads, kv: c.num_key_value_heads }));
    return problems;
  }

  // Everything wrong with the form.
  function formProblems() {
    const problems = el.modelNew.checked ? modelProblems() : [];
    const integer = (form, name, min) => {
      const problem = integerProblem(form, name, min);
      if (problem) problems.push(problem);
    };
    for (const [name, , { min, step }] of OPTION_FIELDS) {
      if (step === 'any') {
        const v = number(optionsForm, name);
        if (!(v > 0)) problems.push(t('train.badPositive', { name: t(`train.field.${name}`) }));
      } else integer(optionsForm, name, min);
    }
    if (el.source.value === 'corpus') {
      const v = Number(field(el.lines, 'lines').value);
      if (!Number.isSafeInteger(v) || v < 1) problems.push(t('train.badInteger', { name: t('train.field.lines'), min: 1 }));
    }
    if (el.source.value === 'text' && el.text.value.trim() === '') problems.push(t('train.noText'));
    if (el.source.value === 'file' && !ui.file) problems.push(t('train.noFile'));
    if (el.probe.value.trim() === '') problems.push(t('train.noProbe'));
    return problems;
  }

  function options() {
    const out = {};
    for (const [name] of OPTION_FIELDS) if (name !== 'snapshotEvery') out[name] = number(optionsForm, name);
    return out;
  }

  function dataRequest() {
    const source = el.source.value;
    if (source === 'corpus') return { source, lines: Number(field(el.lines, 'lines').value), seed: 1 };
    if (source === 'lessons') return { source };
    if (source === 'text') return { source, text: el.text.value };
    return { source: 'file', text: ui.file.text, name: ui.file.name };
  }

  // The playground's model as files, from the compute worker (it holds the model as trained or loaded).
  async function loadedModel() {
    const s = store.get();
    const files = await client.modelFiles();
    if (!files.tokenizer && s.model.info && s.model.info.vocab_size < DEFAULT_CONFIG.vocab_size)
      throw new Error(t('train.loadedNoTokenizer', { vocab: s.model.info.vocab_size }));
    return { kind: 'files', config: files.config, weights: files.weights, tokenizer: files.tokenizer ?? undefined };
  }

  async function start() {
    ui.error = null;
    ui.notice = null;
    const problems = formProblems();
    if (problems.length) {
      ui.error = problems.join(' ');
      return render();
    }
    let model;
    try {
      model = el.modelLoaded.checked ? await loadedModel() : { kind: 'new', config: modelConfig(), seed: number(modelForm, 'model_seed') };
    } catch (error) {
      ui.error = t('train.prepareFailed', { message: error.message });
      return render();
    }
    history.clear();
    snapshots.clear();
    forgetDrawn();
    ui.run = null;
    ui.trainer = null;
    ui.last = null;
    ui.follow = true;
    ui.shown = null;
    ui.row = null;
    ui.state = 'preparing';
    ui.progress = { phase: 'load', done: 0, total: 1 };
    ui.options = options();
    el.settings.open = false;
    train.prepare({
      model,
      data: dataRequest(),
      pack: el.pack.checked,
      options: ui.options,
      probe: el.probe.value.trim(),
      snapshotEvery: number(optionsForm, 'snapshotEvery'),
      start: true,
    });
    render();
  }

  function reset() {
    train.reset();
    history.clear();
    snapshots.clear();
    forgetDrawn();
    Object.assign(ui, {
      state: 'idle',
      progress: null,
      error: null,
      notice: null,
      run: null,
      trainer: null,
      last: null,
      shown: null,
      row: null,
      follow: true,
    });
    el.settings.open = true;
    render();
  }

  async function exported(dtype) {
    const files = await train.trainedFiles(dtype);
    return files;
  }

  async function useModel() {
    ui.error = null;
    try {
      const { config, weights, tokenizer, step } = await exported('F32');
      const name = `minimind-trained-b${step}.safetensors`;
      // The head roles the last snapshot measured go with the files: they label the playground's heads.
      const latest = snapshots.latest();
      const roles = rolesFromScores(latest?.scores, latest?.step ?? null);
      await loadFiles(
        [
          new File([config], 'config.json', { type: 'application/json' }),
          new File([weights], name, { type: 'application/octet-stream' }),
          new File([tokenizer], 'tokenizer.json', { type: 'application/json' }),
        ],
        false,
        roles,
      );
      ui.notice = t('train.used', { step, name });
    } catch (error) {
      ui.error = t('train.failed', { message: error.message });
    }
    render();
  }

  // Three files, one after another: config.json, model.safetensors, tokenizer.json.
  async function downloadModel() {
    ui.error = null;
    try {
      const dtype = el.dtype.value;
      const { config, weights, tokenizer, step } = await exported(dtype);
      const files = [
        ['config.json', new Blob([config], { type: 'application/json' })],
        ['model.safetensors', new Blob([weights], { type: 'application/octet-stream' })],
        ['tokenizer.json', new Blob([tokenizer], { type: 'application/json' })],
      ];
      for (const [k, [name, blob]] of files.entries()) {
        if (k > 0) await new Promise((resolve) => setTimeout(resolve, 250));
        download(name, blob);
      }
      ui.notice = t('train.downloaded', { step, dtype });
    } catch (error) {
      ui.error = t('train.failed', { message: error.message });
    }
    render();
  }

  // ------------------------------------------------------------ events

  el.start.addEventListener('click', () => start());
  el.pause.addEventListener('click', () => {
    if (ui.state === 'running' || ui.state === 'preparing') train.pause();
    else if (ui.state === 'paused') train.resume();
  });
  el.stop.addEventListener('click', () => train.stop());
  el.reset.addEventListener('click', () => reset());
  el.use.addEventListener('click', () => useModel());
  el.download.addEventListener('click', () => downloadModel());
  el.close.addEventListener('click', () => setOpen(false));
  el.source.addEventListener('change', () => render());
  el.modelNew.addEventListener('change', () => render());
  el.modelLoaded.addEventListener('change', () => render());
  modelForm.addEventListener('input', () => render());
  el.layer.addEventListener('change', () => {
    ui.layer = Number(el.layer.value);
    ui.shown = null;
    render();
  });
  el.head.addEventListener('change', () => {
    ui.head = Number(el.head.value);
    ui.shown = null;
    render();
  });
  el.slider.addEventListener('input', () => {
    ui.follow = Number(el.slider.value) >= snapshots.length - 1;
    ui.shown = null;
    render();
  });
  el.probeButton.addEventListener('click', () => {
    const text = el.probe.value.trim();
    if (!text || ui.state === 'idle' || ui.state === 'preparing') return;
    ui.row = null;
    ui.follow = true;
    train.setProbe(text);
  });
  el.probe.addEventListener('keydown', (event) => {
    if (event.key === 'Enter') el.probeButton.click();
  });

  async function takeFile(file) {
    if (!file) return;
    try {
      const text = await file.text();
      ui.file = { name: file.name, text };
      el.source.value = 'file';
      ui.error = null;
    } catch (error) {
      ui.error = t('train.failed', { message: error.message });
    }
    render();
  }
  el.fileInput.addEventListener('change', () => takeFile(el.fileInput.files[0]));
  el.drop.addEventListener('dragover', (event) => {
    event.preventDefault();
    el.drop.classList.add('dragging');
  });
  el.drop.addEventListener('dragleave', () => el.drop.classList.remove('dragging'));
  el.drop.addEventListener('drop', (event) => {
    event.preventDefault();
    el.drop.classList.remove('dragging');
    takeFile(event.dataTransfer.files[0]);
  });

  function setOpen(open) {
    root.hidden = !open;
    openButton?.setAttribute('aria-pressed', String(open));
    if (open) {
      render();
      root.scrollIntoView({ block: 'start', behavior: 'instant' });
    }
  }
  openButton?.addEventListener('click', () => {
    const open = root.hidden;
    setOpen(open);
    if (open && ui.state === 'idle') start(); // the button opens the panel and starts a run
  });

  store.subscribe((state, changed) => {
    if (changed.has('lang')) applyTranslations(root, state.lang);
    if (['lang', 'model', 'files', 'preset'].some((k) => changed.has(k))) {
      ui.shown = null; // labels in the new language
      render();
    }
  });

  // ------------------------------------------------------------ drawing

  let frame = 0;
  function render() {
    if (frame) return;
    frame = requestAnimationFrame(() => {
      frame = 0;
      const start = performance.now();
      draw();
      performance.measure(TRAIN_DRAW, { start });
    });
  }

  const lang = () => store.get().lang;
  const fmt = (x, digits = 0) => x.toLocaleString(lang(), { maximumFractionDigits: digits, minimumFractionDigits: digits });
  const mib = (bytes) => fmt(bytes / 2 ** 20, 1);

  function publicState() {
    return ui.state === 'preparing' ? 'running' : ui.state;
  }

  function draw() {
    const running = ui.state === 'running' || ui.state === 'preparing';
    const step = ui.trainer?.batchesDone ?? 0;
    root.dataset.state = publicState();
    root.dataset.phase = ui.state;
    root.dataset.step = String(step);
    if (ui.last) root.dataset.loss = String(ui.last.loss);
    else delete root.dataset.loss;
    if (openButton) openButton.dataset.state = publicState();

    // Buttons.
    el.start.textContent = t(ui.state === 'done' ? 'train.again' : 'train.start');
    el.start.disabled = running || ui.state === 'paused';
    el.pause.textContent = t(ui.state === 'paused' ? 'train.resume' : 'train.pause');
    el.pause.disabled = !(running || ui.state === 'paused');
    el.stop.disabled = !(running || ui.state === 'paused');
    el.reset.disabled = ui.state === 'idle';
    const hasModel = Boolean(ui.run) && ui.state !== 'preparing';
    el.use.disabled = !hasModel;
    el.download.disabled = !hasModel;
    for (const input of el.settings.querySelectorAll('input, select, textarea'))
      input.disabled = ui.state !== 'idle' && ui.state !== 'done';
    el.probeButton.disabled = !ui.run;

    // The model choice: the playground's model by name.
    const s = store.get();
    const loadedName = s.files?.name ?? (s.preset === 'minimind-demo' ? t('model.trainedName') : s.preset);
    el.loadedName.textContent = s.model.info
      ? t('train.loadedName', { name: loadedName, layers: s.model.info.num_hidden_layers, hidden: s.model.info.hidden_size })
      : '';
    modelForm.hidden = !el.modelNew.checked;
    el.configStatus.hidden = !el.modelNew.checked;
    if (el.modelNew.checked) {
      const c = modelConfig();
      const problems = modelProblems();
      el.configStatus.textContent = problems.length
        ? problems.join(' ')
        : t('train.configShape', {
            headDim: c.hidden_size / c.num_attention_heads,
            rep: c.num_attention_heads / c.num_key_value_heads,
            vocab: c.vocab_size,
          });
      el.configStatus.classList.toggle('error', problems.length > 0);
    }

    // Data.
    const source = el.source.value;
    el.lines.hidden = source !== 'corpus';
    el.text.hidden = source !== 'text';
    el.drop.hidden = source !== 'file';
    el.sourceHelp.textContent = t(`train.sourceHelp.${source}`);
    el.fileStatus.textContent = ui.file ? t('train.fileChosen', { name: ui.file.name, kib: fmt(ui.file.text.length / 1024, 1) }) : '';

    // Progress and status.
    const total = ui.trainer?.totalBatches ?? 0;
    if (ui.progress) {
      el.progress.value = ui.progress.total ? ui.progress.done / ui.progress.total : 0;
    } else el.progress.value = total ? step / total : 0;
    el.progress.hidden = ui.state === 'idle';
    setText(el.status, statusText(step, total));
    setText(el.message, ui.error ?? '');
    el.message.hidden = !ui.error;
    el.message.classList.toggle('error', Boolean(ui.error));
    renderStats(step, total);

    const shown = snapshots.get(Number(el.slider.value)) ?? null;
    renderLoss(ui.follow ? snapshots.latest() : shown);
    renderAttention();
  }

  function statusText(step, total) {
    if (ui.state === 'idle') return ui.notice ?? t('train.idle');
    if (ui.state === 'preparing') {
      const p = ui.progress;
      if (p?.phase === 'tokenize') return t('train.tokenizing', { done: fmt(p.done), total: fmt(p.total) });
      if (p?.phase === 'data') return t('train.readingData');
      return t('train.loading');
    }
    const key = { running: 'train.running', paused: 'train.paused', done: 'train.done' }[ui.state];
    const text = t(key, { step: fmt(step), total: fmt(total) });
    return ui.notice ? `${text} ${ui.notice}` : text;
  }

  function renderStats(step, total) {
    const rows = [];
    const tr = ui.trainer;
    if (ui.run && tr) {
      const seconds = tr.trainMs / 1000;
      const perBatch = step > 0 ? seconds / step : NaN;
      const d = ui.run.data;
      const info = ui.run.info;
      if (ui.last) {
        const smooth = smoothedLoss();
        rows.push([
          t('train.stat.loss'),
          t('train.lossValue', { loss: ui.last.loss.toFixed(4), smoothed: smooth[smooth.length - 1].toFixed(4) }),
        ]);
        rows.push([t('train.stat.lr'), ui.last.lr.toExponential(2)]);
        rows.push([
          t('train.stat.epoch'),
          t('train.epochOf', {
            epoch: ui.last.epoch + 1,
            epochs: ui.options.epochs,
            batch: ui.last.batch,
            per: ui.run.trainer.batchesPerEpoch,
          }),
        ]);
      }
      rows.push([t('train.stat.batches'), `${fmt(step)} / ${fmt(total)}`]);
      rows.push([t('train.stat.speed'), seconds > 0 ? t('train.tokensPerSecond', { n: fmt(tr.positions / seconds) }) : '–']);
      rows.push([t('train.stat.eta'), ui.state === 'done' ? clock(0) : clock(perBatch * (total - step))]);
      rows.push([t('train.stat.elapsed'), clock(seconds)]);
      const m = tr.memory;
      rows.push([
        t('train.stat.memory'),
        t('train.memory', {
          total: mib(m.total),
          weights: mib(m.weights + m.modelWeights),
          adam: mib(m.adam),
          grads: mib(m.gradients),
          acts: mib(m.activations),
        }),
      ]);
      rows.push([
        t('train.stat.model'),
        t('train.modelShape', {
          params: fmt(info.parameters),
          layers: info.num_hidden_layers,
          hidden: info.hidden_size,
          heads: info.num_attention_heads,
          kv: info.num_key_value_heads,
        }),
      ]);
      rows.push([
        t('train.stat.data'),
        t('train.dataShape', {
          texts: fmt(d.texts),
          samples: fmt(d.samples),
          len: ui.run.trainer.maxSeqLen,
          padding: fmt((100 * d.padding) / Math.max(1, d.samples * ui.run.trainer.maxSeqLen), 0),
        }),
      ]);
    }
    // The same rows again only change their text (no new nodes for a number that changed).
    if (el.stats.children.length !== rows.length) el.stats.replaceChildren(...rows.map(() => make('div', {}, make('dt'), make('dd'))));
    rows.forEach(([term, value], k) => {
      const [dt, dd] = el.stats.children[k].children;
      setText(dt, term);
      setText(dd, value);
    });
  }

  // The smoothed losses, computed once per new report.
  let smooth = { length: -1, values: null };
  function smoothedLoss() {
    if (smooth.length !== history.length) smooth = { length: history.length, values: smoothed(history.loss, SMOOTHING) };
    return smooth.values;
  }

  // Charts are redrawn only when what they show changed.
  const drawn = { loss: null, scores: null };
  function forgetDrawn() {
    drawn.loss = drawn.scores = null;
    smooth = { length: -1, values: null };
  }
  const changed = (name, key) => {
    const text = JSON.stringify(key);
    if (drawn[name] === text) return false;
    drawn[name] = text;
    return true;
  };

  function renderLoss(shown) {
    const loss = history.loss;
    const cursor = shown?.step ?? null;
    if (!changed('loss', [history.length, cursor, ui.trainer?.totalBatches, lang(), ui.options?.learningRate])) return;
    lossChart.render({
      series: [
        { y: loss, color: 'rgba(31, 119, 180, 0.35)', width: 1, label: t('train.lossRaw') },
        { y: smoothedLoss(), color: '#1f4e79', width: 2, label: t('train.lossSmoothed') },
        { y: history.lr, color: '#e07b00', width: 1.5, dash: [5, 3], axis: 'right', label: t('train.lrLine') },
      ],
      xMax: ui.trainer?.totalBatches ?? 1,
      yRight: ui.options ? [0, ui.options.learningRate] : undefined,
      cursor,
      empty: t('train.noLoss'),
      xLabel: t('train.xBatch'),
    });
    const n = history.length;
    const first = history.meanLoss(0, Math.min(20, n));
    const last = history.meanLoss(Math.max(0, n - 20), n);
    el.lossNote.textContent = n >= 20 ? t('train.lossDrop', { first: first.toFixed(3), last: last.toFixed(3), n: fmt(n) }) : '';
    el.lossCanvas.setAttribute(
      'aria-label',
      n ? t('train.lossLabel', { n: fmt(n), loss: loss[n - 1].toFixed(4), first: loss[0].toFixed(4) }) : t('train.noLoss'),
    );
  }

  function fillSelect(select, count, value) {
    if (select.options.length !== count)
      select.replaceChildren(...Array.from({ length: count }, (_, k) => new Option(String(k), String(k))));
    select.value = String(value);
  }

  function renderAttention() {
    const count = snapshots.length;
    el.slider.max = String(Math.max(0, count - 1));
    el.slider.disabled = count < 2;
    if (ui.follow) el.slider.value = String(Math.max(0, count - 1));
    const snapshot = snapshots.get(Number(el.slider.value)) ?? snapshots.latest();
    const L = snapshot?.layers ?? ui.run?.info.num_hidden_layers ?? 1;
    const H = snapshot?.heads ?? ui.run?.info.num_attention_heads ?? 1;
    ui.layer = Math.min(ui.layer, L - 1);
    ui.head = Math.min(ui.head, H - 1);
    fillSelect(el.layer, L, ui.layer);
    fillSelect(el.head, H, ui.head);
    setText(
      el.sliderLabel,
      snapshot
        ? t(ui.follow && ui.state !== 'done' ? 'train.sliderLive' : 'train.sliderAt', {
            step: fmt(snapshot.step),
            k: Number(el.slider.value) + 1,
            n: count,
          })
        : '',
    );
    const scoresKey = [count, snapshots.latest()?.step, snapshot?.step, ui.layer, ui.head, ui.trainer?.totalBatches, lang()];
    if (changed('scores', scoresKey))
      scoresChart.render({
        snapshots,
        layers: L,
        heads: H,
        current: { layer: ui.layer, head: ui.head },
        cursor: snapshot?.step ?? null,
        xMax: ui.trainer?.totalBatches ?? 1,
        titles: Object.fromEntries(SCORE_KINDS.map((k) => [k, t(`train.score.${k}`)])),
        headName: (layer, head) => t('train.headShort', { layer, head }),
        keyLabel: t('train.headKey'),
        describe: (kind, value) =>
          t('train.scoreLabel', {
            kind: t(`train.score.${kind}`),
            layer: ui.layer,
            head: ui.head,
            value: Number.isFinite(value) ? value.toFixed(3) : '–',
          }),
      });
    if (!snapshot) {
      el.attnTitle.textContent = '';
      el.predictTitle.textContent = '';
      el.predict.replaceChildren();
      el.headReadout.textContent = '';
      el.heatWrap.hidden = true;
      return;
    }
    el.heatWrap.hidden = false;
    const key = [snapshot, ui.layer, ui.head, ui.row, lang()];
    if (ui.shown && key.every((v, k) => v === ui.shownKey[k])) return;
    ui.shown = snapshot;
    ui.shownKey = key;
    const { T, tokens, attention } = snapshot;
    const offset = (ui.layer * H + ui.head) * T * T;
    const values = attention.subarray(offset, offset + T * T);
    const row = ui.row !== null && ui.row < T ? ui.row : defaultRow(tokens);
    const masked = (i, j) => j > i;
    const kv = Math.floor(ui.head / (H / (snapshot.kvHeads || H)));
    el.attnTitle.textContent = t('train.attnAt', { layer: ui.layer, head: ui.head, kv, step: fmt(snapshot.step) });
    heatmap.render({
      tokens,
      values,
      masked,
      scale: scaleFor('attn_weights', values),
      decimals: 2,
      selectedRow: row,
      titles: { query: t('matrix.queryAxis'), key: t('matrix.keyAxis') },
    });
    root.dataset.snapshotStep = String(snapshot.step);
    renderMatrixTable(el.table, {
      caption: t('train.tableCaption', { layer: ui.layer, head: ui.head, step: snapshot.step }),
      tokens,
      values,
      masked,
      maskedText: `0.000 (${t('matrix.masked')})`,
      queryLabel: `${t('matrix.query')} \\ ${t('matrix.key')}`,
    });
    const scores = snapshot.scores;
    el.headReadout.textContent = scores
      ? t('train.headScores', {
          layer: ui.layer,
          head: ui.head,
          step: fmt(snapshot.step),
          previousToken: scores.previousToken[ui.layer][ui.head].toFixed(2),
          induction: scores.induction[ui.layer][ui.head].toFixed(2),
          pronoun: scores.pronoun[ui.layer][ui.head].toFixed(2),
        })
      : '';
    el.predictTitle.textContent = t('train.predictAfter', { token: tokens[row], step: fmt(snapshot.step) });
    el.predict.replaceChildren(
      ...snapshot.top[row].map((c) => {
        const item = make('li', { 'data-id': c.id, 'data-p': c.p, 'data-logit': c.logit });
        const label = c.whole ? t('predict.whole', { label: c.label, whole: c.whole }) : c.label;
        item.textContent = `${label} (#${c.id}): ${c.p.toFixed(3)}`;
        return item;
      }),
    );
    el.predict.dataset.row = String(row);
  }

  root.hidden = true;
  applyTranslations(root, store.get().lang);
  render();
  return { open: () => setOpen(true), start, reset };
}
