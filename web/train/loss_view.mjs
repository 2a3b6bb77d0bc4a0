// The Train panel's loss chart: every batch's loss, a smoothed line, the
// chance line (ln V: a model guessing evenly among the V tokens of its
// vocabulary) and the learning rate on its own axis, to the run's last
// batch, with the snapshot shown as a cursor; a note comparing the first
// and the last 20 batches, and what a loss means (perplexity e^loss).
import { smoothed } from '../../js/train_history.mjs';
import { LineChart } from '../views/line_chart.mjs';
import { make } from './dom.mjs';

const SMOOTHING = 0.9;

export class LossView {
  #t;
  #history;
  #chart;
  #drawn = null; // what the chart shows, as a key: redrawn only when it changes
  #smooth = { length: -1, values: null };

  /** t(key, params); history: the run's StepHistory (js/train_history.mjs). */
  constructor({ t, history }) {
    this.#t = t;
    this.#history = history;
    this.canvas = make('canvas', { role: 'img', 'data-chart': 'loss' });
    this.note = make('p', { class: 'caption' });
    this.meaning = make('p', { class: 'hint small train-loss-meaning' });
    this.element = make(
      'section',
      { class: 'train-card train-loss' },
      make('h3', { i18n: 'train.lossTitle' }),
      make('div', { class: 'train-chart-wrap' }, this.canvas),
      this.note,
      this.meaning,
    );
  }

  /** Makes the chart: once the element is in the document (a chart measures its container). */
  attach() {
    this.#chart = new LineChart(this.canvas, { height: 190 });
  }

  /** The smoothed losses, computed once per new report. */
  smoothed() {
    const history = this.#history;
    if (this.#smooth.length !== history.length) this.#smooth = { length: history.length, values: smoothed(history.loss, SMOOTHING) };
    return this.#smooth.values;
  }

  /** Forgets what was drawn (a new run). */
  forget() {
    this.#drawn = null;
    this.#smooth = { length: -1, values: null };
  }

  /** cursor: the step of the snapshot shown (or null); totalBatches; learningRate: the run's peak; vocab: V (or null); lang; fmt. */
  render({ cursor, totalBatches, learningRate, vocab, lang, fmt }) {
    const t = this.#t;
    const history = this.#history;
    const loss = history.loss;
    const key = JSON.stringify([history.length, cursor, totalBatches, lang, learningRate, vocab]);
    if (this.#drawn === key) return;
    this.#drawn = key;
    const chance = vocab ? Math.log(vocab) : null;
    this.#chart.render({
      series: [
        { y: loss, color: 'rgba(31, 119, 180, 0.35)', width: 1, label: t('train.lossRaw') },
        { y: this.smoothed(), color: '#1f4e79', width: 2, label: t('train.lossSmoothed') },
        { y: history.lr, color: '#e07b00', width: 1.5, dash: [5, 3], axis: 'right', label: t('train.lrLine') },
      ],
      xMax: totalBatches || 1,
      xExact: Boolean(totalBatches),
      rules: chance ? [{ y: chance, color: '#555', dash: [5, 4], label: t('train.chance', { vocab, value: chance.toFixed(2) }) }] : [],
      yRight: learningRate ? [0, learningRate] : undefined,
      cursor,
      empty: t('train.noLoss'),
      xLabel: t('train.xBatch'),
    });
    const n = history.length;
    const first = history.meanLoss(0, Math.min(20, n));
    const last = history.meanLoss(Math.max(0, n - 20), n);
    this.note.textContent = n >= 20 ? t('train.lossDrop', { first: first.toFixed(3), last: last.toFixed(3), n: fmt(n) }) : '';
    const now = n ? this.smoothed()[n - 1] : NaN;
    this.meaning.textContent =
      chance && n ? t('train.lossMeaning', { vocab, chance: chance.toFixed(2), ppl: fmt(Math.exp(now), 1), loss: now.toFixed(3) }) : '';
    this.canvas.setAttribute(
      'aria-label',
      n ? t('train.lossLabel', { n: fmt(n), loss: loss[n - 1].toFixed(4), first: loss[0].toFixed(4) }) : t('train.noLoss'),
    );
  }
}
