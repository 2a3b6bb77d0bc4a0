// Exports of the matrix on screen (the prompt's, or the generated one while
// generation is shown), each standing alone: what it is (model, tokens,
// layer, head, stage, the causal and √d switches, the shapes) travels with
// the numbers.
//   PNG   the figure (export_figure.mjs) drawn on a canvas at 2× with its
//         title, caption and colour bar on white; the description also in
//         iTXt chunks (Title, Description, and minimind:export as JSON)
//   SVG   the same figure as vectors (svg_export.mjs)
//   CSV   "# key: value" lines, then the matrix with token headers
//   JSON  the same as fields, and the values (null: −∞ or not computed)
//
// A description ("view") is what app.mjs hands over:
//   {model: {name, preset?, seed?, config?, files?, ablate?}, tokens, rawTokens?, ids,
//    values: Float32Array [T·T] of the stage shown, masked(i, j), T, H,
//    layer, head, stage, stageName, causal, scale, hasNotComputed,
//    generation: null | {prompt, generated}}
// tokens are the labels the page draws (a byte token by its character: 唱),
// and the figure draws them too; rawTokens the tokenizer's own text
// (<0xE5><0x94>), which the data (CSV, JSON, the figures' metadata) keeps.
import { canvasMeasure, figureLayout, FIGURE_FONT } from './export_figure.mjs';
import { hatchPattern } from './colors.mjs';

const PNG_RATIO = 2;

/** What every export records (JSON fields; the CSV header; PNG and SVG metadata). */
export function exportMeta(view) {
  const { model, ids, layer, head, stage, stageName, causal, scale, T, H, generation } = view;
  const tokens = view.rawTokens ?? view.tokens;
  return {
    format: 'minimind-playground/attention-matrix',
    model,
    layer,
    head,
    stage,
    stageName,
    causal,
    scale,
    tokens,
    ids,
    shape: [T, T],
    headsShape: [H, T, T],
    generation: generation ?? null,
  };
}

// A CSV field: quoted when needed; a leading = + - @ is defused so that a
// spreadsheet does not run a token as a formula.
function csvField(text) {
  let s = String(text);
  if (/^[=+\-@]/.test(s)) s = `'${s}`;
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

function numberText(v) {
  if (v === -Infinity) return '-inf';
  if (v === Infinity) return 'inf';
  if (Number.isNaN(v)) return ''; // not computed (cached decoding's older rows)
  return String(v);
}

const onOff = (on) => (on ? 'on' : 'off');

/** The CSV: "# key: value" lines (one line each, newlines escaped), then the matrix. */
export function matrixCsv(view) {
  const { values } = view;
  const tokens = view.rawTokens ?? view.tokens;
  const meta = exportMeta(view);
  const T = tokens.length;
  const header = [
    ['format', meta.format],
    ['model', meta.model.name ?? ''],
    ['model_spec', JSON.stringify(meta.model)],
    ['layer', meta.layer],
    ['head', meta.head],
    ['stage', `${meta.stage} (${meta.stageName})`],
    ['causal_mask', onOff(meta.causal)],
    ['scale_by_sqrt_d', onOff(meta.scale)],
    ['shape', `[H, T, T] = [${meta.headsShape.join(', ')}]; this head [T, T] = [${T}, ${T}]; rows = queries, columns = keys`],
    ['tokens', JSON.stringify(tokens)],
    ['ids', JSON.stringify(meta.ids)],
    ...(meta.generation ? [['generation', `${meta.generation.prompt} prompt tokens + ${meta.generation.generated} generated`]] : []),
    ['cells', '-inf = masked score; empty = not computed by cached decoding'],
  ];
  const lines = header.map(([key, value]) => `# ${key}: ${String(value).replace(/[\r\n]+/g, ' ')}`);
  lines.push(['query\\key', ...tokens].map(csvField).join(','));
  for (let i = 0; i < T; i += 1) {
    lines.push([csvField(tokens[i]), ...Array.from(values.subarray(i * T, (i + 1) * T), numberText)].join(','));
  }
  return `${lines.join('\r\n')}\r\n`;
}

export function matrixJson(view) {
  const { tokens, values } = view;
  const T = tokens.length;
  const rows = Array.from({ length: T }, (_, i) => Array.from(values.subarray(i * T, (i + 1) * T), (v) => (Number.isFinite(v) ? v : null)));
  return JSON.stringify(
    {
      ...exportMeta(view),
      values: rows,
      note: 'values[i][j]: query i, key j; null marks a masked score (-inf) or one cached decoding never computed',
    },
    null,
    2,
  );
}

export function download(filename, blob) {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = filename;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

// ------------------------------------------------------------------ PNG

/** Draws a figure layout on a 2D context (CSS px units; scale the context first). */
function paintFigure(ctx, layout) {
  const hatch = hatchPattern(ctx, 6);
  for (const item of layout.items) {
    if (item.kind === 'rect') {
      ctx.fillStyle = item.hatch ? hatch : item.fill;
      ctx.fillRect(item.x, item.y, item.w, item.h);
      if (item.stroke) {
        ctx.strokeStyle = item.stroke;
        ctx.lineWidth = 1;
        ctx.strokeRect(item.x, item.y, item.w, item.h);
      }
    } else if (item.kind === 'bar') {
      const gradient = ctx.createLinearGradient(item.x, 0, item.x + item.w, 0);
      for (const stop of item.stops) gradient.addColorStop(stop.offset, stop.color);
      ctx.fillStyle = gradient;
      ctx.fillRect(item.x, item.y, item.w, item.h);
      ctx.strokeStyle = '#888888';
      ctx.lineWidth = 0.5;
      ctx.strokeRect(item.x, item.y, item.w, item.h);
    } else {
      ctx.save();
      ctx.font = `${item.weight === 'bold' ? 'bold ' : ''}${item.size}px ${FIGURE_FONT}`;
      ctx.fillStyle = item.color;
      ctx.textAlign = item.anchor === 'middle' ? 'center' : item.anchor === 'end' ? 'right' : 'left';
      ctx.textBaseline = item.baseline === 'middle' ? 'middle' : 'alphabetic';
      ctx.translate(item.x, item.y);
      if (item.rotate) ctx.rotate((item.rotate * Math.PI) / 180);
      ctx.fillText(item.text, 0, 0);
      ctx.restore();
    }
  }
}

// CRC-32 (ISO 3309, as PNG uses) over bytes.
let crcTable = null;
function crc32(bytes) {
  crcTable ??= Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k += 1) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  let crc = 0xffffffff;
  for (const byte of bytes) crc = crcTable[(crc ^ byte) & 0xff] ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

/** An iTXt chunk (UTF-8 text, uncompressed): keyword \0 0 0 \0 \0 text. */
function itxtChunk(keyword, text) {
  const encoder = new TextEncoder();
  const data = [...encoder.encode(keyword), 0, 0, 0, 0, 0, ...encoder.encode(text)];
  const chunk = new Uint8Array(12 + data.length);
  const view = new DataView(chunk.buffer);
  view.setUint32(0, data.length);
  chunk.set(encoder.encode('iTXt'), 4);
  chunk.set(data, 8);
  view.setUint32(8 + data.length, crc32(chunk.subarray(4, 8 + data.length)));
  return chunk;
}

/** PNG bytes with iTXt chunks {keyword: text} inserted after IHDR. */
export function pngWithText(png, texts) {
  const ihdrEnd = 8 + 8 + new DataView(png.buffer, png.byteOffset).getUint32(8) + 4;
  const chunks = Object.entries(texts).map(([keyword, text]) => itxtChunk(keyword, text));
  const size = png.length + chunks.reduce((sum, c) => sum + c.length, 0);
  const out = new Uint8Array(size);
  out.set(png.subarray(0, ihdrEnd), 0);
  let at = ihdrEnd;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  out.set(png.subarray(ihdrEnd), at);
  return out;
}

/** The figure as a PNG Blob, with its description in iTXt chunks. */
export async function figurePng(view, text) {
  const measure = canvasMeasure();
  const layout = figureLayout(view, text, measure);
  const canvas = new OffscreenCanvas(Math.round(layout.width * PNG_RATIO), Math.round(layout.height * PNG_RATIO));
  const ctx = canvas.getContext('2d');
  ctx.scale(PNG_RATIO, PNG_RATIO);
  paintFigure(ctx, layout);
  const blob = await canvas.convertToBlob({ type: 'image/png' });
  const png = new Uint8Array(await blob.arrayBuffer());
  const meta = {
    ...exportMeta(view),
    // Where the matrix and the colour bar are in the image (pixels), for scripts that read it.
    figure: { ratio: PNG_RATIO, matrix: scaled(layout.matrix), colorbar: scaled(layout.colorbar), labels: labelIndices(layout.labels) },
  };
  const bytes = pngWithText(png, {
    Title: text.title,
    Description: [...text.caption, `${text.tokensLabel} ${view.tokens.join(' | ')}`].join('\n'),
    Software: 'MiniMind Playground',
    'minimind:export': JSON.stringify(meta),
  });
  return new Blob([bytes], { type: 'image/png' });
}

// Which tokens are labelled on each axis (every step-th: the page's choice).
function labelIndices({ step, rows, cols }) {
  return { step, rows, cols };
}

function scaled(box) {
  const out = {};
  for (const [key, value] of Object.entries(box)) out[key] = ['x', 'y', 'w', 'h', 'cell'].includes(key) ? value * PNG_RATIO : value;
  return out;
}

export { figureSvg } from './svg_export.mjs';
export { canvasMeasure };
