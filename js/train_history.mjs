// What a training run has reported, kept on the page's side: every batch's
// loss and learning rate (growing Float64Arrays, the values as reported), and the snapshots of the
// probe's attention, bounded in number: past `maxSnapshots`, every other one
// is dropped (the first and the newest always stay), so a long run keeps a
// view of its whole history in bounded memory. Pure: tested in Node.

import { argumentError } from './minimind_error.mjs';

export class StepHistory {
  #loss = new Float64Array(256);
  #lr = new Float64Array(256);
  #positions = 0;
  #count = 0;

  get length() {
    return this.#count;
  }

  /** Appends steps [{loss, lr, positions}] (in order; step k is the k-th batch, 1-based). */
  push(steps) {
    for (const s of steps) {
      if (this.#count === this.#loss.length) {
        const grow = (a) => {
          const b = new Float64Array(a.length * 2);
          b.set(a);
          return b;
        };
        this.#loss = grow(this.#loss);
        this.#lr = grow(this.#lr);
      }
      this.#loss[this.#count] = s.loss;
      this.#lr[this.#count] = s.lr;
      this.#positions += s.positions ?? 0;
      this.#count += 1;
    }
  }

  /** Float64Array views of the losses and learning rates so far (batch k at index k - 1). */
  get loss() {
    return this.#loss.subarray(0, this.#count);
  }

  get lr() {
    return this.#lr.subarray(0, this.#count);
  }

  get positions() {
    return this.#positions;
  }

  /** The mean loss of batches [from, to) (0-based indices), NaN when empty. */
  meanLoss(from, to) {
    const a = Math.max(0, from);
    const b = Math.min(this.#count, to);
    if (b <= a) return NaN;
    let sum = 0;
    for (let i = a; i < b; i += 1) sum += this.#loss[i];
    return sum / (b - a);
  }

  clear() {
    this.#count = 0;
    this.#positions = 0;
  }
}

/**
 * Smoothed values: an exponential moving average with TensorBoard's
 * debiasing (the first values are not pulled towards 0), weight `alpha` on
 * the past (0: no smoothing).
 */
export function smoothed(values, alpha = 0.9) {
  const out = new Float32Array(values.length);
  let ema = 0;
  let weight = 0;
  for (let i = 0; i < values.length; i += 1) {
    ema = alpha * ema + (1 - alpha) * values[i];
    weight = alpha * weight + (1 - alpha);
    out[i] = ema / weight;
  }
  return out;
}

export class SnapshotStore {
  #items = []; // by step, ascending
  #max;

  constructor(maxSnapshots = 120) {
    if (!Number.isSafeInteger(maxSnapshots) || maxSnapshots < 2)
      throw argumentError(
        RangeError,
        'api.below_minimum',
        { name: 'maxSnapshots', min: 2, got: String(maxSnapshots) },
        `maxSnapshots must be an integer of at least 2, got ${maxSnapshots}`,
      );
    this.#max = maxSnapshots;
  }

  get length() {
    return this.#items.length;
  }

  /** The steps held, ascending. */
  steps() {
    return this.#items.map((s) => s.step);
  }

  /** Adds a snapshot ({step, ...}); one of the same step (a new probe sentence) replaces it. */
  add(snapshot) {
    const items = this.#items;
    let at = items.length;
    while (at > 0 && items[at - 1].step > snapshot.step) at -= 1;
    if (at > 0 && items[at - 1].step === snapshot.step) items[at - 1] = snapshot;
    else items.splice(at, 0, snapshot);
    if (items.length > this.#max) {
      // Keep the first, every other one after it, and the newest.
      const newest = items[items.length - 1];
      const kept = items.filter((_, k) => k % 2 === 0);
      if (kept[kept.length - 1] !== newest) kept.push(newest);
      this.#items = kept;
    }
  }

  /** The newest snapshot at or before `step` (the first one when `step` is before all), or null when empty. */
  at(step) {
    const items = this.#items;
    if (items.length === 0) return null;
    let lo = 0;
    let hi = items.length - 1;
    if (step < items[0].step) return items[0];
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (items[mid].step <= step) lo = mid;
      else hi = mid - 1;
    }
    return items[lo];
  }

  /** The k-th snapshot (0-based) held. */
  get(k) {
    return this.#items[k] ?? null;
  }

  latest() {
    return this.#items[this.#items.length - 1] ?? null;
  }

  /** Series of one head's score over the snapshots: [{step, value}] (scores[kind][layer][head]). */
  scoreSeries(kind, layer, head) {
    const out = [];
    for (const s of this.#items) {
      const value = s.scores?.[kind]?.[layer]?.[head];
      if (Number.isFinite(value)) out.push({ step: s.step, value });
    }
    return out;
  }

  clear() {
    this.#items = [];
  }
}
