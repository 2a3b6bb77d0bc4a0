// A box that scrolls sideways says so. While its content is wider than it,
// data-overflow names the sides with more to see ("right", "left" or
// "left right"; the stylesheet fades those edges) and an optional hint
// ("scroll →") is shown. The box and its content are watched for size
// changes (a table that grows, a panel that opens) and the box for scrolling.
// revealColumns() scrolls such a box to the columns a view is about.

const watched = new WeakMap(); // box -> {observer, hint, content, reveal}
const FADE = 40; // px: the faded edge (2.5rem in style.css), kept clear of a revealed column

function update(box, hint) {
  const more = box.scrollWidth - box.clientWidth;
  const sides = [];
  if (more > 1 && box.scrollLeft > 1) sides.push('left');
  if (more > 1 && box.scrollLeft < more - 1) sides.push('right');
  const overflow = sides.join(' ');
  if (overflow) {
    if (box.dataset.overflow !== overflow) box.dataset.overflow = overflow;
  } else if (box.dataset.overflow !== undefined) delete box.dataset.overflow;
  if (hint && hint.hidden !== more <= 1) hint.hidden = more <= 1;
}

/** Keeps box's data-overflow (and hint's visibility) up to date; calling it again on the same box only watches new content. */
export function watchOverflow(box, hint = null) {
  if (!box) return;
  let entry = watched.get(box);
  if (!entry) {
    const observer = globalThis.ResizeObserver
      ? new ResizeObserver(() => {
          if (entry.reveal && box.clientWidth > 0) reveal(box, entry);
          update(box, entry.hint);
        })
      : null;
    entry = { observer, hint, content: new WeakSet(), reveal: null };
    watched.set(box, entry);
    box.addEventListener('scroll', () => update(box, entry.hint), { passive: true });
    observer?.observe(box);
  }
  if (hint) entry.hint = hint;
  for (const child of box.children) {
    if (entry.content.has(child)) continue;
    entry.content.add(child);
    entry.observer?.observe(child);
  }
  if (!entry.observer) update(box, entry.hint);
}

/**
 * A box whose content is replaced on each redraw: watchOverflow with a hint
 * just before the box (made once, then its text set to `text`).
 */
export function cueOverflow(box, text) {
  let hint = box.previousElementSibling;
  if (!hint?.classList.contains('scroll-hint')) {
    hint = document.createElement('p');
    hint.className = 'scroll-hint';
    hint.hidden = true;
    box.before(hint);
  }
  hint.textContent = text;
  watchOverflow(box, hint);
}

/**
 * Scrolls box sideways, as little as needed, so that the elements of
 * `targets` show whole, clear of the faded edges; when they do not all fit,
 * the first one. A box not laid out yet (hidden) is scrolled once it has a
 * size (box must be watched by watchOverflow for that).
 */
export function revealColumns(box, targets) {
  const entry = watched.get(box);
  const wanted = targets.filter(Boolean);
  if (entry) entry.reveal = wanted.length ? wanted : null;
  if (wanted.length && box.clientWidth > 0) reveal(box, entry ?? { reveal: wanted });
}

function reveal(box, entry) {
  const targets = entry.reveal.filter((target) => box.contains(target));
  entry.reveal = null;
  if (!targets.length) return;
  const origin = box.getBoundingClientRect().left - box.scrollLeft;
  const spans = targets.map((target) => {
    const rect = target.getBoundingClientRect();
    return { left: rect.left - origin, right: rect.right - origin };
  });
  const all = { left: Math.min(...spans.map((s) => s.left)), right: Math.max(...spans.map((s) => s.right)) };
  const span = all.right - all.left <= box.clientWidth - 2 * FADE ? all : spans[0];
  const seen = { left: box.scrollLeft + FADE, right: box.scrollLeft + box.clientWidth - FADE };
  let left = box.scrollLeft;
  if (span.right > seen.right) left += span.right - seen.right;
  if (span.left < seen.left + (left - box.scrollLeft)) left = span.left - FADE;
  const max = box.scrollWidth - box.clientWidth;
  left = Math.max(0, Math.min(max, left));
  if (Math.abs(left - box.scrollLeft) >= 1) box.scrollLeft = left;
}
