// Before and after: two snapshots side by side (by default batch 0 and the
// newest; either slider picks any other), each with the probe's attention
// at the head shown, the model's next-token candidates after the probe's
// pronoun, and what it wrote. The values are the snapshots' own.
import { scaleFor } from '../colors.mjs';
import { HeatmapView } from '../views/heatmap.mjs';
import { defaultRow } from './attention_view.mjs';
import { make, setText } from './dom.mjs';
import { SnapshotSlider } from './snapshot_slider.mjs';

const SIDES = ['before', 'after'];

export class CompareView {
  #t;
  #sides = {};
  #drawn = {};

  /** t(key, params); snapshots: the run's SnapshotStore; onMove(): a slider moved. */
  constructor({ t, snapshots, onMove }) {
    this.#t = t;
    const columns = SIDES.map((side) => {
      // Before starts at the first snapshot and stays; after follows the newest.
      const slider = new SnapshotSlider({ t, snapshots, onMove, follow: side === 'after', name: side });
      const title = make('h4', { class: 'train-compare-title' });
      const canvas = make('canvas', { role: 'img' });
      const heat = make('div', { class: 'matrix-wrap train-heat-wrap' }, canvas);
      const predictTitle = make('p', { class: 'train-compare-label' });
      const predict = make('ol', { class: 'candidates train-compare-predict' });
      const writes = make('ul', { class: 'train-compare-writes' });
      this.#sides[side] = { slider, title, canvas, heat, predictTitle, predict, writes, heatmap: null };
      return make(
        'div',
        { class: 'train-compare-side', 'data-side': side },
        slider.element,
        title,
        heat,
        predictTitle,
        predict,
        make('p', { class: 'train-compare-label', i18n: 'train.compareWrites' }),
        writes,
      );
    });
    this.element = make(
      'section',
      { class: 'train-card train-compare' },
      make('h3', { i18n: 'train.compareTitle' }),
      make('p', { class: 'hint small', i18n: 'train.compareHint' }),
      make('div', { class: 'train-compare-grid' }, ...columns),
    );
  }

  /** Makes the heatmaps: once the element is in the document (a heatmap measures its container). */
  attach() {
    for (const side of SIDES) this.#sides[side].heatmap = new HeatmapView(this.#sides[side].canvas, {});
  }

  /** Back to batch 0 and the newest (a new run). */
  forget() {
    this.#sides.before.slider.select(0);
    this.#sides.after.slider.follow = true;
    this.#drawn = {};
  }

  /** The steps shown: {before, after} (null without snapshots). */
  steps() {
    return Object.fromEntries(SIDES.map((side) => [side, this.#sides[side].slider.selected()?.step ?? null]));
  }

  /** layer, head: the head shown; live: the run goes on; lang; fmt. */
  render({ layer, head, live, lang, fmt }) {
    const t = this.#t;
    for (const side of SIDES) {
      const v = this.#sides[side];
      const snapshot = v.slider.update();
      const name = t(side === 'before' ? 'train.compareBefore' : 'train.compareAfter');
      v.slider.input.setAttribute('aria-label', t('train.compareSlider', { side: name }));
      v.slider.render(snapshot, live, fmt);
      v.heat.hidden = !snapshot;
      const key = [snapshot, layer, head, lang];
      if (!snapshot || (this.#drawn[side] && key.every((x, k) => x === this.#drawn[side][k]))) {
        if (!snapshot) (setText(v.title, ''), setText(v.predictTitle, ''), v.predict.replaceChildren(), v.writes.replaceChildren());
        continue;
      }
      this.#drawn[side] = key;
      const { T, tokens, attention, heads: H } = snapshot;
      const offset = (layer * H + head) * T * T;
      const values = attention.subarray(offset, offset + T * T);
      const row = defaultRow(tokens);
      setText(v.title, t('train.compareAt', { side: name, step: fmt(snapshot.step), layer, head }));
      v.canvas.setAttribute('aria-label', v.title.textContent);
      v.heatmap.render({
        tokens,
        values,
        masked: (i, j) => j > i,
        scale: scaleFor('attn_weights', values),
        decimals: 2,
        selectedRow: row,
        titles: { query: t('matrix.queryAxis'), key: t('matrix.keyAxis') },
      });
      setText(v.predictTitle, t('train.comparePredict', { token: tokens[row] }));
      v.predict.replaceChildren(
        ...snapshot.top[row].map((c) =>
          make('li', {
            'data-id': c.id,
            'data-p': c.p,
            text: `${c.whole ? t('predict.whole', { label: c.label, whole: c.whole }) : c.label}: ${c.p.toFixed(3)}`,
          }),
        ),
      );
      v.writes.replaceChildren(
        ...(snapshot.generated ?? []).map((g) =>
          make(
            'li',
            {},
            make('span', { class: 'train-compare-prompt', text: g.prompt }),
            make('span', { class: 'train-compare-text', text: g.text }),
          ),
        ),
      );
      this.element.querySelector(`[data-side="${side}"]`).dataset.step = String(snapshot.step);
    }
  }
}
