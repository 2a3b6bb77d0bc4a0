// The training timeline's charts (web/train/timeline_charts.mjs) and its
// exported SVG (web/train/timeline_figure.mjs) on synthetic entries: one
// token axis, the formed heads named, a moment marked on every chart, the
// top source's share of a split head's gap, and a point per entry in the file.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { FORMING_KINDS } from '../../js/head_formation_events.mjs';
import { ROLE_THRESHOLDS } from '../../js/head_roles.mjs';
import { timelineMoments } from '../../js/timeline_text.mjs';
import { timelineCharts } from '../../web/train/timeline_charts.mjs';
import { timelineSvg } from '../../web/train/timeline_figure.mjs';

const t = (key, params = {}) => `${key}${Object.keys(params).length ? JSON.stringify(params) : ''}`;

// 2 blocks × 2 heads; L0H1 becomes a previous-token head at entry 2, L1H0 an induction head at
// entry 3, whose gap splits from entry 2.
function entries() {
  return Array.from({ length: 5 }, (_, k) => {
    const heads = {};
    for (const name of ['L0H0', 'L0H1', 'L1H0', 'L1H1']) heads[name] = { previousToken: 0.1, induction: 0.05, pronoun: 0.1, sink: 0.2 };
    heads.L0H1.previousToken = 0.2 + 0.2 * k;
    heads.L1H0.induction = k >= 3 ? ROLE_THRESHOLDS.induction + 0.1 * (k - 2) : 0.05;
    const split = k >= 2;
    return {
      step: 10 * k,
      tokens: 300000 * k,
      loss: 6 - k,
      trainLoss: k ? 6.5 - k : null,
      icl: -0.1 * k * k,
      heads,
      composition: {
        L1H0: split ? { L0H0: 0.2, L0H1: 0.5 + 0.1 * k } : null,
        L1H1: k === 1 ? { L0H0: 0.9, L0H1: 0.1 } : null,
      },
      gaps: { L1H0: split ? 2 : 0.3, L1H1: k === 1 ? 1.2 : 0.1 },
      T: 0,
      attention: null,
    };
  });
}

test('the charts share one token axis and name the heads that formed', () => {
  const list = entries();
  const moments = timelineMoments(list);
  assert.deepEqual(
    moments.map((m) => [m.kind, m.head, m.index]),
    [
      ['previousToken', 'L0H1', 2],
      ['induction', 'L1H0', 3],
    ],
  );
  const { charts, xMax, unit, scale } = timelineCharts(list, moments, { minGap: 1, t });
  assert.deepEqual([unit, scale, xMax], ['M', 1e6, 1.2]);
  assert.deepEqual(
    charts.map((c) => c.id),
    ['loss', 'icl', ...FORMING_KINDS, 'composition'],
  );
  for (const chart of charts) {
    for (const s of chart.series) assert.deepEqual(Array.from(s.x), [0, 0.3, 0.6, 0.9, 1.2], chart.id);
    assert.deepEqual(
      chart.marks.map((m) => m.x),
      [0.6, 0.9],
      `every chart marks both moments: ${chart.id}`,
    );
  }
  const loss = charts[0];
  assert.deepEqual(Array.from(loss.series[1].y), [6, 5, 4, 3, 2]);
  assert.ok(Number.isNaN(loss.series[0].y[0]), 'no training loss at batch 0');
  const induction = charts.find((c) => c.id === 'induction');
  assert.deepEqual(
    induction.series.filter((s) => s.label).map((s) => s.label),
    ['L1H0'],
  );
  assert.equal(induction.rules[0].y, ROLE_THRESHOLDS.induction);
  assert.deepEqual(
    induction.marks.map((m) => m.label),
    [undefined, 'L1H0'],
  );
  // Composition: L1H0's top source at its last split entry (L0H1), NaN before the split; L1H1 faint, unlabelled.
  const composition = charts.at(-1);
  const named = composition.series.find((s) => s.label);
  assert.equal(named.label, 'L1H0 ← L0H1');
  assert.deepEqual(
    Array.from(named.y).slice(2),
    [2, 3, 4].map((k) => 0.5 + 0.1 * k),
  );
  assert.ok(Number.isNaN(named.y[0]) && Number.isNaN(named.y[1]));
  // L1H1 split only at entry 1: its source is that entry's top one, drawn faint and unlabelled.
  const faint = composition.series.find((s) => !s.label);
  assert.equal(composition.series.length, 2);
  assert.deepEqual(
    Array.from(faint.y).map((v) => (Number.isNaN(v) ? null : v)),
    [null, 0.9, null, null, null],
  );
});

test('a timeline without a split gap says so; the SVG holds every chart and a point per entry', () => {
  const list = entries().map((e) => ({ ...e, composition: { L1H0: null, L1H1: null } }));
  const moments = timelineMoments(list);
  const axis = timelineCharts(list, moments, { minGap: 1, t });
  const composition = axis.charts.at(-1);
  assert.equal(composition.series.length, 0);
  assert.equal(composition.empty, 'timeline.compositionNone{"min":1}');
  const svg = timelineSvg(
    { title: 'A <timeline>', source: 'src', charts: axis.charts, xMax: axis.xMax, xLabel: 'tokens', cursor: 0.6, sentences: ['one & two'] },
    { entries: list.length },
  );
  assert.deepEqual(
    [...svg.matchAll(/<g class="chart" data-chart="(\w+)">/g)].map((m) => m[1]),
    axis.charts.map((c) => c.id),
  );
  assert.ok(svg.includes('<title>A &lt;timeline&gt;</title>'));
  assert.ok(svg.includes('one &amp; two'));
  const lines = [...svg.matchAll(/data-points="([^"]*)"/g)].map((m) => JSON.parse(m[1].replace(/&quot;/g, '"')));
  const heldOut = lines.find((points) => points.length === 5 && points.every(([, y], k) => y === list[k].loss));
  assert.ok(heldOut, 'the held-out loss with every entry');
  assert.ok(
    lines.some((points) => points.length === 4),
    'the training loss without batch 0',
  );
});
