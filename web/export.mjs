// Export of the matrix on screen: PNG (the heatmap canvas), CSV and JSON of
// the values of the current stage.

// A CSV field: quoted when needed; a leading = + - @ is defused so that a
// spreadsheet does not run a token as a formula.
function csvField(text) {
  let s = String(text);
  if (/^[=+\-@]/.test(s)) s = `'${s}`;
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

function numberText(v) {
  if (v === -Infinity) return '-inf';
  if (v === Infinity) return 'inf';
  return String(v);
}

export function matrixCsv({ tokens, values }) {
  const T = tokens.length;
  const lines = [['query\\key', ...tokens].map(csvField).join(',')];
  for (let i = 0; i < T; i += 1) {
    lines.push([csvField(tokens[i]), ...Array.from(values.subarray(i * T, (i + 1) * T), numberText)].join(','));
  }
  return `${lines.join('\r\n')}\r\n`;
}

export function matrixJson({ tokens, ids, values, layer, head, stage, model }) {
  const T = tokens.length;
  const rows = Array.from({ length: T }, (_, i) => Array.from(values.subarray(i * T, (i + 1) * T), (v) => (Number.isFinite(v) ? v : null)));
  return JSON.stringify(
    { model, layer, head, stage, tokens, ids, shape: [T, T], values: rows, note: 'null marks a masked score (-inf)' },
    null,
    2,
  );
}

export function download(filename, blob) {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = filename;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

export function canvasPng(canvas) {
  return new Promise((resolve) => canvas.toBlob(resolve, 'image/png'));
}
