// The numbers of the cell under the pointer (or keyboard focus) in a box by
// that cell, over the matrix: right of it when there is room in the
// matrix's visible part, else left of it, else (a phone's narrow column)
// under it, or over it near the bottom. The box is the page's aria-live
// region for those numbers too: it stays in the page when empty (invisible,
// see style.css), so a screen reader hears each new text. It never takes
// the pointer (pointer-events: none), so the cells under it stay hoverable.

const GAP = 6; // px between the cell and the box

/**
 * tip: the box (a child of the canvas's scrolling container, which is
 * position: relative); canvas: the heatmap's; box: the cell's {x, y, w, h}
 * in the canvas's CSS pixels, or null (the box stays where it is, empty).
 */
export function placeCellTip(tip, canvas, box) {
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
  if (x0 + box.w + GAP + w <= seenRight) x = x0 + box.w + GAP;
  else if (x0 - GAP - w >= seenLeft) x = x0 - GAP - w;
  if (x !== undefined) {
    y = clamp(y0 + box.h / 2 - h / 2, 0, Math.max(0, bottom - h));
  } else {
    x = clamp(x0 + box.w / 2 - w / 2, seenLeft + 2, Math.max(seenLeft + 2, seenRight - w - 2));
    y = y0 + box.h + GAP + h <= bottom ? y0 + box.h + GAP : Math.max(0, y0 - GAP - h);
  }
  tip.style.left = `${Math.round(x)}px`;
  tip.style.top = `${Math.round(y)}px`;
}
