// "Why this weight" drawn: the table of one score's split (q-side component ×
// k-side component) as a small heatmap of the components with non-negligible
// entries, the largest pairs as bars, and for a block-0 head the ranked keys
// and the score over RoPE's frequency pairs (rotated and with the rotation
// removed). Colours on the diverging PuOr scale of colors.mjs; every value
// is written beside its colour and kept in data-value for the tests. Token
// labels and component names are set as text, never parsed as HTML.
import { scaleFor, textColorOn } from '../colors.mjs';
import { NEGLIGIBLE, RANK_SHOWN, shownComponents, topPairs } from '../../js/qk_text.mjs';
import { make } from '../panels/make_element.mjs';

/**
 * The table [C][C] as a heatmap of the components shown (shownComponents):
 * q-side components as rows, k-side as columns. Returns {q, k, rest}.
 */
export function renderTable(box, { table, components, label }) {
  const shown = shownComponents(table, NEGLIGIBLE);
  const values = shown.q.flatMap((a) => shown.k.map((b) => table[a][b]));
  const { color } = scaleFor('qk', values);
  const grid = make('table', 'qk-table');
  grid.setAttribute('aria-label', label);
  const head = make('tr', null, make('thead', null, grid));
  make('th', 'qk-corner', head, 'q \\ k');
  for (const b of shown.k) make('th', null, head, components[b]).scope = 'col';
  const body = make('tbody', null, grid);
  for (const a of shown.q) {
    const row = make('tr', null, body);
    make('th', null, row, components[a]).scope = 'row';
    for (const b of shown.k) {
      const value = table[a][b];
      const cell = make('td', 'qk-cell', row, value.toFixed(2));
      const fill = color(value);
      cell.style.background = fill;
      cell.style.color = textColorOn(fill);
      cell.dataset.q = components[a];
      cell.dataset.k = components[b];
      cell.dataset.value = String(value);
    }
  }
  box.replaceChildren(grid);
  return shown;
}

/** Bars from a zero line in the middle: [{name, value, mark?}] in the order given. */
function renderBars(box, { items, label, className = '' }) {
  const { color, max } = scaleFor(
    'qk',
    items.map((item) => item.value),
  );
  const list = make('div', `qk-bars ${className}`.trim());
  list.setAttribute('role', 'list');
  list.setAttribute('aria-label', label);
  for (const item of items) {
    const row = make('div', `qk-bar-row${item.mark ? ' qk-mark' : ''}`, list);
    row.setAttribute('role', 'listitem');
    row.dataset.name = item.name;
    row.dataset.value = String(item.value);
    make('span', 'qk-bar-name', row, item.name);
    const track = make('span', 'qk-bar-track', row);
    const bar = make('span', 'qk-bar', track);
    const half = (50 * Math.abs(item.value)) / max; // percent of the track; zero in the middle
    bar.style.width = `${half}%`;
    bar.style.left = item.value >= 0 ? '50%' : `${50 - half}%`;
    bar.style.background = color(item.value);
    make('span', 'qk-bar-value', row, item.value.toFixed(2));
  }
  box.replaceChildren(list);
}

/** The largest pairs of `table` as bars named "q × k". */
export function renderPairs(box, { table, components, label }) {
  const items = topPairs(table).map(({ q, k, value }) => ({ name: `${components[q]} × ${components[k]}`, value }));
  renderBars(box, { items, label, className: 'qk-pairs' });
}

/** Block 0's ranked keys (the first RANK_SHOWN), the key's own token marked. */
export function renderRanked(box, { ranked, keyId, labelOf, label }) {
  const items = ranked.slice(0, RANK_SHOWN).map((r) => ({ name: labelOf(r.id), value: r.score, mark: r.id === keyId }));
  renderBars(box, { items, label, className: 'qk-ranked' });
}

/**
 * The score's RoPE pairs for the pairs of non-negligible size (pair 0 turns
 * fastest): one row each, its part rotated (as run) over its part with the
 * rotation removed (as if both tokens stood at one position).
 */
export function renderRope(box, { rotated, unrotated, t, label }) {
  const { color, max } = scaleFor('qk', [...rotated, ...unrotated]);
  const list = make('div', 'qk-bars qk-rope');
  list.setAttribute('role', 'list');
  list.setAttribute('aria-label', label);
  const legend = make('div', 'qk-bar-row qk-rope-legend', list);
  make('span', null, legend);
  make('span', null, legend, `${t('qk.ropeRotated')} / ${t('qk.ropeUnrotated')}`);
  rotated.forEach((value, p) => {
    if (Math.max(Math.abs(value), Math.abs(unrotated[p])) < NEGLIGIBLE * max) return;
    const row = make('div', 'qk-bar-row', list);
    row.setAttribute('role', 'listitem');
    row.dataset.pair = String(p);
    row.dataset.rotated = String(value);
    row.dataset.unrotated = String(unrotated[p]);
    make('span', 'qk-bar-name', row, t('qk.ropePairLabel', { pair: p }));
    const tracks = make('span', 'qk-rope-tracks', row);
    for (const [v, kind] of [
      [value, 'rotated'],
      [unrotated[p], 'unrotated'],
    ]) {
      const bar = make('span', `qk-bar qk-${kind}`, make('span', 'qk-bar-track', tracks));
      const half = (50 * Math.abs(v)) / max;
      bar.style.width = `${half}%`;
      bar.style.left = v >= 0 ? '50%' : `${50 - half}%`;
      bar.style.background = color(v);
    }
    make('span', 'qk-bar-value', row, `${value.toFixed(2)} / ${unrotated[p].toFixed(2)}`);
  });
  box.replaceChildren(list);
}
