// The component's lesson views, drawn as numbered tables coloured with the
// page's scales (the lessons print numbers, so the figure shows them):
//  - view="lesson": lesson 2.5's hand computation, one table per step asked
//    for (Q·Kᵀ, ÷ √d, + mask, softmax, weights · V), −∞ printed as "−∞";
//  - view="lab": lesson 11's lab record (each line next to the value the
//    lesson expects) beside the lab's attention weights of batch 0, head 0.
// The core computes (mm.lessonAttention, mm.lessonSoftmax, mm.labRecord);
// checking typed matrices and reading the record are lesson mode's own
// (lesson_input.mjs, lab_record.mjs). Built with textContent only.
import { scaleFor, textColorOn } from '../colors.mjs';
import { LAB_IDS, WEIGHTS_KEY, parseLabRecord, recordRows } from '../lab_record.mjs';
import { watchOverflow } from '../views/scroll_cue.mjs';
import { validateLesson } from '../lesson_input.mjs';
import { formatValue } from '../views/lesson_matrices.mjs';

// The page's colour scale of each step: viridis for weights, diverging otherwise.
const SCALE_STAGE = { raw: 'scores_raw', scaled: 'scores_scaled', masked: 'scores_masked', weights: 'attn_weights', output: 'output' };

function element(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/** {shape: [rows, cols], data} -> number[][] (−∞ kept). */
export function rowsOf({ shape, data }) {
  return Array.from({ length: shape[0] }, (_, i) => Array.from(data.subarray(i * shape[1], (i + 1) * shape[1])));
}

/**
 * Lesson 2.5 by hand for spec {lesson, causal, scale, stages}:
 * {problems: [{key, params}]} or {result, validation, stages}. Typed scores
 * are their own Q·Kᵀ and ÷ √d: "scaled" is drawn as the one "raw" table.
 */
export function computeLesson(mm, { lesson, causal, scale, stages }) {
  const validation = validateLesson(lesson, { causal });
  if (validation.problems.length) return { problems: validation.problems };
  const { request } = validation;
  const typed = request.kind === 'scores';
  if (stages.includes('output') && (typed || request.v.length === 0)) return { problems: [{ key: 'embed.noV', params: {} }] };
  const result = typed
    ? mm.lessonSoftmax(request.scores, { causal })
    : mm.lessonAttention({ q: request.q, k: request.k, v: request.v, causal, scale });
  return { result, validation, stages: typed ? [...new Set(stages.map((s) => (s === 'scaled' ? 'raw' : s)))] : stages };
}

/** Lesson 11's lab on its preset: {lab, seed, rows (the lesson's lines), labels, weights: number[][]}. */
export function computeLab(mm, { preset, seed }) {
  const record = parseLabRecord(mm.labRecord(preset, seed));
  return {
    lab: preset,
    seed: record.seed,
    rows: recordRows(preset, record).filter((row) => !row.extra && row.key !== WEIGHTS_KEY),
    // Batch 0's token ids, labelled as the playground labels ids.
    labels: LAB_IDS.split(' ').map((id) => `#${id}`),
    weights: record.weights.map((row) => row.map(Number)),
  };
}

/**
 * One step as a table, rows = queries and columns = keys (or value dims);
 * −∞, and what the mask removed (masked(i, j)), greyed rather than coloured.
 */
function panel({ stage, title, note, rows, cols, corner, values, decimals, masked }) {
  const figure = element('figure', 'panel');
  figure.dataset.stage = stage;
  const caption = element('figcaption');
  caption.append(element('strong', '', title), element('span', 'shape', ` [${values.length}, ${values[0]?.length ?? 0}]`));
  if (note) caption.append(element('span', 'note', note));
  const flat = values.flat();
  const colour = scaleFor(SCALE_STAGE[stage], flat).color;
  const table = element('table', 'heat');
  const headRow = element('tr');
  headRow.append(element('th', 'corner', corner));
  for (const label of cols) {
    const th = element('th', '', label);
    th.scope = 'col';
    headRow.append(th);
  }
  const head = element('thead');
  head.append(headRow);
  const body = element('tbody');
  values.forEach((row, i) => {
    const tr = element('tr');
    const th = element('th', '', rows[i]);
    th.scope = 'row';
    tr.append(th);
    row.forEach((value, j) => {
      const td = element('td', '', formatValue(value, decimals));
      td.dataset.value = String(value);
      if (value === -Infinity || masked?.(i, j)) td.dataset.masked = 'true';
      else {
        const fill = colour(value);
        td.style.background = fill;
        td.style.color = textColorOn(fill);
      }
      tr.append(td);
    });
    body.append(tr);
  });
  table.append(head, body);
  figure.append(caption, table);
  return figure;
}

/** Lesson view: {title, details} for the figure's caption; the steps drawn into `box`. */
export function renderLesson(box, t, spec, { validation, stages }, matrices) {
  const { lesson, causal, scale } = spec;
  const { rows, cols } = validation.labels;
  const shape = validation.shape;
  const typed = lesson.kind === 'scores';
  const corner = `${t('matrix.query')} \\ ${t('matrix.key')}`;
  const common = { rows, cols, corner, decimals: lesson.decimals };
  const masked = (i, j) => matrices.masked[i][j] === -Infinity;
  const notes = {
    raw: typed ? t('embed.typedScores') : t('embed.panel.raw'),
    scaled: scale ? t('lesson.caption.scaled', { d: shape.d, sqrtD: Math.sqrt(shape.d).toFixed(3) }) : t('lesson.caption.scaledOff'),
    masked: t(causal ? 'lesson.caption.masked' : 'lesson.caption.maskedOff'),
    weights: t('embed.panel.weights'),
    output: t('lesson.caption.output'),
  };
  const titles = {
    raw: t(typed ? 'lesson.stage.typed' : 'stage.scores_raw'),
    scaled: t('stage.scores_scaled'),
    masked: t('stage.scores_masked'),
    weights: t('stage.attn_weights'),
    output: t('lesson.stage.output'),
  };
  const panels = element('div', 'panels-row');
  for (const stage of stages) {
    const dims = stage === 'output' ? matrices.output[0].map((_, j) => `v${j}`) : cols;
    panels.append(
      panel({
        ...common,
        stage,
        title: titles[stage],
        note: notes[stage],
        values: matrices[stage],
        cols: dims,
        masked: stage === 'weights' ? masked : null,
      }),
    );
  }
  const children = [panels];
  for (const w of validation.warnings) children.push(element('p', 'lesson-note', t(w.key, w.params)));
  box.replaceChildren(...children);
  const switches = [t('embed.causalSwitch', { value: t(causal ? 'lesson.on' : 'lesson.off') })];
  if (!typed) switches.push(t('embed.scaleSwitch', { value: t(scale ? 'lesson.on' : 'lesson.off') }));
  const shapes = typed
    ? t('lesson.shapesScores', { Tq: shape.Tq, Tk: shape.Tk })
    : t(shape.dv ? 'lesson.shapes' : 'lesson.shapesNoV', { Tq: shape.Tq, Tk: shape.Tk, d: shape.d, dv: shape.dv });
  return {
    title: lesson.example ? t(`lesson.example.${lesson.example}`) : t('lesson.title'),
    details: [shapes, ...switches].join(' · '),
  };
}

/** Lab view: the record's lines and the lab's attention matrix, side by side. */
export function renderLab(box, t, { lab, seed, rows, labels, weights }) {
  const record = element('table', 'record');
  record.append(element('caption', '', t('lab.caption', { preset: lab, seed, ids: LAB_IDS })));
  const headRow = element('tr');
  for (const key of ['lab.record', 'lab.meaning', 'lab.expected', 'lab.ours', 'lab.match']) headRow.append(element('th', '', t(key)));
  const head = element('thead');
  head.append(headRow);
  const body = element('tbody');
  for (const row of rows) {
    const tr = element('tr');
    tr.dataset.key = row.key;
    if (row.status) tr.dataset.status = row.status;
    tr.append(
      element('td', 'code', row.key),
      element('td', 'meaning', t(`lab.meaning.${row.key}`)),
      element('td', 'code expected', row.lesson ?? '—'),
      element('td', 'code ours', row.ours ?? '—'),
      element('td', `match ${row.status ?? ''}`, row.status ? t(`lab.status.${row.status}`) : ''),
    );
    body.append(tr);
  }
  record.append(head, body);
  // A record wider than its box (a phone) scrolls inside it, and says so.
  const left = element('div', 'record-box');
  left.append(record);
  const hint = element('p', 'scroll-hint', t('table.scrollHint'));
  hint.hidden = true;
  const recordColumn = element('div', 'record-column');
  recordColumn.append(hint, left);
  const matrix = panel({
    stage: 'weights',
    title: t('embed.labMatrix'),
    note: t('lab.weightsCaption'),
    rows: labels,
    cols: labels,
    corner: `${t('matrix.query')} \\ ${t('matrix.key')}`,
    values: weights,
    decimals: 4, // as the record prints them
    masked: (i, j) => j > i, // the future: the lesson expects exactly 0
  });
  const row = element('div', 'panels-row lab');
  row.append(recordColumn, matrix);
  box.replaceChildren(row);
  watchOverflow(left, hint);
  return { title: t(`lab.title.${lab}`), details: t('embed.model', { name: lab, seed }) };
}
