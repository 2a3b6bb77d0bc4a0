// All layers × heads as thumbnails of the current stage, heads grouped by
// the kv head they share (GQA); the open one is outlined. Click to open.
// For a model whose heads were measured (the trained model's heads.json),
// each head carries its role and score; every head has a switch that turns
// it off (ablation: its output zeroed before o_proj), and switched-off heads
// are marked. The buttons and canvases are built once per shape (layers,
// heads, kv heads, language, labels) and repainted in place on every new
// result; while the overview is scrolled out of view, painting waits until
// it comes back.
import { hatchPattern, scaleFor } from '../colors.mjs';
import { paintCells } from './cells.mjs';
import { make } from '../panels/make_element.mjs';

const views = new WeakMap(); // container -> {key, thumbs: [{layer, head, cell, button, toggle, ctx}], hatch, onOpen, onToggle, visible, pending, observer}

function build(container, { layers, heads, kvHeads, t, tags }, size, ratio, key) {
  const R = heads / kvHeads;
  const view = { key, thumbs: [], hatch: null, onOpen: null, onToggle: null };
  const rows = [];
  for (let layer = 0; layer < layers; layer += 1) {
    // One grid row per layer: its kv groups side by side, each a grid of its heads (thumbnails shrink to fit).
    const row = make('div', 'overview-layer');
    row.style.setProperty('--kv-groups', String(kvHeads));
    make('span', 'overview-layer-label', row).textContent = t('overview.layer', { layer });
    for (let kv = 0; kv < kvHeads; kv += 1) {
      const group = make('div', 'kv-group', row);
      group.style.setProperty('--group-heads', String(R));
      make('span', 'kv-label', group).textContent = t('overview.kvGroup', { kv });
      for (let head = kv * R; head < (kv + 1) * R; head += 1) {
        const cell = make('div', 'thumb-cell', group);
        const button = make('button', 'thumb', cell);
        button.type = 'button';
        button.dataset.layer = String(layer);
        button.dataset.head = String(head);
        const tag = tags?.(layer, head) ?? null;
        // With a switch off the title (the note's sentence) is read too: the score alone would not say why.
        const said = tag ? `: ${tag.role}, ${tag.score}${tag.switchesOff && tag.title ? `. ${tag.title}` : ''}` : '';
        button.setAttribute('aria-label', t('overview.cell', { layer, head }) + said);
        if (tag?.title) button.title = tag.title;
        const canvas = make('canvas', null, button);
        canvas.width = size * ratio;
        canvas.height = size * ratio;
        canvas.style.maxWidth = `${size}px`; // at most; narrower when the row is (style.css)
        const ctx = canvas.getContext('2d');
        ctx.scale(ratio, ratio);
        view.hatch ??= hatchPattern(ctx, 4);
        make('span', 'thumb-head', button).textContent = `h${head}`;
        if (tag) {
          const role = make('span', tag.mixed ? 'thumb-role mixed' : 'thumb-role', button);
          role.textContent = tag.role;
          role.classList.toggle('switches-off', Boolean(tag.switchesOff)); // measured with the switches on, shown off
          make('span', 'thumb-score', button).textContent = tag.score;
        }
        make('span', 'thumb-off', button).textContent = t('overview.off');
        button.addEventListener('click', () => view.onOpen(layer, head));
        const toggle = make('button', 'head-switch', cell);
        toggle.type = 'button';
        toggle.dataset.layer = String(layer);
        toggle.dataset.head = String(head);
        toggle.addEventListener('click', () => view.onToggle(layer, head));
        view.thumbs.push({ layer, head, cell, button, toggle, ctx });
      }
    }
    rows.push(row);
  }
  container.replaceChildren(...rows);
  return view;
}

/**
 * tags(layer, head): {role, score, mixed, title, switchesOff} texts of a measured head
 * (switchesOff: a switch is off, so the role is shown as measured, not as seen), or
 * null (or no `tags`: nothing measured); ablated: Set of "layer:head"
 * switched off; onOpen(layer, head), onToggle(layer, head).
 */
export function renderOverview(
  container,
  { entries, layers, heads, kvHeads, T, stage, masked, current, t, tags, ablated, onOpen, onToggle },
) {
  // The thumbnails' drawn size (the window's width: no layout read); style.css shrinks them to fit a layer's row.
  const narrow = (globalThis.innerWidth ?? 1024) < 600;
  const size = Math.max(36, Math.min(narrow ? 56 : 72, Math.floor((narrow ? 320 : 560) / heads)));
  const ratio = globalThis.devicePixelRatio || 1;
  const labels = [];
  for (let layer = 0; layer < layers && tags; layer += 1) for (let head = 0; head < heads; head += 1) labels.push(tags(layer, head));
  const key = JSON.stringify([layers, heads, kvHeads, size, ratio, t('overview.cell', { layer: 0, head: 0 }), t('overview.off'), labels]);
  let view = views.get(container);
  if (!view || view.key !== key || container.childElementCount !== layers) {
    const visible = view?.visible ?? true;
    view?.observer?.disconnect();
    view = build(container, { layers, heads, kvHeads, t, tags }, size, ratio, key);
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
  view.onToggle = onToggle;
  for (const { layer, head, cell, button, toggle } of view.thumbs) {
    button.setAttribute('aria-pressed', String(layer === current.layer && head === current.head));
    const off = ablated?.has(`${layer}:${head}`) ?? false;
    cell.classList.toggle('off', off);
    // Pressed while the head is off, and then it says what a press does: switch it on again.
    toggle.setAttribute('aria-pressed', String(off));
    toggle.textContent = t(off ? 'overview.switchOn' : 'overview.switchOff');
    toggle.setAttribute('aria-label', t(off ? 'overview.switchOnLabel' : 'overview.switchOffLabel', { layer, head }));
  }
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
