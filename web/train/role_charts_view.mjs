// The Train panel's head-role card: one small chart per role (pronoun,
// induction, previous-token; js/head_formation_events.mjs FORMING_KINDS)
// with every head's score over the snapshots: the best head of the newest
// snapshot in the role's colour, the head shown in the attention card
// dashed, the others faint; the role's threshold as a line and a mark where
// each head formed. A key of head buttons chooses (pins) the head shown.
// Values are the snapshots' own: nothing here computes a score.
import { FORMING_KINDS, bestHead } from '../../js/head_formation_events.mjs';
import { ROLE_THRESHOLDS } from '../../js/head_roles.mjs';
import { LineChart } from '../views/line_chart.mjs';
import { make } from './dom.mjs';

/** A colour per role (Okabe–Ito, colour-blind safe). */
export const ROLE_COLORS = Object.freeze({ pronoun: '#D55E00', induction: '#0072B2', previousToken: '#009E73' });
const FAINT = 'rgba(110, 110, 110, 0.3)';

export class RoleChartsView {
  #t;
  #snapshots;
  #onSelect;
  #charts = {};
  #drawn = null;
  #keyShape = '';

  /** t(key, params); snapshots: the run's SnapshotStore; onSelect(layer, head): a head's key pressed. */
  constructor({ t, snapshots, onSelect }) {
    this.#t = t;
    this.#snapshots = snapshots;
    this.#onSelect = onSelect;
    const cells = FORMING_KINDS.map((kind) => {
      const canvas = make('canvas', { role: 'img', 'data-score': kind });
      const title = make('figcaption', {});
      const note = make('p', { class: 'train-score-note' });
      this.#charts[kind] = { canvas, title, note, chart: null };
      return make('figure', { class: 'train-score' }, title, make('div', { class: 'train-chart-wrap' }, canvas), note);
    });
    this.key = make('div', { class: 'train-head-key', role: 'group' });
    this.element = make(
      'section',
      { class: 'train-card train-roles' },
      make('h3', { i18n: 'train.scoresTitle' }),
      make('p', { class: 'hint small', i18n: 'train.scoresHint' }),
      make('div', { class: 'train-scores' }, make('div', { class: 'train-scores-grid' }, ...cells), this.key),
    );
  }

  /** Makes the charts: once the element is in the document (a chart measures its container). */
  attach() {
    for (const kind of FORMING_KINDS) this.#charts[kind].chart = new LineChart(this.#charts[kind].canvas, { height: 120 });
  }

  forget() {
    this.#drawn = null;
  }

  /**
   * layers, heads; layer, head: the head shown; cursor: the step shown (or
   * null); totalBatches: the run's last batch; events: the forming events
   * so far (FormationTracker.events); lang.
   */
  render({ layers, heads, layer, head, cursor, totalBatches, events, lang }) {
    const t = this.#t;
    const snapshots = this.#snapshots;
    const latest = snapshots.latest();
    const key = JSON.stringify([snapshots.length, latest?.step, cursor, layer, head, totalBatches, events.length, lang]);
    if (this.#drawn === key) return;
    this.#drawn = key;
    const name = (l, h) => t('train.headShort', { layer: l, head: h });
    for (const kind of FORMING_KINDS) {
      const { canvas, title, note, chart } = this.#charts[kind];
      const best = bestHead(latest?.scores, kind);
      const series = [];
      const line = (l, h, style) => {
        const points = snapshots.scoreSeries(kind, l, h);
        return { x: points.map((p) => p.step), y: points.map((p) => p.value), ...style };
      };
      for (let l = 0; l < layers; l += 1)
        for (let h = 0; h < heads; h += 1) {
          const isBest = best && l === best.layer && h === best.head;
          const isShown = l === layer && h === head;
          if (!isBest && !isShown) series.push(line(l, h, { color: FAINT, width: 1 }));
        }
      if (!(best && best.layer === layer && best.head === head))
        series.push(line(layer, head, { color: '#333', width: 1.5, dash: [4, 3] }));
      if (best) series.push(line(best.layer, best.head, { color: ROLE_COLORS[kind], width: 2.5 }));
      const formedHere = events.filter((e) => e.kind === kind);
      chart.render({
        series,
        xMax: totalBatches || 1,
        xExact: Boolean(totalBatches),
        yLeft: [0, 1],
        cursor,
        rules: [{ y: ROLE_THRESHOLDS[kind], color: ROLE_COLORS[kind], label: t('train.threshold', { value: ROLE_THRESHOLDS[kind] }) }],
        marks: formedHere.map((e) => ({ x: e.step, color: ROLE_COLORS[kind], label: name(e.layer, e.head) })),
      });
      title.textContent = t(`train.score.${kind}`);
      title.style.color = ROLE_COLORS[kind];
      const formed = formedHere[0] ? t('train.roleFormedAt', { step: formedHere[0].step }) : t('train.roleNotYet');
      note.textContent = best
        ? `${t('train.roleBest', { layer: best.layer, head: best.head, value: best.value.toFixed(2) })} · ${formed}`
        : '';
      canvas.setAttribute(
        'aria-label',
        best
          ? t('train.roleLabel', {
              kind: t(`train.score.${kind}`),
              layer: best.layer,
              head: best.head,
              value: best.value.toFixed(3),
              formed,
            })
          : t(`train.score.${kind}`),
      );
    }
    this.#renderKey(layers, heads, layer, head, name);
  }

  #renderKey(layers, heads, layer, head, name) {
    const shape = `${layers}x${heads}`;
    if (shape !== this.#keyShape) {
      this.#keyShape = shape;
      const buttons = [];
      for (let l = 0; l < layers; l += 1)
        for (let h = 0; h < heads; h += 1) {
          const button = make('button', { type: 'button', 'data-layer': l, 'data-head': h });
          button.addEventListener('click', () => this.#onSelect(l, h));
          buttons.push(button);
        }
      this.key.replaceChildren(...buttons);
    }
    this.key.setAttribute('aria-label', this.#t('train.headKey'));
    for (const button of this.key.children) {
      const l = Number(button.dataset.layer);
      const h = Number(button.dataset.head);
      button.textContent = name(l, h);
      button.setAttribute('aria-pressed', String(l === layer && h === head));
    }
  }
}
