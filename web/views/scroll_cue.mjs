// A box that scrolls sideways says so. While its content is wider than it,
// data-overflow names the sides with more to see ("right", "left" or
// "left right"; the stylesheet fades those edges) and an optional hint
// ("scroll →") is shown. The box and its content are watched for size
// changes (a table that grows, a panel that opens) and the box for scrolling.

const watched = new WeakMap(); // box -> {observer, hint}

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
    const observer = globalThis.ResizeObserver ? new ResizeObserver(() => update(box, entry.hint)) : null;
    entry = { observer, hint, content: new WeakSet() };
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
