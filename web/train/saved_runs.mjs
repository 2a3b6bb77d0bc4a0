// The Train panel's saved runs, wired: this tab's run is saved in the
// browser (run_store.mjs) every SAVE_EVERY batches and when it pauses or
// ends (run_autosave.mjs, which also asks before leaving a running run and
// holds the run's Web Lock); the list (saved_runs_view.mjs) resumes a saved
// run exactly where it stopped, puts its model to use in the playground
// (finished or not, without resuming it), downloads one as MiniMind's
// *_resume.pth (js/resume_pth.mjs), deletes one; MiniMind's own
// *_resume.pth continues here on the panel's data and settings; and after a
// reload the panel opens the run this tab trained, waiting where it was
// saved (openRemembered; the tab remembers its run in sessionStorage).
import { resumePthOfRun } from '../../js/resume_pth.mjs';
import { checkRun, historyState, runSummary, snapshotSummaries, timelineState } from '../../js/train_run_state.mjs';
import { download } from '../export.mjs';
import { RunAutosave, SAVE_EVERY } from './run_autosave.mjs';
import { RunStore, newRunId } from './run_store.mjs';
import { SavedRunsView } from './saved_runs_view.mjs';

// The run this tab trains, kept across its reloads (a new tab starts with none).
const TAB_RUN = 'minimind-train-run';

function tabRun(id) {
  try {
    const storage = globalThis.sessionStorage;
    if (id === undefined) return storage?.getItem(TAB_RUN) ?? null;
    if (id === null) storage?.removeItem(TAB_RUN);
    else storage?.setItem(TAB_RUN, id);
  } catch {
    // storage refused (a sandboxed frame): a reload then opens no run
  }
  return null;
}

export class SavedRuns {
  #run;
  #t;
  #ui;
  #fmt;
  #render;
  #start;
  #forget;
  #use;
  #store = RunStore.open();
  #autosave;
  #view;
  #list = { runs: [], live: new Set(), usage: null, message: null };
  #importing = null; // the name of a MiniMind checkpoint being continued
  #openCancelled = false; // a run was started or reset while a saved one was being opened

  /**
   * run: the TrainRun; t(key, params); ui: the panel's {error, notice,
   * opened (the id of the saved run the panel opened, until it is left)};
   * fmt(x, digits); render(); start(model): starts a run from `model` with
   * the panel's settings; forget(): clears what the views drew of a run;
   * use(record): puts a saved run's model to use in the playground, or
   * use('live'): the run this tab trains, as it is now.
   */
  constructor({ run, t, ui, fmt, render, start, forget, use, target = globalThis }) {
    this.#run = run;
    this.#t = t;
    this.#ui = ui;
    this.#fmt = fmt;
    this.#render = render;
    this.#start = start;
    this.#forget = forget;
    this.#use = use;
    this.#autosave = new RunAutosave({
      store: this.#store,
      capture: () => run.client.captureRun(),
      pagePart: (worker) => {
        const page = {
          history: historyState(run.history),
          snapshots: snapshotSummaries(run.snapshots),
          timeline: timelineState(run.timeline),
        };
        return { ...page, summary: runSummary({ ...worker, ...page }) };
      },
      onResult: (result) => {
        this.#list.message = result.ok ? t('train.saved.saved', { step: fmt(result.step) }) : this.#problem(result);
        this.refresh();
      },
      target,
    });
    this.#view = new SavedRunsView({
      t,
      actions: {
        resume: (id) => this.#resume(id),
        use: (id) => this.#useSaved(id),
        download: (id) => this.#download(id),
        remove: (id) => this.#remove(id),
        importFile: (file) => this.#import(file),
      },
    });
    this.element = this.#view.element;
    this.refresh();
  }

  #problem({ reason, message }) {
    const t = this.#t;
    if (reason === 'quota') return t('train.saved.quota');
    if (reason === 'unavailable') return t('train.saved.unavailable');
    return t('train.saved.failed', { message });
  }

  /** The run's state changed (TrainRun's change). */
  onState() {
    this.#autosave.onState(this.#run.state, this.#run.step);
  }

  /** Batches were reported. */
  onSteps() {
    this.#autosave.onStep(this.#run.step);
  }

  /** The worker prepared a run: a continued checkpoint says where it starts. */
  onReady({ resumed }) {
    if (!this.#importing || !resumed) return;
    const t = this.#t;
    const position = resumed.notes.includes('position') ? ` ${t('train.saved.importPosition')}` : '';
    this.#ui.notice = t('train.saved.imported', { name: this.#importing, step: this.#fmt(resumed.step) }) + position;
    this.#importing = null;
  }

  /** A new run started in this tab: it is saved under a new id from now on. */
  keepNew() {
    return this.#keep(newRunId(), -1, { fresh: true });
  }

  /** The run was dropped (reset): its save stays, its lock goes, and a reload opens none. */
  async drop() {
    tabRun(null);
    await this.#autosave.drop();
    this.refresh();
  }

  // This tab trains run `id` from now on (the run it had stays as last saved, saved once more first).
  async #keep(id, savedStep = -1, { fresh = false } = {}) {
    if (this.#autosave.id !== null && this.#autosave.id !== id) await this.#autosave.save();
    const ours = await this.#autosave.adopt(id, savedStep, { fresh });
    if (ours) tabRun(id);
    this.refresh();
    return ours;
  }

  /** Reads the list, the live runs and the storage use again. */
  async refresh() {
    const store = await this.#store;
    const list = this.#list;
    if (store.problem && !list.message) list.message = this.#problem(store.problem);
    [list.runs, list.live, list.usage] = await Promise.all([store.list(), store.liveIds(), store.usage()]);
    this.#render();
  }

  /**
   * After a reload: opens the run this tab trained, as a resume would but
   * paused where it was saved (done if it had finished): its losses,
   * snapshots and figures are back, and Resume goes on. Not when another
   * tab trains it, nor once this tab starts or resets a run (cancelOpen).
   * Resolves to whether it opened one.
   */
  async openRemembered() {
    this.#openCancelled = false;
    await this.refresh();
    const id = tabRun();
    const { runs, live } = this.#list;
    if (!runs.some((r) => r.id === id) || live.has(id) || this.#run.state !== 'idle') return false;
    return this.#resume(id, { start: false });
  }

  /** A run was started or reset: a saved run still being opened is not. */
  cancelOpen() {
    this.#openCancelled = true;
  }

  // start false: the run is opened, waiting (openNewest).
  async #resume(id, { start = true } = {}) {
    const ui = this.#ui;
    const record = await this.#load(id);
    if (!record) return false;
    if (!start) {
      try {
        checkRun(record); // a save this page no longer reads stays listed, and is not opened
      } catch {
        return false;
      }
      if (this.#openCancelled || this.#run.state !== 'idle') return false; // a run started meanwhile
    }
    Object.assign(ui, { error: null, notice: null, opened: null });
    const { step, totalBatches } = runSummary(record);
    if (!(await this.#keep(id, step))) {
      // Refused locks cannot tell a run trained elsewhere from one that is not: say it may be.
      const refused = (await this.#store).locksRefused;
      ui.error = () => this.#t(refused ? 'train.saved.mayBeElsewhere' : 'train.saved.liveElsewhere');
      this.#render();
      return false;
    }
    if (!start && this.#openCancelled) {
      // A run started meanwhile: it keeps its own id (keepNew); this one is let go, unopened.
      if (this.#autosave.id === id) await this.#autosave.drop();
      return false;
    }
    this.#forget();
    this.#run.resume(record, { start });
    // Lines worded when drawn, so they follow a language switch.
    if (start) ui.notice = () => this.#t('train.saved.resumed', { step: this.#fmt(step) });
    else {
      ui.opened = id;
      ui.notice = () => this.#t(step >= totalBatches ? 'train.saved.openedDone' : 'train.saved.opened');
    }
    this.#render();
    return true;
  }

  // Run `id`'s save, or null (the list says it is gone).
  async #load(id) {
    this.#ui.error = null;
    const record = await (await this.#store).load(id).catch(() => null);
    if (record) return record;
    this.#list.message = this.#t('train.saved.missing');
    this.refresh();
    return null;
  }

  // The run this tab trains is used as it is now; any other as it was saved.
  async #useSaved(id) {
    if (id === this.#autosave.id) return this.#use('live');
    const record = await this.#load(id);
    if (record) await this.#use(record);
  }

  async #download(id) {
    const ui = this.#ui;
    ui.error = null;
    try {
      const record = await (await this.#store).load(id);
      if (!record) throw new Error(this.#t('train.saved.missing'));
      const { name, bytes } = resumePthOfRun(record);
      download(name, new Blob([bytes], { type: 'application/octet-stream' }));
      ui.notice = () => this.#t('train.saved.downloaded', { name });
    } catch (error) {
      ui.error = () => this.#t('train.failed', { message: error.message });
    }
    this.#render();
  }

  async #remove(id) {
    try {
      await (await this.#store).remove(id);
      this.#list.message = this.#t('train.saved.deleted');
    } catch (error) {
      this.#ui.error = () => this.#t('train.failed', { message: error.message });
    }
    this.refresh();
  }

  // MiniMind's *_resume.pth: its weights, AdamW's state and place, on the panel's data and settings.
  async #import(file) {
    this.#importing = file.name;
    await this.#start({ kind: 'checkpoint', weights: await file.arrayBuffer(), name: file.name });
  }

  render({ lang, fmt }) {
    const busy = this.#run.state === 'preparing';
    this.#view.render({ ...this.#list, current: this.#autosave.id, busy, every: SAVE_EVERY, lang, fmt });
  }
}
