// The component's heatmap: the page's drawing (queries as rows, keys as
// columns, token labels and axis titles laid out by matrix_layout.mjs as on
// the page and in the exports, masked future cells hatched, the page's
// colour scales) fitted into a box of a given width and, when the element
// has a height, a given height. The page's view sizes itself from its
// parent's width only, which a course page's fixed-height figure cannot
// use. Labels are drawn with fillText: token text is never parsed as HTML.
import { hatchPattern, textColorOn } from '../colors.mjs';
import { cellAtPoint, drawLabels, LABEL_SIZE, labelFont, labelSummary, matrixLayout } from '../views/matrix_layout.mjs';

const MAX_CELL = 56; // as the page
const MIN_CELL = 8;

/**
 * Where everything goes for `tokens` in width × height CSS pixels (height
 * null: as tall as the matrix needs), with the axis titles {query, key} (or
 * none): matrix_layout.mjs's layout. Cells are square, at most the page's size.
 */
export function layoutFigure(ctx, tokens, width, height, titles = null) {
  const widths = new Map();
  const measure = (text, size) => {
    const key = `${size}|${text}`;
    if (!widths.has(key)) {
      ctx.font = labelFont(size);
      widths.set(key, ctx.measureText(text).width);
    }
    return widths.get(key);
  };
  // In a fixed height, long tokens take at most a fifth of it (cut with "…"), so the matrix keeps its room.
  const base = { tokens, measure, titles, width, height, minCell: MIN_CELL, maxCell: MAX_CELL };
  if (height !== null) base.maxLabel = Math.max(40, Math.round(height / 5));
  const layout = matrixLayout(base);
  // Rows lower than the page's text: smaller labels (and so more room for the cells).
  return layout.cell >= 17 ? layout : matrixLayout({ ...base, fontSize: Math.max(8, Math.min(LABEL_SIZE, layout.cell - 3)) });
}

/**
 * Draws the matrix: {tokens, values: Float32Array [T·T], masked(i, j),
 * scale: {color}, decimals, focus: {i, j} | null} at `layout`.
 */
export function drawFigure(canvas, layout, { tokens, values, masked, scale, decimals, focus }) {
  const ratio = globalThis.devicePixelRatio || 1;
  canvas.width = Math.round(layout.width * ratio);
  canvas.height = Math.round(layout.height * ratio);
  canvas.style.width = `${layout.width}px`;
  canvas.style.height = `${layout.height}px`;
  const ctx = canvas.getContext('2d');
  ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
  ctx.clearRect(0, 0, layout.width, layout.height);
  const T = tokens.length;
  const { cell, left, top } = layout;
  const hatch = hatchPattern(ctx);
  ctx.textAlign = 'center';
  ctx.textBaseline = 'middle';
  for (let i = 0; i < T; i += 1) {
    for (let j = 0; j < T; j += 1) {
      const x = left + j * cell;
      const y = top + i * cell;
      if (masked(i, j)) {
        ctx.fillStyle = hatch;
        ctx.fillRect(x, y, cell, cell);
        continue;
      }
      const fill = scale.color(values[i * T + j]);
      ctx.fillStyle = fill;
      ctx.fillRect(x, y, cell, cell);
      if (cell >= 34) {
        ctx.fillStyle = textColorOn(fill);
        ctx.font = '11px system-ui, sans-serif';
        ctx.fillText(values[i * T + j].toFixed(decimals), x + cell / 2, y + cell / 2);
      }
    }
  }
  ctx.strokeStyle = 'rgba(255,255,255,0.6)';
  ctx.lineWidth = 1;
  ctx.beginPath();
  for (let k = 0; k <= T; k += 1) {
    ctx.moveTo(left + k * cell + 0.5, top);
    ctx.lineTo(left + k * cell + 0.5, top + T * cell);
    ctx.moveTo(left, top + k * cell + 0.5);
    ctx.lineTo(left + T * cell, top + k * cell + 0.5);
  }
  ctx.stroke();
  if (focus) {
    ctx.strokeStyle = '#000';
    ctx.lineWidth = 3;
    ctx.strokeRect(left + focus.j * cell + 1.5, top + focus.i * cell + 1.5, cell - 3, cell - 3);
    ctx.strokeStyle = '#fff';
    ctx.lineWidth = 1;
    ctx.strokeRect(left + focus.j * cell + 1.5, top + focus.i * cell + 1.5, cell - 3, cell - 3);
  }
  // Labels: queries on the left, keys on top (every step-th when cells are small); the focused cell's in bold.
  drawLabels(ctx, layout, { bold: { row: focus?.i, col: focus?.j } });
  const summary = JSON.stringify(labelSummary(layout));
  if (canvas.dataset.layout !== summary) canvas.dataset.layout = summary;
}

/** The cell {i, j} under (x, y) CSS pixels from the canvas's corner, or null. */
export function cellAt(layout, T, x, y) {
  return cellAtPoint(layout, x, y);
}
