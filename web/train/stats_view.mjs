// The Train panel's figures of the run: the last loss (raw and smoothed),
// learning rate, epoch, batches, tokens/s, ETA, time spent, the trainer's
// memory, the model's shape and the data's. Every number is the trainer's
// own report or computed from it.
import { make, setText } from './dom.mjs';

/** "m:ss" (or "h:mm:ss") of a number of seconds. */
function clock(seconds) {
  if (!Number.isFinite(seconds) || seconds < 0) return '–';
  const s = Math.round(seconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const two = (n) => String(n).padStart(2, '0');
  return h > 0 ? `${h}:${two(m)}:${two(s % 60)}` : `${m}:${two(s % 60)}`;
}

export class StatsView {
  #t;

  constructor({ t }) {
    this.#t = t;
    this.element = make('dl', { class: 'train-stats' });
  }

  /** run: the TrainRun; smoothedLast: the smoothed loss of the last batch; fmt(x, digits). */
  render({ run, smoothedLast, fmt }) {
    const t = this.#t;
    const { step, total } = run;
    const mib = (bytes) => fmt(bytes / 2 ** 20, 1);
    const rows = [];
    const tr = run.trainer;
    if (run.prepared && tr) {
      const seconds = tr.trainMs / 1000;
      const perBatch = step > 0 ? seconds / step : NaN;
      const d = run.prepared.data;
      const info = run.prepared.info;
      if (run.last) {
        rows.push([t('train.stat.loss'), t('train.lossValue', { loss: run.last.loss.toFixed(4), smoothed: smoothedLast.toFixed(4) })]);
        rows.push([t('train.stat.perplexity'), fmt(Math.exp(smoothedLast), 1)]);
        rows.push([t('train.stat.lr'), run.last.lr.toExponential(2)]);
        rows.push([
          t('train.stat.epoch'),
          t('train.epochOf', {
            epoch: run.last.epoch + 1,
            epochs: run.options.epochs,
            batch: run.last.batch,
            per: run.prepared.trainer.batchesPerEpoch,
          }),
        ]);
      }
      rows.push([t('train.stat.batches'), `${fmt(step)} / ${fmt(total)}`]);
      rows.push([t('train.stat.speed'), seconds > 0 ? t('train.tokensPerSecond', { n: fmt(tr.positions / seconds) }) : '–']);
      rows.push([t('train.stat.eta'), run.state === 'done' ? clock(0) : clock(perBatch * (total - step))]);
      rows.push([t('train.stat.elapsed'), clock(seconds)]);
      const m = tr.memory;
      rows.push([
        t('train.stat.memory'),
        t('train.memory', {
          total: mib(m.total),
          weights: mib(m.weights + m.modelWeights),
          adam: mib(m.adam),
          grads: mib(m.gradients),
          acts: mib(m.activations),
        }),
      ]);
      rows.push([
        t('train.stat.model'),
        t('train.modelShape', {
          params: fmt(info.parameters),
          layers: info.num_hidden_layers,
          hidden: info.hidden_size,
          heads: info.num_attention_heads,
          kv: info.num_key_value_heads,
        }),
      ]);
      rows.push([
        t('train.stat.data'),
        t('train.dataShape', {
          texts: fmt(d.texts),
          samples: fmt(d.samples),
          len: run.prepared.trainer.maxSeqLen,
          padding: fmt((100 * d.padding) / Math.max(1, d.samples * run.prepared.trainer.maxSeqLen), 0),
        }),
      ]);
    }
    // The same rows again only change their text (no new nodes for a number that changed).
    const dl = this.element;
    if (dl.children.length !== rows.length) dl.replaceChildren(...rows.map(() => make('div', {}, make('dt'), make('dd'))));
    rows.forEach(([term, value], k) => {
      const [dt, dd] = dl.children[k].children;
      setText(dt, term);
      setText(dd, value);
    });
  }
}
