// The numbers of the cell under the pointer (or keyboard focus) in a box by
// that cell, over the matrix: right of it when there is room in the
// matrix's visible part, else left of it. A finger (no hover), or a narrow
// column with no room at the sides, gets the box above or below the rows
// that matter, the tapped cell's and the selected one's, so it hides
// neither: below them when the matrix and the screen have room there, else
// above, else on the roomier side. The box is the page's aria-live region
// for those numbers too: it stays in the page when empty (invisible, see
// style.css), so a screen reader hears each new text. It never takes the
// pointer (pointer-events: none), so the cells under it stay hoverable.

const GAP = 6; // px between the cell and the box

const touchOnly = () => globalThis.matchMedia?.('(hover: none)').matches ?? false;

/**
 * tip: the box (a child of the canvas's scrolling container, which is
 * position: relative); canvas: the heatmap's; box: the cell's {x, y, w, h}
 * in the canvas's CSS pixels, or null (the box stays where it is, empty);
 * rows: {y, h}, the band of rows the box must not cover (the cell's row and
 * the selected row), in the same pixels; the cell's row when not given.
 */
export function placeCellTip(tip, canvas, box, rows = null) {
  if (!box || !tip.textContent) return;
  const wrap = tip.offsetParent;
  if (!wrap) return; // not laid out (hidden)
  tip.style.maxWidth = `${Math.max(160, Math.min(440, wrap.clientWidth - 2 * GAP))}px`;
  const w = tip.offsetWidth;
  const h = tip.offsetHeight;
  const x0 = canvas.offsetLeft + box.x;
  const y0 = canvas.offsetTop + box.y;
  const seenLeft = wrap.scrollLeft;
  const seenRight = wrap.scrollLeft + wrap.clientWidth;
  const bottom = canvas.offsetTop + canvas.offsetHeight;
  const clamp = (v, lo, hi) => Math.max(lo, Math.min(hi, v));
  let x;
  let y;
  if (!touchOnly()) {
    if (x0 + box.w + GAP + w <= seenRight) x = x0 + box.w + GAP;
    else if (x0 - GAP - w >= seenLeft) x = x0 - GAP - w;
  }
  if (x !== undefined) {
    y = clamp(y0 + box.h / 2 - h / 2, 0, Math.max(0, bottom - h));
  } else {
    x = clamp(x0 + box.w / 2 - w / 2, seenLeft + 2, Math.max(seenLeft + 2, seenRight - w - 2));
    y = aboveOrBelow(wrap, { top: canvas.offsetTop + (rows ?? box).y, h: (rows ?? box).h, bottom, tip: h });
  }
  tip.style.left = `${Math.round(x)}px`;
  tip.style.top = `${Math.round(y)}px`;
}

// The box's top (in the wrap's pixels) under or over a band of rows, within
// both the wrap (which clips it) and the screen's visible part of the wrap.
function aboveOrBelow(wrap, { top, h, bottom, tip }) {
  const rect = wrap.getBoundingClientRect();
  const screenTop = -rect.top - wrap.clientTop; // the screen's top edge, in the wrap's pixels
  const screenBottom = screenTop + (globalThis.innerHeight ?? Infinity);
  const lowest = Math.min(bottom, screenBottom); // the box ends above this
  const highest = Math.max(0, screenTop); // and starts below this
  const below = top + h + GAP;
  const above = top - GAP - tip;
  if (below + tip <= lowest) return below;
  if (above >= highest) return above;
  // Neither side has the room: the roomier one, kept inside the wrap.
  return lowest - (top + h) >= top - highest ? Math.max(0, Math.min(below, bottom - tip)) : Math.max(0, above);
}
