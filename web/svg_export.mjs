// The exported figure as SVG: a vector file for slides and papers, from the
// same layout as the PNG (export_figure.mjs). One <rect class="cell"> per
// cell with its query, key and value as data attributes; masked cells
// filled with the hatch pattern; a background rect; the title as <title>
// and as text; the caption, the colour bar (a linear gradient) and its
// range; what the export records (export.mjs's exportMeta) as JSON in
// <metadata>. Every text is escaped, so a token such as <img onerror=…>
// stays text, and characters XML cannot hold are left out.
import { FIGURE_FONT, figureLayout } from './export_figure.mjs';
import { MASKED_FILL, MASKED_HATCH } from './colors.mjs';

// Characters XML 1.0 allows: tab, newline, carriage return, U+0020–U+D7FF, U+E000–U+FFFD, astral planes.
const NOT_XML = /[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/gu;

/** Text or an attribute value, safe inside XML. */
function xmlText(text) {
  return String(text)
    .replace(NOT_XML, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

const number = (x) => String(Math.round(x * 100) / 100);

function attrs(map) {
  return Object.entries(map)
    .filter(([, value]) => value !== undefined && value !== null)
    .map(([name, value]) => ` ${name}="${xmlText(value)}"`)
    .join('');
}

function rect(item) {
  const fill = item.hatch ? 'url(#masked)' : item.fill;
  const cell = item.role === 'cell';
  return `<rect${attrs({
    class: item.role,
    x: number(item.x),
    y: number(item.y),
    width: number(item.w),
    height: number(item.h),
    fill,
    stroke: item.stroke,
    'stroke-width': item.stroke ? 1 : undefined,
    'data-i': cell ? item.i : undefined,
    'data-j': cell ? item.j : undefined,
    'data-value': cell ? String(item.value) : undefined,
    'data-masked': cell && item.hatch ? 'true' : undefined,
  })}/>`;
}

function text(item) {
  const anchor = { start: 'start', middle: 'middle', end: 'end' }[item.anchor];
  return `<text${attrs({
    class: item.role,
    x: number(item.x),
    y: number(item.y),
    'font-size': item.size,
    'font-weight': item.weight === 'bold' ? 'bold' : undefined,
    'text-anchor': anchor,
    'dominant-baseline': item.baseline === 'middle' ? 'central' : undefined,
    'data-index': item.index,
    fill: item.color,
    transform: item.rotate ? `rotate(${item.rotate} ${number(item.x)} ${number(item.y)})` : undefined,
  })}>${xmlText(item.text)}</text>`;
}

/** The SVG document (a string) of a figure; meta: what export.mjs records. */
export function figureSvg(view, figureText, meta, measure) {
  const layout = figureLayout(view, figureText, measure);
  const { width, height, items, labels } = layout;
  const bar = items.find((item) => item.kind === 'bar');
  const body = items.map((item) => {
    if (item.kind === 'rect') return rect(item);
    if (item.kind === 'text') return text(item);
    return `<rect${attrs({ class: 'colorbar', x: number(item.x), y: number(item.y), width: number(item.w), height: number(item.h), fill: 'url(#colorbar)', stroke: '#888888', 'stroke-width': 0.5, 'data-min': item.min, 'data-max': item.max })}/>`;
  });
  const stops = bar.stops.map((stop) => `<stop offset="${number(stop.offset)}" stop-color="${xmlText(stop.color)}"/>`).join('');
  const description = [figureText.title, ...figureText.caption, `${figureText.tokensLabel} ${view.tokens.join(' | ')}`].join('\n');
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="${xmlText(FIGURE_FONT)}" data-label-step="${labels.step}">`,
    `<title>${xmlText(figureText.title)}</title>`,
    `<desc>${xmlText(description)}</desc>`,
    `<metadata id="minimind-export">${xmlText(JSON.stringify(meta))}</metadata>`,
    '<defs>',
    `<linearGradient id="colorbar" x1="0" y1="0" x2="1" y2="0">${stops}</linearGradient>`,
    `<pattern id="masked" width="6" height="6" patternUnits="userSpaceOnUse"><rect width="6" height="6" fill="${MASKED_FILL}"/><path d="M0 6L6 0M-3 3L3 -3M3 9L9 3" stroke="${MASKED_HATCH}" stroke-width="1"/></pattern>`,
    '</defs>',
    ...body,
    '</svg>',
    '',
  ].join('\n');
}
