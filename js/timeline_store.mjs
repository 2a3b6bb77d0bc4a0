// A run's timeline as the page holds it: every entry (js/timeline.mjs
// timelineEntry) in step order, one per step (a new probe sentence at the
// same step replaces that step's entry). Unlike the snapshots
// (js/train_history.mjs SnapshotStore), entries are never thinned: a
// default run makes about 100 (js/timeline.mjs defaultSnapshotEvery). Their
// probe attention is: past `budget` bytes (the numbers, as JSON, and the
// attention's half floats), only every 2nd, then 4th, ... entry keeps it
// (the first and the newest always do), so that a run snapshotting
// every batch stays within the budget as long as its numbers do
// (docs/training.md). Pure: tested in Node.

/** The bytes a timeline holds at most (docs/training.md): the saved run's budget too. */
export const TIMELINE_BYTES = 64 * 2 ** 20;

const numberBytes = (entry) => JSON.stringify({ ...entry, attention: null }).length;

export class TimelineStore {
  #entries = []; // by step, ascending
  #budget;
  #numbers = 0; // bytes of the entries' numbers
  #attention = 0; // bytes of the attention kept
  #stride = 1; // entries k with k % stride = 0 keep their attention (and the newest)

  constructor({ budget = TIMELINE_BYTES } = {}) {
    this.#budget = budget;
  }

  /** Bytes held: the numbers as JSON and the attention kept. */
  get bytes() {
    return this.#numbers + this.#attention;
  }

  get length() {
    return this.#entries.length;
  }

  /** Adds an entry ({step, tokens, ...}); one of the same step replaces it. */
  add(entry) {
    const entries = this.#entries;
    let at = entries.length;
    while (at > 0 && entries[at - 1].step > entry.step) at -= 1;
    if (at > 0 && entries[at - 1].step === entry.step) {
      this.#forgetBytes(entries[at - 1]);
      entries[at - 1] = entry;
    } else entries.splice(at, 0, entry);
    this.#numbers += numberBytes(entry);
    this.#attention += entry.attention?.byteLength ?? 0;
    this.#thin();
  }

  #forgetBytes(entry) {
    this.#numbers -= numberBytes(entry);
    this.#attention -= entry.attention?.byteLength ?? 0;
  }

  // Attention stays on entries whose index is a multiple of #stride, and on
  // the newest; past the budget the stride doubles (the first always keeps
  // its attention, the kept ones stay evenly spaced).
  #thin() {
    const entries = this.#entries;
    const drop = (k) => {
      if (!entries[k].attention) return;
      this.#attention -= entries[k].attention.byteLength;
      entries[k] = { ...entries[k], attention: null };
    };
    const last = entries.length - 1;
    for (let k = 0; k < last; k += 1) if (k % this.#stride !== 0) drop(k);
    while (this.bytes > this.#budget && this.#stride < entries.length) {
      this.#stride *= 2;
      for (let k = 0; k < last; k += 1) if (k % this.#stride !== 0) drop(k);
    }
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
    this.#numbers = 0;
    this.#attention = 0;
    this.#stride = 1;
  }
}
