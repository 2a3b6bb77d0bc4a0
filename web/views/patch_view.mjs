// Activation patching as two heatmaps of restoration, (patched − corrupt) /
// (clean − corrupt): layers × heads (each head's z from the clean run) and
// layers × positions (one cell of the residual stream from the clean run).
// Signed values on the diverging PuOr scale of colors.mjs, centred on 0 and
// reaching at least ±100%, so 100% always has the same colour.
import { scaleFor } from '../colors.mjs';
import { largest, normalisePatch } from '../../js/why_text.mjs';
import { layerLabels } from './lens_view.mjs';
import { renderValueGrid, scrollToColumns } from './value_grid.mjs';

/**
 * result: the API's patch result with tokens {clean, corrupt}; ablate: the
 * heads switched off ([[layer, head], ...]), whose cells say "off" (their z
 * is zero in both runs: there is nothing to patch). Returns the normalised grids.
 */
export function renderPatch(headsBox, residualBox, { result, t, ablate = [] }) {
  const off = new Set(ablate.map(([layer, head]) => `${layer}:${head}`));
  const normal = normalisePatch(result);
  const all = [...normal.heads.flat(), ...normal.residual.flat()].filter((v) => v !== null);
  const scale = scaleFor('restoration', [...all, 1, -1]);
  const spec = (value, raw) =>
    value === null
      ? { value: 'null', text: '—', color: '#eeeeee', title: raw === null ? '' : raw.toFixed(3) }
      : {
          value,
          text: `${Math.round(value * 100)}%`,
          color: scale.color(value),
          title: `${(value * 100).toFixed(1)}% (${raw.toFixed(3)})`,
        };
  const L = result.heads.length;
  const H = result.heads[0]?.length ?? 0;
  renderValueGrid(headsBox, {
    rows: Array.from({ length: L }, (_, l) => `L${l}`),
    cols: Array.from({ length: H }, (_, h) => `H${h}`),
    label: t('why.patch.headsTitle'),
    cell: (l, h) =>
      off.has(`${l}:${h}`)
        ? { value: 'off', text: t('why.patch.off'), color: '#eeeeee', title: t('why.patch.offTitle', { head: `L${l}H${h}` }) }
        : spec(normal.heads[l][h], result.heads[l][h]),
  });
  const { clean, corrupt } = result.tokens;
  renderValueGrid(residualBox, {
    rows: layerLabels(result.residual.length, t),
    cols: corrupt.map((token, position) =>
      token === clean[position] ? `${position} ${token}` : `${position} ${clean[position]}→${token}`,
    ),
    label: t('why.patch.residualTitle'),
    cell: (l, position) => spec(normal.residual[l][position], result.residual[l][position]),
  });
  // A phone's narrow grids scroll: the residual to the last position (where the answer is read)
  // and the one that restores the most before it.
  const T = corrupt.length;
  const before = largest(normal.residual.map((row) => row.slice(0, T - 1)));
  scrollToColumns(headsBox, [], t);
  scrollToColumns(residualBox, [T - 1, before?.col ?? T - 1], t);
  return normal;
}
