// Colour scales from d3-scale-chromatic (maintained, colour-blind-safe):
// viridis for softmax weights in [0, 1], the diverging PuOr for scores
// centred on 0. Masked cells are not a colour of the scale at all: they are
// drawn hatched (see heatmap.mjs) and labelled −∞ → 0.
import { interpolatePuOr, interpolateViridis } from 'd3-scale-chromatic';

export const MASKED_FILL = '#d9d9d9';
export const MASKED_HATCH = '#8c8c8c';

/** {color(v), min, max, diverging} for a stage's values (finite ones only). */
export function scaleFor(stage, values) {
  if (stage === 'attn_weights') return { color: (v) => interpolateViridis(v), min: 0, max: 1, diverging: false };
  let maxAbs = 0;
  for (const v of values) if (Number.isFinite(v)) maxAbs = Math.max(maxAbs, Math.abs(v));
  if (maxAbs === 0) maxAbs = 1;
  // d3's PuOr runs dark purple (t = 0) to brown-orange (t = 1): negative scores purple.
  return { color: (v) => interpolatePuOr(0.5 + v / (2 * maxAbs)), min: -maxAbs, max: maxAbs, diverging: true };
}

/** Black or white text, whichever reads better on `rgb`. */
export function textColorOn(rgb) {
  const decimal = /rgb\((\d+), (\d+), (\d+)\)/.exec(rgb);
  const hex = decimal ? null : /#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})/i.exec(rgb);
  if (!decimal && !hex) return '#000';
  const [r, g, b] = (decimal ?? hex).slice(1, 4).map((x) => (hex ? parseInt(x, 16) : Number(x)));
  return 0.299 * r + 0.587 * g + 0.114 * b > 140 ? '#000' : '#fff';
}

export function hatchPattern(ctx, size = 8) {
  const tile = new OffscreenCanvas(size, size);
  const t = tile.getContext('2d');
  t.fillStyle = MASKED_FILL;
  t.fillRect(0, 0, size, size);
  t.strokeStyle = MASKED_HATCH;
  t.lineWidth = 1;
  t.beginPath();
  t.moveTo(0, size);
  t.lineTo(size, 0);
  t.moveTo(-size / 2, size / 2);
  t.lineTo(size / 2, -size / 2);
  t.moveTo(size / 2, size * 1.5);
  t.lineTo(size * 1.5, size / 2);
  t.stroke();
  return ctx.createPattern(tile, 'repeat');
}
