// The one line that says what the mark of a predicted byte token (唱…, see
// js/token_text.mjs) means. It sits between the prediction box and the "why"
// section, the first two places the mark appears, and is shown only while
// one of them draws a marked label: its example is the first such label.
import { byteForm } from '../../js/token_text.mjs';

const PARTS = ['prediction', 'why']; // in page order
const marked = new Map(); // part -> the first marked {label, raw} it draws now

/** part: 'prediction' | 'why'; names: the token names it draws now ([{label, raw, kind}], nulls skipped). */
export function showMarks(element, t, part, names) {
  const first = names.find((n) => n?.kind === 'predicted');
  if (first) marked.set(part, first);
  else marked.delete(part);
  if (!element) return;
  const example = PARTS.map((p) => marked.get(p)).find(Boolean);
  element.hidden = !example;
  element.textContent = example ? t('token.markLegend', { label: example.label, bytes: byteForm(example.raw) }) : '';
}
