// All layers × heads as thumbnails of the current stage, heads grouped by
// the kv head they share (GQA); the open one is outlined. Click to open.
import { hatchPattern, scaleFor } from '../colors.mjs';

export function renderOverview(container, { entries, layers, heads, kvHeads, T, stage, masked, current, t, onOpen }) {
  container.replaceChildren();
  const R = heads / kvHeads;
  const size = Math.max(36, Math.min(72, Math.floor(360 / heads)));
  const ratio = globalThis.devicePixelRatio || 1;
  for (let layer = 0; layer < layers; layer += 1) {
    const entry = entries.get(layer, stage);
    const row = document.createElement('div');
    row.className = 'overview-layer';
    const label = document.createElement('span');
    label.className = 'overview-layer-label';
    label.textContent = t('overview.layer', { layer });
    row.append(label);
    const scale = scaleFor(stage, entry.data);
    for (let kv = 0; kv < kvHeads; kv += 1) {
      const group = document.createElement('div');
      group.className = 'kv-group';
      const groupLabel = document.createElement('span');
      groupLabel.className = 'kv-label';
      groupLabel.textContent = t('overview.kvGroup', { kv });
      group.append(groupLabel);
      for (let head = kv * R; head < (kv + 1) * R; head += 1) {
        const button = document.createElement('button');
        button.type = 'button';
        button.className = 'thumb';
        button.dataset.layer = String(layer);
        button.dataset.head = String(head);
        button.setAttribute('aria-label', t('overview.cell', { layer, head }));
        button.setAttribute('aria-pressed', String(layer === current.layer && head === current.head));
        const canvas = document.createElement('canvas');
        canvas.width = size * ratio;
        canvas.height = size * ratio;
        canvas.style.width = `${size}px`;
        canvas.style.height = `${size}px`;
        const ctx = canvas.getContext('2d');
        ctx.scale(ratio, ratio);
        const cell = size / T;
        const hatch = hatchPattern(ctx, 4);
        const base = head * T * T; // entry: [1, H, T, T]
        for (let i = 0; i < T; i += 1) {
          for (let j = 0; j < T; j += 1) {
            ctx.fillStyle = masked(i, j) ? hatch : scale.color(entry.data[base + i * T + j]);
            ctx.fillRect(j * cell, i * cell, Math.ceil(cell), Math.ceil(cell));
          }
        }
        const caption = document.createElement('span');
        caption.textContent = `h${head}`;
        button.append(canvas, caption);
        button.addEventListener('click', () => onOpen(layer, head));
        group.append(button);
      }
      row.append(group);
    }
    container.append(row);
  }
}
