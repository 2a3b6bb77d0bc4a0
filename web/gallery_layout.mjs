// The gallery's figures in place before they draw. A <minimind-attention>
// computes only when it comes near the viewport and is a one-line status
// until then; drawn, it is a few hundred pixels high. Without a reservation
// every figure that draws pushes the ones below it down, and a contents link
// lands wherever its heading was before the figures above it grew.
// So each figure keeps the height it will draw at while it loads (its view's
// drawn height at its width: the heatmap is as high as it is wide), and a
// contents link keeps its heading at the top of the window until the figures
// around it have drawn or the reader scrolls.

// Drawn heights measured on the gallery's figures (px): the heatmap's square
// plot is as wide as the figure up to about 800 px, plus its caption, legend
// and link, and the trained model's note (a preset has none); a lesson
// example's tables and a lab's record sit side by side when wide, stacked
// when narrow. The figures' text wraps more on a phone.
const HEATMAP_MAX = 800;
const NARROW = 700;
const BESIDE_PLOT = { trained: 140, preset: 70, narrowExtra: 90 };
const TABLES = { lesson: { wide: 190, narrow: 400 }, lab: { wide: 425, narrow: 620 } };

/** The height `figure` will draw at, from its view, model and width. */
function expectedHeight(figure) {
  const width = figure.getBoundingClientRect().width;
  const view = figure.getAttribute('view') ?? (figure.hasAttribute('example') ? 'lesson' : 'heatmap');
  if (view in TABLES) return TABLES[view][width >= NARROW ? 'wide' : 'narrow'];
  const beside = figure.hasAttribute('preset') ? BESIDE_PLOT.preset : BESIDE_PLOT.trained;
  return Math.round(Math.min(width, HEATMAP_MAX) + beside + (width < NARROW ? BESIDE_PLOT.narrowExtra : 0));
}

/** Reserves the figure's drawn height while it loads; drawn (or failed), it takes its own. */
export function reserveHeight(figure) {
  const reserve = () => {
    figure.style.minHeight = figure.dataset.state === 'ready' || figure.dataset.state === 'error' ? '' : `${expectedHeight(figure)}px`;
  };
  requestAnimationFrame(reserve); // once the figure is laid out at its width
  figure.addEventListener('minimind-ready', reserve);
  figure.addEventListener('minimind-error', reserve);
  addEventListener('resize', reserve);
}

let pinned = null; // the heading kept at the top, with what stops keeping it

/**
 * Scrolls `target`'s heading to the top and keeps it there while the page
 * above it changes height, until the reader scrolls, types or clicks.
 */
export function keepHeadingInView(target) {
  pinned?.stop();
  const heading = target.querySelector('h2, h3') ?? target;
  const place = () => heading.scrollIntoView({ block: 'start' });
  const observer = new ResizeObserver(place);
  observer.observe(document.body);
  const stop = () => {
    observer.disconnect();
    for (const type of READER_INPUT) removeEventListener(type, stop, true);
    if (pinned?.stop === stop) pinned = null;
  };
  for (const type of READER_INPUT) addEventListener(type, stop, { capture: true, passive: true });
  pinned = { heading, stop };
  place();
}

// What the reader does to scroll away (a scrollbar drag starts with pointerdown).
const READER_INPUT = ['wheel', 'touchstart', 'keydown', 'pointerdown'];
