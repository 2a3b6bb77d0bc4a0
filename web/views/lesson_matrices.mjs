// Lesson mode's figure: the hand computation of lesson 2.5 as numbered
// matrices, one panel per step (Q·Kᵀ, ÷√d, + mask, softmax, weights·V),
// coloured with the page's scales; −∞ printed as "−∞" and hatched like the
// heatmap's masked cells. Below: the dot product of the chosen cell, the
// chosen row's weighted sum of values, notes, and the lesson's printed lines
// next to ours. Everything is built with textContent.
import { scaleFor, textColorOn } from '../colors.mjs';
import { rowTerms } from './row_explanation.mjs';

/** A number the way the page prints it at `decimals`; −∞ as the lesson writes it. */
export function formatValue(value, decimals) {
  if (value === -Infinity) return '−∞';
  const text = value.toFixed(decimals);
  return /^-0\.?0*$/.test(text) ? text.slice(1) : text; // no "-0.00"
}

function element(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function at(matrix, i, j) {
  return matrix.data[i * matrix.shape[1] + j];
}

/**
 * One step as a table: rows are queries, columns keys (or value dims).
 * masked(i, j): the cell the mask removed (−∞ before softmax, 0 after).
 */
function panel({ stage, title, caption, matrix, axes, rows, cols, decimals, masked, colour, onRow, onCell, selectedRow, selectedCell }) {
  const figure = element('figure', 'lesson-panel');
  figure.dataset.lessonStage = stage;
  const figcaption = element('figcaption');
  const heading = element('span');
  // The shape is always named by its axes: [Tq, Tk] = [3, 3].
  heading.append(element('strong', '', title), element('span', 'lesson-shape', ` ${shapeLabel(axes ?? ['Tq', 'Tk'], matrix.shape)}`));
  figcaption.append(heading);
  if (caption) figcaption.append(element('span', 'lesson-caption', caption));
  figure.append(figcaption);
  const table = element('table', 'lesson-matrix');
  const head = element('thead');
  const headRow = element('tr');
  headRow.append(element('th', 'corner', ''));
  for (const label of cols) {
    const th = element('th', '', label);
    th.scope = 'col';
    headRow.append(th);
  }
  head.append(headRow);
  const body = element('tbody');
  const [Tq, Tk] = matrix.shape;
  for (let i = 0; i < Tq; i += 1) {
    const tr = element('tr');
    if (i === selectedRow) tr.className = 'selected';
    const th = element('th', '', rows[i]);
    th.scope = 'row';
    if (onRow) {
      th.tabIndex = 0;
      th.classList.add('clickable');
      th.addEventListener('click', () => onRow(i));
      th.addEventListener('keydown', (event) => {
        if (event.key === 'Enter' || event.key === ' ') {
          onRow(i);
          event.preventDefault();
        }
      });
    }
    tr.append(th);
    for (let j = 0; j < Tk; j += 1) {
      const value = at(matrix, i, j);
      const td = element('td', '', formatValue(value, decimals));
      td.dataset.value = String(value);
      if (masked?.(i, j) || value === -Infinity) {
        td.dataset.masked = 'true';
      } else if (colour) {
        const fill = colour(value);
        td.style.background = fill;
        td.style.color = textColorOn(fill);
      }
      if (selectedCell && selectedCell[0] === i && selectedCell[1] === j) td.classList.add('selected-cell');
      if (onCell) {
        td.classList.add('clickable');
        td.addEventListener('click', () => onCell(i, j));
      }
      tr.append(td);
    }
    body.append(tr);
  }
  table.append(head, body);
  const scroll = element('div', 'lesson-scroll');
  scroll.append(table);
  figure.append(scroll);
  return figure;
}

/** "[Tq, Tk] = [3, 3]": a shape with the names of its axes. */
function shapeLabel(axes, shape) {
  return `[${axes.join(', ')}] = [${shape.join(', ')}]`;
}

function colourOf(stage, matrix) {
  const scale = scaleFor(stage, matrix.data);
  return scale.color;
}

/**
 * view: {t, lesson, validation, result, causal, scale, row, cell, example,
 *        embed, onRow(i), onCell(i, j), onLessonSwitches()}
 */
export function renderLessonView(container, view) {
  const { t, validation, result, example } = view;
  const children = [];
  const title = example ? t(`lesson.example.${example.id}`) : t('lesson.yours');
  children.push(element('h2', 'lesson-title', title));
  if (validation.shape) children.push(element('p', 'caption', shapesLine(view)));
  if (validation.problems.length) {
    const box = element('div', 'lesson-problems');
    box.id = 'lesson-problems';
    box.setAttribute('role', 'alert');
    box.append(element('p', 'error', t('lesson.problems')));
    const list = element('ul', 'problems');
    for (const p of validation.problems) list.append(element('li', '', t(p.key, p.params)));
    box.append(list);
    children.push(box);
  } else if (view.error) {
    const box = element('p', 'error', t('error.compute', { message: view.error }));
    box.id = 'lesson-problems';
    box.setAttribute('role', 'alert');
    children.push(box);
  }
  for (const w of validation.warnings) children.push(element('p', 'hint lesson-warning', t(w.key, w.params)));
  for (const n of validation.notes ?? []) children.push(element('p', 'hint lesson-info', t(n.key, n.params)));
  if (result && !validation.problems.length) {
    children.push(panels(view));
    children.push(...explanations(view));
    const notes = switchNotes(view);
    if (notes.length) children.push(element('p', 'note lesson-switch-note', notes.join(' ')));
    if (example?.note) {
      const note = element('p', 'note lesson-note', t(`lesson.note.${example.note}`));
      note.id = 'lesson-note';
      children.push(note);
    }
    if (example?.checks && !view.embed) children.push(checks(view));
  }
  container.replaceChildren(...children);
}

function shapesLine({ t, lesson, validation }) {
  const s = validation.shape;
  if (lesson.kind === 'scores') return t('lesson.shapesScores', { Tq: s.Tq, Tk: s.Tk });
  return t(s.dv ? 'lesson.shapes' : 'lesson.shapesNoV', { Tq: s.Tq, Tk: s.Tk, d: s.d, dv: s.dv });
}

function panels(view) {
  const { t, lesson, validation, result, causal, scale } = view;
  const decimals = lesson.decimals;
  const { rows, cols } = validation.labels;
  const d = validation.shape.d;
  const grid = element('div', 'lesson-panels');
  grid.id = 'lesson-panels';
  const maskedBy = (matrix) => (i, j) => at(matrix, i, j) === -Infinity;
  const common = { rows, cols, decimals, selectedRow: view.row };
  if (lesson.kind === 'scores') {
    grid.append(
      panel({ ...common, stage: 'raw', title: t('lesson.stage.typed'), matrix: result.raw, colour: colourOf('raw', result.raw) }),
    );
  } else {
    grid.append(
      panel({
        ...common,
        stage: 'raw',
        title: t('stage.scores_raw'),
        caption: t('lesson.caption.raw'),
        matrix: result.raw,
        colour: colourOf('raw', result.raw),
        onCell: view.onCell,
        selectedCell: view.cell,
      }),
      panel({
        ...common,
        stage: 'scaled',
        title: t('stage.scores_scaled'),
        caption: scale ? t('lesson.caption.scaled', { d, sqrtD: Math.sqrt(d).toFixed(3) }) : t('lesson.caption.scaledOff'),
        matrix: result.scaled,
        colour: colourOf('scaled', result.scaled),
      }),
    );
  }
  grid.append(
    panel({
      ...common,
      stage: 'masked',
      title: t('stage.scores_masked'),
      caption: causal ? t('lesson.caption.masked') : t('lesson.caption.maskedOff'),
      matrix: result.masked,
      colour: colourOf('masked', result.masked),
    }),
    panel({
      ...common,
      stage: 'weights',
      title: t('stage.attn_weights'),
      caption: t('lesson.caption.weights'),
      matrix: result.weights,
      masked: maskedBy(result.masked),
      colour: colourOf('attn_weights', result.weights),
      onRow: view.onRow,
    }),
  );
  if (result.output) {
    const dims = Array.from({ length: result.output.shape[1] }, (_, j) => `v${j}`);
    grid.append(
      panel({
        ...common,
        stage: 'output',
        title: t('lesson.stage.output'),
        caption: t('lesson.caption.output'),
        matrix: result.output,
        axes: ['Tq', 'dv'],
        cols: dims,
        colour: colourOf('output', result.output),
        onRow: view.onRow,
      }),
    );
  }
  return grid;
}

function explanations(view) {
  const { t, lesson, validation, result } = view;
  const out = [];
  const { rows, cols } = validation.labels;
  const decimals = lesson.decimals;
  // q_i · k_j term by term, from the numbers as typed; the sum is the core's.
  if (lesson.kind === 'qkv' && view.cell && validation.cells.q) {
    const [i, j] = view.cell;
    if (i < result.raw.shape[0] && j < result.raw.shape[1]) {
      const qi = validation.cells.q[i];
      const kj = validation.cells.k[j];
      const terms = qi.map((x, n) => `${x}×${kj[n]}`).join(' + ');
      const line = element(
        'p',
        'lesson-dot',
        t('lesson.dot', { i, j, query: rows[i], key: cols[j], terms, value: formatValue(at(result.raw, i, j), decimals) }),
      );
      line.id = 'lesson-dot';
      out.push(line);
    }
  }
  if (!view.embed || view.row !== null) {
    const line = element('p', 'lesson-row');
    line.id = 'lesson-row';
    const row = view.row;
    if (row === null || row >= result.weights.shape[0]) {
      line.textContent = t('lesson.rowNone');
    } else {
      const Tk = result.weights.shape[1];
      // rowTerms reads a [T, T] matrix by its token count: give it the row alone.
      const weights = result.weights.data.subarray(row * Tk, (row + 1) * Tk);
      const terms = rowTerms(cols, weights, 0)
        .map((term) => `${formatValue(term.weight, decimals)}×V(${term.key})`)
        .join(' + ');
      const output = result.output
        ? ` = [${Array.from(result.output.data.subarray(row * result.output.shape[1], (row + 1) * result.output.shape[1]), (x) => formatValue(x, decimals)).join(', ')}]`
        : '';
      line.textContent = t('lesson.rowFormula', { query: rows[row], terms: terms || '0', output });
    }
    out.push(line);
  }
  if (!result.output && lesson.kind === 'qkv' && !view.embed) out.push(element('p', 'hint', t('lesson.noV')));
  return out;
}

/**
 * The share of the weights on later tokens, when the rows are positions of
 * the keys' sequence (as many queries as keys); null when they are not: the
 * rows of typed scores such as softmax([1, 2, 3]) against softmax([10, 20, 30])
 * are separate vectors, with no "future" to leak.
 */
function futureShare(weights) {
  const [Tq, Tk] = weights.shape;
  if (Tq !== Tk) return null;
  let future = 0;
  for (let i = 0; i < Tq; i += 1) for (let j = i + 1; j < Tk; j += 1) future += weights.data[i * Tk + j];
  return future / Tq;
}

function switchNotes({ t, lesson, causal, scale, embed, result }) {
  const notes = [];
  // "The future leaks" only where there is a future, and it gets weight.
  const share = causal ? null : futureShare(result.weights);
  if (share !== null && share > 0) notes.push(t('lesson.switch.causalOffShare', { percent: (100 * share).toFixed(1) }));
  if (lesson.kind === 'scores') {
    if (!embed) notes.push(t('lesson.switch.scoresNoScale')); // about a switch the embed view does not show
  } else if (!scale) notes.push(t('lesson.switch.scaleOff'));
  return notes;
}

/** The lesson's printed lines next to ours, at the lesson's precision. */
function checkRows(example, result) {
  return example.checks.map((check) => {
    const matrix = result[check.stage];
    const Tk = matrix?.shape[1] ?? 0;
    let ours = null;
    let lesson = check.lesson;
    if (matrix && check.row < matrix.shape[0]) {
      if (check.col !== undefined) ours = check.col < Tk ? formatValue(at(matrix, check.row, check.col), check.decimals) : null;
      else ours = `[${Array.from({ length: Tk }, (_, j) => formatValue(at(matrix, check.row, j), check.decimals)).join(', ')}]`;
    }
    if (Array.isArray(lesson)) lesson = `[${lesson.join(', ')}]`;
    const same = ours === lesson;
    return { label: check.label, lesson, ours: ours ?? '—', same, status: same ? 'same' : (check.status ?? 'differs') };
  });
}

function checks(view) {
  const { t, example, result, causal, scale, lesson } = view;
  const box = element('div', 'lesson-checks');
  box.append(element('h3', '', t('lesson.checks')));
  const switchesDiffer = example.causal !== causal || (lesson.kind === 'qkv' && example.scale !== scale);
  if (switchesDiffer) {
    const banner = element('p', 'note lesson-switches-differ');
    banner.append(
      element(
        'span',
        '',
        t('lesson.switchesDiffer', {
          causal: t(example.causal ? 'lesson.on' : 'lesson.off'),
          scale: t(example.scale ? 'lesson.on' : 'lesson.off'),
        }),
      ),
      ' ',
    );
    const button = element('button', '', t('lesson.useLessonSwitches'));
    button.type = 'button';
    button.id = 'lesson-use-switches';
    button.addEventListener('click', () => view.onLessonSwitches());
    banner.append(button);
    box.append(banner);
  }
  const table = element('table', 'lesson-check-table');
  table.id = 'lesson-checks';
  const head = element('tr');
  for (const key of ['lesson.checkWhat', 'lesson.checkLesson', 'lesson.checkOurs', 'lesson.checkStatus'])
    head.append(element('th', '', t(key)));
  const thead = element('thead');
  thead.append(head);
  const body = element('tbody');
  for (const row of checkRows(example, result)) {
    const tr = element('tr');
    tr.dataset.status = row.status;
    tr.append(
      element('td', 'code', row.label),
      element('td', 'code lesson-value', row.lesson),
      element('td', 'code our-value', row.ours),
      element('td', `check-${row.status}`, t(`lesson.status.${row.status}`)),
    );
    body.append(tr);
  }
  table.append(thead, body);
  box.append(table);
  return box;
}
