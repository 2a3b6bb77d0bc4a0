// The exported figure, laid out once and drawn twice: as PNG (canvas, in
// export.mjs) and as SVG (svg_export.mjs), so that both show the same thing.
// A figure stands alone: an opaque white background, a title (model, layer,
// head, stage), a caption (the causal and √d switches, the shapes, the
// tokens, generation, heads switched off), the matrix with its token labels
// (queries as rows, keys as columns, masked cells hatched as on the page)
// and a colour bar with its range. The matrix, its labels (every k-th when
// cells are small) and axis titles are laid out by views/matrix_layout.mjs,
// as on the page.
//
// figureLayout returns {width, height, items, matrix, labels}, items in
// drawing order:
//   {kind: 'rect', role, x, y, w, h, fill | hatch: true, stroke?, i?, j?, value?}
//   {kind: 'text', role, x, y, text, size, weight, anchor, color, rotate?, baseline?, index?}
//   {kind: 'bar', role: 'colorbar', x, y, w, h, stops: [{offset, color}]}
// Units are CSS pixels; text is already cut to fit (…), so both outputs agree.
import { scaleFor, textColorOn } from './colors.mjs';
import { labelSummary, LABEL_FAMILY, matrixLayout } from './views/matrix_layout.mjs';

export const FIGURE_FONT = LABEL_FAMILY;
const FIGURE_BACKGROUND = '#ffffff';
const INK = '#1a1a1a';
const MUTED = '#555555';
const MARGIN = 20;
const MATRIX_WIDTH = 720; // the matrix with its row labels at most; cells of 10 to 48 px
const BAR = { width: 220, height: 14 };

const WIDE = /[\u1100-\u115f\u2e80-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6]/u;

/** Text width without a canvas (Node): CJK and full-width characters 1 em, others 0.6 em. */
function approximateWidth(text, size) {
  let width = 0;
  for (const ch of text) width += WIDE.test(ch) ? size : 0.6 * size;
  return width;
}

/** measure(text, size, weight) -> width in px, from a canvas when there is one. */
export function canvasMeasure() {
  if (typeof OffscreenCanvas === 'undefined') return (text, size) => approximateWidth(text, size);
  const ctx = new OffscreenCanvas(1, 1).getContext('2d');
  const widths = new Map();
  return (text, size, weight = 'normal') => {
    const key = `${size}|${weight}|${text}`;
    let width = widths.get(key);
    if (width === undefined) {
      ctx.font = `${weight} ${size}px ${FIGURE_FONT}`;
      width = ctx.measureText(text).width;
      widths.set(key, width);
    }
    return width;
  };
}

/** text cut with "…" to at most maxWidth. */
function fit(text, maxWidth, size, weight, measure) {
  if (measure(text, size, weight) <= maxWidth) return text;
  const chars = [...text];
  let lo = 0;
  let hi = chars.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (measure(`${chars.slice(0, mid).join('')}…`, size, weight) <= maxWidth) lo = mid;
    else hi = mid - 1;
  }
  return `${chars.slice(0, lo).join('')}…`;
}

/** Words (kept whole when they fit) wrapped into lines of at most maxWidth. */
function wrap(words, separator, maxWidth, size, measure, weight = 'normal') {
  const lines = [];
  let line = '';
  for (const word of words) {
    const next = line ? `${line}${separator}${word}` : word;
    if (line && measure(next, size, weight) > maxWidth) {
      lines.push(line);
      line = fit(word, maxWidth, size, weight, measure);
    } else line = line ? next : fit(word, maxWidth, size, weight, measure);
  }
  if (line) lines.push(line);
  return lines;
}

/** A figure's title and caption lines from the export's description (see export.mjs). */
export function figureText(view, t) {
  const onOff = (on) => t(on ? 'lesson.on' : 'lesson.off');
  const caption = [
    t('export.switches', {
      causal: onOff(view.causal),
      scale: onOff(view.scale),
      shape: `[${view.H}, ${view.T}, ${view.T}]`,
      head: view.head,
      T: view.T,
    }),
  ];
  if (view.generation) caption.push(t('export.generated', view.generation));
  if (view.model.ablate?.length) {
    const heads = view.model.ablate.map(([layer, head]) => t('overview.headName', { layer, head })).join(t('overview.separator'));
    caption.push(t('export.ablated', { heads }));
  }
  return {
    title: t('export.title', { model: view.model.name, layer: view.layer, head: view.head, stage: view.stageName }),
    caption,
    tokensLabel: t('export.tokens', { count: view.tokens.length }),
    scaleLabel: t('export.scale', { stage: view.stageName }),
    maskedLabel: view.hasNotComputed ? t('export.maskedOrNotComputed') : t('matrix.masked'),
    axes: { query: t('matrix.queryAxis'), key: t('matrix.keyAxis') },
  };
}

/**
 * view: {tokens, values [T·T], masked(i, j), stage, T, ...} (export.mjs's
 * description); text: figureText(view, t); measure(text, size, weight).
 */
export function figureLayout(view, text, measure = approximateWidth) {
  const { tokens, values, stage } = view;
  const T = tokens.length;
  const scale = scaleFor(stage, values);
  const items = [];
  // The matrix and its labels as the page lays them out (at the page's cell size when it says it).
  const matrixAt = (x, top) =>
    matrixLayout({
      tokens,
      measure,
      titles: text.axes ?? null,
      width: MATRIX_WIDTH,
      cell: view.cell ?? null,
      minCell: 10,
      maxCell: 48,
      x,
      y: top,
    });
  const probe = matrixAt(MARGIN, 0);
  const width = Math.ceil(Math.max(560, probe.width + 2 * MARGIN));
  const textWidth = width - 2 * MARGIN;

  let y = MARGIN;
  const line = (role, content, size, weight = 'normal', color = INK) => {
    items.push({
      kind: 'text',
      role,
      x: MARGIN,
      y: y + size * 0.8,
      text: fit(content, textWidth, size, weight, measure),
      size,
      weight,
      anchor: 'start',
      color,
    });
    y += Math.round(size * 1.45);
  };
  // Title and caption lines wrap at their " · " parts: every part is kept.
  const lines = (role, content, size, weight, color) => {
    for (const part of wrap(content.split(' · '), ' · ', textWidth, size, measure, weight)) line(role, part, size, weight, color);
  };
  lines('title', text.title, 16, 'bold', INK);
  for (const caption of text.caption) lines('caption', caption, 12, 'normal', MUTED);
  const tokenLines = wrap(tokens, ' | ', textWidth - measure(`${text.tokensLabel} `, 12), 12, measure);
  tokenLines.forEach((tokenLine, k) =>
    line('caption', k === 0 ? `${text.tokensLabel} ${tokenLine}` : `    ${tokenLine}`, 12, 'normal', MUTED),
  );

  // The matrix: rows are queries, columns keys.
  const layout = matrixAt(MARGIN, y + 8);
  const { left, top, cell } = layout;
  const numbers = cell >= 34;
  const decimals = stage === 'attn_weights' ? 2 : 1;
  for (let i = 0; i < T; i += 1) {
    for (let j = 0; j < T; j += 1) {
      const value = values[i * T + j];
      const masked = view.masked(i, j);
      const rect = { kind: 'rect', role: 'cell', x: left + j * cell, y: top + i * cell, w: cell, h: cell, stroke: '#ffffff', i, j, value };
      if (masked) rect.hatch = true;
      else rect.fill = scale.color(value);
      items.push(rect);
      if (numbers && !masked) {
        items.push({
          kind: 'text',
          role: 'value',
          x: rect.x + cell / 2,
          y: rect.y + cell / 2 + 4,
          text: value.toFixed(decimals),
          size: 11,
          weight: 'normal',
          anchor: 'middle',
          color: textColorOn(rect.fill),
        });
      }
    }
  }
  const label = (role, { index, text: content, x, y: at }, anchor, extra = {}) =>
    items.push({
      kind: 'text',
      role,
      index,
      x,
      y: at,
      text: content,
      size: layout.fontSize,
      weight: 'normal',
      anchor,
      baseline: 'middle',
      color: INK,
      ...extra,
    });
  for (const row of layout.rows) label('row-label', row, 'end');
  for (const col of layout.cols) label('col-label', col, layout.upright ? 'middle' : 'start', layout.upright ? {} : { rotate: -90 });
  for (const title of layout.titles) label('axis-title', title, 'start', { size: title.size, color: MUTED, axis: title.role });
  y = top + T * cell + 22;

  // The colour bar: the scale from min to max, and the hatched swatch for masked cells.
  items.push({
    kind: 'text',
    role: 'bar-label',
    x: MARGIN,
    y: y + 12,
    text: fit(text.scaleLabel, textWidth, 12, 'normal', measure),
    size: 12,
    weight: 'normal',
    anchor: 'start',
    color: INK,
  });
  y += 20;
  const stops = Array.from({ length: 11 }, (_, k) => ({
    offset: k / 10,
    color: scale.color(scale.min + ((scale.max - scale.min) * k) / 10),
  }));
  const bar = { kind: 'bar', role: 'colorbar', x: MARGIN, y, w: BAR.width, h: BAR.height, stops, min: scale.min, max: scale.max };
  items.push(bar);
  const tick = (x, value, anchor) =>
    items.push({ kind: 'text', role: 'tick', x, y: y + BAR.height + 14, text: value, size: 11, weight: 'normal', anchor, color: MUTED });
  const tickDecimals = stage === 'attn_weights' ? 1 : 2;
  tick(MARGIN, scale.min.toFixed(tickDecimals), 'start');
  tick(MARGIN + BAR.width / 2, ((scale.min + scale.max) / 2).toFixed(tickDecimals), 'middle');
  tick(MARGIN + BAR.width, scale.max.toFixed(tickDecimals), 'end');
  const anyMasked = items.some((item) => item.hatch);
  if (anyMasked) {
    const x = MARGIN + BAR.width + 24;
    items.push({ kind: 'rect', role: 'swatch', x, y, w: BAR.height + 2, h: BAR.height + 2, hatch: true });
    items.push({
      kind: 'text',
      role: 'bar-label',
      x: x + BAR.height + 8,
      y: y + BAR.height - 2,
      text: fit(text.maskedLabel, width - x - BAR.height - 8 - MARGIN, 12, 'normal', measure),
      size: 12,
      weight: 'normal',
      anchor: 'start',
      color: INK,
    });
  }
  y += BAR.height + 22 + MARGIN;
  const height = Math.ceil(y);
  items.unshift({ kind: 'rect', role: 'background', x: 0, y: 0, w: width, h: height, fill: FIGURE_BACKGROUND });
  return {
    width,
    height,
    items,
    matrix: { x: left, y: top, cell, T },
    labels: labelSummary(layout),
    colorbar: { x: bar.x, y: bar.y, w: bar.w, h: bar.h, min: scale.min, max: scale.max },
  };
}
