// The playground page: one store, views redrawn from it, compute in a worker.
// This file builds the store and the worker's client and wires the panels
// (web/panels/): each panel draws itself from the store and sends its own
// requests; the worker's answers go to the panel that asked.
import { applyTranslations, browserLanguage, translate } from './i18n.mjs';
import { InlineModel } from './inline_model.mjs';
import { ModelClient } from './model_client.mjs';
import { RedrawTimer } from './frame_timing.mjs';
import { setupEmbed } from './embed_dialog.mjs';
import { setupPrediction } from './prediction.mjs';
import { createStore } from './store.mjs';
import { keepRuntimeParams, workerUrl } from './wasm_runtime.mjs';
import { readUrlState, urlText, writeUrlState } from './url_state.mjs';
import { addMatrixStateElements } from './views/matrix_state.mjs';
import { setupTrainPanel } from './train/train_controller.mjs';
import { setupExportButtons } from './panels/export_buttons.mjs';
import { setupFilesPanel } from './panels/files_panel.mjs';
import { setupGenerationPanel } from './panels/generation_panel.mjs';
import { setupInputPanel } from './panels/input_panel.mjs';
import { setupLessonPanel } from './panels/lesson_panel.mjs';
import { setupMatrixPanel } from './panels/matrix_panel.mjs';
import { setupModelCardPanel } from './panels/model_card_panel.mjs';
import { setupModelLoading } from './panels/model_loading.mjs';
import { setupModelPanel } from './panels/model_panel.mjs';
import { setupRunBar } from './panels/run_bar.mjs';
import { setupQKPanel } from './panels/qk_panel.mjs';
import { setupCircuitPanel } from './panels/circuit_panel.mjs';
import { setupWhyPanel } from './panels/why_panel.mjs';
import { setupExercises } from './exercises/exercise_panel.mjs';
import { setupExerciseLink } from './exercises/exercise_link.mjs';
import { setupTour } from './tour/tour_panel.mjs';
import { PLAYGROUND } from './playground_keeper.mjs';

const $ = (id) => document.getElementById(id);
addMatrixStateElements(); // the state line and shape label beside the matrix, the chips' note, the SVG button
const initial = readUrlState(location.search);
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
  generation: null, // {ids, tokens, entries, T, promptT, cache, candidates, text, end, finished, step, chosen}
  playing: false,
  busy: null, // {kind: 'forward' | 'generation', since}: a request the worker has not answered
  stale: false, // the matrix is for older text: its forward pass was cancelled
  notice: null, // what a cancel went back to
  runtime: null, // {threads, isolated}: what the compute worker's module runs on
});
const t = (key, params) => translate(store.get().lang, key, params);

// ---------------------------------------------------------------- worker

// The panels below are set up before the worker can answer (its messages arrive later).
const client = new ModelClient(workerUrl('./worker.js', import.meta.url, location.search), {
  onProgress: (message) => loading.progress(message),
  onLoaded: (message) => loading.loaded(message),
  onResult: (message) => input.showResult(message),
  onPrediction: (prediction) => store.set({ prediction }),
  onDescribed: (message) => model.described(message),
  onGenerationStart: (message) => generation.started(message),
  onGenerationStep: (message) => generation.stepped(message),
  onWhy: (message) => why.receive(message),
  onQK: (message) => qk.receive(message),
  onCircuit: (message) => circuit.receive(message),
  onExercise: (message) => exercises.receive(message),
  // Every request is answered: tests read this settle back to 0.
  onPending: (count) => (document.body.dataset.pendingRequests = String(count)),
  onError: (error) => {
    const { request, message } = error; // error: also the core's kind and values (errorFields)
    if (request === 'load' || request === 'worker') loading.failed(request, message, error);
    else if (request === 'describe') model.describeFailed(message);
    else if (request === 'gen-start' || request === 'gen-step') generation.failed(message, error, request);
    else input.failed(request, message, error);
  },
});

// ---------------------------------------------------------------- the page: language and URL

function renderStatic() {
  const { lang } = store.get();
  document.documentElement.lang = lang;
  applyTranslations(document, lang);
  $('lang').value = lang;
  document.title = `${t('app.title')} · MiniMind`;
}

// While typing, the URL is rewritten once the typing pauses: history.replaceState
// is a round trip to the browser (and Chrome throttles pages that call it on
// every keystroke); any other change writes it at once.
const URL_TYPING_DELAY_MS = 300;
let urlTimer = null;
function writeUrl(typing = false) {
  clearTimeout(urlTimer);
  urlTimer = typing ? setTimeout(writeUrl, URL_TYPING_DELAY_MS) : null;
  if (!typing) {
    history.replaceState(null, '', `${location.pathname}${keepRuntimeParams(writeUrlState(store.get()), location.search)}${location.hash}`);
    renderUrlNote();
  }
}

// A long text is cut in the link (url_state.mjs): say so, with how much it keeps.
function renderUrlNote() {
  const { text } = store.get();
  const kept = urlText(text);
  $('url-note').hidden = kept === text;
  $('url-note').textContent = kept === text ? '' : t('url.textCut', { kept: [...kept].length, total: [...text].length });
}

// What a link carries: the playground's own state (files cannot travel in a URL), the cell, the language, the open lesson or lab, embedding.
const SHAREABLE = [...PLAYGROUND.filter((key) => key !== 'files'), 'cell', 'lang', 'lesson', 'lab', 'embed'];

// Subscribed before the panels: a new language is applied to the page before they redraw in it.
store.subscribe((state, changed) => {
  if (changed.has('lang')) renderStatic();
  if (SHAREABLE.some((k) => changed.has(k))) writeUrl(SHAREABLE.every((k) => !changed.has(k) || k === 'text' || k === 'row'));
});
$('lang').addEventListener('change', (event) => store.set({ lang: event.target.value }));
renderStatic();

// ---------------------------------------------------------------- panels

const redrawTimer = new RedrawTimer();
const inlineModel = new InlineModel();
const input = setupInputPanel({
  store,
  t,
  $,
  client,
  inlineModel,
  redrawTimer,
  hooks: { resetGeneration: () => generation.reset(), lessonMode: (mode) => lesson.chooseInputMode(mode) },
});
// A URL without a row opens on the model's own (the pronoun's, on the trained
// model's lesson sentence) once the model is loaded; so does a new model.
const loading = setupModelLoading({ store, t, client, inlineModel, input, defaultRowWanted: initial.row === undefined });
const files = setupFilesPanel({ store, t, $, client, loading });
const generation = setupGenerationPanel({ store, t, $, client, input });
const model = setupModelPanel({ store, t, $, client, loading, input });
setupMatrixPanel({ store, t, $, loading, input, generation, redrawTimer });
setupRunBar({ store, t, $, client, loading, files, input, generation });
setupExportButtons({ store, t, $ });
setupModelCardPanel({ store, t, $ });
// What lesson mode and the tour call when they borrow the page (web/playground_keeper.mjs).
const borrowHooks = {
  loadModel: loading.load,
  compute: input.compute,
  resetGeneration: generation.reset,
  modelInUse: loading.modelInUse,
  reopenFiles: loading.reopenFiles,
};
const lesson = setupLessonPanel({
  store,
  t,
  $,
  workerUrl: workerUrl('./worker.js', import.meta.url, location.search), // the page's build, for the same numbers
  hooks: borrowHooks,
});
setupEmbed({ store, t, $, tourLinks: () => tour.links() }); // the tour is set up below, before the dialog can open
setupPrediction({ store, t, $, client, tokens: () => input.requestTokens(input.currentTokens()) });
const why = setupWhyPanel({ store, t, $, client, input });
const qk = setupQKPanel({ store, t, $, client, input });
const circuit = setupCircuitPanel({ store, t, $, client });
// The tour's exercises, checked by the worker against the model in use; #exercise/NAME opens one outside the tour.
const exercises = setupExercises({ store, t, client, input });
setupExerciseLink({ exercises, $ });
setupTrainPanel({
  root: $('train'),
  openButton: $('open-train'),
  store,
  t,
  client,
  loadFiles: files.loadFiles,
  workerUrl: workerUrl('./train_worker.js', import.meta.url, location.search),
  // A model trained in the panel, put to use: back to the playground, where its matrix is drawn.
  showPlayground: () => $('heatmap').scrollIntoView({ block: 'center', behavior: 'instant' }),
});
// The guided tour borrows the page as lesson mode does; a tour link (#tour/…) opens on its step and loads its model.
const tour = setupTour({
  store,
  t,
  $,
  showExercise: exercises.show,
  hideExercise: exercises.hide,
  hooks: borrowHooks,
});
if (!tour.started) loading.load();
