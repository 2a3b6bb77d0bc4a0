// The Train panel: train a small MiniMind in the page and watch it learn.
// The run lives in its own worker (train_worker.mjs, through train_run.mjs
// and train_client.mjs), so the playground's compute worker keeps answering
// and the page keeps drawing. This controller holds the learner's choices,
// starts and steers the run (Start: the settings as they are; "watch an
// induction head form": js/train_recipes.mjs TRAIN_RECIPES.induction put into
// the settings first), and hands what the worker reports to the views
// (panel_layout.mjs lists them; every number on them is the trainer's or the
// model's own). The panel element (#train) carries data-state (idle |
// running | paused | done), data-step (batches done), data-loss (the last
// batch's loss) and data-snapshot-step (the snapshot shown): train_run.mjs
// markRun; exposeRun adds its read-only accessors; each report dispatches
// `minimind-train-steps` ({detail: {steps}}). Opened after a reload, the
// panel opens the run this tab trained where it was saved (Resume first);
// a model put to use goes to the playground, which is then shown.
import { bestHead } from '../../js/head_formation_events.mjs';
import { TRAIN_RECIPES } from '../../js/train_recipes.mjs';
import { LESSON_PROBE } from '../../js/train_session.mjs';
import { errorMessage } from '../error_text.mjs';
import { applyTranslations } from '../i18n.mjs';
import { AttentionView } from './attention_view.mjs';
import { CompareView } from './compare_view.mjs';
import { DataFileInput } from './data_file_input.mjs';
import { FormationView } from './formation_view.mjs';
import { GenerationView } from './generation_view.mjs';
import { LossView } from './loss_view.mjs';
import { layoutPanel } from './panel_layout.mjs';
import { RoleChartsView } from './role_charts_view.mjs';
import { RunBar } from './run_bar.mjs';
import { SettingsProblem, runRequest } from './run_request.mjs';
import { SavedRuns } from './saved_runs.mjs';
import { SettingsView } from './settings_view.mjs';
import { SnapshotSlider } from './snapshot_slider.mjs';
import { StatsView } from './stats_view.mjs';
import { TimelineView } from './timeline_view.mjs';
import { trainedModelActions } from './trained_files.mjs';
import { TrainRun, exposeRun, markRun } from './train_run.mjs';

/** A performance measure per redraw of the panel. */
const TRAIN_DRAW = 'minimind:train-draw';

/**
 * Builds the panel into `root` (the #train element) and wires it.
 * store: the page's store (lang, the playground's model); t(key, params);
 * client: the page's ModelClient (the loaded model's files, for "continue
 * training"); loadFiles(files, keep, roles, trained): the playground's files load;
 * workerUrl: the training worker's script; openButton: the page's Train button;
 * showPlayground(): brings the playground's matrix into view.
 */
export function setupTrainPanel({ root, store, t, client, loadFiles, workerUrl, openButton, showPlayground = () => {} }) {
  const ui = {
    error: null,
    notice: null,
    opened: null, // the id of the saved run the panel opened (Resume comes first), until a run is started or reset
    follow: 'pronoun', // the head shown: the best head of a role in the newest snapshot, or 'pin'
    layer: 0,
    head: 0,
    row: null, // the probe position whose next token is shown (null: its default)
  };
  const run = new TrainRun(workerUrl, {
    change: () => {
      saved.onState();
      render();
    },
    steps: (steps) => {
      saved.onSteps();
      root.dispatchEvent(new CustomEvent('minimind-train-steps', { detail: { steps } }));
    },
    ready: (prepared) => saved.onReady(prepared),
    // Worded when drawn, from the error's kind and values: a language switch rewords it.
    error: (request, message, error) => {
      const key = request === 'prepare' ? 'train.prepareFailed' : 'train.failed';
      ui.error = () => t(key, { message: errorMessage(lang(), error?.kind !== undefined ? error : message) });
      render();
    },
  });
  const { history, snapshots } = run;
  exposeRun(root, run);

  // ------------------------------------------------------------ the views

  // The data file is read and tokenized by the training worker, with progress and a cancel.
  const dataFile = new DataFileInput({
    t,
    lang: () => store.get().lang,
    load: (file, onProgress) => run.loadDataFile(file, onProgress),
    cancel: () => run.cancelDataFile(),
    onChange: () => render(),
  });
  const settings = new SettingsView({ t, onChange: () => render(), onError: (message) => ((ui.error = message), render()), dataFile });
  const bar = new RunBar({
    t,
    actions: {
      start: () => start(),
      induction: () => (settings.apply(TRAIN_RECIPES.induction), start()),
      pause: () => {
        const step = run.step;
        if (ui.opened !== null && run.state === 'paused') ui.notice = () => t('train.saved.resumed', { step: fmt(step) });
        run.togglePause();
      },
      stop: () => run.stop(),
      reset: () => reset(),
      use: () => files.use(),
      download: () => files.download(),
    },
  });
  const files = trainedModelActions({
    lang: () => store.get().lang,
    run,
    latest: () => snapshots.latest(),
    dtype: () => bar.dtype.value,
    loadFiles,
    ui,
    t,
    render,
    showPlayground,
  });
  const formation = new FormationView({ t });
  const stats = new StatsView({ t });
  const loss = new LossView({ t, history });
  const slider = new SnapshotSlider({ t, snapshots, onMove: () => render() });
  const choose = (patch) => (Object.assign(ui, patch), render());
  const pin = (patch) => choose({ ...patch, follow: 'pin' });
  const attention = new AttentionView({
    t,
    probe: LESSON_PROBE,
    slider,
    on: {
      layer: (layer) => pin({ layer }),
      head: (head) => pin({ head }),
      row: (row) => choose({ row }),
      follow: (follow) => choose({ follow }),
      probe: (text) => {
        if (!text || run.state === 'idle' || run.state === 'preparing') return;
        ui.row = null;
        slider.follow = true;
        run.setProbe(text);
      },
    },
  });
  const roles = new RoleChartsView({ t, snapshots, onSelect: (layer, head) => pin({ layer, head }) });
  const generation = new GenerationView({
    t,
    snapshots,
    onApply: (prompts) => run.prepared && run.setPrompts(prompts),
    onPick: (step) => (slider.select(snapshots.steps().indexOf(step)), render()),
  });
  const compare = new CompareView({ t, snapshots, onMove: () => render() });
  // The demo model's own history sits beside its other files, the induction recipe's run's in
  // models/timelines/, fetched relative to the page.
  const timeline = new TimelineView({
    t,
    files: {
      demo: new URL('models/minimind-demo/timeline.json', document.baseURI),
      induction: new URL('models/timelines/induction.json', document.baseURI),
    },
    onChange: () => render(),
  });
  const saved = new SavedRuns({
    run,
    t,
    ui,
    fmt: (x, d) => fmt(x, d),
    render: () => render(),
    start,
    forget: () => forgetDrawn(),
    use: (record) => (record === 'live' ? files.use() : files.useSaved(record)),
  });
  const views = { bar, formation, stats, settings, saved, loss, attention, roles, timeline, generation, compare };
  layoutPanel(root, { ...views, onClose: () => setOpen(false) });
  markRun(root, run, openButton);
  loss.attach();
  roles.attach();
  compare.attach();
  timeline.attach();

  // ------------------------------------------------------------ actions

  function forgetDrawn() {
    for (const view of [loss, roles, attention, formation, timeline, generation, compare]) view.forget();
    slider.follow = true;
    ui.row = null;
  }

  // Starts a new run with the settings as they are (a paused or finished run is left behind);
  // chosen: the model to start from instead of the settings' (a MiniMind checkpoint).
  async function start(chosen = null) {
    saved.cancelOpen();
    ui.error = null;
    ui.notice = null;
    ui.opened = null;
    let request;
    try {
      request = await runRequest({ settings, probe: attention.probeText, prompts: generation.values(), chosen, client, store, t });
    } catch (error) {
      // Worded when drawn: the settings' problems as they are now, in the page's language.
      const problems = () => [...settings.problems(), ...(attention.probeText === '' ? [t('train.noProbe')] : [])].join(' ');
      ui.error =
        error instanceof SettingsProblem
          ? () => problems() || error.message
          : () => t('train.prepareFailed', { message: errorMessage(lang(), error) });
      return render();
    }
    await saved.keepNew(); // the run before is saved first, then this one is kept under a new id
    forgetDrawn();
    settings.open = false;
    run.start(request);
    render();
  }

  function reset() {
    saved.cancelOpen();
    run.reset();
    saved.drop();
    forgetDrawn();
    Object.assign(ui, { error: null, notice: null, opened: null });
    settings.open = true;
    render();
  }

  // The Train button opens the panel on its settings and the Start button; it starts nothing.
  // Its first opening after a reload opens the run this tab trained instead, waiting.
  let openedBefore = false;
  function setOpen(open) {
    root.hidden = !open;
    openButton?.setAttribute('aria-pressed', String(open));
    if (!open) return;
    if (run.state === 'idle') settings.open = true;
    if (!openedBefore && run.state === 'idle') saved.openRemembered();
    else saved.refresh();
    openedBefore = true;
    render();
    root.scrollIntoView({ block: 'start', behavior: 'instant' });
  }
  openButton?.addEventListener('click', () => setOpen(root.hidden));

  store.subscribe((state, changed) => {
    if (changed.has('lang')) applyTranslations(root, state.lang);
    if (['lang', 'model', 'files', 'preset'].some((k) => changed.has(k))) {
      attention.forget(); // labels in the new language
      render();
    }
  });

  // ------------------------------------------------------------ drawing

  let frame = 0;
  function render() {
    if (frame) return;
    frame = requestAnimationFrame(() => {
      frame = 0;
      const started = performance.now();
      draw();
      performance.measure(TRAIN_DRAW, { start: started });
    });
  }

  const lang = () => store.get().lang;
  const fmt = (x, digits = 0) => x.toLocaleString(lang(), { maximumFractionDigits: digits, minimumFractionDigits: digits });

  function draw() {
    markRun(root, run, openButton);
    const hasRun = Boolean(run.prepared);
    const live = run.state !== 'done';
    const events = run.formation.events;

    bar.render({ run, error: ui.error, notice: ui.notice, resumeFirst: ui.opened !== null && run.state !== 'done', fmt });
    formation.render({ events, hasRun, lang: lang(), fmt });
    settings.render({ state: store.get(), editable: !run.busy, fmt });
    stats.render({ run, smoothedLast: loss.smoothed().at(-1), fmt });
    const totalBatches = run.trainer?.totalBatches;
    const vocab = run.prepared?.info.vocab_size ?? null;
    const cursorSnapshot = slider.follow ? snapshots.latest() : slider.selected();
    const learningRate = run.options?.learningRate;
    loss.render({ cursor: cursorSnapshot?.step ?? null, totalBatches, learningRate, vocab, lang: lang(), fmt });

    const snapshot = slider.update();
    const layers = snapshot?.layers ?? run.prepared?.info.num_hidden_layers ?? 1;
    const heads = snapshot?.heads ?? run.prepared?.info.num_attention_heads ?? 1;
    // The head followed: the best of its role in the newest snapshot.
    const followed = ui.follow === 'pin' ? null : bestHead(snapshots.latest()?.scores, ui.follow);
    if (followed) Object.assign(ui, { layer: followed.layer, head: followed.head });
    ui.layer = Math.min(ui.layer, layers - 1);
    ui.head = Math.min(ui.head, heads - 1);
    const { layer, head, row, follow } = ui;
    slider.render(snapshot, live, fmt);
    roles.render({ layers, heads, layer, head, cursor: snapshot?.step ?? null, totalBatches, events, lang: lang() });
    const shownStep = attention.render({ snapshot, layers, heads, layer, head, row, follow, followed, hasRun, lang: lang(), fmt });
    if (shownStep !== null) root.dataset.snapshotStep = String(shownStep);
    generation.render({ shownStep, follow: slider.follow, hasRun, lang: lang(), fmt });
    compare.render({ layer, head, live, lang: lang(), fmt });
    const newest = snapshots.latest();
    const probe = newest ? { text: newest.text, ids: Array.from(newest.ids), tokens: newest.tokens } : null;
    timeline.render({ live: { entries: run.timeline.entries(), probe }, lang: lang(), fmt });
    saved.render({ lang: lang(), fmt });
  }

  root.hidden = true;
  applyTranslations(root, store.get().lang);
  render();
  return { open: () => setOpen(true), start, reset };
}
