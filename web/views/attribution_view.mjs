// Direct logit attribution as bars: one per part that writes into the
// residual stream (the embeddings, each head, each layer's FFN), each what it
// adds to logit(answer) − logit(wrong), and the total under them. A bar grows
// right of the zero line when positive, left when negative, coloured on the
// diverging PuOr scale of colors.mjs; its value is written beside it.
import { scaleFor } from '../colors.mjs';
import { attributionParts } from '../../js/why_text.mjs';

/** attribution: the API's {position, total, embedding, heads, ffn}. Returns the parts drawn. */
export function renderAttribution(box, { attribution, t, label }) {
  const parts = attributionParts(attribution);
  const values = [...parts.map((p) => p.value), attribution.total];
  const scale = scaleFor('attribution', values);
  const maxAbs = scale.max;
  const list = document.createElement('div');
  list.className = 'attribution-bars';
  list.setAttribute('role', 'list');
  list.setAttribute('aria-label', label);
  for (const part of parts) list.append(barRow(part.name, part.value, maxAbs, scale.color, part.kind));
  const total = barRow(t('why.attr.totalLabel'), attribution.total, maxAbs, scale.color, 'total');
  list.append(total);
  box.replaceChildren(list);
  return parts;
}

function barRow(name, value, maxAbs, color, kind) {
  const row = document.createElement('div');
  row.className = `attribution-row ${kind}`;
  row.setAttribute('role', 'listitem');
  row.dataset.kind = kind;
  row.dataset.name = name;
  row.dataset.value = String(value);
  const label = document.createElement('span');
  label.className = 'attribution-name';
  label.textContent = name;
  const track = document.createElement('span');
  track.className = 'attribution-track';
  const bar = document.createElement('span');
  bar.className = 'attribution-bar';
  const half = (50 * Math.abs(value)) / maxAbs; // percent of the track; zero in the middle
  bar.style.width = `${half}%`;
  bar.style.left = value >= 0 ? '50%' : `${50 - half}%`;
  bar.style.background = color(value);
  track.append(bar);
  const number = document.createElement('span');
  number.className = 'attribution-value';
  number.textContent = value.toFixed(2);
  row.append(label, track, number);
  return row;
}
