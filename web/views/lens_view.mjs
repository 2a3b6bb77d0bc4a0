// The logit lens for the selected row: residual rows (embed, then after
// block 0, 1, ...) × the top 5 tokens read out there, and a layers × positions map
// of one token's probability. Colours: viridis for probabilities in [0, 1]
// (colors.mjs); the chosen token's cells are outlined.
import { scaleFor } from '../colors.mjs';
import { residualName } from '../../js/why_text.mjs';
import { renderValueGrid, scrollToColumns } from './value_grid.mjs';

const probability = scaleFor('attn_weights', []);

/** The lens rows' labels: embed, then "after L0", "after L1", ... (blocks from 0). */
export function layerLabels(layers, t) {
  return Array.from({ length: layers }, (_, l) => {
    const { key, params } = residualName(l);
    return t(key, params);
  });
}

/**
 * lens: the worker's lens-result ({row, lens: [L + 1][T][5], token: {id, p},
 * labels: {id: label}, raws: {id: raw}, tokens}); onPick(id) when a top-5
 * token is clicked. A byte token reads as its label (唱…, E5 94), its raw
 * bytes in the cell's tooltip.
 */
export function renderLens(topBox, mapBox, { lens, t, onPick }) {
  const { row, labels } = lens;
  const layers = lens.lens.length;
  const rows = layerLabels(layers, t);
  const top = lens.lens.map((layer) => layer[row]);
  const k = Math.max(...top.map((entries) => entries.length));
  const name = (id) => labels[id] ?? `#${id}`;
  const raw = (id) => lens.raws?.[id] ?? name(id);
  renderValueGrid(topBox, {
    rows,
    cols: Array.from({ length: k }, (_, j) => String(j + 1)),
    minColumn: 'max-content', // a token and its p, whole
    label: t('why.lens.title', { row, token: lens.tokens[row] }),
    cell: (l, j) => {
      const entry = top[l][j];
      if (!entry) return null;
      return {
        value: entry.p,
        text: `${name(entry.id)} ${entry.p.toFixed(2)}`,
        title: `${raw(entry.id)} (#${entry.id}): p = ${entry.p.toFixed(4)}`,
        color: probability.color(entry.p),
        marked: entry.id === lens.token.id,
      };
    },
    onClick: (l, j) => onPick(top[l][j].id),
  });
  for (const cell of topBox.querySelectorAll('.value-cell[data-value]')) {
    cell.dataset.id = String(top[Number(cell.dataset.row)][Number(cell.dataset.col)].id);
  }
  renderValueGrid(mapBox, {
    rows,
    cols: lens.tokens.map((token, position) => `${position} ${token}`),
    label: t('why.lens.mapTitle', { token: name(lens.token.id) }),
    cell: (l, position) => {
      const p = lens.token.p[l][position];
      return { value: p, text: p.toFixed(2), color: probability.color(p), marked: position === row };
    },
  });
  // A phone's narrow grids scroll: the map to the row's position.
  scrollToColumns(topBox, [], t);
  scrollToColumns(mapBox, [row], t);
}
