// A small labelled grid of coloured cells drawn with the DOM (a CSS grid of
// elements, text by textContent): the "ask the model why" views' layers ×
// top-5, layers × positions and layers × heads. Each cell carries its row,
// column and value as data attributes, so it can be read back and clicked.
import { textColorOn } from '../colors.mjs';
import { cueOverflow, revealColumns } from './scroll_cue.mjs';

/**
 * rows, cols: the labels; cell(r, c): {value, text, title?, color (a CSS
 * colour), marked?} or null (an empty cell); onClick(r, c) makes the cells
 * buttons; minColumn the narrowest a column gets (a CSS length, or
 * max-content for cells whose text must show whole). Replaces the
 * container's content; returns the grid element.
 */
export function renderValueGrid(container, { rows, cols, cell, onClick = null, corner = '', label = '', minColumn = '2.4rem' }) {
  const grid = document.createElement('div');
  grid.className = 'value-grid';
  grid.setAttribute('role', 'table');
  if (label) grid.setAttribute('aria-label', label);
  // Columns share the width, never narrower than minColumn: a grid wider than its box scrolls (style.css).
  grid.style.gridTemplateColumns = `max-content repeat(${cols.length}, minmax(${minColumn}, 1fr))`;
  grid.append(labelCell(corner, 'corner'));
  for (const col of cols) grid.append(labelCell(col, 'col-label'));
  rows.forEach((row, r) => {
    grid.append(labelCell(row, 'row-label'));
    cols.forEach((_, c) => grid.append(valueCell(cell(r, c), r, c, onClick)));
  });
  container.replaceChildren(grid);
  return grid;
}

/**
 * A grid wider than its box (a phone) says so, as the page's table does (the
 * faded edge and the hint, t('table.scrollHint')), and is scrolled to show
 * the columns (indexes) a view is about: the first when not all fit.
 */
export function scrollToColumns(container, columns, t) {
  cueOverflow(container, t('table.scrollHint'));
  revealColumns(
    container,
    columns.map((c) => container.querySelector(`.value-cell[data-row="0"][data-col="${c}"]`)),
  );
}

function labelCell(text, className) {
  const node = document.createElement('span');
  node.className = className;
  node.textContent = text;
  if (className === 'col-label') node.title = text; // cut when long (style.css)
  return node;
}

function valueCell(spec, r, c, onClick) {
  const node = document.createElement(onClick && spec ? 'button' : 'span');
  node.className = 'value-cell';
  node.dataset.row = String(r);
  node.dataset.col = String(c);
  if (!spec) return node;
  if (onClick) {
    node.type = 'button';
    node.addEventListener('click', () => onClick(r, c));
  }
  node.dataset.value = String(spec.value);
  node.textContent = spec.text;
  if (spec.title) node.title = spec.title;
  if (spec.marked) node.classList.add('marked');
  node.style.background = spec.color;
  node.style.color = textColorOn(spec.color);
  return node;
}
