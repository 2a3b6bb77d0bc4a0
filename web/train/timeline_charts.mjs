// The training timeline's charts as data, shared by the timeline card
// (timeline_view.mjs, drawn by views/line_chart.mjs) and its exported
// figure (timeline_figure.mjs), so both show the same lines. One x axis for
// all: tokens trained, in millions, thousands or ones (xUnit), the same
// range on every chart. Charts, top to bottom:
//   loss         the held-out loss and the training batches' mean loss
//   icl          the ICL score (js/timeline.mjs), with its zero line
//   pronoun, induction, previousToken
//                every head's score of that role (js/head_formation_events.mjs
//                FORMING_KINDS), faint; the heads that formed that role in
//                the role's colour, labelled; the role's threshold
//   composition  for every head with a split gap (composition not null) at
//                some entry: the share of its gap written by its top source
//                (the top one at the last entry that splits it), NaN where
//                the gap is too small; formed heads coloured and labelled
// Moments (js/timeline_text.mjs timelineMoments) are marks on every chart,
// labelled on the loss chart and their role's.
import { FORMING_KINDS } from '../../js/head_formation_events.mjs';
import { ROLE_THRESHOLDS } from '../../js/head_roles.mjs';
import { topSource } from '../../js/timeline_text.mjs';
import { ROLE_COLORS } from './role_charts_view.mjs';

const FAINT = 'rgba(110, 110, 110, 0.3)';
const DASHES = [[], [6, 3], [2, 2], [8, 3, 2, 3]];
const ICL_COLOR = '#CC79A7';
const COMPOSITION_COLORS = ['#E69F00', '#56B4E9', '#009E73', '#D55E00', '#0072B2', '#CC79A7'];

/** The unit of a token axis ending at `max`: {unit: 'M' | 'k' | '1', scale}. */
function tokenUnit(max) {
  if (max >= 1e6) return { unit: 'M', scale: 1e6 };
  if (max >= 1e3) return { unit: 'k', scale: 1e3 };
  return { unit: '1', scale: 1 };
}

/** The heads (names) of an entry, in layer then head order. */
function headNames(entry) {
  return Object.keys(entry.heads);
}

/**
 * The charts of a timeline: [{id, title, series: [{x, y, color, width?,
 * dash?, label?}], yLeft?, rules, marks, empty?}] (views/line_chart.mjs's
 * model) and the axis {xMax, unit, scale}. entries: timeline entries in
 * step order; moments: timelineMoments(entries); minGap: the composition
 * threshold; t(key, params).
 */
export function timelineCharts(entries, moments, { minGap, t }) {
  const last = entries.at(-1);
  const { unit, scale } = tokenUnit(last?.tokens ?? 0);
  const x = Float64Array.from(entries, (e) => e.tokens / scale);
  // The axis ends at the last entry rounded up to 3 significant digits: its end label stays short.
  const end = last && last.tokens > 0 ? last.tokens / scale : 1;
  const digit = 10 ** (Math.floor(Math.log10(end)) - 2);
  const xMax = Number((Math.ceil(end / digit - 1e-9) * digit).toPrecision(3));
  const ys = (read) =>
    Float64Array.from(entries, (e) => {
      const v = read(e);
      return v === null || v === undefined ? NaN : v;
    });
  const marksFor = (labelled) =>
    moments.map((m) => ({ x: m.tokens / scale, color: ROLE_COLORS[m.kind], label: labelled(m) ? m.head : undefined }));
  const charts = [
    {
      id: 'loss',
      title: t('timeline.chart.loss'),
      series: [
        { x, y: ys((e) => e.trainLoss), color: '#999999', width: 1.5, dash: [4, 3], label: t('timeline.series.trainLoss') },
        { x, y: ys((e) => e.loss), color: '#222222', width: 2, label: t('timeline.series.loss') },
      ],
      rules: [],
      marks: marksFor(() => true),
    },
    {
      id: 'icl',
      title: t('timeline.chart.icl'),
      series: [{ x, y: ys((e) => e.icl), color: ICL_COLOR, width: 2 }],
      rules: [{ y: 0, color: '#888888' }],
      marks: marksFor(() => false),
    },
  ];
  const names = last ? headNames(last) : [];
  for (const kind of FORMING_KINDS) {
    const formed = [...new Set(moments.filter((m) => m.kind === kind).map((m) => m.head))];
    const series = names
      .filter((name) => !formed.includes(name))
      .map((name) => ({ x, y: ys((e) => e.heads[name]?.[kind]), color: FAINT, width: 1 }));
    formed.forEach((name, k) =>
      series.push({
        x,
        y: ys((e) => e.heads[name]?.[kind]),
        color: ROLE_COLORS[kind],
        width: 2.5,
        dash: DASHES[k % DASHES.length],
        label: name,
      }),
    );
    charts.push({
      id: kind,
      title: t(`train.score.${kind}`),
      titleColor: ROLE_COLORS[kind],
      series,
      yLeft: [0, 1],
      rules: [{ y: ROLE_THRESHOLDS[kind], color: ROLE_COLORS[kind], label: t('train.threshold', { value: ROLE_THRESHOLDS[kind] }) }],
      marks: marksFor((m) => m.kind === kind),
    });
  }
  // Each split head's source: the top one at the last entry that splits its gap.
  const formedHeads = new Set(moments.map((m) => m.head));
  const split = [];
  for (const name of Object.keys(last?.composition ?? {})) {
    const lastSplit = entries.findLast((e) => e.composition?.[name]);
    const top = lastSplit && topSource(lastSplit.composition[name]);
    if (top) split.push({ name, source: top.source, named: formedHeads.has(name) });
  }
  let colour = 0;
  const composition = [
    ...split.filter((s) => !s.named).map((s) => ({ ...s, color: FAINT, width: 1 })),
    ...split.filter((s) => s.named).map((s) => ({ ...s, color: COMPOSITION_COLORS[colour++ % COMPOSITION_COLORS.length], width: 2.5 })),
  ];
  charts.push({
    id: 'composition',
    title: t('timeline.chart.composition'),
    series: composition.map(({ name, source, named, color, width }) => ({
      x,
      y: ys((e) => e.composition?.[name]?.[source]),
      color,
      width,
      label: named ? `${name} ← ${source}` : undefined,
    })),
    yLeft: [0, 1],
    rules: [{ y: 0.5, color: '#888888' }],
    marks: marksFor(() => false),
    empty: composition.length ? undefined : t('timeline.compositionNone', { min: minGap }),
  });
  return { charts, xMax, unit, scale };
}
