// The component's heatmap: the page's drawing (web/views/heatmap.mjs: queries
// as rows, keys as columns, token labels on both axes, masked future cells
// hatched, the page's colour scales) fitted into a box of a given width and,
// when the element has a height, a given height. The page's view sizes
// itself from its parent's width only, which a course page's fixed-height
// figure cannot use. Labels are drawn with fillText: token text is never
// parsed as HTML.
import { hatchPattern, textColorOn } from '../colors.mjs';

const FAMILY = 'system-ui, "Noto Sans CJK SC", "PingFang SC", sans-serif';
const PAGE_FONT_SIZE = 13;
const MAX_CELL = 56; // as the page
const MIN_CELL = 8;
const SIN_60 = Math.sin(Math.PI / 3);

const font = (size, bold = false) => `${bold ? 'bold ' : ''}${size}px ${FAMILY}`;

/**
 * Where everything goes for `tokens` in width × height CSS pixels (height
 * null: as tall as the matrix needs): {cell, left, top, right, rotate,
 * fontSize, width, height}. Cells are square, at most the page's size.
 */
export function layoutFigure(ctx, tokens, width, height) {
  const T = tokens.length;
  ctx.font = font(PAGE_FONT_SIZE);
  const widths = tokens.map((t) => ctx.measureText(t).width);
  const widest = Math.max(0, ...widths);
  const fit = (fontSize) => {
    const k = fontSize / PAGE_FONT_SIZE;
    const left = Math.min(140, Math.max(24, widest * k)) + 10;
    const cellFor = (top, right) => {
      let cell = Math.floor((width - left - right) / T);
      if (height !== null) cell = Math.min(cell, Math.floor((height - top - 4) / T));
      return Math.max(MIN_CELL, Math.min(MAX_CELL, cell));
    };
    let top = fontSize + 11;
    let right = 4;
    let cell = cellFor(top, right);
    const rotate = widths.some((w) => w * k > cell - 4);
    if (rotate) {
      // Column labels at 60°: room above for their height, at the right for the last one's run.
      top = Math.min(140, widest * k * SIN_60) + 10;
      right = Math.max(4, Math.min(widest * k, (top - 8) / SIN_60) / 2 - cell / 2 + 4);
      cell = cellFor(top, right);
    }
    return { cell, left, top, right, rotate, fontSize, width: left + cell * T + right, height: top + cell * T + 4 };
  };
  const layout = fit(PAGE_FONT_SIZE);
  // Rows lower than the page's text: smaller labels rather than overlapping ones.
  return layout.cell >= 17 ? layout : fit(Math.max(8, Math.min(PAGE_FONT_SIZE, layout.cell - 3)));
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
  const { cell, left, top, fontSize } = layout;
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
  // Labels: queries on the left, keys on top; the focused cell's in bold.
  ctx.fillStyle = '#1a1a1a';
  ctx.textAlign = 'right';
  tokens.forEach((t, i) => {
    ctx.font = font(fontSize, focus?.i === i);
    ctx.fillText(t, left - 6, top + i * cell + cell / 2, left - 8);
  });
  tokens.forEach((t, j) => {
    ctx.font = font(fontSize, focus?.j === j);
    const x = left + j * cell + cell / 2;
    if (layout.rotate) {
      ctx.save();
      ctx.translate(x, top - 6);
      ctx.rotate(-Math.PI / 3);
      ctx.textAlign = 'left';
      ctx.fillText(t, 0, 0, (top - 8) / SIN_60);
      ctx.restore();
    } else {
      ctx.textAlign = 'center';
      ctx.fillText(t, x, top - 12, cell);
    }
  });
}

/** The cell {i, j} under (x, y) CSS pixels from the canvas's corner, or null. */
export function cellAt(layout, T, x, y) {
  const i = Math.floor((y - layout.top) / layout.cell);
  const j = Math.floor((x - layout.left) / layout.cell);
  return i >= 0 && i < T && j >= 0 && j < T ? { i, j } : null;
}
