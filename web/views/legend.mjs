// The colour legend: the scale as a gradient with its range, and the hatched
// swatch for masked cells (−∞ → 0). Redrawn only when it changes (while
// typing, the softmax scale stays [0, 1]).
import { hatchPattern } from '../colors.mjs';

const drawn = new WeakMap(); // container -> what it shows

export function renderLegend(container, { scale, stage, maskedLabel, showMasked }) {
  const key = JSON.stringify([scale.min, scale.max, scale.diverging, stage, maskedLabel, showMasked, globalThis.devicePixelRatio]);
  if (drawn.get(container) === key && container.childElementCount > 0) return;
  drawn.set(container, key);
  container.replaceChildren();
  const ratio = globalThis.devicePixelRatio || 1;
  const bar = document.createElement('canvas');
  const width = 180;
  const height = 12;
  bar.width = width * ratio;
  bar.height = height * ratio;
  bar.style.width = `${width}px`;
  bar.style.height = `${height}px`;
  bar.setAttribute('aria-hidden', 'true');
  const ctx = bar.getContext('2d');
  ctx.scale(ratio, ratio);
  for (let x = 0; x < width; x += 1) {
    ctx.fillStyle = scale.color(scale.min + ((scale.max - scale.min) * x) / (width - 1));
    ctx.fillRect(x, 0, 1, height);
  }
  const low = document.createElement('span');
  low.className = 'legend-value';
  low.textContent = scale.min.toFixed(stage === 'attn_weights' ? 0 : 2);
  const high = document.createElement('span');
  high.className = 'legend-value';
  high.textContent = scale.max.toFixed(stage === 'attn_weights' ? 0 : 2);
  container.append(low, bar, high);
  if (showMasked) {
    const swatch = document.createElement('canvas');
    swatch.width = 16 * ratio;
    swatch.height = 16 * ratio;
    swatch.style.width = '16px';
    swatch.style.height = '16px';
    swatch.setAttribute('aria-hidden', 'true');
    const s = swatch.getContext('2d');
    s.scale(ratio, ratio);
    s.fillStyle = hatchPattern(s, 6);
    s.fillRect(0, 0, 16, 16);
    const label = document.createElement('span');
    label.className = 'legend-masked';
    label.textContent = maskedLabel;
    container.append(swatch, label);
  }
}
