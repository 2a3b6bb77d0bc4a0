// A run's timeline as the page holds it: every entry (js/timeline.mjs
// timelineEntry) in step order, one per step (a new probe sentence at the
// same step replaces that step's entry). Unlike the snapshots
// (js/train_history.mjs SnapshotStore), entries are never thinned: a
// default run makes about 100 (js/timeline.mjs defaultSnapshotEvery).
// Pure: tested in Node.

export class TimelineStore {
  #entries = []; // by step, ascending

  get length() {
    return this.#entries.length;
  }

  /** Adds an entry ({step, tokens, ...}); one of the same step replaces it. */
  add(entry) {
    const entries = this.#entries;
    let at = entries.length;
    while (at > 0 && entries[at - 1].step > entry.step) at -= 1;
    if (at > 0 && entries[at - 1].step === entry.step) entries[at - 1] = entry;
    else entries.splice(at, 0, entry);
  }

  /** The k-th entry (0-based), or null. */
  get(k) {
    return this.#entries[k] ?? null;
  }

  /** The newest entry at or before `step` (the first when `step` is before all), or null when empty. */
  at(step) {
    let found = this.#entries[0] ?? null;
    for (const entry of this.#entries) {
      if (entry.step > step) break;
      found = entry;
    }
    return found;
  }

  /** Every entry, in step order (the array is a copy; the entries are not). */
  entries() {
    return [...this.#entries];
  }

  clear() {
    this.#entries = [];
  }
}
