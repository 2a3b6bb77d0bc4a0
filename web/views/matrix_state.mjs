// What the matrix on screen is, said next to it, so that it never passes for
// something it is not:
//   current   the matrix of the model in use, for the text typed
//   previous  the matrix of the model used before, kept (dimmed, with a
//             caption) while another model builds or loads, or computes
//             its first matrix
//   empty     no matrix: the text has no tokens (nothing stale is left)
// The view section carries the state as data-matrix (style.css dims or hides
// the matrix, its legend, table and overview); exports are for the current
// matrix only. Also: the elements this adds to the page (the state line and
// the shape label beside the matrix, the note under the chips, the SVG
// export button), created once with their data-i18n keys.

function add(tag, attributes, where, anchor) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  anchor.insertAdjacentElement(where, node);
  return node;
}

/** Adds the page's matrix-state elements (idempotent). */
export function addMatrixStateElements() {
  if (document.getElementById('matrix-state')) return;
  const wrap = document.getElementById('heatmap').closest('.matrix-wrap'); // the playground's matrix, not another panel's
  add('p', { id: 'matrix-state', class: 'matrix-state', role: 'status', hidden: '' }, 'beforebegin', wrap);
  add('p', { id: 'matrix-shape', class: 'matrix-shape' }, 'beforebegin', wrap);
  add('p', { id: 'chips-note', class: 'hint chips-note', role: 'note', hidden: '' }, 'afterend', document.getElementById('chips'));
  const svg = add(
    'button',
    { id: 'export-svg', type: 'button', 'data-i18n': 'export.svg' },
    'afterend',
    document.getElementById('export-png'),
  );
  svg.textContent = 'SVG';
}

const EXPORT_BUTTONS = ['export-png', 'export-svg', 'export-csv', 'export-json'];

/** state: 'current' | 'previous' | 'empty'; text: the state line (empty: none). */
export function renderMatrixState(section, line, { state, text }) {
  if (section.dataset.matrix !== state) section.dataset.matrix = state;
  line.hidden = !text;
  if (line.textContent !== text) line.textContent = text;
  for (const id of EXPORT_BUTTONS) {
    const button = document.getElementById(id);
    if (button) button.disabled = state !== 'current';
  }
}
