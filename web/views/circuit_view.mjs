// The circuit view's drawings: the graph (blocks as rows of nodes: embed on
// top, then each block's heads and FFN, the logits at the bottom; the
// strongest edges as curves, width by the size of their share, colour by its
// sign) and the faithfulness curves. SVG scaled to the width of its box (a
// viewBox), so it fits a phone without sideways scrolling. A tap or hover on
// an edge shows its numbers in a tooltip inside the box; a tap on a head calls
// onHead(layer, head).
import { scaleFor } from '../colors.mjs';
import { edgeEnds, edgeShares } from '../../js/circuit_text.mjs';

const SVG = 'http://www.w3.org/2000/svg';
const NODE_W = 56;
const NODE_H = 26;
const GAP_X = 14;
const ROW_H = 74;
const PAD = 16;
const PORTS = { q: -16, k: 0, v: 16 };

function svgEl(name, attrs = {}, parent = null) {
  const el = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  parent?.append(el);
  return el;
}

/** Node centres {name: {x, y}} and the box size for L blocks of H heads. */
function layout(L, H) {
  const cols = H + 1;
  const width = PAD * 2 + cols * NODE_W + (cols - 1) * GAP_X;
  const height = PAD * 2 + (L + 1) * ROW_H + NODE_H;
  const at = {};
  const y = (row) => PAD + NODE_H / 2 + row * ROW_H;
  at.embed = { x: width / 2, y: y(0) };
  for (let l = 0; l < L; l += 1) {
    for (let h = 0; h <= H; h += 1) {
      const name = h < H ? `L${l}H${h}` : `L${l}ffn`;
      at[name] = { x: PAD + NODE_W / 2 + h * (NODE_W + GAP_X), y: y(l + 1) };
    }
  }
  at.logits = { x: width / 2, y: y(L + 1) };
  return { at, width, height };
}

/** An edge's measure on screen: its patched share where patched, else EAP's estimate. */
function shownShare(edge, metric) {
  const { patched, eap } = edgeShares(edge, metric);
  return patched ?? eap ?? 0;
}

/**
 * Draws the graph into `box` (emptied). options: {result, L, H, count (edges drawn, strongest
 * first), t, label, tip(edge) -> lines, onHead(layer, head)}. Returns {drawn}.
 */
export function renderCircuit(box, { result, L, H, count, label, tip, onHead }) {
  box.replaceChildren();
  const { at, width, height } = layout(L, H);
  const svg = svgEl('svg', { viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-label': label, class: 'circuit-graph' }, box);
  const edges = result.edges.slice(0, count);
  const shares = edges.map((e) => shownShare(e, result.metric));
  const color = scaleFor('circuit', shares);
  const maxAbs = Math.max(...shares.map(Math.abs), 1e-9);
  const edgeLayer = svgEl('g', { class: 'circuit-edges' }, svg);
  const nodeLayer = svgEl('g', { class: 'circuit-nodes' }, svg);
  const bubble = document.createElement('div');
  bubble.className = 'circuit-tip';
  bubble.hidden = true;
  bubble.setAttribute('role', 'status');
  box.append(bubble);

  function show(edge, event) {
    bubble.replaceChildren(
      ...tip(edge).map((line) => {
        const p = document.createElement('p');
        p.textContent = line;
        return p;
      }),
    );
    bubble.hidden = false;
    bubble.dataset.edge = `${edge.from}->${edge.to}`;
    // Inside the box, whatever the pointer: a phone's narrow screen never scrolls sideways.
    const rect = box.getBoundingClientRect();
    const x = (event?.clientX ?? rect.left + rect.width / 2) - rect.left;
    const y = (event?.clientY ?? rect.top + rect.height / 2) - rect.top;
    const w = Math.min(bubble.offsetWidth, rect.width);
    bubble.style.left = `${Math.max(0, Math.min(x - w / 2, rect.width - w))}px`;
    bubble.style.top = `${Math.max(0, y + 12)}px`;
  }
  box.addEventListener('pointerdown', (event) => {
    if (!event.target.closest?.('.circuit-hit')) bubble.hidden = true;
  });

  // Weakest first, so the strongest lie on top.
  edges
    .map((edge, i) => ({ edge, share: shares[i] }))
    .reverse()
    .forEach(({ edge, share }) => {
      const { from, to, port } = edgeEnds(edge);
      const a = at[from];
      const b = at[to];
      if (!a || !b) return;
      const x1 = a.x;
      const y1 = a.y + NODE_H / 2;
      const x2 = b.x + (port ? PORTS[port] : 0);
      // Into a node of the same row (a head into its block's FFN): under both, a bend below.
      const sameRow = Math.abs(a.y - b.y) < 1;
      const y2 = sameRow ? b.y + NODE_H / 2 : b.y - NODE_H / 2;
      const bend = sameRow ? 30 : Math.max(20, (y2 - y1) / 2);
      const d = sameRow
        ? `M${x1},${y1} C${x1},${y1 + bend} ${x2},${y2 + bend} ${x2},${y2}`
        : `M${x1},${y1} C${x1},${y1 + bend} ${x2},${y2 - bend} ${x2},${y2}`;
      const stroke = color.color(share >= 0 ? maxAbs : -maxAbs);
      svgEl(
        'path',
        { d, class: 'circuit-edge', fill: 'none', stroke, 'stroke-width': 1 + (6 * Math.abs(share)) / maxAbs, 'stroke-opacity': 0.85 },
        edgeLayer,
      );
      const hit = svgEl('path', { d, class: 'circuit-hit', fill: 'none', stroke: 'transparent', 'stroke-width': 12 }, edgeLayer);
      hit.dataset.edge = `${edge.from}->${edge.to}`;
      hit.addEventListener('pointerenter', (event) => event.pointerType === 'mouse' && show(edge, event));
      hit.addEventListener('click', (event) => show(edge, event));
    });

  for (const [name, { x, y }] of Object.entries(at)) {
    const head = /^L(\d+)H(\d+)$/.exec(name);
    const g = svgEl('g', { class: head ? 'circuit-node circuit-head' : 'circuit-node', 'data-node': name }, nodeLayer);
    const w = name === 'embed' || name === 'logits' ? NODE_W * 1.4 : NODE_W;
    svgEl('rect', { x: x - w / 2, y: y - NODE_H / 2, width: w, height: NODE_H, rx: 5 }, g);
    const text = svgEl('text', { x, y: y + 4, 'text-anchor': 'middle' }, g);
    text.textContent = name;
    if (!head) continue;
    for (const [port, dx] of Object.entries(PORTS)) {
      const p = svgEl('text', { x: x + dx, y: y - NODE_H / 2 - 3, 'text-anchor': 'middle', class: 'circuit-port' }, g);
      p.textContent = port;
    }
    g.setAttribute('role', 'button');
    g.setAttribute('tabindex', '0');
    g.setAttribute('aria-label', name);
    const open = () => onHead(Number(head[1]), Number(head[2]));
    g.addEventListener('click', open);
    g.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' || event.key === ' ') {
        event.preventDefault();
        open();
      }
    });
  }
  return { drawn: edges.length };
}

/** Both faithfulness curves over the N steps (equal spacing), a mark at index `at`. */
export function renderCurves(box, { curves, at, label, names }) {
  box.replaceChildren();
  const W = 300;
  const Hh = 110;
  const pad = 22;
  const points = curves.eap;
  const values = [...curves.eap, ...curves.patched].map((p) => p.share).filter((v) => v !== null);
  const lo = Math.min(0, ...values);
  const hi = Math.max(1, ...values);
  const sx = (i) => pad + (i * (W - 2 * pad)) / Math.max(1, points.length - 1);
  const sy = (v) => Hh - pad - ((v - lo) * (Hh - 2 * pad)) / (hi - lo);
  const svg = svgEl('svg', { viewBox: `0 0 ${W} ${Hh}`, role: 'img', 'aria-label': label, class: 'circuit-curves' }, box);
  for (const v of [0, 1]) {
    svgEl('line', { x1: pad, x2: W - pad, y1: sy(v), y2: sy(v), class: 'circuit-axis' }, svg);
    svgEl('text', { x: pad - 4, y: sy(v) + 4, 'text-anchor': 'end', class: 'circuit-port' }, svg).textContent = String(v);
  }
  const styles = { eap: 'circuit-curve-eap', patched: 'circuit-curve-patched' };
  for (const rank of ['eap', 'patched']) {
    const pts = curves[rank].map((p, i) => (p.share === null ? null : `${sx(i)},${sy(p.share)}`)).filter(Boolean);
    svgEl('polyline', { points: pts.join(' '), fill: 'none', class: styles[rank] }, svg);
  }
  svgEl('line', { x1: sx(at), x2: sx(at), y1: pad / 2, y2: Hh - pad, class: 'circuit-mark' }, svg);
  points.forEach((p, i) => {
    if (i === 0 || i === points.length - 1 || i === at)
      svgEl('text', { x: sx(i), y: Hh - 6, 'text-anchor': 'middle', class: 'circuit-port' }, svg).textContent = String(p.edges);
  });
  const legend = document.createElement('p');
  legend.className = 'hint circuit-legend';
  for (const rank of ['eap', 'patched']) {
    const span = document.createElement('span');
    span.className = `circuit-key ${styles[rank]}`;
    span.textContent = names[rank];
    legend.append(span);
  }
  box.append(legend);
}
