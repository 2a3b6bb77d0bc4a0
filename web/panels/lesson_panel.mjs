// Lesson mode and lesson 11's labs, wired to the page's store:
//  - "manual" input: the learner types Q, K, V (or scores); the core computes
//    lesson 2.5's steps in a worker and the matrices are drawn from the
//    answer; one click loads each of the lesson's worked examples;
//  - labs A and B: the core's lab record next to the lesson's expected values,
//    and the page's matrix switched to the lab's preset and batch 0.
// Both borrow the page: entering one keeps the playground's own state (text,
// model, input mode, switches, view) and leaving it (its button again, the
// lab's Close, another input mode) puts that state back, so a lesson's
// switches never stay on the model. A model loaded from files comes back
// from its files (read again from their File: no copy of the weights is kept).
// app.mjs calls setupLessonPanel once; everything here redraws from the store.
import { LAB_IDS } from '../lab_record.mjs';
import { LessonClient } from '../lesson_client.mjs';
import { exampleById, exampleLesson } from '../lesson_examples.mjs';
import { validateLesson } from '../lesson_input.mjs';
import { DEFAULTS, viewDefaults } from '../url_state.mjs';
import { PLAYGROUND, createPlaygroundKeeper } from '../playground_keeper.mjs';
import { renderLabView } from '../views/lab_record.mjs';
import { renderLessonView } from '../views/lesson_matrices.mjs';

/**
 * hooks: {loadModel(), compute(), resetGeneration(), modelInUse(), reopenFiles(kept)} of the
 * page's model view (modelInUse, reopenFiles: model_loading.mjs).
 * Store keys used: inputMode, lesson, causal, scale, row, lab, seed, preset,
 * config, files, lang, embed, and the PLAYGROUND keys; added: lessonResult,
 * lessonError, labRecord, labError. Returns {chooseInputMode(mode)} for the
 * input-mode select ('manual' is lesson mode).
 */
export function setupLessonPanel({ store, t, $, workerUrl, hooks }) {
  let cell = null; // the raw score whose dot product is spelled out: [i, j]
  let validation = null;
  const playground = createPlaygroundKeeper({ store, hooks }); // the state to go back to, while a lesson or a lab is open
  const client = new LessonClient(workerUrl, {
    onLesson: (result) => {
      store.set({ lessonResult: result, lessonError: null });
      $('lesson-view').dataset.pending = 'false';
    },
    onLabRecord: (record) => store.set({ labRecord: record, labError: null }),
    onError: ({ request, message }) => {
      if (request === 'lab') store.set({ labError: message });
      else {
        store.set({ lessonResult: null, lessonError: message });
        $('lesson-view').dataset.pending = 'false';
      }
    },
  });

  const isManual = (s = store.get()) => s.inputMode === 'manual';
  const inMode = (s = store.get()) => isManual(s) || s.lab !== null;

  // Kept once, on the way in from the playground (not from one lesson or lab to another).
  function keepPlayground() {
    if (!inMode()) playground.keep();
  }

  // A page opened on a lesson or a lab has no playground state of its own:
  // the playground's defaults (a lesson keeps the text and model in use, and
  // the model's own row).
  function playgroundDefaults(s) {
    const switches = { inputMode: DEFAULTS.inputMode, causal: DEFAULTS.causal, scale: DEFAULTS.scale };
    if (s.lab === null) {
      const kept = Object.fromEntries(PLAYGROUND.map((key) => [key, s[key]]));
      return { ...kept, ...switches, row: viewDefaults({ ...kept, ...switches, demo: s.demo })?.row ?? null };
    }
    const { text, preset, seed, config, stage, ablate } = DEFAULTS;
    return { ...switches, text, preset, seed, config, files: null, layer: null, head: null, stage, ablate, row: null };
  }

  // Back to the playground as it was; `patch` (another input mode) on top.
  // The lab's matrices do not fit the playground's layer and head: they go before those come back.
  function leave(patch = {}) {
    cell = null;
    playground.restore({ patch, fallback: playgroundDefaults(store.get()), extra: { lab: null } });
  }

  function enterLesson() {
    const { lesson } = store.get();
    if (lesson.example) return applyExample(lesson.example);
    keepPlayground();
    hooks.resetGeneration();
    store.set({ inputMode: 'manual', lab: null, row: null });
  }

  function chooseInputMode(mode) {
    if (mode === 'manual') return isManual() ? undefined : enterLesson();
    if (isManual()) return leave({ inputMode: mode });
  }

  function computeLesson() {
    const s = store.get();
    if (!isManual(s)) return;
    validation = validateLesson(s.lesson, { causal: s.causal });
    // Pending until the worker answers this request: the view shows an older answer meanwhile.
    $('lesson-view').dataset.pending = String(validation.request !== null);
    if (!validation.request) {
      store.set({ lessonResult: null, lessonError: null });
      renderLesson();
      return;
    }
    client.lesson(validation.request, { causal: s.causal, scale: s.scale });
  }

  function applyExample(id) {
    const example = exampleById(id);
    if (!example) return;
    keepPlayground();
    const s = store.get();
    hooks.resetGeneration();
    cell = example.cell ?? null;
    store.set({
      inputMode: 'manual',
      lab: null,
      lesson: exampleLesson(example),
      causal: example.causal,
      scale: example.scale,
      row: example.row ?? null,
    });
    if (s.causal !== example.causal || s.scale !== example.scale) hooks.compute(); // the model view follows the switches
  }

  function editLesson(patch) {
    cell = null;
    store.set({ lesson: { ...store.get().lesson, ...patch, example: null }, row: null });
  }

  function openLab(lab) {
    keepPlayground();
    const s = store.get();
    const needsModel = s.preset !== lab || s.config !== null || s.files !== null || !s.model.info;
    hooks.resetGeneration();
    store.set({
      lab,
      labRecord: s.labRecord?.preset === lab && s.labRecord.seed === s.seed ? s.labRecord : null,
      preset: lab,
      config: null,
      files: null, // the lab's preset replaces a model from files (leaving the lab loads them again)
      described: null,
      inputMode: 'ids',
      text: LAB_IDS,
      layer: 0,
      head: 0,
      stage: 'attn_weights',
      causal: true,
      scale: true,
      row: null,
    });
    if (needsModel) hooks.loadModel();
    else hooks.compute();
  }

  // ------------------------------------------------------------ views

  function renderEditor() {
    const s = store.get();
    const { lesson } = s;
    const fields = {
      'lesson-q': lesson.q,
      'lesson-k': lesson.k,
      'lesson-v': lesson.v,
      'lesson-scores': lesson.scores,
      'lesson-labels': lesson.labels,
    };
    for (const [id, value] of Object.entries(fields)) if ($(id).value !== value) $(id).value = value;
    for (const radio of document.querySelectorAll('input[name="lesson-kind"]')) radio.checked = radio.value === lesson.kind;
    $('lesson-qkv').hidden = lesson.kind !== 'qkv';
    $('lesson-scores-field').hidden = lesson.kind !== 'scores';
    $('lesson-decimals').value = String(lesson.decimals);
    for (const button of document.querySelectorAll('[data-example]')) {
      button.setAttribute('aria-pressed', String(button.dataset.example === lesson.example));
    }
    // Typed scores are not divided by √d: the switch does not apply to them.
    $('scale').disabled = isManual(s) && lesson.kind === 'scores';
  }

  function renderLesson() {
    const s = store.get();
    const view = $('lesson-view');
    view.hidden = !isManual(s);
    if (!isManual(s) || !validation) return;
    const example = s.lesson.example ? exampleById(s.lesson.example) : null;
    renderLessonView(view, {
      t,
      lesson: s.lesson,
      validation,
      result: s.lessonResult,
      error: s.lessonError,
      causal: s.causal,
      scale: s.scale,
      row: s.row,
      cell: cell ?? (validation.shape ? [validation.shape.Tq - 1, 0] : null),
      example,
      embed: s.embed,
      onRow: (i) => store.set({ row: store.get().row === i ? null : i }),
      onCell: (i, j) => {
        cell = [i, j];
        renderLesson();
      },
      onLessonSwitches: () => {
        store.set({ causal: example.causal, scale: example.scale });
        hooks.compute();
      },
    });
  }

  function renderLab() {
    const s = store.get();
    const view = $('lab-view');
    const shown = s.lab !== null && !isManual(s);
    view.hidden = !shown;
    if (!shown) return;
    renderLabView(view, {
      t,
      lab: s.lab,
      record: s.labRecord,
      error: s.labError,
      embed: s.embed,
      onClose: () => leave(),
    });
  }

  function renderMode() {
    document.body.dataset.mode = isManual() ? 'lesson' : 'model';
    for (const button of document.querySelectorAll('[data-lab]')) {
      button.setAttribute('aria-pressed', String(button.dataset.lab === store.get().lab && !isManual()));
    }
    $('open-lesson').setAttribute('aria-pressed', String(isManual()));
  }

  // ------------------------------------------------------------ store -> views

  store.subscribe((s, changed) => {
    if (changed.has('inputMode')) renderMode();
    if (['lesson', 'inputMode', 'scale'].some((k) => changed.has(k))) renderEditor();
    if (['lesson', 'inputMode', 'causal', 'scale'].some((k) => changed.has(k))) computeLesson();
    if (['lessonResult', 'lessonError', 'row', 'lang', 'inputMode'].some((k) => changed.has(k))) renderLesson();
    if (changed.has('lab') || changed.has('seed')) {
      if (s.lab && (s.labRecord?.preset !== s.lab || s.labRecord?.seed !== s.seed)) client.labRecord(s.lab, s.seed);
    }
    if (['lab', 'labRecord', 'labError', 'lang', 'inputMode'].some((k) => changed.has(k))) renderLab();
    if (changed.has('lab')) renderMode();
    // Out of every lesson and lab some other way (another model closed the lab): nothing to go back to.
    if ((changed.has('lab') || changed.has('inputMode')) && !inMode(s)) playground.forget();
    // The lab's record belongs to the lab's preset: another model closes it.
    const leftLab = s.lab && (s.preset !== s.lab || s.config !== null || s.files !== null || isManual(s));
    if (leftLab && ['preset', 'config', 'files', 'inputMode'].some((k) => changed.has(k))) queueMicrotask(() => store.set({ lab: null }));
  });

  // ------------------------------------------------------------ events

  for (const button of document.querySelectorAll('[data-example]')) {
    button.addEventListener('click', () => applyExample(button.dataset.example));
  }
  // The lesson buttons toggle: the one already open leaves it.
  for (const button of document.querySelectorAll('[data-lab]')) {
    button.addEventListener('click', () => {
      const s = store.get();
      if (s.lab === button.dataset.lab && !isManual(s)) leave();
      else openLab(button.dataset.lab);
    });
  }
  $('open-lesson').addEventListener('click', () => (isManual() ? leave() : enterLesson()));
  const texts = { 'lesson-q': 'q', 'lesson-k': 'k', 'lesson-v': 'v', 'lesson-scores': 'scores', 'lesson-labels': 'labels' };
  for (const [id, key] of Object.entries(texts)) $(id).addEventListener('input', (event) => editLesson({ [key]: event.target.value }));
  for (const radio of document.querySelectorAll('input[name="lesson-kind"]')) {
    radio.addEventListener('change', () => editLesson({ kind: radio.value }));
  }
  $('lesson-decimals').addEventListener('change', (event) =>
    store.set({ lesson: { ...store.get().lesson, decimals: Number(event.target.value) } }),
  );

  // ------------------------------------------------------------ start

  const start = store.get();
  cell = start.lesson.example ? (exampleById(start.lesson.example)?.cell ?? null) : null;
  // A link whose lab does not match its model shows the model alone.
  if (start.lab && (start.preset !== start.lab || start.config !== null || isManual(start))) store.set({ lab: null });
  if (store.get().lab) client.labRecord(store.get().lab, store.get().seed);
  renderMode();
  renderEditor();
  computeLesson();
  renderLab();
  return { chooseInputMode };
}
