// The accessible form of the matrix: a real table with token labels as row
// and column headers and the values to 3 decimals. A masked cell reads "—",
// and one legend in the caption says what "—" stands for (not a phrase in
// every cell). The rows and cells of a table of the same size are reused, so
// a new result only rewrites their text. In a box that scrolls sideways
// (.table-scroll), the box shows when there is more to the side (scroll_cue.mjs).
import { watchOverflow } from './scroll_cue.mjs';

export const MASKED_MARK = '—';

function build(table, T) {
  const head = document.createElement('thead');
  const headRow = document.createElement('tr');
  for (let j = 0; j <= T; j += 1) {
    const th = document.createElement('th');
    th.scope = 'col';
    headRow.append(th);
  }
  head.append(headRow);
  const body = document.createElement('tbody');
  for (let i = 0; i < T; i += 1) {
    const row = document.createElement('tr');
    const th = document.createElement('th');
    th.scope = 'row';
    row.append(th);
    for (let j = 0; j < T; j += 1) row.append(document.createElement('td'));
    body.append(row);
  }
  const caption = document.createElement('caption');
  const title = document.createElement('span');
  title.className = 'table-title';
  const legend = document.createElement('span');
  legend.className = 'table-legend';
  legend.style.display = 'block'; // its own line, in the page and in the component's shadow root alike
  caption.append(title, legend);
  table.replaceChildren(caption, head, body);
}

function setText(element, text) {
  if (element.textContent !== text) element.textContent = text;
}

/** One legend line for what the masked cells stand for: "— = 0.000 (masked …)"; a text that starts with "—" is its own line. */
function legendLine(text) {
  return text.startsWith(MASKED_MARK) ? text : `${MASKED_MARK} = ${text}`;
}

/**
 * caption; tokens; values: Float32Array [T·T]; masked(i, j); maskedText: what a
 * masked cell stands for, a string or (i, j) -> string (the legend lists each
 * meaning once); queryLabel: the corner header.
 */
export function renderMatrixTable(table, { caption, tokens, values, masked, maskedText, queryLabel }) {
  const T = tokens.length;
  const built = table.caption?.querySelector('.table-legend');
  if (table.tBodies[0]?.rows.length !== T || table.tHead?.rows[0]?.cells.length !== T + 1 || !built) build(table, T);
  setText(table.caption.querySelector('.table-title'), caption);
  const headCells = table.tHead.rows[0].cells;
  setText(headCells[0], queryLabel);
  for (let j = 0; j < T; j += 1) setText(headCells[j + 1], tokens[j]);
  const rows = table.tBodies[0].rows;
  const meanings = new Set();
  for (let i = 0; i < T; i += 1) {
    const cells = rows[i].cells;
    setText(cells[0], tokens[i]);
    for (let j = 0; j < T; j += 1) {
      const td = cells[j + 1];
      if (masked(i, j)) {
        td.dataset.masked = 'true';
        delete td.dataset.value;
        setText(td, MASKED_MARK);
        meanings.add(typeof maskedText === 'function' ? maskedText(i, j) : maskedText);
      } else {
        delete td.dataset.masked;
        td.dataset.value = String(values[i * T + j]);
        setText(td, values[i * T + j].toFixed(3));
      }
    }
  }
  const legend = table.caption.querySelector('.table-legend');
  setText(legend, [...meanings].map(legendLine).join('; ')); // empty (no height) without masked cells
  if (table.parentElement?.classList.contains('table-scroll')) {
    const hint = table.parentElement.previousElementSibling;
    watchOverflow(table.parentElement, hint?.classList.contains('scroll-hint') ? hint : null);
  }
}
