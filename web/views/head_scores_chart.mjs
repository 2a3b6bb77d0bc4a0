// Head-role scores over a training run: one small chart per score
// (previous-token, induction, pronoun; js/head_roles.mjs lightHeadProbes),
// every head of every layer a line over the snapshots' steps, the chosen
// head drawn thick, and a key of head buttons (one per head, in its line's
// colour) that choose a head. Values are the snapshots' own: nothing here
// computes a score.
import { LineChart } from './line_chart.mjs';

export const SCORE_KINDS = Object.freeze(['previousToken', 'induction', 'pronoun']);

// Ten distinguishable line colours (one per head; more heads reuse them with a dash).
const PALETTE = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2', '#7f7f7f', '#bcbd22', '#17becf'];

/** The line style of head (layer, head) among `heads` per layer: {color, dash}. */
export function headStyle(layer, head, heads) {
  const k = layer * heads + head;
  return { color: PALETTE[k % PALETTE.length], dash: k >= PALETTE.length ? [4, 3] : [] };
}

export class HeadScoresChart {
  #charts = {};
  #titles = {};
  #key;
  #onSelect;
  #keyShape = '';

  /** container: an element to fill; onSelect(layer, head) when a head's key is pressed. */
  constructor(container, { onSelect } = {}) {
    this.#onSelect = onSelect;
    const grid = document.createElement('div');
    grid.className = 'train-scores-grid';
    for (const kind of SCORE_KINDS) {
      const cell = document.createElement('figure');
      cell.className = 'train-score';
      const title = document.createElement('figcaption');
      const wrap = document.createElement('div');
      wrap.className = 'train-chart-wrap';
      const canvas = document.createElement('canvas');
      canvas.dataset.score = kind;
      canvas.setAttribute('role', 'img');
      wrap.append(canvas);
      cell.append(title, wrap);
      grid.append(cell);
      this.#titles[kind] = title;
      this.#charts[kind] = { canvas, chart: null };
    }
    this.#key = document.createElement('div');
    this.#key.className = 'train-head-key';
    this.#key.setAttribute('role', 'group');
    container.replaceChildren(grid, this.#key);
    // Charts measure their container: made once it is in the document.
    for (const kind of SCORE_KINDS) this.#charts[kind].chart = new LineChart(this.#charts[kind].canvas, { height: 120 });
  }

  /**
   * snapshots: a SnapshotStore; layers, heads; current: {layer, head};
   * cursor: the step shown; xMax; titles: {kind: text}; headName(layer,
   * head): a head's short name; keyLabel: the key's accessible name;
   * describe(kind, values): the canvas's accessible text.
   */
  render({ snapshots, layers, heads, current, cursor, xMax, titles, headName, keyLabel, describe }) {
    for (const kind of SCORE_KINDS) {
      this.#titles[kind].textContent = titles[kind];
      const series = [];
      let chosen = null;
      for (let layer = 0; layer < layers; layer += 1) {
        for (let head = 0; head < heads; head += 1) {
          const points = snapshots.scoreSeries(kind, layer, head);
          const style = headStyle(layer, head, heads);
          const line = { x: points.map((p) => p.step), y: points.map((p) => p.value), color: style.color, dash: style.dash, width: 1 };
          if (layer === current.layer && head === current.head) chosen = { ...line, width: 3 };
          else series.push(line);
        }
      }
      if (chosen) series.push(chosen); // on top
      this.#charts[kind].chart.render({ series, xMax, yLeft: [0, 1], cursor });
      const shownValue = snapshots.at(cursor)?.scores?.[kind]?.[current.layer]?.[current.head];
      this.#charts[kind].canvas.setAttribute('aria-label', describe(kind, shownValue));
    }
    this.#renderKey(layers, heads, current, headName, keyLabel);
  }

  #renderKey(layers, heads, current, headName, keyLabel) {
    const shape = `${layers}x${heads}`;
    if (shape !== this.#keyShape) {
      this.#keyShape = shape;
      const buttons = [];
      for (let layer = 0; layer < layers; layer += 1) {
        for (let head = 0; head < heads; head += 1) {
          const button = document.createElement('button');
          button.type = 'button';
          button.dataset.layer = String(layer);
          button.dataset.head = String(head);
          const swatch = document.createElement('span');
          swatch.className = 'swatch';
          const style = headStyle(layer, head, heads);
          swatch.style.background = style.color;
          if (style.dash.length) swatch.style.backgroundImage = 'repeating-linear-gradient(90deg, transparent 0 3px, #fff 3px 5px)';
          const text = document.createElement('span');
          button.append(swatch, text);
          button.addEventListener('click', () => this.#onSelect?.(layer, head));
          buttons.push(button);
        }
      }
      this.#key.replaceChildren(...buttons);
    }
    this.#key.setAttribute('aria-label', keyLabel);
    for (const button of this.#key.children) {
      const layer = Number(button.dataset.layer);
      const head = Number(button.dataset.head);
      button.lastChild.textContent = headName(layer, head);
      button.setAttribute('aria-pressed', String(layer === current.layer && head === current.head));
    }
  }
}
