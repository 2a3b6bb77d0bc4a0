// The accessible form of the matrix: a real table with token labels as row
// and column headers and the values to 3 decimals; masked cells say so.
// The rows and cells of a table of the same size are reused, so a new
// result only rewrites their text.

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
  table.replaceChildren(document.createElement('caption'), head, body);
}

function setText(element, text) {
  if (element.textContent !== text) element.textContent = text;
}

export function renderMatrixTable(table, { caption, tokens, values, masked, maskedText, queryLabel }) {
  const T = tokens.length;
  if (table.tBodies[0]?.rows.length !== T || table.tHead?.rows[0]?.cells.length !== T + 1 || !table.caption) build(table, T);
  setText(table.caption, caption);
  const headCells = table.tHead.rows[0].cells;
  setText(headCells[0], queryLabel);
  for (let j = 0; j < T; j += 1) setText(headCells[j + 1], tokens[j]);
  const rows = table.tBodies[0].rows;
  for (let i = 0; i < T; i += 1) {
    const cells = rows[i].cells;
    setText(cells[0], tokens[i]);
    for (let j = 0; j < T; j += 1) {
      const td = cells[j + 1];
      if (masked(i, j)) {
        td.dataset.masked = 'true';
        delete td.dataset.value;
        setText(td, typeof maskedText === 'function' ? maskedText(i, j) : maskedText);
      } else {
        delete td.dataset.masked;
        td.dataset.value = String(values[i * T + j]);
        setText(td, values[i * T + j].toFixed(3));
      }
    }
  }
}
