// A slider through the run's snapshots: one that follows the newest stays
// there until the learner moves it back; it says which batch it shows.
import { make, setText } from './dom.mjs';

export class SnapshotSlider {
  #t;
  #snapshots;
  /** The slider follows new snapshots (it is at the newest). */
  follow;

  /**
   * t(key, params); snapshots: the run's SnapshotStore; onMove(): the
   * learner moved it; follow: it starts at the newest (else at the first);
   * name: its data-slider (the main one's accessible name is train.slider).
   */
  constructor({ t, snapshots, onMove, follow = true, name = 'main' }) {
    this.#t = t;
    this.#snapshots = snapshots;
    this.follow = follow;
    const label = name === 'main' ? { 'data-i18n-label': 'train.slider' } : {};
    this.input = make('input', { type: 'range', min: 0, max: 0, step: 1, value: 0, 'data-slider': name, ...label });
    this.label = make('output', { class: 'train-slider-label' });
    this.element = make('label', { class: 'train-slider' }, make('span', { i18n: 'train.sliderName' }), this.input, this.label);
    this.input.addEventListener('input', () => {
      this.follow = Number(this.input.value) >= this.#snapshots.length - 1;
      onMove();
    });
  }

  /** Moves the slider to the k-th snapshot held (it follows when that is the newest). */
  select(k) {
    this.input.max = String(Math.max(0, this.#snapshots.length - 1));
    this.input.value = String(k);
    this.follow = k >= this.#snapshots.length - 1 && this.#snapshots.length > 0;
  }

  /** The snapshot the slider is at (null: none yet). */
  selected() {
    return this.#snapshots.get(Number(this.input.value)) ?? null;
  }

  /** Moves the slider to the newest snapshot when it follows; returns the snapshot it shows. */
  update() {
    const count = this.#snapshots.length;
    this.input.max = String(Math.max(0, count - 1));
    this.input.disabled = count < 2;
    if (this.follow) this.input.value = String(Math.max(0, count - 1));
    return this.selected() ?? this.#snapshots.latest();
  }

  /** snapshot: the one shown; live: the run goes on (the slider at the newest says so); fmt. */
  render(snapshot, live, fmt) {
    setText(
      this.label,
      snapshot
        ? this.#t(this.follow && live ? 'train.sliderLive' : 'train.sliderAt', {
            step: fmt(snapshot.step),
            k: Number(this.input.value) + 1,
            n: this.#snapshots.length,
          })
        : '',
    );
  }
}
