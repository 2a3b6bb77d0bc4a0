// The accessible form of the matrix: a real table with token labels as row
// and column headers and the values to 3 decimals; masked cells say so.
export function renderMatrixTable(table, { caption, tokens, values, masked, maskedText, queryLabel }) {
  const T = tokens.length;
  const captionElement = document.createElement('caption');
  captionElement.textContent = caption;
  const head = document.createElement('thead');
  const headRow = document.createElement('tr');
  const corner = document.createElement('th');
  corner.scope = 'col';
  corner.textContent = queryLabel;
  headRow.append(corner);
  for (const token of tokens) {
    const th = document.createElement('th');
    th.scope = 'col';
    th.textContent = token;
    headRow.append(th);
  }
  head.append(headRow);
  const body = document.createElement('tbody');
  for (let i = 0; i < T; i += 1) {
    const row = document.createElement('tr');
    const th = document.createElement('th');
    th.scope = 'row';
    th.textContent = tokens[i];
    row.append(th);
    for (let j = 0; j < T; j += 1) {
      const td = document.createElement('td');
      if (masked(i, j)) {
        td.dataset.masked = 'true';
        td.textContent = typeof maskedText === 'function' ? maskedText(i, j) : maskedText;
      } else {
        td.dataset.value = String(values[i * T + j]);
        td.textContent = values[i * T + j].toFixed(3);
      }
      row.append(td);
    }
    body.append(row);
  }
  table.replaceChildren(captionElement, head, body);
}
