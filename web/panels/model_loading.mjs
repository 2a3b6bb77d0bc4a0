// Which model the worker holds and which one is on its way. The model panel
// asks for presets and configs, the files panel for files, the run bar
// cancels: they share what is loading (the files of the newest load, the
// files of the model in use, the model coming back after a cancel), so it is
// kept here and nowhere else. The worker's load answers arrive here too.
// A load that fails leaves the worker's model in use, and the page goes back
// to it: its name, its files, its view, an error saying what failed.
import { DEMO } from '../demo_model.mjs';
import { errorText } from '../error_text.mjs';
import { modelName } from '../model_names.mjs';
import { DEFAULTS, viewDefaults } from '../url_state.mjs';

// The store's keys that say which model is in use and what it is.
const MODEL_KEYS = ['preset', 'seed', 'config', 'files', 'demo', 'model', 'runtime', 'filesStatus'];

function pick(state, keys) {
  return Object.fromEntries(keys.map((key) => [key, state[key]]));
}

// A notice of what the page went back to; a new object each time, so it shows again.
export function notice(text) {
  return { text };
}

/**
 * defaultRowWanted: the URL chose no row (the page opens on the model's own once it is loaded).
 * inlineModel: the main-thread twin of a tiny model, prepared for each model loaded.
 * input: the input panel ({compute, computeKey}).
 */
// What a load that starts clears: the model's state, and every answer about the model before it
// (a new object each time, so that the store sees the model change).
const loadStarts = () => ({
  model: { status: 'building', fraction: 0, info: null, error: null },
  result: null,
  prediction: null,
  generation: null,
  playing: false,
  demo: null,
});

export function setupModelLoading({ store, t, client, inlineModel, input, defaultRowWanted }) {
  let loadingFiles = null; // the File objects of the newest files load
  let loadedFiles = null; // the File objects of the model in use, if it came from files
  let restoring = null; // after a cancel: {keep, key} while the worker loads the model again
  let reopening = false; // the files of a model in use before (a lab closed) load again: their view stays
  let inUse = null; // the model the page shows as loaded: {record (client.inUse), state (its store keys), files}
  let viewBefore = null; // the view before choose() reset it for a new model, while that model loads

  function progress({ fraction, phase }) {
    if (phase === 'parse') store.set({ filesStatus: { phase: 'parsing', fraction, name: loadingFiles?.weights.name } });
    else store.set({ model: { ...store.get().model, status: 'building', fraction } });
  }

  function loaded({ info, files, demo, runtime }) {
    const s = store.get();
    inlineModel.prepare(files || demo ? null : { preset: s.preset, seed: s.seed, config: s.config }, info);
    // After cancelling a forward pass the same model is back: its matrices still fit.
    const keep = restoring?.keep ?? false;
    const recompute = !keep || restoring.key !== input.computeKey();
    const newFiles = files && !restoring && !reopening; // files just chosen, not the same files again
    restoring = null;
    reopening = false;
    viewBefore = null;
    loadedFiles = files ? loadingFiles : null;
    const patch = {
      // roles: the head roles a model trained in the Train panel measured, handed over with its files;
      // trained: {step} of that model.
      files: files
        ? { ...files, name: loadingFiles.weights.name, roles: loadingFiles.roles ?? null, trained: loadingFiles.trained ?? null }
        : null,
      demo: demo ?? null,
      result: keep ? s.result : null, // the old model's matrices do not fit the new one
      filesStatus: files ? { phase: 'loaded', name: loadingFiles.weights.name } : null,
      generation: null,
      playing: false,
      model: { status: 'ready', fraction: 1, info, error: null },
      runtime: runtime ?? null,
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
    inUse = { record: client.inUse, files: loadedFiles, state: pick(store.get(), MODEL_KEYS) };
    if (recompute) input.compute();
  }

  // The worker kept the model in use (it swaps only once a new one exists): the page shows it again.
  // error.load: what failed, {spec} or {files, name} (model_client.mjs).
  function backToModelInUse(message, error) {
    const s = store.get();
    const words = error ? (errorText(s.lang, error)?.text ?? message) : message;
    const fromFiles = Boolean(error?.load?.files);
    const failedName = fromFiles ? error.load.name : modelName(s, t);
    // Files chosen after the model that failed, still being read: they stay the newest choice.
    const reading = loadingFiles && !fromFiles ? loadingFiles : null;
    loadingFiles = reading ?? inUse.files;
    if (client.inUse !== inUse.record) {
      // A load the page had already replaced did finish in the worker before this one failed:
      // load what the page showed again rather than show a model the worker no longer holds.
      // The worker holds another model now, so modelInUse() (which asks the client) has none: the
      // page's own record of the files shown is read again.
      if (reading) return;
      return inUse.files
        ? reopenFiles({ record: inUse.record, files: inUse.files })
        : choose(pick(inUse.state, ['preset', 'seed', 'config']));
    }
    const view = viewBefore ?? {};
    viewBefore = null;
    if (fromFiles && s.model.info === inUse.state.model.info) {
      // Nothing else was asked for since: the model and its matrices are still on screen.
      return store.set({ filesStatus: { phase: 'error', message, error }, model: inUse.state.model });
    }
    inlineModel.prepare(inUse.files || inUse.state.demo ? null : pick(inUse.state, ['preset', 'seed', 'config']), inUse.state.model.info);
    store.set({
      ...inUse.state,
      ...view,
      described: null,
      result: null,
      generation: null,
      playing: false,
      filesStatus: fromFiles ? { phase: 'error', message, error } : reading ? s.filesStatus : inUse.state.filesStatus,
      notice: fromFiles
        ? s.notice
        : notice(t('model.loadFailed', { name: failedName, message: words, previous: modelName(inUse.state, t) })),
    });
    input.compute();
  }

  // A load the worker could not finish, or the worker itself failing.
  // error: the worker's error message with the core's kind and values (files: worded in the page's language).
  function failed(request, message, error = null) {
    if (request === 'load' && restoring) {
      restoring = null; // the model in use before the cancel did not load again
      loadDefault(t('run.restoreFailed', { message, name: DEFAULTS.preset }));
    } else if (request === 'load' && inUse) {
      reopening = false;
      backToModelInUse(message, error);
    } else if (request === 'load' && error?.load?.files) {
      // The worker keeps the previous model when files fail to load.
      const { model } = store.get();
      store.set({
        filesStatus: { phase: 'error', message, error },
        model: { ...model, status: model.info ? 'ready' : 'error', fraction: 1 },
      });
    } else {
      store.set({ model: { status: 'error', fraction: 0, info: store.get().model.info, error: message } });
    }
  }

  function load() {
    const { preset, seed, config } = store.get();
    inlineModel.prepare(null);
    loadingFiles = null;
    restoring = null;
    reopening = false;
    store.set({
      ...loadStarts(),
      files: null, // a model from files is no longer the one in use
      filesStatus: null,
    });
    client.load(preset === DEMO ? { preset } : { preset, seed, config });
  }

  // A new model opens on its own view: its default layer, head and row, every head on.
  function choose(patch) {
    defaultRowWanted = true;
    const s = store.get();
    viewBefore ??= pick(s, ['layer', 'head', 'row', 'ablate']); // the model in use's view, if this one fails
    store.set({ ...patch, described: null, result: null, generation: null, layer: null, head: null, row: null, ablate: [] });
    load();
  }

  function loadDefault(message) {
    store.set({ seed: DEFAULTS.seed, files: null });
    choose({ preset: DEFAULTS.preset, config: null });
    store.set({ notice: notice(message) });
  }

  // Files were chosen: they are the newest load from now on, while the page reads them.
  function filesChosen(chosen) {
    loadingFiles = chosen;
    restoring = null;
    reopening = false;
  }

  /** The model in use if it came from files, to load again later (reopenFiles); else null (the store's preset says it). */
  function modelInUse() {
    return inUse?.files && client.inUse?.files ? { record: client.inUse, files: inUse.files } : null;
  }

  // Files of a model in use before load again (read from their File once more, no copy kept): a lab
  // borrowed the worker for its preset and is closed. The view the page comes back to stays.
  function reopenFiles(kept) {
    inlineModel.prepare(null);
    loadingFiles = kept.files;
    restoring = null;
    reopening = true;
    store.set({ ...loadStarts(), filesStatus: { phase: 'parsing', fraction: 0, name: kept.files.weights.name } });
    client.reload(kept.record);
  }

  // Reading files in the page was cancelled: the files in use (if any) are the newest load again.
  function filesDropped() {
    loadingFiles = loadedFiles;
  }

  // Cancel: anything in the worker stops only with the worker, which then
  // loads the model in use before again.
  function cancel(run) {
    const s = store.get();
    if (run.kind === 'restore') {
      // The model in use before did not come back quickly enough: start from the default.
      client.cancel({ reload: false });
      restoring = null;
      return loadDefault(t('run.cancelledRestore', { name: modelName(s, t), fallback: DEFAULTS.preset }));
    }
    const cancelled = run.kind === 'files' ? s.filesStatus.name : modelName(s, t);
    const reloading = client.cancel();
    if (!reloading) {
      restoring = null;
      return loadDefault(t(loadedFiles ? 'run.filesGone' : 'run.cancelledFirst', { name: cancelled, fallback: DEFAULTS.preset }));
    }
    // forward or generation: the same model comes back and its matrices stay.
    const keep = run.kind === 'forward' || run.kind === 'generation';
    restoring = { keep, key: keep ? input.computeKey() : null };
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

  return {
    load,
    choose,
    loadDefault,
    filesChosen,
    filesDropped,
    cancel,
    progress,
    loaded,
    failed,
    modelInUse,
    reopenFiles,
    /** After a cancel, {keep, key} while the model in use before loads again; else null. */
    get restoring() {
      return restoring;
    },
    /** The File objects of the newest files load: {weights, config, tokenizer}, or null. */
    get loadingFiles() {
      return loadingFiles;
    },
  };
}
