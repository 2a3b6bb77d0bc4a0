// The playground page: one store, views redrawn from it, compute in a worker.
import { applyTranslations, browserLanguage, translate } from './i18n.mjs';
import { scaleFor } from './colors.mjs';
import { canvasMeasure, download, exportMeta, figurePng, figureSvg, matrixCsv, matrixJson } from './export.mjs';
import { figureText } from './export_figure.mjs';
import { InlineModel } from './inline_model.mjs';
import { ModelClient } from './model_client.mjs';
import { classifyFiles, droppedFiles, readWithProgress } from './files.mjs';
import { RedrawTimer } from './frame_timing.mjs';
import { appendRows, withLookup } from './generation_matrix.mjs';
import { setupEmbed } from './embed_dialog.mjs';
import { setupLessonMode } from './lesson_mode.mjs';
import { DEMO } from './demo_model.mjs';
import { headNote, headTag } from './demo_text.mjs';
import { setupPrediction } from './prediction.mjs';
import { createStore } from './store.mjs';
import { idCollisions, tokenize } from './tokenize.mjs';
import { DEFAULTS, STAGES, readUrlState, viewDefaults, writeUrlState } from './url_state.mjs';
import { renderCandidates } from './views/candidates.mjs';
import { renderChips } from './views/chips.mjs';
import { HeatmapView } from './views/heatmap.mjs';
import { renderLegend } from './views/legend.mjs';
import { addMatrixStateElements, renderMatrixState } from './views/matrix_state.mjs';
import { renderMatrixTable } from './views/matrix_table.mjs';
import { renderOverview } from './views/overview.mjs';
import { renderRowExplanation } from './views/row_explanation.mjs';
import { RunStatusView } from './views/run_status.mjs';
import { setupTrainPanel } from './train_panel.mjs';

export const MAX_TOKENS = 128;
const PRESETS = ['lab-a', 'lab-b', 'minimind2-small', 'minimind2', 'minimind-3', 'minimind-3-moe'];
// The selector: the trained model first (the default), then the presets' random weights.
const MODELS = [DEMO, ...PRESETS];
const CONFIG_FIELDS = [
  'num_hidden_layers',
  'hidden_size',
  'num_attention_heads',
  'num_key_value_heads',
  'head_dim',
  'intermediate_size',
  'rope_theta',
];
// Typing waits only when a forward is slow: a model that answers in a few
// milliseconds redraws on every keystroke (the worker drops stale requests).
const SLOW_FORWARD_MS = 8;
const MAX_TYPING_DEBOUNCE_MS = 150;
let lastComputeMs = 0;

const $ = (id) => document.getElementById(id);
addMatrixStateElements(); // the state line and shape label beside the matrix, the chips' note, the SVG button
const initial = readUrlState(location.search);
// A URL without a row opens on the model's own (the pronoun's, on the trained
// model's lesson sentence) once the model is loaded; so does a new model.
let defaultRowWanted = initial.row === undefined;
const store = createStore({
  ...initial,
  row: initial.row ?? null,
  lang: initial.lang ?? browserLanguage(),
  model: { status: 'loading', fraction: 0, info: null, error: null },
  demo: null, // the trained model's {heads: heads.json, sentence: the lesson sentence's positions}, while it is the model
  prediction: null, // the worker's next-token candidates after a row
  result: null, // {tokens, ids, special, dropped, entries, T}
  computeError: null,
  described: null, // {info, problems} of the config draft
  files: null, // {name, tokenizer, assumed, inferred} of a model loaded from files
  filesStatus: null, // {phase: 'reading' | 'parsing' | 'loaded' | 'error', fraction, name, message}
  generation: null, // {ids, tokens, entries, T, cache, candidates, finished, step, chosen}
  playing: false,
  busy: null, // {kind: 'forward' | 'generation', since}: a request the worker has not answered
  stale: false, // the matrix is for older text: its forward pass was cancelled
  notice: null, // what a cancel went back to
});
const t = (key, params) => translate(store.get().lang, key, params);

// ---------------------------------------------------------------- worker

const redrawTimer = new RedrawTimer();
let firstMatrixDrawn = false;
let loadingFiles = null; // the File objects of the newest files load
let loadedFiles = null; // the File objects of the model in use, if it came from files
let readingFiles = null; // AbortController of the files being read in the page
let restoring = null; // after a cancel: {keep, key} while the worker loads the model again

// A forward pass's answer, from the worker or from the main-thread twin of a tiny model.
function showResult({ ids, labels, special, dropped, entries, computeMs, sentAt }) {
  lastComputeMs = computeMs;
  const result = ids.length
    ? { tokens: labels, ids, special: special ?? null, dropped, entries: withLookup(entries), T: ids.length, computeMs, sentAt }
    : null;
  if (!result) redrawTimer.drawn(sentAt);
  store.set({ result, computeError: null, busy: null, stale: false });
}

const inlineModel = new InlineModel();

const client = new ModelClient(new URL('./worker.js', import.meta.url), {
  onProgress: ({ fraction, phase }) => {
    if (phase === 'parse') store.set({ filesStatus: { phase: 'parsing', fraction, name: loadingFiles?.weights.name } });
    else store.set({ model: { ...store.get().model, status: 'building', fraction } });
  },
  onLoaded: ({ info, files, demo }) => {
    const s = store.get();
    inlineModel.prepare(files || demo ? null : { preset: s.preset, seed: s.seed, config: s.config }, info);
    // After cancelling a forward pass the same model is back: its matrices still fit.
    const keep = restoring?.keep ?? false;
    const recompute = !keep || restoring.key !== computeKey();
    const newFiles = files && !restoring; // files just chosen, not the same files again after a cancel
    restoring = null;
    loadedFiles = files ? loadingFiles : null;
    const patch = {
      files: files ? { ...files, name: loadingFiles.weights.name } : null,
      demo: demo ?? null,
      result: keep ? s.result : null, // the old model's matrices do not fit the new one
      filesStatus: files ? { phase: 'loaded', name: loadingFiles.weights.name } : null,
      generation: null,
      playing: false,
      model: { status: 'ready', fraction: 1, info, error: null },
    };
    // What the URL or the learner did not choose is the model's own view.
    // New files open on their own view too (the model before may have opened elsewhere).
    const own = viewDefaults({ ...s, ...patch });
    const L = info.num_hidden_layers;
    const H = info.num_attention_heads;
    patch.layer = Math.min(newFiles ? own.layer : (s.layer ?? own.layer), L - 1);
    patch.head = Math.min(newFiles ? own.head : (s.head ?? own.head), H - 1);
    if ((defaultRowWanted || newFiles) && !keep) patch.row = own.row;
    defaultRowWanted = false;
    patch.ablate = newFiles ? [] : s.ablate.filter(([layer, head]) => layer < L && head < H);
    store.set(patch);
    if (recompute) compute();
  },
  onResult: showResult,
  onPrediction: (prediction) => store.set({ prediction }),
  onDescribed: ({ info, problems }) => store.set({ described: { info, problems } }),
  onGenerationStart: ({ ids, labels, entries, cache, candidates }) => {
    const generation = {
      ids,
      tokens: labels,
      entries: withLookup(entries),
      T: ids.length,
      cache,
      candidates,
      finished: false,
      step: 0,
      chosen: null,
    };
    store.set({ generation, computeError: null, busy: null });
    continueGeneration();
  },
  onGenerationStep: (message) => {
    const g = store.get().generation;
    if (!g) return;
    const T = g.T + 1;
    store.set({
      generation: {
        ids: [...g.ids, message.token],
        tokens: [...g.tokens, message.label],
        entries: appendRows(g.entries, message.entries),
        T,
        cache: message.cache,
        candidates: message.candidates,
        finished: message.finished || T >= MAX_TOKENS,
        step: g.step + 1,
        chosen: { label: message.label, p: message.chosenP, isEos: message.isEos },
      },
      busy: null,
    });
    continueGeneration();
  },
  onError: ({ request, message }) => {
    if (request === 'forward' || request === 'gen-start' || request === 'gen-step') store.set({ busy: null });
    if (request === 'load' && restoring) {
      restoring = null; // the model in use before the cancel did not load again
      loadDefaultModel(t('run.restoreFailed', { message, name: DEFAULTS.preset }));
    } else if (request === 'load' && loadingFiles) {
      // The worker keeps the previous model when files fail to load.
      const { model } = store.get();
      store.set({ filesStatus: { phase: 'error', message }, model: { ...model, status: model.info ? 'ready' : 'error', fraction: 1 } });
    } else if (request === 'load' || request === 'worker') {
      store.set({ model: { status: 'error', fraction: 0, info: store.get().model.info, error: message } });
    } else if (request === 'describe') store.set({ described: { info: null, problems: [message] } });
    else if (request === 'gen-start' || request === 'gen-step') store.set({ playing: false, computeError: message });
    else store.set({ computeError: message });
  },
});

function loadModel() {
  const { preset, seed, config } = store.get();
  inlineModel.prepare(null);
  loadingFiles = null;
  restoring = null;
  store.set({
    model: { status: 'building', fraction: 0, info: null, error: null },
    result: null,
    prediction: null,
    generation: null,
    playing: false,
    files: null, // a model from files is no longer the one in use
    demo: null,
    filesStatus: null,
  });
  client.load(preset === DEMO ? { preset } : { preset, seed, config });
}

// A new model opens on its own view: its default layer, head and row, every head on.
function chooseModel(patch) {
  defaultRowWanted = true;
  store.set({ ...patch, described: null, result: null, generation: null, layer: null, head: null, row: null, ablate: [] });
  loadModel();
}

// withHeads: "Reload with these heads" sends the head count typed; files just chosen are read without it.
async function loadFiles(fileList, withHeads = false) {
  const chosen = classifyFiles(fileList);
  if (!chosen.weights) return store.set({ filesStatus: { phase: 'error', message: t('files.noWeights') } });
  if (/\.safetensors$/i.test(chosen.weights.name) && !chosen.config) {
    return store.set({ filesStatus: { phase: 'error', message: t('files.noConfig') } });
  }
  loadingFiles = chosen;
  restoring = null;
  const name = chosen.weights.name;
  readingFiles?.abort();
  const reading = (readingFiles = new AbortController());
  let weights;
  try {
    const onProgress = (fraction) => reading.signal.aborted || store.set({ filesStatus: { phase: 'reading', fraction, name } });
    weights = await readWithProgress(chosen.weights, onProgress, reading.signal);
  } catch (error) {
    if (reading.signal.aborted) return; // cancelled, or newer files chosen
    throw error;
  } finally {
    if (readingFiles === reading) readingFiles = null;
  }
  const heads = withHeads ? Number($('pth-heads').value) : NaN;
  client.loadFiles(
    {
      config: chosen.config ? await chosen.config.text() : undefined,
      tokenizer: chosen.tokenizer ? await chosen.tokenizer.text() : undefined,
      weights,
      hints: Number.isSafeInteger(heads) && heads > 0 ? { numAttentionHeads: heads } : {},
    },
    chosen.weights,
  );
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
  const { text, model, inputMode, files } = store.get();
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

// Switching a head off (or on again) from the overview.
function toggleHead(layer, head) {
  const { ablate, generation } = store.get();
  const off = ablate.some(([l, h]) => l === layer && h === head);
  const next = off ? ablate.filter(([l, h]) => l !== layer || h !== head) : [...ablate, [layer, head]];
  if (generation) resetGeneration(); // generation runs with every head on
  store.set({ ablate: next.sort((a, b) => a[0] - b[0] || a[1] - b[1]) });
  compute();
}

function samplingOptions() {
  const number = (id) => Number($(id).value);
  return {
    greedy: $('gen-greedy').checked,
    temperature: number('gen-temperature'),
    topK: Math.max(0, Math.floor(number('gen-top-k'))),
    topP: number('gen-top-p'),
    repetitionPenalty: number('gen-penalty'),
    seed: Math.max(0, Math.floor(number('gen-seed'))),
  };
}

// Step: start from the prompt if needed, then one token; Play: keep going.
let stepsWanted = 0;
function requestSteps(count) {
  const s = store.get();
  if (!s.model.info) return;
  stepsWanted = count;
  if (s.generation) return continueGeneration();
  const current = currentTokens();
  if (!current.viaWorker && current.ids.length === 0) return;
  client.startGeneration(requestTokens(current), { chat: $('gen-chat').checked, sampling: samplingOptions() });
  store.set({ busy: { kind: 'generation', since: client.pendingSince('gen-start') } });
}

function continueGeneration() {
  const g = store.get().generation;
  if (!g || g.finished || stepsWanted <= 0) {
    if (store.get().playing) store.set({ playing: false });
    return;
  }
  stepsWanted -= 1;
  client.step();
  store.set({ busy: { kind: 'generation', since: client.pendingSince('gen-step') } });
}

function resetGeneration() {
  stepsWanted = 0;
  store.set({ generation: null, playing: false });
}

let computeTimer = null;
function computeSoon() {
  clearTimeout(computeTimer);
  if (lastComputeMs < SLOW_FORWARD_MS) return compute();
  client.supersede('forward'); // the answer for older text must not be drawn meanwhile
  computeTimer = setTimeout(compute, Math.min(MAX_TYPING_DEBOUNCE_MS, lastComputeMs));
}

// ---------------------------------------------------------------- long runs

const runStatus = new RunStatusView($('run-status'), { onCancel: (run) => cancelRun(run) });

function modelName(s = store.get()) {
  return s.files ? s.files.name : s.config ? `${s.preset} + ${t('model.custom')}` : s.preset;
}

// What runs now, for the run bar: {kind, text, fraction (null: unknown), since, delayed, cancellable}.
function currentRun(s = store.get()) {
  const f = s.filesStatus;
  if (f?.phase === 'reading')
    return {
      kind: 'files-read',
      text: t('files.reading', { name: f.name, percent: Math.round(f.fraction * 100) }),
      fraction: f.fraction,
      since: 0,
      cancellable: true,
    };
  if (f?.phase === 'parsing' && !restoring)
    return {
      kind: 'files',
      text: t('files.parsing', { name: f.name }),
      fraction: null,
      since: client.pendingSince('load') ?? performance.now(),
      cancellable: true,
    };
  if (s.model.status === 'building') {
    const key = restoring ? 'run.restoring' : s.preset === DEMO ? 'model.downloading' : 'model.building';
    const text = t(key, { name: modelName(s), percent: Math.round(s.model.fraction * 100) });
    return { kind: restoring ? 'restore' : 'build', text, fraction: s.model.fraction, since: 0, cancellable: true };
  }
  if (s.busy?.kind === 'forward') {
    const T = currentTokens().ids?.length;
    const text = T === undefined ? t('run.computingText') : t('run.computing', { count: T });
    return { kind: 'forward', text, fraction: null, since: s.busy.since, delayed: true, cancellable: true };
  }
  if (s.busy?.kind === 'generation')
    return {
      kind: 'generation',
      text: t('run.generating', { step: (s.generation?.step ?? 0) + 1 }),
      fraction: null,
      since: s.busy.since,
      delayed: true,
      cancellable: true,
    };
  return null;
}

function renderRunStatus() {
  const s = store.get();
  runStatus.render(currentRun(s), s.notice, (seconds) => t('run.elapsed', { seconds }));
}

// A notice of what the page went back to; a new object each time, so it shows again.
function notice(text) {
  return { text };
}

function loadDefaultModel(message) {
  store.set({ seed: DEFAULTS.seed, files: null });
  chooseModel({ preset: DEFAULTS.preset, config: null });
  store.set({ notice: notice(message) });
}

// Cancel: the page stops reading files itself; anything in the worker stops
// only with the worker, which then loads the model in use before again.
function cancelRun(run) {
  if (!run) return;
  if (run.kind === 'files-read') {
    readingFiles?.abort();
    readingFiles = null;
    loadingFiles = loadedFiles;
    const name = store.get().filesStatus?.name;
    store.set({ filesStatus: null, notice: notice(t('run.cancelledFiles', { name, previous: modelName() })) });
    return;
  }
  const s = store.get();
  clearTimeout(computeTimer);
  stepsWanted = 0;
  if (run.kind === 'restore') {
    // The model in use before did not come back quickly enough: start from the default.
    client.cancel({ reload: false });
    restoring = null;
    return loadDefaultModel(t('run.cancelledRestore', { name: modelName(s), fallback: DEFAULTS.preset }));
  }
  const cancelled = run.kind === 'files' ? s.filesStatus.name : modelName(s);
  const reloading = client.cancel();
  if (!reloading) {
    restoring = null;
    return loadDefaultModel(t(loadedFiles ? 'run.filesGone' : 'run.cancelledFirst', { name: cancelled, fallback: DEFAULTS.preset }));
  }
  // forward or generation: the same model comes back and its matrices stay.
  const keep = run.kind === 'forward' || run.kind === 'generation';
  restoring = { keep, key: keep ? computeKey() : null };
  loadingFiles = reloading.files ? loadedFiles : null;
  const back = reloading.files
    ? reloading.name
    : reloading.spec.config
      ? `${reloading.spec.preset} + ${t('model.custom')}`
      : reloading.spec.preset;
  const patch = {
    model: { status: 'building', fraction: 0, info: keep ? s.model.info : null, error: null },
    busy: null,
    playing: false,
    generation: null,
  };
  if (!keep) Object.assign(patch, { result: null, filesStatus: null });
  if (!keep && reloading.spec)
    Object.assign(patch, {
      preset: reloading.spec.preset,
      seed: reloading.spec.seed,
      config: reloading.spec.config ?? null,
      described: null,
    });
  if (keep) patch.stale = Boolean(s.busy?.kind === 'forward') || s.stale;
  const message =
    run.kind === 'forward'
      ? t('run.cancelledForward')
      : run.kind === 'generation'
        ? t('run.cancelledGeneration')
        : t(run.kind === 'files' ? 'run.cancelledFiles' : 'run.cancelledBuild', { name: cancelled, previous: back });
  store.set({ ...patch, notice: notice(message) });
}

// ---------------------------------------------------------------- views

const heatmap = new HeatmapView($('heatmap'), {
  onCellFocus: (cell) => renderCellInfo(cell),
  onRowSelect: (row) => store.set({ row: store.get().row === row ? null : row }),
});

// The matrices on screen: the growing ones of a generation, else the forward's.
function shown(s = store.get()) {
  return s.generation ?? s.result;
}

// Generation runs MiniMind's attention as it is, with the causal mask.
function causalShown(s = store.get()) {
  return s.generation ? true : s.causal;
}

function isMasked(stage, causal) {
  // The causal mask hides keys after the query from "+ mask" on.
  return (i, j) => causal && j > i && (stage === 'scores_masked' || stage === 'attn_weights');
}

function headMatrix(entry, head, T) {
  return entry.data.subarray(head * T * T, (head + 1) * T * T); // entry: [1, H, T, T]
}

function renderCellInfo(cell) {
  const s = store.get();
  const view = shown(s);
  if (!cell || !view) {
    $('cell-info').textContent = '';
    return;
  }
  const { tokens, entries, T } = view;
  const value = (stage) => headMatrix(entries.get(s.layer, stage), s.head, T)[cell.i * T + cell.j];
  const params = { query: tokens[cell.i], key: tokens[cell.j] };
  $('cell-info').textContent = isMasked('attn_weights', causalShown(s))(cell.i, cell.j)
    ? t('matrix.cellMasked', params)
    : t('matrix.cell', {
        ...params,
        raw: value('scores_raw').toFixed(3),
        scaled: value('scores_scaled').toFixed(3),
        weight: value('attn_weights').toFixed(3),
      });
}

function renderStatic() {
  const { lang } = store.get();
  document.documentElement.lang = lang;
  applyTranslations(document, lang);
  $('lang').value = lang;
  document.title = `${t('app.title')} · MiniMind`;
}

function renderInput() {
  const s = store.get();
  if ($('text').value !== s.text) $('text').value = s.text;
  $('input-mode').value = s.inputMode;
  // MiniMind's tokenizer, or the page's split on spaces: how the text becomes tokens.
  const bpe = hasTokenizer(s);
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

function renderFiles() {
  const { filesStatus: f, files } = store.get();
  const progress = $('files-progress');
  progress.hidden = !f || (f.phase !== 'reading' && f.phase !== 'parsing');
  progress.value = f?.phase === 'reading' ? f.fraction : f?.phase === 'parsing' ? 1 : 0;
  if (!f) {
    $('files-status').textContent = '';
  } else if (f.phase === 'reading') {
    $('files-status').textContent = t('files.reading', { name: f.name, percent: Math.round(f.fraction * 100) });
  } else if (f.phase === 'parsing') {
    $('files-status').textContent = t('files.parsing', { name: f.name });
  } else if (f.phase === 'error') {
    $('files-status').textContent = t('files.error', { message: f.message });
  } else {
    const info = store.get().model.info;
    const loaded = t('files.loaded', {
      name: f.name,
      // As kept in memory: float16 checkpoints stay float16 (exact, half the bytes).
      mib: ((info.stored_weights?.bytes ?? info.weight_bytes) / 2 ** 20).toFixed(1),
      storage: Object.keys(info.stored_weights?.tensors_by_storage ?? { F32: 1 })
        .map((name) => ({ F32: 'float32', F16: 'float16', BF16: 'bfloat16' })[name])
        .join(' + '),
      tokenizer: files?.tokenizer ? t('files.withTokenizer') : '',
    });
    $('files-status').textContent = files?.assumed.length ? `${loaded} ${t('files.assumed', { keys: files.assumed.join(', ') })}` : loaded;
  }
  $('files-status').classList.toggle('error', f?.phase === 'error');
  $('pth-hints').hidden = !headCountNeeded(store.get());
}

// The head count is asked for only where a .pth's tensors cannot tell it: a generation-2 .pth
// without config.json (generation 3 reads it from q_norm), or a .pth that failed to load over it.
function headCountNeeded({ files, model, filesStatus }) {
  const heads = files?.inferred ? model.info?.inferred?.fields?.find((field) => field.key === 'num_attention_heads') : null;
  const failed = filesStatus?.phase === 'error' && /num_attention_heads/.test(filesStatus.message);
  return (heads && heads.source !== 'inferred') || failed;
}

function renderGeneration() {
  const s = store.get();
  const g = s.generation;
  $('gen-play').textContent = t(s.playing ? 'gen.pause' : 'gen.play');
  $('gen-step').disabled = Boolean(g?.finished) || !s.model.info;
  $('gen-play').disabled = (Boolean(g?.finished) || !s.model.info) && !s.playing;
  $('gen-chat').disabled = !s.files?.tokenizer;
  if (!g) {
    $('gen-status').textContent = '';
    $('gen-text').textContent = '';
    $('gen-candidates').replaceChildren();
    $('gen-cache').textContent = '';
    return;
  }
  const status = !g.chosen
    ? t('gen.started', { count: g.T })
    : g.chosen.isEos
      ? t('gen.eos', { step: g.step })
      : t('gen.stepped', { step: g.step, token: g.chosen.label, p: g.chosen.p.toFixed(3) });
  const full = g.finished && !g.chosen?.isEos && g.T >= MAX_TOKENS ? ` ${t('gen.full', { max: MAX_TOKENS })}` : '';
  $('gen-status').textContent = `${status}${full}${s.ablate.length ? ` ${t('gen.everyHead')}` : ''}`;
  // Tokenizer pieces carry their own spaces; bare ids need them.
  $('gen-text').textContent = g.tokens.join(s.files?.tokenizer ? '' : ' ');
  renderCandidates($('gen-candidates'), g.candidates, t);
  const [tokens, hkv, dh] = g.cache.shapePerLayer;
  $('gen-cache').textContent = t('gen.cache', { tokens, hkv, dh, layers: g.cache.layers, kib: (g.cache.bytes / 1024).toFixed(1) });
}

function renderModelPanel() {
  const s = store.get();
  const presetSelect = $('preset');
  if (presetSelect.options.length === 0) {
    for (const name of MODELS) presetSelect.append(new Option(name, name));
    presetSelect.append(new Option(t('model.custom'), 'custom'));
  }
  // Random weights say so: only the trained model has learned anything.
  for (const option of presetSelect.options) {
    option.textContent =
      option.value === 'custom'
        ? t('model.custom')
        : option.value === DEMO
          ? t('model.trainedName')
          : t('model.untrainedName', { name: option.value });
  }
  presetSelect.value = s.config ? 'custom' : s.preset;
  $('seed').value = String(s.seed);
  const trained = s.preset === DEMO && !s.files;
  $('seed').disabled = trained; // the trained weights have no seed
  for (const field of $('config-form').elements) field.disabled = trained;
  $('config-trained').hidden = !trained;
  const progress = $('build-progress');
  progress.hidden = s.model.status !== 'building';
  progress.value = s.model.fraction;
  const name = modelName(s);
  const info = s.model.info;
  $('model-status').textContent =
    s.model.status === 'building'
      ? t(trained ? 'model.downloading' : 'model.building', { name, percent: Math.round(s.model.fraction * 100) })
      : s.model.status === 'error'
        ? t('model.error', { message: s.model.error })
        : info
          ? t(s.files ? 'model.readyFiles' : trained ? 'model.readyTrained' : 'model.ready', {
              name,
              params: info.parameters.toLocaleString(s.lang),
              layers: info.num_hidden_layers,
              heads: info.num_attention_heads,
              seed: s.seed,
            })
          : t('status.loadingModule');
  $('model-status').classList.toggle('error', s.model.status === 'error');
}

function configDraft() {
  const form = $('config-form');
  const draft = {};
  for (const name of CONFIG_FIELDS) {
    const text = form.elements[name].value.trim();
    draft[name] = text === '' ? null : Number(text); // null: derive it (head_dim = hidden / heads)
  }
  draft.use_qk_norm = form.elements.use_qk_norm.checked;
  return draft;
}

function fillConfigForm(info) {
  const form = $('config-form');
  for (const name of CONFIG_FIELDS) {
    if (document.activeElement === form.elements[name]) continue;
    const derivedHeadDim =
      name === 'head_dim' && info.head_dim * info.num_attention_heads === info.hidden_size && !store.get().config?.head_dim;
    form.elements[name].value = derivedHeadDim ? '' : String(info[name]);
  }
  form.elements.use_qk_norm.checked = info.use_qk_norm;
}

let derivedShown = []; // [info, described, T, lang] last drawn: a new result of the same length changes nothing
function renderDerived() {
  const s = store.get();
  const info = s.described?.info ?? s.model.info;
  const T = info ? (s.result?.T ?? currentTokens().ids?.length ?? 0) : 0;
  const shownNow = [info, s.described, T, s.lang];
  if (shownNow.every((value, k) => value === derivedShown[k])) return;
  derivedShown = shownNow;
  const dl = $('derived');
  dl.replaceChildren();
  if (info) {
    const d = info.derived;
    const H = info.num_attention_heads;
    const rows = [
      [t('derived.headDim'), String(d.head_dim)],
      [t('derived.rep'), `${H} / ${info.num_key_value_heads} = ${d.n_rep}`],
      ['q_proj(x)', `(1, ${T}, ${d.q_proj[0]})`],
      ['k_proj(x)', `(1, ${T}, ${d.k_proj[0]})`],
      ['v_proj(x)', `(1, ${T}, ${d.v_proj[0]})`],
      ['xq', `(1, ${T}, ${H}, ${d.head_dim})`],
      ['xk after repeat_kv', `(1, ${T}, ${H}, ${d.head_dim})`],
      [t('derived.scores'), `(1, ${H}, ${T}, ${T})`],
    ];
    for (const [term, value] of rows) {
      const dt = document.createElement('dt');
      dt.textContent = term;
      const dd = document.createElement('dd');
      dd.textContent = value;
      dl.append(dt, dd);
    }
  }
  const problems = s.described?.problems ?? [];
  const box = $('config-problems');
  box.replaceChildren();
  if (s.described) {
    const heading = document.createElement('p');
    heading.className = problems.length ? 'error' : 'ok';
    heading.textContent = problems.length ? t('config.problems') : t('config.ok');
    box.append(heading);
    if (problems.length) {
      const list = document.createElement('ul');
      list.className = 'problems';
      for (const p of problems) {
        const item = document.createElement('li');
        item.textContent = p;
        list.append(item);
      }
      box.append(list);
    }
  }
  $('config-apply').disabled = problems.length > 0;
}

function renderSelectors() {
  const s = store.get();
  const info = s.model.info;
  const fill = (select, count, value) => {
    if (select.options.length !== count)
      select.replaceChildren(...Array.from({ length: count }, (_, k) => new Option(String(k), String(k))));
    select.value = String(value);
  };
  fill($('layer'), info?.num_hidden_layers ?? 1, s.layer ?? 0);
  fill($('head'), info?.num_attention_heads ?? 1, s.head ?? 0);
  for (const button of document.querySelectorAll('[data-stage]')) {
    const on = button.dataset.stage === s.stage;
    button.setAttribute('aria-checked', String(on));
    button.tabIndex = on ? 0 : -1;
  }
  $('causal').checked = s.causal;
  $('scale').checked = s.scale;
}

function renderMatrix() {
  const s = store.get();
  const info = s.model.info;
  const result = shown(s);
  const causal = causalShown(s);
  const computeMessage = s.computeError ? t('error.compute', { message: s.computeError }) : s.stale && !s.generation ? t('run.stale') : '';
  $('compute-message').hidden = !computeMessage;
  $('compute-message').textContent = computeMessage;
  renderAblation(s);
  if (!info || !result || s.layer === null || s.head === null) {
    $('view-title').textContent = '';
    $('stage-caption').textContent = '';
    $('head-note').textContent = '';
    // The matrix drawn before stays only while the next one is on its way, marked as the previous model's.
    const waiting = loadingAnother(s) || (s.model.status === 'ready' && !s.computeError && hasInput(s));
    showMatrixState(drawnSpec && waiting ? 'previous' : 'empty', s);
    return;
  }
  const { tokens, entries, T } = result;
  const H = info.num_attention_heads;
  const Hkv = info.num_key_value_heads;
  const Dh = info.head_dim;
  const entry = entries.get(s.layer, s.stage);
  const values = headMatrix(entry, s.head, T);
  // NaN: scores cached decoding never computed (older rows, newer keys).
  const causalMask = isMasked(s.stage, causal);
  const masked = (i, j) => causalMask(i, j) || Number.isNaN(values[i * T + j]);
  const scale = scaleFor(s.stage, values);
  const kv = Math.floor(s.head / (H / Hkv));
  $('view-title').textContent = t('view.title', {
    layer: s.layer,
    head: s.head,
    kvNote: t('view.kvHead', { kv }),
    stage: t(`stage.${s.stage}`),
  });
  $('stage-caption').textContent = t(`stage.caption.${s.stage}`, { H, T, Dh, Hkv, sqrtD: Math.sqrt(Dh).toFixed(3) });
  $('matrix-shape').textContent = t('matrix.shape', { stage: t(`stage.${s.stage}`), H, T, head: s.head });
  // Shown (and marked) before it is drawn: the heatmap sizes itself from its box.
  drawnSpec = { files: s.files, preset: s.preset, config: s.config, seed: s.seed };
  showMatrixState(loadingAnother(s) ? 'previous' : 'current', s);
  heatmap.render({ tokens, values, masked, scale, decimals: s.stage === 'attn_weights' ? 2 : 1, selectedRow: s.row });
  renderLegend($('legend'), {
    scale,
    stage: s.stage,
    maskedLabel: t('matrix.masked'),
    showMasked: causal && s.stage !== 'scores_raw' && s.stage !== 'scores_scaled',
  });
  renderMatrixTable($('matrix-table'), {
    caption: t('matrix.tableCaption', { layer: s.layer, head: s.head, stage: t(`stage.${s.stage}`) }),
    tokens,
    values,
    masked,
    maskedText: (i, j) =>
      Number.isNaN(values[i * T + j])
        ? t('matrix.notComputed')
        : s.stage === 'attn_weights'
          ? `0.000 (${t('matrix.masked')})`
          : `−∞ (${t('matrix.masked')})`,
    queryLabel: `${t('matrix.query')} \\ ${t('matrix.key')}`,
  });
  const weights = headMatrix(entries.get(s.layer, 'attn_weights'), s.head, T);
  renderRowExplanation($('row-explanation'), { tokens, weights, row: s.row, t });
  renderToggleNote(weights, T, Dh);
  markTimings(result);
  const heads = measuredHeads(s);
  $('head-note').textContent = heads
    ? headNote(t, heads, { layer: s.layer, head: s.head })
    : s.files || s.inputMode !== 'text'
      ? ''
      : t('model.untrainedNote');
  renderOverview($('overview'), {
    entries,
    layers: info.num_hidden_layers,
    heads: H,
    kvHeads: Hkv,
    T,
    stage: s.stage,
    masked: causalMask,
    current: { layer: s.layer, head: s.head },
    t,
    tags: heads ? (layer, head) => ({ ...headTag(t, heads, layer, head), title: headNote(t, heads, { layer, head }) }) : null,
    ablated: new Set(s.ablate.map(([layer, head]) => `${layer}:${head}`)),
    onOpen: (layer, head) => store.set({ layer, head }),
    onToggle: toggleHead,
  });
}

// The model whose matrix is on screen ({files, preset, config, seed}), null when none is.
let drawnSpec = null;

// Another model is on its way: building, downloading, or files loading into the worker
// (not the same model loaded again after a cancelled forward pass, whose matrices still fit).
function loadingAnother(s) {
  return (s.model.status === 'building' && !restoring?.keep) || s.filesStatus?.phase === 'parsing';
}

// The input has tokens to compute (a model is loaded).
function hasInput(s) {
  const current = currentTokens();
  return current.viaWorker ? s.text.trim() !== '' : current.ids.length > 0;
}

// A model as exports and the matrix's state line name it: trained, random weights (and seed), or its file.
function modelTitle(m) {
  if (m.files) return m.files.name;
  if (m.preset === DEMO && !m.config) return t('model.trainedName');
  const name = m.config ? `${m.preset} + ${t('model.custom')}` : m.preset;
  return `${t('model.untrainedName', { name })}${t('export.seed', { seed: m.seed })}`;
}

function showMatrixState(state, s) {
  let text = '';
  if (state === 'previous') {
    const loading = s.model.status === 'building' || s.filesStatus?.phase === 'parsing';
    const files = s.filesStatus?.phase === 'parsing' || (loading && loadingFiles && s.filesStatus?.name);
    text = t(loading ? 'matrix.previousLoading' : 'matrix.previousComputing', {
      previous: modelTitle(drawnSpec),
      name: files ? s.filesStatus.name : modelTitle(s),
    });
  } else if (state === 'empty') {
    drawnSpec = null;
    // Nothing stale under the "empty" message: the matrix, its legend, table and explanation go.
    for (const id of ['matrix-table', 'legend']) $(id).replaceChildren();
    for (const id of ['row-explanation', 'cell-info', 'toggle-note', 'matrix-shape']) $(id).textContent = '';
    if (s.model.info && !currentTokens().error && !hasInput(s)) text = t('matrix.empty');
  }
  renderMatrixState(document.querySelector('section.view'), $('matrix-state'), { state, text });
}

// heads.json of the model in use, when it is the trained model.
function measuredHeads(s = store.get()) {
  return s.demo && !s.files && s.preset === DEMO ? s.demo.heads : null;
}

// Which heads are off, and what that means ("all heads on" puts them back);
// with none off, what switching the trained model's pronoun head off did to
// its predictions when it was measured (heads.json).
function renderAblation(s) {
  const names = s.ablate.map(([layer, head]) => t('overview.headName', { layer, head })).join(t('overview.separator'));
  const heads = measuredHeads(s);
  const accuracy = heads?.referentAccuracy;
  const percent = (x) => `${(100 * x).toFixed(1)}%`;
  $('ablate-note').textContent = s.ablate.length
    ? t('overview.ablated', { heads: names })
    : accuracy && heads.pronounHead
      ? t('demo.ablation', { ...heads.pronounHead, on: percent(accuracy.on), off: percent(accuracy.off) })
      : '';
  $('ablate-reset').hidden = s.ablate.length === 0;
  $('ablate-box').hidden = !$('ablate-note').textContent;
}

function renderToggleNote(weights, T, Dh) {
  const s = store.get();
  const notes = [];
  if (!s.causal) {
    let future = 0;
    for (let i = 0; i < T; i += 1) for (let j = i + 1; j < T; j += 1) future += weights[i * T + j];
    notes.push(t('toggles.causalOff', { percent: ((100 * future) / T).toFixed(1) }));
  }
  if (!s.scale) {
    let peak = 0;
    for (let i = 0; i < T; i += 1) peak += Math.max(...weights.subarray(i * T, (i + 1) * T)) / T;
    notes.push(t('toggles.scaleOff', { factor: Math.sqrt(Dh).toFixed(1), peak: peak.toFixed(2) }));
  }
  $('toggle-note').textContent = notes.join(' ');
}

let timedResult = null; // the newest result drawn
function markTimings(result) {
  if (!firstMatrixDrawn) {
    firstMatrixDrawn = true;
    performance.mark('minimind:first-matrix');
  }
  if (result !== timedResult) {
    timedResult = result;
    if (result.sentAt !== undefined) redrawTimer.drawn(result.sentAt); // keystroke-to-redraw ends after this frame
  }
  document.body.dataset.ready = 'true';
}

// ---------------------------------------------------------------- state -> views

// While typing, the URL is rewritten once the typing pauses: history.replaceState
// is a round trip to the browser (and Chrome throttles pages that call it on
// every keystroke); any other change writes it at once.
const URL_TYPING_DELAY_MS = 300;
let urlTimer = null;
function writeUrl(typing = false) {
  clearTimeout(urlTimer);
  urlTimer = typing ? setTimeout(writeUrl, URL_TYPING_DELAY_MS) : null;
  if (!typing) history.replaceState(null, '', `${location.pathname}${writeUrlState(store.get())}${location.hash}`);
}

const SHAREABLE = [
  'text',
  'inputMode',
  'preset',
  'seed',
  'config',
  'layer',
  'head',
  'stage',
  'causal',
  'scale',
  'row',
  'ablate',
  'lang',
  'lesson',
  'lab',
  'embed',
];

store.subscribe((state, changed) => {
  if (changed.has('lang')) renderStatic();
  if (SHAREABLE.some((k) => changed.has(k))) writeUrl(SHAREABLE.every((k) => !changed.has(k) || k === 'text' || k === 'row'));
  if (['text', 'model', 'lang', 'inputMode', 'result', 'files', 'preset'].some((k) => changed.has(k))) renderInput();
  if (['filesStatus', 'files', 'model', 'lang'].some((k) => changed.has(k))) renderFiles();
  if (['generation', 'playing', 'model', 'files', 'lang', 'ablate'].some((k) => changed.has(k))) renderGeneration();
  if (['model', 'preset', 'seed', 'config', 'lang', 'files'].some((k) => changed.has(k))) renderModelPanel();
  if (changed.has('model') && state.model.info && !state.described) fillConfigForm(state.model.info);
  if (['model', 'described', 'result', 'lang', 'text'].some((k) => changed.has(k))) renderDerived();
  if (['model', 'layer', 'head', 'stage', 'causal', 'scale'].some((k) => changed.has(k))) renderSelectors();
  if (
    [
      'result',
      'generation',
      'layer',
      'head',
      'stage',
      'row',
      'lang',
      'computeError',
      'model',
      'stale',
      'ablate',
      'demo',
      'filesStatus',
    ].some((k) => changed.has(k))
  )
    renderMatrix();
  if (['model', 'filesStatus', 'busy', 'notice', 'generation', 'files', 'lang'].some((k) => changed.has(k))) renderRunStatus();
});

// ---------------------------------------------------------------- events

$('text').addEventListener('input', (event) => {
  redrawTimer.keystroke(event);
  store.set({ text: event.target.value, row: null });
  if (store.get().generation) resetGeneration();
  computeSoon();
});
$('lang').addEventListener('change', (event) => store.set({ lang: event.target.value }));
$('preset').addEventListener('change', (event) => {
  if (event.target.value === 'custom') {
    $('config').open = true;
    return;
  }
  chooseModel({ preset: event.target.value, config: null });
});
$('seed').addEventListener('change', (event) => {
  const seed = Number(event.target.value);
  if (!Number.isSafeInteger(seed) || seed < 0) {
    event.target.value = String(store.get().seed);
    return;
  }
  store.set({ seed });
  loadModel();
});
$('config-form').addEventListener('input', () => store.get().preset !== DEMO && client.describe(store.get().preset, configDraft()));
$('config-form').addEventListener('submit', (event) => {
  event.preventDefault();
  if (store.get().described?.problems?.length) return;
  store.set({ config: configDraft(), row: null });
  loadModel();
});
$('config-reset').addEventListener('click', () => {
  store.set({ config: null, described: null });
  loadModel();
});
$('layer').addEventListener('change', (event) => store.set({ layer: Number(event.target.value) }));
$('head').addEventListener('change', (event) => store.set({ head: Number(event.target.value) }));
for (const button of document.querySelectorAll('[data-stage]')) {
  button.addEventListener('click', () => store.set({ stage: button.dataset.stage }));
  button.addEventListener('keydown', (event) => {
    const step = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 }[event.key];
    if (!step) return;
    const next = STAGES[(STAGES.indexOf(store.get().stage) + step + STAGES.length) % STAGES.length];
    store.set({ stage: next });
    document.querySelector(`[data-stage="${next}"]`).focus();
    event.preventDefault();
  });
}
$('input-mode').addEventListener('change', (event) => {
  resetGeneration();
  store.set({ inputMode: event.target.value, row: null });
  compute();
});
$('file-input').addEventListener('change', (event) => loadFiles(event.target.files));
$('folder-input').addEventListener('change', (event) => loadFiles(event.target.files));
$('drop-zone').addEventListener('dragover', (event) => {
  event.preventDefault();
  $('drop-zone').classList.add('dragging');
});
$('drop-zone').addEventListener('dragleave', () => $('drop-zone').classList.remove('dragging'));
$('drop-zone').addEventListener('drop', async (event) => {
  event.preventDefault();
  $('drop-zone').classList.remove('dragging');
  loadFiles(await droppedFiles(event.dataTransfer));
});
$('pth-reload').addEventListener('click', () => {
  if (loadingFiles) loadFiles([loadingFiles.weights, loadingFiles.config, loadingFiles.tokenizer].filter(Boolean), true);
});
$('gen-step').addEventListener('click', () => requestSteps(1));
$('gen-play').addEventListener('click', () => {
  if (store.get().playing) {
    stepsWanted = 0;
    store.set({ playing: false });
    return;
  }
  store.set({ playing: true });
  requestSteps(Infinity);
});
$('gen-reset').addEventListener('click', () => resetGeneration());
$('ablate-reset').addEventListener('click', () => {
  store.set({ ablate: [] });
  compute();
});
$('causal').addEventListener('change', (event) => {
  store.set({ causal: event.target.checked });
  compute();
});
$('scale').addEventListener('change', (event) => {
  store.set({ scale: event.target.checked });
  compute();
});

// The view the exports hold: the matrix on screen (the generated one while generation is shown) and what it is.
function exportView() {
  const s = store.get();
  const view = shown(s);
  const info = s.model.info;
  if (!view || !info || document.querySelector('section.view').dataset.matrix !== 'current') return null;
  const { tokens, ids, entries, T } = view;
  const values = headMatrix(entries.get(s.layer, s.stage), s.head, T);
  const causal = causalShown(s);
  const causalMask = isMasked(s.stage, causal);
  const g = s.generation;
  const spec = s.files
    ? { files: s.files.name, tokenizer: Boolean(s.files.tokenizer) }
    : s.preset === DEMO && !s.config
      ? { preset: DEMO, trained: true }
      : { preset: s.preset, seed: s.seed, ...(s.config ? { config: s.config } : {}), trained: false };
  return {
    model: {
      name: modelTitle(s),
      ...spec,
      ...(s.ablate.length && !g ? { ablate: s.ablate } : {}), // heads switched off (generation runs with every head on)
    },
    tokens,
    ids,
    values,
    masked: (i, j) => causalMask(i, j) || Number.isNaN(values[i * T + j]),
    hasNotComputed: values.some(Number.isNaN),
    T,
    H: info.num_attention_heads,
    layer: s.layer,
    head: s.head,
    stage: s.stage,
    stageName: t(`stage.${s.stage}`),
    causal,
    scale: g ? true : s.scale, // generation computes MiniMind's attention as it is
    generation: g ? { prompt: g.T - g.step, generated: g.step } : null,
  };
}
function exportBase(view) {
  const s = store.get();
  const name = s.config ? 'minimind-custom' : s.preset === DEMO ? DEMO : `minimind-${s.preset}`;
  return `${name}-L${view.layer}-H${view.head}-${view.stage}${view.generation ? '-generated' : ''}`;
}
const exporters = {
  'export-png': async (view) => ['png', await figurePng(view, figureText(view, t))],
  'export-svg': (view) => [
    'svg',
    new Blob([figureSvg(view, figureText(view, t), exportMeta(view), canvasMeasure())], { type: 'image/svg+xml' }),
  ],
  'export-csv': (view) => ['csv', new Blob([matrixCsv(view)], { type: 'text/csv' })],
  'export-json': (view) => ['json', new Blob([matrixJson(view)], { type: 'application/json' })],
};
for (const [id, exporter] of Object.entries(exporters)) {
  $(id).addEventListener('click', async () => {
    const view = exportView();
    if (!view) return;
    const [extension, blob] = await exporter(view);
    download(`${exportBase(view)}.${extension}`, blob);
  });
}
window.addEventListener('resize', () => renderMatrix());

// ---------------------------------------------------------------- start

if (!MODELS.includes(store.get().preset)) store.set({ preset: DEFAULTS.preset });
renderStatic();
renderInput();
renderModelPanel();
renderSelectors();
if (store.get().config) client.describe(store.get().preset, store.get().config);
setupLessonMode({ store, t, $, workerUrl: new URL('./worker.js', import.meta.url), hooks: { loadModel, compute, resetGeneration } });
setupEmbed({ store, t, $ });
setupPrediction({ store, t, $, client, tokens: () => requestTokens(currentTokens()) });
setupTrainPanel({
  root: $('train'),
  openButton: $('open-train'),
  store,
  t,
  client,
  loadFiles,
  workerUrl: new URL('./train_worker.js', import.meta.url),
});
loadModel();
