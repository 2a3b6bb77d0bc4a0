// Which model the worker holds and which one is on its way. The model panel
// asks for presets and configs, the files panel for files, the run bar
// cancels: they share what is loading (the files of the newest load, the
// files of the model in use, the model coming back after a cancel), so it is
// kept here and nowhere else. The worker's load answers arrive here too.
import { DEMO } from '../demo_model.mjs';
import { modelName } from '../model_names.mjs';
import { DEFAULTS, viewDefaults } from '../url_state.mjs';

// A notice of what the page went back to; a new object each time, so it shows again.
export function notice(text) {
  return { text };
}

/**
 * defaultRowWanted: the URL chose no row (the page opens on the model's own once it is loaded).
 * inlineModel: the main-thread twin of a tiny model, prepared for each model loaded.
 * input: the input panel ({compute, computeKey}).
 */
export function setupModelLoading({ store, t, client, inlineModel, input, defaultRowWanted }) {
  let loadingFiles = null; // the File objects of the newest files load
  let loadedFiles = null; // the File objects of the model in use, if it came from files
  let restoring = null; // after a cancel: {keep, key} while the worker loads the model again

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
    if (recompute) input.compute();
  }

  // A load the worker could not finish, or the worker itself failing.
  function failed(request, message) {
    if (request === 'load' && restoring) {
      restoring = null; // the model in use before the cancel did not load again
      loadDefault(t('run.restoreFailed', { message, name: DEFAULTS.preset }));
    } else if (request === 'load' && loadingFiles) {
      // The worker keeps the previous model when files fail to load.
      const { model } = store.get();
      store.set({ filesStatus: { phase: 'error', message }, model: { ...model, status: model.info ? 'ready' : 'error', fraction: 1 } });
    } else {
      store.set({ model: { status: 'error', fraction: 0, info: store.get().model.info, error: message } });
    }
  }

  function load() {
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
  function choose(patch) {
    defaultRowWanted = true;
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
