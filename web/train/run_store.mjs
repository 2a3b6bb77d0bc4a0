// Saved training runs in this browser: IndexedDB holds the latest save of
// each run (a run state, js/train_run_state.mjs: ~8.5 MB for the default
// shape's weights and AdamW state, ~28 MB for the demo's), and a small
// summary of each for the list, so listing never reads the weights. Web
// Locks say which runs are training in some tab: the tab that trains a run
// holds its lock, so a second tab sees the run is live and does not train it
// twice. Nothing here throws at the run: a full quota, a private window
// (IndexedDB refused) or a failed write becomes {ok: false, reason}, and the
// panel says so while the training goes on.

const DB_NAME = 'minimind-train-runs';
const DB_VERSION = 1;
const RUNS = 'runs'; // id -> run state
const INDEX = 'index'; // id -> {id, savedAt, summary}
const LOCK_PREFIX = 'minimind-train-run:';

/**
 * How long a save may take before it is given up (its transaction aborted):
 * a write the browser never finishes must not hold the next save, or a new
 * run's start, forever. A 28 MB save takes well under a second here.
 */
const SAVE_DEADLINE_MS = 60000;

/** A new run's id: unique across tabs. */
export function newRunId() {
  const random = globalThis.crypto?.randomUUID?.() ?? `${Math.random().toString(36).slice(2)}${Math.random().toString(36).slice(2)}`;
  return `run-${Date.now().toString(36)}-${random.slice(0, 8)}`;
}

/** Why a failed IndexedDB call failed: 'quota' (storage full), 'unavailable' (no IndexedDB here), else 'failed'. */
export function failureReason(error) {
  const name = error?.name ?? '';
  if (name === 'QuotaExceededError' || /quota/i.test(error?.message ?? '')) return 'quota';
  if (name === 'SecurityError' || name === 'InvalidStateError' || name === 'NotSupportedError' || name === 'UnknownError')
    return 'unavailable';
  return 'failed';
}

function request(r) {
  return new Promise((resolve, reject) => {
    r.onsuccess = () => resolve(r.result);
    r.onerror = () => reject(r.error);
  });
}

function done(tx) {
  return new Promise((resolve, reject) => {
    tx.oncomplete = () => resolve();
    tx.onabort = () => reject(tx.error ?? new DOMException('the transaction was aborted', 'AbortError'));
    tx.onerror = () => reject(tx.error);
  });
}

export class RunStore {
  #db;
  #locks;
  #storage;

  /** problem: null, or why nothing can be saved here ({reason, message}). */
  problem;

  /** True once the browser refused a lock request (not held elsewhere: refused, as in sandboxed frames). */
  locksRefused = false;

  #deadlineMs;

  constructor(db, { locks, storage, problem = null, deadlineMs = SAVE_DEADLINE_MS }) {
    this.#db = db;
    this.#locks = locks;
    this.#storage = storage;
    this.problem = problem;
    this.#deadlineMs = deadlineMs;
  }

  /**
   * Opens the store (never throws: a browser that refuses IndexedDB gives a
   * store whose saves fail with reason 'unavailable'). indexedDB, locks
   * (navigator.locks), storage (navigator.storage): the browser's, or stand-ins;
   * deadlineMs: how long a save may take (SAVE_DEADLINE_MS).
   */
  static async open(options = {}) {
    const { locks = globalThis.navigator?.locks, storage = globalThis.navigator?.storage, deadlineMs } = options;
    try {
      // Inside the try: reading window.indexedDB itself throws where storage is blocked (sandboxed frames).
      const indexedDB = 'indexedDB' in options ? options.indexedDB : globalThis.indexedDB;
      if (!indexedDB) throw new DOMException('IndexedDB is not available', 'NotSupportedError');
      const open = indexedDB.open(DB_NAME, DB_VERSION);
      open.onupgradeneeded = () => {
        const db = open.result;
        if (!db.objectStoreNames.contains(RUNS)) db.createObjectStore(RUNS);
        if (!db.objectStoreNames.contains(INDEX)) db.createObjectStore(INDEX);
      };
      const db = await request(open);
      return new RunStore(db, { locks, storage, deadlineMs });
    } catch (error) {
      return new RunStore(null, {
        locks,
        storage,
        deadlineMs,
        problem: { reason: failureReason(error) === 'quota' ? 'quota' : 'unavailable', message: String(error?.message ?? error) },
      });
    }
  }

  /**
   * Saves `run` (a run state with history and snapshots) as run `id`,
   * replacing its previous save. summary: what the list shows of it. Returns
   * {ok: true} or {ok: false, reason: 'quota' | 'unavailable' | 'failed', message};
   * a write not finished within the deadline is aborted and fails.
   */
  async save(id, run, summary) {
    if (!this.#db) return { ok: false, ...this.problem };
    let timer;
    try {
      const tx = this.#db.transaction([RUNS, INDEX], 'readwrite');
      const finished = done(tx);
      tx.objectStore(RUNS).put(run, id);
      tx.objectStore(INDEX).put({ id, savedAt: run.savedAt ?? Date.now(), summary }, id);
      const late = new Promise((resolve) => {
        timer = setTimeout(() => resolve(true), this.#deadlineMs);
      });
      if (await Promise.race([finished.then(() => false), late])) {
        finished.catch(() => {}); // the abort below rejects it; nobody waits for it any more
        try {
          tx.abort();
        } catch {
          // it finished or failed in the meantime; it is given up all the same
        }
        return { ok: false, reason: 'failed', message: `the browser did not finish writing the run within ${this.#deadlineMs / 1000} s` };
      }
      return { ok: true };
    } catch (error) {
      return { ok: false, reason: failureReason(error), message: String(error?.message ?? error) };
    } finally {
      clearTimeout(timer);
    }
  }

  /** The saved runs' summaries, newest save first: [{id, savedAt, summary}]. */
  async list() {
    if (!this.#db) return [];
    try {
      const entries = await request(this.#db.transaction(INDEX).objectStore(INDEX).getAll());
      return entries.sort((a, b) => b.savedAt - a.savedAt);
    } catch {
      return [];
    }
  }

  /** Run `id`'s saved state, or null. */
  async load(id) {
    if (!this.#db) return null;
    return (await request(this.#db.transaction(RUNS).objectStore(RUNS).get(id))) ?? null;
  }

  /** Deletes run `id`'s save. */
  async remove(id) {
    if (!this.#db) return;
    const tx = this.#db.transaction([RUNS, INDEX], 'readwrite');
    const finished = done(tx);
    tx.objectStore(RUNS).delete(id);
    tx.objectStore(INDEX).delete(id);
    await finished;
  }

  /** navigator.storage.estimate(): {usage, quota} in bytes for this site, or null where the browser does not say. */
  async usage() {
    try {
      const { usage, quota } = await this.#storage.estimate();
      return Number.isFinite(usage) && Number.isFinite(quota) ? { usage, quota } : null;
    } catch {
      return null;
    }
  }

  /**
   * Claims run `id` for this tab while it trains: resolves to release(), or
   * to null when another tab holds it (the run is live there). Without Web
   * Locks every claim succeeds (nothing to coordinate with). Where the
   * browser refuses the request itself (sandboxed frames reject it), nobody
   * can tell whether another tab trains the run: a saved run's claim resolves
   * to null (it may be open elsewhere; locksRefused says why), while a fresh
   * run's id, new to every tab, is claimed all the same.
   */
  claim(id, { fresh = false } = {}) {
    if (!this.#locks) return Promise.resolve(() => {});
    return new Promise((resolve) => {
      this.#locks
        .request(LOCK_PREFIX + id, { ifAvailable: true }, (lock) => {
          if (!lock) return resolve(null);
          return new Promise((release) => resolve(() => release()));
        })
        .catch(() => {
          this.locksRefused = true;
          resolve(fresh ? () => {} : null);
        });
    });
  }

  /** The ids of runs some tab (this one included) is training now. */
  async liveIds() {
    if (!this.#locks) return new Set();
    try {
      const { held = [] } = await this.#locks.query();
      return new Set(held.filter((l) => l.name?.startsWith(LOCK_PREFIX)).map((l) => l.name.slice(LOCK_PREFIX.length)));
    } catch {
      return new Set();
    }
  }
}
