// The selected row as the weighted sum the lesson writes:
//   output(她) = 0.80×V(小红) + 0.12×V(很) + ...
// from the real softmax weights, largest first; every term is shown.
export function rowTerms(tokens, weights, row) {
  const T = tokens.length;
  const terms = [];
  for (let j = 0; j < T; j += 1) {
    const w = weights[row * T + j];
    if (w > 0) terms.push({ key: tokens[j], index: j, weight: w });
  }
  return terms.sort((a, b) => b.weight - a.weight);
}

export function renderRowExplanation(element, { tokens, weights, row, t }) {
  if (row === null || row >= tokens.length) {
    element.textContent = t('row.none');
    return;
  }
  const terms = rowTerms(tokens, weights, row)
    .map((term) => `${term.weight.toFixed(2)}×V(${term.key})`)
    .join(' + ');
  element.textContent = t('row.formula', { query: tokens[row], terms });
}
