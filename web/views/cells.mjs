// Painting a [T, T] matrix of cells in a few canvas calls instead of one
// fillRect per cell (T = 128 is 16384 cells, and the overview draws one
// matrix per layer and head): the colours go into an ImageData of T × T
// pixels, one pixel per cell, drawn scaled up without smoothing; the masked
// cells are one path filled with the hatch. At an integer cell size the
// result is the same pixels as a fillRect per cell.

const rgbCache = new Map();

/** [r, g, b] of a colour as d3 writes it: "rgb(r, g, b)" or "#rrggbb". */
export function rgbOf(color) {
  let rgb = rgbCache.get(color);
  if (rgb) return rgb;
  const hex = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(color);
  const dec = hex ? null : /^rgb\((\d+),\s*(\d+),\s*(\d+)\)$/.exec(color);
  rgb = hex ? hex.slice(1, 4).map((x) => parseInt(x, 16)) : dec ? dec.slice(1, 4).map(Number) : [0, 0, 0];
  if (rgbCache.size > 65536) rgbCache.clear(); // a diverging scale has many shades
  rgbCache.set(color, rgb);
  return rgb;
}

let scratch = null; // one T × T canvas, reused by every matrix drawn

/**
 * Paints cells (i, j) at (x + j·cell, y + i·cell) in the context's current
 * units. values: Float32Array [T·T]; masked(i, j); color(v) -> CSS colour;
 * hatch: the pattern for masked cells.
 */
export function paintCells(ctx, { T, x, y, cell, values, masked, color, hatch }) {
  if (T === 0) return;
  scratch ??= new OffscreenCanvas(T, T);
  if (scratch.width !== T) {
    scratch.width = T;
    scratch.height = T;
  }
  const image = new ImageData(T, T);
  const pixels = image.data;
  const hidden = [];
  for (let i = 0; i < T; i += 1) {
    for (let j = 0; j < T; j += 1) {
      if (masked(i, j)) {
        hidden.push(i, j); // stays transparent; hatched below
        continue;
      }
      const k = i * T + j;
      const [r, g, b] = rgbOf(color(values[k]));
      pixels[4 * k] = r;
      pixels[4 * k + 1] = g;
      pixels[4 * k + 2] = b;
      pixels[4 * k + 3] = 255;
    }
  }
  scratch.getContext('2d').putImageData(image, 0, 0);
  const smoothing = ctx.imageSmoothingEnabled;
  ctx.imageSmoothingEnabled = false;
  ctx.drawImage(scratch, 0, 0, T, T, x, y, T * cell, T * cell);
  ctx.imageSmoothingEnabled = smoothing;
  if (hidden.length === 0) return;
  ctx.beginPath();
  for (let k = 0; k < hidden.length; k += 2) ctx.rect(x + hidden[k + 1] * cell, y + hidden[k] * cell, cell, cell);
  ctx.fillStyle = hatch;
  ctx.fill();
}
