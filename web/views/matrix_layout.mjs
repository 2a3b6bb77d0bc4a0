// Where a [T, T] attention matrix and its labels go, worked out once for
// every place that draws one: the page's heatmap and the course element
// (canvas) and the exported figure (PNG and SVG). Queries are rows with
// their tokens on the left, keys are columns with their tokens on top
// (upright when they fit, else turned to read upwards), and one line above
// names the axes: "query (looking) ↓" over the row labels, "key (looked at)
// →" over the column labels.
//
// Labels never overprint: when the cells are smaller than a line of text,
// only every k-th token is labelled (k = ⌈line height / cell⌉, the same k
// on both axes); the hidden ones are read in the cell's tooltip. A label
// longer than its room is cut with "…", here, so that every output draws
// the same strings.
//
// Units are CSS pixels from the drawing's top-left corner (plus `x`, `y`);
// measure(text, size) -> width in px.

export const LABEL_FAMILY = 'system-ui, "Noto Sans CJK SC", "PingFang SC", "Microsoft YaHei", sans-serif';
export const LABEL_SIZE = 13;
const TITLE_SIZE = 12;
const GAP = 6; // between a label and the matrix
const PAD = 4; // right of and under the matrix (the focus outline's room)
const MAX_LABEL = 140; // a label's room at most (unless told less); longer ones are cut

export const labelFont = (size = LABEL_SIZE, bold = false) => `${bold ? 'bold ' : ''}${size}px ${LABEL_FAMILY}`;

/** text cut with "…" to at most maxWidth px. */
function fitText(text, maxWidth, size, measure) {
  if (measure(text, size) <= maxWidth) return text;
  const chars = [...text];
  let lo = 0;
  let hi = chars.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (measure(`${chars.slice(0, mid).join('')}…`, size) <= maxWidth) lo = mid;
    else hi = mid - 1;
  }
  return `${chars.slice(0, lo).join('')}…`;
}

/** Every step-th index of 0..T-1 (the labels drawn). */
function labelled(T, step) {
  const out = [];
  for (let k = 0; k < T; k += step) out.push(k);
  return out;
}

/**
 * tokens: strings [T]; measure(text, size); titles: {query, key} or null;
 * width: the room across (the matrix shrinks to it, down to minCell);
 * height: the room down, or null (as tall as the matrix needs); cell: a
 * fixed cell size instead (an export of the page's matrix); fontSize and
 * maxLabel: the labels' size and their room at most; x, y: where the
 * drawing starts.
 *
 * Returns {T, cell, step, fontSize, lineHeight, upright, x, y, left, top,
 * width, height, rows, cols, titles}: left, top are where the matrix starts
 * (absolute); rows and cols are the labels drawn, {index, text, x, y, box:
 * {x, y, w, h}} (a column label turned upwards starts at its x, y);
 * titles: {role, text, x, y, size, box}. Every label's box is where its text
 * is: no two overlap.
 */
export function matrixLayout({
  tokens,
  measure,
  titles = null,
  width = Infinity,
  height = null,
  cell: fixedCell = null,
  minCell = 10,
  maxCell = 56,
  fontSize = LABEL_SIZE,
  maxLabel = MAX_LABEL,
  x = 0,
  y = 0,
}) {
  const T = Math.max(1, tokens.length);
  const widths = tokens.map((token) => measure(token, fontSize));
  const widest = Math.max(0, ...widths);
  const lineHeight = Math.ceil(fontSize * 1.25);
  const labelRoom = Math.min(maxLabel, Math.max(24, widest));
  const left0 = labelRoom + GAP + 4;
  const titleWidths = titles ? { query: measure(titles.query, TITLE_SIZE), key: measure(titles.key, TITLE_SIZE) } : null;
  const titleBand = titles ? TITLE_SIZE + 10 : 0;

  const cellFor = (top) => {
    if (fixedCell) return fixedCell;
    let cell = Math.floor((width - left0 - PAD) / T);
    if (height !== null) cell = Math.min(cell, Math.floor((height - top - PAD) / T));
    return Math.max(minCell, Math.min(maxCell, cell));
  };
  const uprightBand = lineHeight + GAP + 2;
  let cell = cellFor(titleBand + uprightBand);
  let step = Math.ceil(lineHeight / cell);
  // Upright column labels when the widest fits between two drawn labels; else turned upwards.
  let upright = widest + 4 <= step * cell;
  let colBand = upright ? uprightBand : labelRoom + GAP + 4;
  if (!upright) {
    cell = cellFor(titleBand + colBand);
    step = Math.ceil(lineHeight / cell);
  }
  const left = x + left0;
  const top = y + titleBand + colBand;
  const matrixRight = left + cell * tokens.length;

  const rows = labelled(tokens.length, step).map((i) => {
    const text = fitText(tokens[i], labelRoom, fontSize, measure);
    const w = measure(text, fontSize);
    const cy = top + i * cell + cell / 2;
    return { index: i, text, x: left - GAP, y: cy, box: { x: left - GAP - w, y: cy - lineHeight / 2, w, h: lineHeight } };
  });
  const cols = labelled(tokens.length, step).map((j) => {
    const text = fitText(tokens[j], labelRoom, fontSize, measure);
    const w = measure(text, fontSize);
    const cx = left + j * cell + cell / 2;
    if (upright) {
      const cy = top - GAP - lineHeight / 2;
      return { index: j, text, x: cx, y: cy, box: { x: cx - w / 2, y: cy - lineHeight / 2, w, h: lineHeight } };
    }
    const y0 = top - GAP;
    return { index: j, text, x: cx, y: y0, box: { x: cx - lineHeight / 2, y: y0 - w, w: lineHeight, h: w } };
  });

  const out = { T: tokens.length, cell, step, fontSize, lineHeight, upright, x, y, left, top, rows, cols, titles: [] };
  let right = matrixRight + PAD;
  if (titles) {
    const cy = y + titleBand / 2;
    const keyX = Math.max(left, x + titleWidths.query + 16);
    out.titles = [
      { role: 'query', text: titles.query, x, y: cy, size: TITLE_SIZE },
      { role: 'key', text: titles.key, x: keyX, y: cy, size: TITLE_SIZE },
    ].map((title) => ({ ...title, box: { x: title.x, y: cy - TITLE_SIZE * 0.65, w: titleWidths[title.role], h: TITLE_SIZE * 1.3 } }));
    right = Math.max(right, keyX + titleWidths.key + PAD);
  }
  out.width = Math.ceil(right - x);
  out.height = Math.ceil(top + cell * tokens.length + PAD - y);
  return out;
}

/** The cell {i, j} under (px, py) in the layout's units, or null. */
export function cellAtPoint(layout, px, py) {
  const i = Math.floor((py - layout.top) / layout.cell);
  const j = Math.floor((px - layout.left) / layout.cell);
  return i >= 0 && i < layout.T && j >= 0 && j < layout.T ? { i, j } : null;
}

/** A cell's box {x, y, w, h} in the layout's units. */
export function cellBox(layout, { i, j }) {
  return { x: layout.left + j * layout.cell, y: layout.top + i * layout.cell, w: layout.cell, h: layout.cell };
}

/**
 * Draws the layout's labels and axis titles with fillText (token text is
 * never parsed as HTML). bold: {row, col} indices drawn bold (or none).
 */
export function drawLabels(ctx, layout, { ink = '#1a1a1a', muted = '#555555', bold = {} } = {}) {
  ctx.save();
  ctx.fillStyle = ink;
  ctx.textBaseline = 'middle';
  ctx.textAlign = 'right';
  for (const row of layout.rows) {
    ctx.font = labelFont(layout.fontSize, row.index === bold.row);
    ctx.fillText(row.text, row.x, row.y);
  }
  for (const col of layout.cols) {
    ctx.font = labelFont(layout.fontSize, col.index === bold.col);
    if (layout.upright) {
      ctx.textAlign = 'center';
      ctx.fillText(col.text, col.x, col.y);
    } else {
      ctx.save();
      ctx.translate(col.x, col.y);
      ctx.rotate(-Math.PI / 2);
      ctx.textAlign = 'left';
      ctx.fillText(col.text, 0, 0);
      ctx.restore();
    }
  }
  ctx.fillStyle = muted;
  ctx.textAlign = 'left';
  for (const title of layout.titles) {
    ctx.font = labelFont(title.size);
    ctx.fillText(title.text, title.x, title.y);
  }
  ctx.restore();
}

/** The labels drawn and their boxes (rounded), for tests and scripts: {cell, step, left, top, T, rows, cols, titles, boxes}. */
export function labelSummary(layout) {
  const round = (b) => [b.x, b.y, b.w, b.h].map((v) => Math.round(v * 10) / 10);
  return {
    cell: layout.cell,
    step: layout.step,
    left: layout.left,
    top: layout.top,
    T: layout.T,
    rows: layout.rows.map((r) => r.index),
    cols: layout.cols.map((c) => c.index),
    titles: layout.titles.map((title) => title.text),
    boxes: [...layout.rows, ...layout.cols, ...layout.titles].map((label) => round(label.box)),
  };
}
