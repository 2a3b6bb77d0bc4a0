// Borrowing the page: lesson mode, lesson 11's labs and the guided tour each
// set the playground's state (text, model, switches, view) while they are
// open, and put the learner's own state back when they close. One keeper
// holds what was there; `apply` sets a whole state and then loads the model
// it names, computes again, or reads a model from files again (a model loaded
// from files comes back from its File objects: no copy of the weights is kept).

// The playground's own state, as a lesson, a lab or the tour finds it and leaves it.
export const PLAYGROUND = [
  'text',
  'inputMode',
  'preset',
  'seed',
  'config',
  'files',
  'layer',
  'head',
  'stage',
  'causal',
  'scale',
  'row',
  'ablate',
];

/** The model of a state is the one loaded in `s` (same files, preset, seed and config). */
function sameModel(s, target) {
  return (
    Boolean(s.model.info) &&
    target.files === s.files &&
    target.preset === s.preset &&
    target.seed === s.seed &&
    JSON.stringify(target.config) === JSON.stringify(s.config)
  );
}

/**
 * hooks: {loadModel(), compute(), resetGeneration(), modelInUse(), reopenFiles(kept)}
 * of the page's model view (modelInUse, reopenFiles: panels/model_loading.mjs).
 * keys: the store keys kept (PLAYGROUND and any the borrower sets as well).
 */
export function createPlaygroundKeeper({ store, hooks, keys = PLAYGROUND }) {
  let kept = null; // the state to go back to, while borrowed
  let filesModel = null; // with it, the model in use if it came from files (hooks.modelInUse())

  /**
   * Sets `target` (a state with at least the model's keys) and `extra`, then
   * loads its model, reads its files again (`reopen`) or computes again.
   */
  function apply(target, { extra = {}, reopen = null } = {}) {
    const s = store.get();
    // The files come with their model once it is loaded (model_loading.mjs), never before it.
    const { files = null, ...rest } = target;
    const same = sameModel(s, { ...target, files });
    hooks.resetGeneration();
    store.set({ ...rest, ...extra, ...(same ? {} : { described: null, result: null }) });
    if (same) hooks.compute();
    else if (reopen) hooks.reopenFiles(reopen);
    else hooks.loadModel();
  }

  return {
    apply,
    /** Whether a state is kept (the page is borrowed). */
    get borrowed() {
      return kept !== null;
    },
    /** Keeps the state in use now (once, on the way in). */
    keep() {
      const s = store.get();
      kept = Object.fromEntries(keys.map((key) => [key, s[key]]));
      filesModel = s.files ? hooks.modelInUse() : null;
    },
    /** Nothing to go back to any more (the learner left some other way). */
    forget() {
      kept = null;
      filesModel = null;
    },
    /**
     * Back to the kept state (or `fallback` when none is kept), `patch` on top;
     * `extra` is set with it (what the borrower closes).
     */
    restore({ patch = {}, fallback = {}, extra = {} } = {}) {
      const { files, ...back } = { ...(kept ?? fallback), ...patch };
      const reopen = files ? filesModel : null;
      kept = null;
      filesModel = null;
      apply({ ...back, files: files ?? null }, { extra, reopen });
    },
  };
}
