// The training timeline as a figure to export: laid out once
// (timelineFigureLayout) and written twice, as SVG (a <g class="chart"> per
// chart, a <polyline class="series"> per line with its points in chart
// units as data) and as PNG (the same items painted on a canvas at 2×, the
// description in iTXt chunks through web/export.mjs pngWithText). It shows
// the title, which timeline it is, the charts of timeline_charts.mjs on their
// shared token axis with the moment shown as a cursor, and the moments'
// sentences. Units are CSS pixels; a white background, so it stands alone.
import { FIGURE_FONT } from '../export_figure.mjs';
import { niceTicks, linearScale, tickLabel } from '../views/line_chart.mjs';

const WIDTH = 760;
const MARGIN = 20;
const CHART_HEIGHT = 150;
const PNG_RATIO = 2;
const INK = '#1a1a1a';
const MUTED = '#555555';

// Characters XML 1.0 allows, as web/svg_export.mjs keeps them.
const NOT_XML = /[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/gu;
const xml = (text) =>
  String(text).replace(NOT_XML, '').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const num = (x) => String(Math.round(x * 100) / 100);

/** Lines of at most `chars` characters (a CJK character counts two), broken at spaces where there are any. */
function wrapText(text, chars) {
  const width = (s) => [...s].reduce((n, ch) => n + (ch.charCodeAt(0) > 0x2e80 ? 2 : 1), 0);
  const lines = [];
  let line = '';
  for (const ch of text) {
    if (width(line + ch) > chars) {
      const space = line.lastIndexOf(' ');
      if (space > chars / 2) {
        lines.push(line.slice(0, space));
        line = line.slice(space + 1);
      } else {
        lines.push(line);
        line = '';
      }
    }
    line += ch;
  }
  if (line) lines.push(line);
  return lines;
}

/**
 * {width, height, head, charts: [{id, y, items}], tail}: the items above the
 * charts, each chart's, and those below, drawn in that order. Items are {kind: 'text',
 * x, y, text, size, weight?, anchor?, color} | {kind: 'line', x1, y1, x2, y2,
 * color, width, dash?} | {kind: 'polyline', points: [[x, y]], data: [[x, y]],
 * color, width, dash?, label?} | {kind: 'rect', x, y, w, h, fill?, stroke?}.
 * model: {title, source, charts, xMax, xLabel, cursor (x in chart units) |
 * null, sentences: [text]}.
 */
function timelineFigureLayout({ title, source, charts, xMax, xLabel, cursor, sentences }) {
  const head = [];
  const tail = [];
  let items = head;
  let y = MARGIN;
  const text = (content, size, color = INK, extra = {}) => {
    for (const line of wrapText(content, Math.floor((WIDTH - 2 * MARGIN) / (size * 0.58)))) {
      items.push({ kind: 'text', x: MARGIN, y: y + size, text: line, size, color, ...extra });
      y += Math.round(size * 1.45);
    }
  };
  text(title, 16, INK, { weight: 'bold' });
  text(source, 12, MUTED);
  y += 6;
  const box = { x0: MARGIN + 40, x1: WIDTH - MARGIN - 10 };
  const px = linearScale([0, xMax], [box.x0, box.x1]);
  const xTicks = niceTicks(0, xMax, 8);
  const laid = [];
  for (const chart of charts) {
    const own = [];
    const at = y;
    const headerLines = wrapText(chart.title, Math.floor((WIDTH - 2 * MARGIN) / 7));
    for (const line of headerLines) {
      own.push({ kind: 'text', x: MARGIN, y: y + 12, text: line, size: 12, weight: 'bold', color: chart.titleColor ?? INK });
      y += 17;
    }
    // The legend, a row of swatches.
    let lx = box.x0;
    for (const s of chart.series.filter((s) => s.label)) {
      const w = 22 + s.label.length * 7;
      if (lx + w > box.x1) ((lx = box.x0), (y += 14));
      own.push({ kind: 'line', x1: lx, y1: y + 6, x2: lx + 16, y2: y + 6, color: s.color, width: 2, dash: s.dash });
      own.push({ kind: 'text', x: lx + 20, y: y + 10, text: s.label, size: 11, color: INK });
      lx += w;
    }
    if (chart.series.some((s) => s.label)) y += 16;
    const y0 = y + 4;
    const y1 = y0 + CHART_HEIGHT - 40;
    let lo = Infinity;
    let hi = -Infinity;
    for (const s of chart.series) for (const v of s.y) if (Number.isFinite(v)) ((lo = Math.min(lo, v)), (hi = Math.max(hi, v)));
    for (const r of chart.rules) ((lo = Math.min(lo, r.y)), (hi = Math.max(hi, r.y)));
    if (chart.yLeft) ((lo = Math.min(lo, chart.yLeft[0])), (hi = Math.max(hi, chart.yLeft[1])));
    const yTicks = niceTicks(lo, hi, 4);
    const py = linearScale([yTicks.min, yTicks.max], [y1, y0]);
    for (const tick of yTicks.ticks) {
      own.push({ kind: 'line', x1: box.x0, y1: py(tick), x2: box.x1, y2: py(tick), color: '#e3e3e3', width: 1 });
      own.push({ kind: 'text', x: box.x0 - 4, y: py(tick) + 4, text: tickLabel(tick, yTicks.step), size: 10, anchor: 'end', color: MUTED });
    }
    for (const tick of xTicks.ticks.filter((v) => v <= xMax))
      own.push({ kind: 'text', x: px(tick), y: y1 + 13, text: tickLabel(tick, xTicks.step), size: 10, anchor: 'middle', color: MUTED });
    own.push({ kind: 'line', x1: box.x0, y1: y0, x2: box.x0, y2: y1, color: '#999999', width: 1 });
    own.push({ kind: 'line', x1: box.x0, y1: y1, x2: box.x1, y2: y1, color: '#999999', width: 1 });
    for (const s of chart.series) {
      const data = [];
      for (let i = 0; i < s.y.length; i += 1) if (Number.isFinite(s.y[i])) data.push([s.x[i], s.y[i]]);
      if (!data.length) continue;
      own.push({
        kind: 'polyline',
        points: data.map(([a, b]) => [px(a), py(b)]),
        data,
        color: s.color,
        width: s.width ?? 1.5,
        dash: s.dash,
        label: s.label,
      });
    }
    for (const r of chart.rules)
      own.push({ kind: 'line', x1: box.x0, y1: py(r.y), x2: box.x1, y2: py(r.y), color: r.color, width: 1, dash: [2, 3] });
    for (const m of chart.marks) {
      own.push({ kind: 'line', x1: px(m.x), y1: y0, x2: px(m.x), y2: y1, color: m.color, width: 1.5 });
      if (m.label) own.push({ kind: 'text', x: px(m.x) + 2, y: y0 + 10, text: m.label, size: 10, color: m.color });
    }
    if (cursor !== null && Number.isFinite(cursor))
      own.push({ kind: 'line', x1: px(cursor), y1: y0, x2: px(cursor), y2: y1, color: '#d62728', width: 1 });
    if (chart.empty && !chart.series.length)
      own.push({ kind: 'text', x: (box.x0 + box.x1) / 2, y: (y0 + y1) / 2, text: chart.empty, size: 11, anchor: 'middle', color: MUTED });
    y = y1 + 22;
    laid.push({ id: chart.id, y: at, items: own });
  }
  items = tail;
  items.push({ kind: 'text', x: box.x1, y: y - 4, text: xLabel, size: 11, anchor: 'end', color: MUTED });
  y += 8;
  for (const sentence of sentences) text(sentence, 12, INK);
  const height = Math.ceil(y + MARGIN);
  return { width: WIDTH, height, head, charts: laid, tail };
}

function svgItem(item) {
  const dash = item.dash?.length ? ` stroke-dasharray="${item.dash.join(' ')}"` : '';
  if (item.kind === 'text') {
    const anchor = item.anchor ? ` text-anchor="${item.anchor}"` : '';
    const weight = item.weight === 'bold' ? ' font-weight="bold"' : '';
    return `<text x="${num(item.x)}" y="${num(item.y)}" font-size="${item.size}" fill="${item.color}"${anchor}${weight}>${xml(item.text)}</text>`;
  }
  if (item.kind === 'line')
    return `<line x1="${num(item.x1)}" y1="${num(item.y1)}" x2="${num(item.x2)}" y2="${num(item.y2)}" stroke="${item.color}" stroke-width="${item.width}"${dash}/>`;
  if (item.kind === 'polyline') {
    const label = item.label ? ` data-label="${xml(item.label)}"` : '';
    return `<polyline class="series" fill="none" stroke="${item.color}" stroke-width="${item.width}"${dash}${label} data-points="${xml(JSON.stringify(item.data))}" points="${item.points.map(([a, b]) => `${num(a)},${num(b)}`).join(' ')}"/>`;
  }
  return `<rect x="${num(item.x)}" y="${num(item.y)}" width="${num(item.w)}" height="${num(item.h)}" fill="${item.fill ?? 'none'}"/>`;
}

/** The figure as an SVG document (a string); meta: what travels with it (JSON in <metadata>). */
export function timelineSvg(model, meta) {
  const layout = timelineFigureLayout(model);
  const { width, height } = layout;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="${xml(FIGURE_FONT)}">`,
    `<title>${xml(model.title)}</title>`,
    `<desc>${xml([model.source, ...model.sentences].join('\n'))}</desc>`,
    `<metadata id="minimind-export">${xml(JSON.stringify(meta))}</metadata>`,
    `<rect class="background" x="0" y="0" width="${width}" height="${height}" fill="#ffffff"/>`,
    ...layout.head.map(svgItem),
    ...layout.charts.map((chart) => `<g class="chart" data-chart="${chart.id}">${chart.items.map(svgItem).join('')}</g>`),
    ...layout.tail.map(svgItem),
    '</svg>',
    '',
  ].join('\n');
}

function paint(ctx, item) {
  ctx.setLineDash(item.dash ?? []);
  if (item.kind === 'text') {
    ctx.font = `${item.weight === 'bold' ? 'bold ' : ''}${item.size}px ${FIGURE_FONT}`;
    ctx.fillStyle = item.color;
    ctx.textAlign = item.anchor === 'middle' ? 'center' : item.anchor === 'end' ? 'right' : 'left';
    ctx.fillText(item.text, item.x, item.y);
  } else if (item.kind === 'line' || item.kind === 'polyline') {
    const points =
      item.kind === 'line'
        ? [
            [item.x1, item.y1],
            [item.x2, item.y2],
          ]
        : item.points;
    ctx.strokeStyle = item.color;
    ctx.lineWidth = item.width;
    ctx.beginPath();
    points.forEach(([a, b], k) => (k ? ctx.lineTo(a, b) : ctx.moveTo(a, b)));
    ctx.stroke();
  }
}

/** The figure as PNG bytes' Blob (2×); pngWithText: web/export.mjs's, for the description. */
export async function timelinePng(model, meta, pngWithText) {
  const layout = timelineFigureLayout(model);
  const canvas = new OffscreenCanvas(layout.width * PNG_RATIO, layout.height * PNG_RATIO);
  const ctx = canvas.getContext('2d');
  ctx.scale(PNG_RATIO, PNG_RATIO);
  ctx.fillStyle = '#ffffff';
  ctx.fillRect(0, 0, layout.width, layout.height);
  for (const item of [...layout.head, ...layout.charts.flatMap((c) => c.items), ...layout.tail]) paint(ctx, item);
  const png = new Uint8Array(await (await canvas.convertToBlob({ type: 'image/png' })).arrayBuffer());
  const bytes = pngWithText(png, {
    Title: model.title,
    Description: [model.source, ...model.sentences].join('\n'),
    Software: 'MiniMind Playground',
    'minimind:export': JSON.stringify(meta),
  });
  return new Blob([bytes], { type: 'image/png' });
}
