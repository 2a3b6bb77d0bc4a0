// All layers × heads as thumbnails of the current stage, heads grouped by
// the kv head they share (GQA); the open one is outlined. Click to open.
// The buttons and canvases are built once per shape (layers, heads, kv
// heads, language) and repainted in place on every new result; while the
// overview is scrolled out of view, painting waits until it comes back.
import { hatchPattern, scaleFor } from '../colors.mjs';
import { paintCells } from './cells.mjs';

const views = new WeakMap(); // container -> {key, thumbs: [{layer, head, button, ctx}], hatch, onOpen, visible, pending, observer}

function build(container, { layers, heads, kvHeads, t }, size, ratio, key) {
  const R = heads / kvHeads;
  const view = { key, thumbs: [], hatch: null, onOpen: null };
  const rows = [];
  for (let layer = 0; layer < layers; layer += 1) {
    const row = document.createElement('div');
    row.className = 'overview-layer';
    const label = document.createElement('span');
    label.className = 'overview-layer-label';
    label.textContent = t('overview.layer', { layer });
    row.append(label);
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
        const canvas = document.createElement('canvas');
        canvas.width = size * ratio;
        canvas.height = size * ratio;
        canvas.style.width = `${size}px`;
        canvas.style.height = `${size}px`;
        const ctx = canvas.getContext('2d');
        ctx.scale(ratio, ratio);
        view.hatch ??= hatchPattern(ctx, 4);
        const caption = document.createElement('span');
        caption.textContent = `h${head}`;
        button.append(canvas, caption);
        button.addEventListener('click', () => view.onOpen(layer, head));
        group.append(button);
        view.thumbs.push({ layer, head, button, ctx });
      }
      row.append(group);
    }
    rows.push(row);
  }
  container.replaceChildren(...rows);
  return view;
}

export function renderOverview(container, { entries, layers, heads, kvHeads, T, stage, masked, current, t, onOpen }) {
  const size = Math.max(36, Math.min(72, Math.floor(360 / heads)));
  const ratio = globalThis.devicePixelRatio || 1;
  const key = JSON.stringify([layers, heads, kvHeads, size, ratio, t('overview.cell', { layer: 0, head: 0 })]);
  let view = views.get(container);
  if (!view || view.key !== key || container.childElementCount !== layers) {
    const visible = view?.visible ?? true;
    view?.observer?.disconnect();
    view = build(container, { layers, heads, kvHeads, t }, size, ratio, key);
    view.visible = visible;
    views.set(container, view);
    if (globalThis.IntersectionObserver) {
      view.observer = new IntersectionObserver((records) => {
        view.visible = records.at(-1).isIntersecting;
        if (view.visible && view.pending) paint(view, view.pending);
      });
      view.observer.observe(container);
    }
  }
  view.onOpen = onOpen;
  for (const { layer, head, button } of view.thumbs)
    button.setAttribute('aria-pressed', String(layer === current.layer && head === current.head));
  const matrices = { entries, T, stage, masked, size };
  if (view.visible) paint(view, matrices);
  else view.pending = matrices;
}

function paint(view, { entries, T, stage, masked, size }) {
  view.pending = null;
  let scale = null;
  let scaleLayer = -1;
  for (const { layer, head, ctx } of view.thumbs) {
    const entry = entries.get(layer, stage); // [1, H, T, T]
    if (layer !== scaleLayer) {
      scale = scaleFor(stage, entry.data); // one scale per layer, as the thumbnails of a layer compare
      scaleLayer = layer;
    }
    ctx.clearRect(0, 0, size, size);
    const values = entry.data.subarray(head * T * T, (head + 1) * T * T);
    paintCells(ctx, { T, x: 0, y: 0, cell: size / T, values, masked, color: scale.color, hatch: view.hatch });
  }
}
