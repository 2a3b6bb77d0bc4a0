// When a run in the Train panel is saved (web/train/run_store.mjs): every
// SAVE_EVERY batches, when it pauses or ends, and when the page is hidden
// (a closed tab or a reload may follow); and while it trains, leaving the
// page asks first (beforeunload). This tab holds the run's lock (Web Locks)
// from the moment it trains it until the run is dropped, so another tab
// shows it as live and does not resume it. A save that fails never stops the
// run: its result goes to onResult, for the panel to say.

/** Batches between two saves of a running run. */
export const SAVE_EVERY = 100;

export class RunAutosave {
  #store;
  #capture;
  #pagePart;
  #onResult;
  #every;
  #id = null;
  #release = null;
  #savedStep = -1;
  #saving = null; // the save in progress
  #again = false;
  #running = false;
  #state = 'idle';

  /**
   * store: a RunStore (or a Promise of one); capture(): the worker's part of the run state (a
   * Promise); pagePart(): {history, snapshots, ...} the page adds, and
   * summary: what the list shows (see save); onResult({ok, reason, message,
   * step}) after each save.
   */
  constructor({ store, capture, pagePart, onResult = () => {}, every = SAVE_EVERY, target = globalThis }) {
    this.#store = Promise.resolve(store);
    this.#capture = capture;
    this.#pagePart = pagePart;
    this.#onResult = onResult;
    this.#every = every;
    target.addEventListener?.('beforeunload', (event) => {
      if (!this.#running) return;
      event.preventDefault();
      event.returnValue = ''; // older browsers ask only when this is set
    });
    const hidden = () => this.#id !== null && this.save();
    target.addEventListener?.('pagehide', hidden);
    target.document?.addEventListener('visibilitychange', () => target.document.visibilityState === 'hidden' && hidden());
  }

  /** The id of the run this tab trains, or null. */
  get id() {
    return this.#id;
  }

  /**
   * Starts keeping run `id` (a new run, fresh: true, or a saved one resumed
   * here): claims its lock. Resolves to false, keeping nothing, when another
   * tab trains it or, for a saved run, when the browser refuses the lock.
   */
  async adopt(id, savedStep = -1, { fresh = false } = {}) {
    await this.drop();
    const release = await (await this.#store).claim(id, { fresh });
    if (!release) return false;
    this.#id = id;
    this.#release = release;
    this.#savedStep = savedStep;
    return true;
  }

  /** Stops keeping the run (its save stays) and releases its lock. */
  async drop() {
    await this.#saving;
    this.#release?.();
    this.#id = null;
    this.#release = null;
    this.#running = false;
    this.#state = 'idle';
    this.#savedStep = -1;
  }

  /** The run's state from the worker: 'running' makes leaving ask; pausing or ending saves. */
  onState(state, step) {
    this.#running = state === 'running' || state === 'preparing';
    const changed = state !== this.#state;
    this.#state = state;
    if (changed && (state === 'paused' || state === 'done') && this.#id !== null && step !== this.#savedStep) this.save();
  }

  /** Batches done so far: saves every `every`. */
  onStep(step) {
    if (this.#id !== null && step - Math.max(this.#savedStep, 0) >= this.#every) this.save();
  }

  /** Saves now (a save already running is followed by one more). Resolves to the result. */
  async save() {
    if (this.#id === null) return null;
    if (this.#saving) {
      this.#again = true;
      return this.#saving;
    }
    const id = this.#id;
    this.#saving = (async () => {
      let result;
      try {
        const run = await this.#capture();
        const { summary, ...page } = this.#pagePart(run);
        const step = summary.step;
        Object.assign(run, page, { id, savedAt: Date.now() });
        result = { ...(await (await this.#store).save(id, run, summary)), step };
        if (result.ok) this.#savedStep = step;
      } catch (error) {
        result = { ok: false, reason: 'failed', message: String(error?.message ?? error) };
      }
      this.#onResult(result);
      return result;
    })();
    const result = await this.#saving;
    this.#saving = null;
    if (this.#again && this.#id === id) {
      this.#again = false;
      return this.save();
    }
    return result;
  }
}
