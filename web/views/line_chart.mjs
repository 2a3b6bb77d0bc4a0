// A small line chart on a high-DPI canvas, for training curves: series of
// (x, y) points against a left and, optionally, a right y axis of their own
// (the loss and the learning rate), nice round ticks, an optional vertical
// cursor (the step a snapshot shows) and a legend. Many points (a long run)
// are drawn as each pixel column's first, lowest, highest and last point,
// so a redraw costs the canvas's width, not the run's length. Text is drawn
// with fillText. The scaling functions are pure and tested in Node.

const FONT = '11px system-ui, "Noto Sans CJK SC", "PingFang SC", sans-serif';

/**
 * Round ticks covering [min, max]: {min, max, step, ticks}, the range
 * widened to whole steps of 1, 2 or 5 × 10^k, about `count` of them. A range
 * of one value is widened around it.
 */
export function niceTicks(min, max, count = 5) {
  if (!Number.isFinite(min) || !Number.isFinite(max)) return { min: 0, max: 1, step: 0.2, ticks: [0, 0.2, 0.4, 0.6, 0.8, 1] };
  if (max < min) [min, max] = [max, min];
  if (max === min) {
    const pad = min === 0 ? 1 : Math.abs(min) * 0.1;
    min -= pad;
    max += pad;
  }
  const raw = (max - min) / Math.max(1, count);
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * magnitude).find((s) => s >= raw * (1 - 1e-9));
  const lo = Math.floor(min / step + 1e-9) * step;
  const hi = Math.ceil(max / step - 1e-9) * step;
  const ticks = [];
  for (let k = 0; lo + k * step <= hi + step * 1e-9; k += 1) ticks.push(roundTo(lo + k * step, step));
  return { min: lo, max: hi, step, ticks };
}

// A tick's value without floating-point dust (0.30000000000000004 -> 0.3).
function roundTo(value, step) {
  const decimals = Math.max(0, -Math.floor(Math.log10(step)) + 1);
  return Number(value.toFixed(Math.min(20, decimals)));
}

/** A linear map from [d0, d1] to [r0, r1] (d0 = d1 maps to the range's middle), with invert(). */
export function linearScale([d0, d1], [r0, r1]) {
  const span = d1 - d0;
  const scale = (v) => (span === 0 ? (r0 + r1) / 2 : r0 + ((v - d0) / span) * (r1 - r0));
  scale.invert = (p) => (r1 === r0 ? d0 : d0 + ((p - r0) / (r1 - r0)) * span);
  return scale;
}

/** [min, max] of the finite values (null when there are none). */
export function extent(values) {
  let min = Infinity;
  let max = -Infinity;
  for (let i = 0; i < values.length; i += 1) {
    const v = values[i];
    if (!Number.isFinite(v)) continue;
    if (v < min) min = v;
    if (v > max) max = v;
  }
  return min <= max ? [min, max] : null;
}

/**
 * The points to draw of a series with ascending x, at most about 4 per pixel
 * column: of the points falling in each column (px(x) rounded down), the
 * first, the lowest, the highest and the last, in x order. Returns the
 * indices kept. A series with fewer points than 2 × columns keeps them all.
 */
export function decimate(xs, ys, px, columns) {
  const n = ys.length;
  const all = [];
  if (n <= 2 * columns) {
    for (let i = 0; i < n; i += 1) if (Number.isFinite(ys[i])) all.push(i);
    return all;
  }
  const kept = [];
  let column = null;
  let first = -1;
  let low = -1;
  let high = -1;
  let last = -1;
  const flush = () => {
    if (first < 0) return;
    for (const i of [...new Set([first, low, high, last])].sort((a, b) => a - b)) kept.push(i);
  };
  for (let i = 0; i < n; i += 1) {
    if (!Number.isFinite(ys[i])) continue;
    const c = Math.floor(px(xs ? xs[i] : i + 1));
    if (c !== column) {
      flush();
      column = c;
      first = low = high = last = i;
    } else {
      last = i;
      if (ys[i] < ys[low]) low = i;
      if (ys[i] > ys[high]) high = i;
    }
  }
  flush();
  return kept;
}

/** A tick's text: few significant digits, exponent form for small learning rates. */
export function tickLabel(value, step) {
  if (value === 0) return '0';
  if (Math.abs(value) < 1e-3 || Math.abs(value) >= 1e5)
    return value.toExponential(Math.max(0, Math.min(3, Math.round(-Math.log10(step / Math.abs(value))))));
  const decimals = Math.max(0, Math.min(6, -Math.floor(Math.log10(step))));
  return value.toFixed(decimals);
}

export class LineChart {
  #canvas;
  #ctx;
  #width = 320;
  #height;
  #model = null;

  /** canvas: a <canvas> in a container that sets its width; height in CSS px. */
  constructor(canvas, { height = 160 } = {}) {
    this.#canvas = canvas;
    this.#ctx = canvas.getContext('2d');
    this.#height = height;
    const container = canvas.parentElement;
    if (container) this.#width = Math.max(160, container.clientWidth || 320);
    if (container && globalThis.ResizeObserver) {
      new ResizeObserver((entries) => {
        const width = Math.max(160, Math.floor(entries.at(-1).contentRect.width));
        if (width === this.#width) return;
        this.#width = width;
        if (this.#model) this.#draw();
      }).observe(container);
    }
  }

  get canvas() {
    return this.#canvas;
  }

  /**
   * model: {series: [{x?: ArrayLike (default 1, 2, …), y: ArrayLike, color,
   * width?, dash?, axis?: 'left' | 'right', label?}], xMax?, yLeft?: [min,
   * max], yRight?: [min, max], cursor?: x, xLabel?, empty?: text shown
   * without points, xExact?: the x axis ends at xMax itself (not at a round
   * tick past it), rules?: [{y, color, dash?, label?, axis?}] horizontal
   * reference lines (the axis widened to show them), marks?: [{x, color,
   * label?}] vertical lines with a label at their top}
   */
  render(model) {
    this.#model = model;
    this.#draw();
  }

  #draw() {
    const model = this.#model;
    const ratio = globalThis.devicePixelRatio || 1;
    const W = this.#width;
    const H = this.#height;
    const canvas = this.#canvas;
    if (canvas.width !== Math.round(W * ratio) || canvas.height !== Math.round(H * ratio)) {
      canvas.width = Math.round(W * ratio);
      canvas.height = Math.round(H * ratio);
      canvas.style.width = `${W}px`;
      canvas.style.height = `${H}px`;
    }
    const ctx = this.#ctx;
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.clearRect(0, 0, canvas.width, canvas.height);
    ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
    ctx.font = FONT;
    const left = model.series.filter((s) => (s.axis ?? 'left') === 'left');
    const right = model.series.filter((s) => s.axis === 'right');
    const hasRight = right.some((s) => s.y.length > 0);
    // The legend: a swatch and a label per labelled series, in rows as wide as the chart.
    const legend = [];
    let lx = 44;
    let row = 0;
    for (const s of model.series) {
      if (!s.label) continue;
      const width = 18 + ctx.measureText(s.label).width + 12;
      if (lx > 44 && lx + width > W - 4) ((row += 1), (lx = 44));
      legend.push({ s, x: lx, y: 8 + row * 16 });
      lx += width;
    }
    const legendHeight = legend.length ? 16 * (row + 1) : 0;
    const box = { x0: 44, x1: W - (hasRight ? 52 : 10), y0: 8 + legendHeight, y1: H - 22 };
    const count = Math.max(0, ...model.series.map((s) => (s.x ? (s.x.length ? s.x[s.x.length - 1] : 0) : s.y.length)));
    const xMax = Math.max(1, model.xMax ?? count);
    const xTicks = niceTicks(0, xMax, Math.max(2, Math.floor((box.x1 - box.x0) / 70)));
    if (model.xExact) xTicks.ticks = xTicks.ticks.filter((tick) => tick <= xMax);
    const px = linearScale([0, model.xExact ? xMax : xTicks.max], [box.x0, box.x1]);
    const rules = model.rules ?? [];
    const rulesOf = (axis) => rules.filter((r) => (r.axis ?? 'left') === axis).map((r) => r.y);
    const axisOf = (series, given, ys) =>
      niceTicks(...widened(given ?? joined(series) ?? [0, 1], ys), Math.max(2, Math.floor((box.y1 - box.y0) / 28)));
    const yl = axisOf(left, model.yLeft, rulesOf('left'));
    const yr = hasRight ? axisOf(right, model.yRight, rulesOf('right')) : null;
    const pyl = linearScale([yl.min, yl.max], [box.y1, box.y0]);
    const pyr = yr ? linearScale([yr.min, yr.max], [box.y1, box.y0]) : null;

    // Grid and axes.
    ctx.strokeStyle = '#e3e3e3';
    ctx.lineWidth = 1;
    ctx.fillStyle = '#555';
    ctx.textBaseline = 'middle';
    ctx.textAlign = 'right';
    for (const tick of yl.ticks) {
      const y = Math.round(pyl(tick)) + 0.5;
      ctx.beginPath();
      ctx.moveTo(box.x0, y);
      ctx.lineTo(box.x1, y);
      ctx.stroke();
      ctx.fillText(tickLabel(tick, yl.step), box.x0 - 4, y);
    }
    if (yr) {
      ctx.textAlign = 'left';
      ctx.fillStyle = right[0].color;
      for (const tick of yr.ticks) ctx.fillText(tickLabel(tick, yr.step), box.x1 + 4, pyr(tick));
    }
    ctx.fillStyle = '#555';
    ctx.textAlign = 'center';
    ctx.textBaseline = 'top';
    for (const tick of xTicks.ticks) ctx.fillText(tickLabel(tick, xTicks.step), px(tick), box.y1 + 4);
    // The exact end gets its own label when the round ticks stop short of it by more than a label's width.
    if (model.xExact && px(xMax) - px(xTicks.ticks.at(-1) ?? 0) > 36) ctx.fillText(String(xMax), px(xMax) - 8, box.y1 + 4);
    ctx.strokeStyle = '#999';
    ctx.beginPath();
    ctx.moveTo(box.x0 + 0.5, box.y0);
    ctx.lineTo(box.x0 + 0.5, box.y1 + 0.5);
    ctx.lineTo(box.x1, box.y1 + 0.5);
    ctx.stroke();

    // Series.
    ctx.save();
    ctx.beginPath();
    ctx.rect(box.x0, box.y0 - 2, box.x1 - box.x0 + 2, box.y1 - box.y0 + 4);
    ctx.clip();
    for (const s of model.series) {
      const py = s.axis === 'right' ? pyr : pyl;
      if (!py || s.y.length === 0) continue;
      const xOf = (i) => (s.x ? s.x[i] : i + 1);
      const kept = decimate(s.x ?? null, s.y, px, Math.ceil(box.x1 - box.x0));
      ctx.strokeStyle = s.color;
      ctx.lineWidth = s.width ?? 1.5;
      ctx.setLineDash(s.dash ?? []);
      ctx.beginPath();
      kept.forEach((i, k) => (k === 0 ? ctx.moveTo(px(xOf(i)), py(s.y[i])) : ctx.lineTo(px(xOf(i)), py(s.y[i]))));
      if (kept.length === 1) ctx.arc(px(xOf(kept[0])), py(s.y[kept[0]]), 1.5, 0, 2 * Math.PI);
      ctx.stroke();
    }
    ctx.setLineDash([]);
    ctx.restore();
    // Reference lines, each labelled at its right end, above the line.
    ctx.textAlign = 'right';
    ctx.textBaseline = 'bottom';
    for (const r of rules) {
      const py = r.axis === 'right' ? pyr : pyl;
      if (!py || !Number.isFinite(r.y)) continue;
      const y = Math.round(py(r.y)) + 0.5;
      ctx.strokeStyle = r.color;
      ctx.lineWidth = 1;
      ctx.setLineDash(r.dash ?? [2, 3]);
      ctx.beginPath();
      ctx.moveTo(box.x0, y);
      ctx.lineTo(box.x1, y);
      ctx.stroke();
      ctx.setLineDash([]);
      if (r.label) {
        ctx.fillStyle = r.color;
        ctx.fillText(r.label, box.x1 - 2, y - 2);
      }
    }
    // Marks: a vertical line per event, its label at the top (alternate rows when two are close).
    ctx.textAlign = 'left';
    ctx.textBaseline = 'top';
    let lastLabelEnd = -Infinity;
    let labelRow = 0;
    for (const m of model.marks ?? []) {
      if (!Number.isFinite(m.x)) continue;
      const x = Math.round(px(m.x)) + 0.5;
      ctx.strokeStyle = m.color;
      ctx.lineWidth = 1.5;
      ctx.beginPath();
      ctx.moveTo(x, box.y0);
      ctx.lineTo(x, box.y1);
      ctx.stroke();
      if (m.label) {
        const width = ctx.measureText(m.label).width;
        const left = Math.min(x + 2, box.x1 - width);
        labelRow = left < lastLabelEnd ? labelRow + 1 : 0;
        lastLabelEnd = left + width + 4;
        ctx.fillStyle = m.color;
        ctx.fillText(m.label, left, box.y0 + 1 + labelRow * 12);
      }
    }
    if (Number.isFinite(model.cursor)) {
      const x = Math.round(px(model.cursor)) + 0.5;
      ctx.strokeStyle = '#d62728';
      ctx.lineWidth = 1;
      ctx.beginPath();
      ctx.moveTo(x, box.y0);
      ctx.lineTo(x, box.y1);
      ctx.stroke();
    }
    if (count === 0 && model.empty) {
      ctx.fillStyle = '#777';
      ctx.textAlign = 'center';
      ctx.textBaseline = 'middle';
      ctx.fillText(model.empty, (box.x0 + box.x1) / 2, (box.y0 + box.y1) / 2);
    }
    // Legend: a swatch and a label per labelled series, left to right.
    ctx.textAlign = 'left';
    ctx.textBaseline = 'middle';
    for (const { s, x, y } of legend) {
      ctx.strokeStyle = s.color;
      ctx.lineWidth = 2;
      ctx.setLineDash(s.dash ?? []);
      ctx.beginPath();
      ctx.moveTo(x, y);
      ctx.lineTo(x + 14, y);
      ctx.stroke();
      ctx.setLineDash([]);
      ctx.fillStyle = '#333';
      ctx.fillText(s.label, x + 18, y);
    }
    if (model.xLabel) {
      ctx.fillStyle = '#777';
      ctx.textAlign = 'right';
      ctx.textBaseline = 'bottom';
      ctx.fillText(model.xLabel, box.x1, box.y1 - 2);
    }
  }
}

// [min, max] widened to hold the values `ys` too.
function widened([min, max], ys) {
  for (const y of ys) if (Number.isFinite(y)) [min, max] = [Math.min(min, y), Math.max(max, y)];
  return [min, max];
}

// The extent of several series' y values together.
function joined(series) {
  let out = null;
  for (const s of series) {
    const e = extent(s.y);
    if (!e) continue;
    out = out ? [Math.min(out[0], e[0]), Math.max(out[1], e[1])] : e;
  }
  return out;
}
