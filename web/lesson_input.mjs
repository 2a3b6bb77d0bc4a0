// What a learner types in lesson mode -> matrices for the core, or messages
// that say exactly what is wrong (never a silently empty view).
// A matrix is one row per line (or rows separated by ";"), numbers separated
// by spaces or commas (Chinese punctuation ，、； too). Lines pasted from the
// lesson's Python also work: brackets, "tensor(...)" and "# comments" are
// ignored.
// Messages are {key, params} for the catalogue; rows and columns count from 1.

/** Bounds of a worked example on screen (the core allows more). */
export const LESSON_LIMITS = { tokens: 16, dims: 64 };
const MAX_TEXT = 20000;

const NUMBER = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?$/i;
const MINUS_INFINITY = /^(?:[-−]∞|-inf|-infinity)$/i;

/** Splits typed text into rows of cell strings. */
export function splitRows(text) {
  return text
    .slice(0, MAX_TEXT)
    .replace(/#[^\n]*/g, '') // comments, as in the lesson's code
    .replace(/tensor\(|\)/g, '')
    .replace(/\]\s*,?/g, '\n')
    .replace(/\[/g, '')
    .split(/[\n;；]/u)
    .map((line) => line.split(/[\s,，、]+/u).filter(Boolean))
    .filter((cells) => cells.length > 0);
}

/**
 * {rows: number[][], cells: string[][]} or {error: {key, params}}.
 * maxRows/maxCols bound the shape; −∞ is allowed only where the scores are typed.
 */
export function parseMatrix(text, name, { maxRows = LESSON_LIMITS.tokens, maxCols = LESSON_LIMITS.dims, allowMinusInfinity = false } = {}) {
  const cells = splitRows(text);
  if (cells.length === 0) return { error: { key: 'lesson.error.empty', params: { name } } };
  const width = cells[0].length;
  for (let i = 0; i < cells.length; i += 1) {
    if (cells[i].length !== width) {
      return { error: { key: 'lesson.error.ragged', params: { name, row: i + 1, got: cells[i].length, want: width } } };
    }
  }
  if (cells.length > maxRows || width > maxCols) {
    return { error: { key: 'lesson.error.tooBig', params: { name, rows: cells.length, cols: width, maxRows, maxCols } } };
  }
  const rows = [];
  for (let i = 0; i < cells.length; i += 1) {
    const row = [];
    for (let j = 0; j < width; j += 1) {
      const token = cells[i][j].replace(/^−/u, '-'); // the minus sign the page prints
      if (MINUS_INFINITY.test(token)) {
        if (!allowMinusInfinity) return { error: { key: 'lesson.error.infinity', params: { name, row: i + 1, col: j + 1 } } };
        row.push(-Infinity);
      } else if (NUMBER.test(token) && Number.isFinite(Number(token))) {
        row.push(Number(token));
      } else {
        return { error: { key: 'lesson.error.notNumber', params: { name, row: i + 1, col: j + 1, token: token.slice(0, 24) } } };
      }
    }
    rows.push(row);
  }
  return { rows, cells };
}

/** Token labels typed separated by spaces; at most one per token. */
export function parseLabels(text) {
  return text
    .split(/\s+/u)
    .filter(Boolean)
    .slice(0, LESSON_LIMITS.tokens)
    .map((label) => label.slice(0, 24));
}

/**
 * Row and column labels of a [Tq, Tk] result: the typed labels name the key
 * positions; queries are the same positions when Q and K have as many rows,
 * the last Tq positions under the causal mask (as the core places them).
 */
export function axisLabels(labels, Tq, Tk, causal) {
  const cols = Array.from({ length: Tk }, (_, j) => labels[j] ?? `#${j}`);
  const offset = Tq === Tk ? 0 : causal && Tq < Tk ? Tk - Tq : null;
  const rows = Array.from({ length: Tq }, (_, i) => (offset === null ? `#${i}` : cols[offset + i]));
  return { rows, cols };
}

/**
 * The lesson state -> {request, problems, warnings, labels, cells}.
 * request is what the worker computes ({kind, q, k, v} or {kind, scores}),
 * null when any problem stands in the way.
 */
export function validateLesson(lesson, { causal }) {
  const problems = [];
  const warnings = [];
  const labels = parseLabels(lesson.labels ?? '');
  const { tokens } = LESSON_LIMITS;
  let request = null;
  let shape = null;
  let cells = {};
  if (lesson.kind === 'scores') {
    const scores = parseMatrix(lesson.scores ?? '', 'scores', { maxRows: tokens, maxCols: tokens, allowMinusInfinity: true });
    if (scores.error) problems.push(scores.error);
    else {
      shape = { Tq: scores.rows.length, Tk: scores.rows[0].length };
      if (causal && shape.Tq > shape.Tk) problems.push({ key: 'lesson.error.causalScores', params: { rows: shape.Tq, cols: shape.Tk } });
      request = { kind: 'scores', scores: scores.rows };
    }
  } else {
    const q = parseMatrix(lesson.q ?? '', 'Q');
    const k = parseMatrix(lesson.k ?? '', 'K');
    const hasV = (lesson.v ?? '').trim() !== '';
    const v = hasV ? parseMatrix(lesson.v, 'V') : { rows: [] };
    for (const m of [q, k, v]) if (m.error) problems.push(m.error);
    if (!q.error && !k.error) {
      const qd = q.rows[0].length;
      const kd = k.rows[0].length;
      if (qd !== kd) problems.push({ key: 'lesson.error.dims', params: { qd, kd } });
      if (causal && q.rows.length > k.rows.length)
        problems.push({ key: 'lesson.error.causalRows', params: { tq: q.rows.length, tk: k.rows.length } });
    }
    if (!k.error && hasV && !v.error && v.rows.length !== k.rows.length)
      problems.push({ key: 'lesson.error.vRows', params: { vr: v.rows.length, kr: k.rows.length } });
    if (!q.error && !k.error) {
      shape = { Tq: q.rows.length, Tk: k.rows.length, d: q.rows[0].length, dv: hasV && !v.error ? v.rows[0].length : 0 };
      cells = { q: q.cells, k: k.cells };
    }
    if (problems.length === 0) request = { kind: 'qkv', q: q.rows, k: k.rows, v: v.rows };
  }
  if (shape && labels.length > 0 && labels.length !== shape.Tk) {
    warnings.push({ key: 'lesson.warn.labels', params: { labels: labels.length, tokens: shape.Tk } });
  }
  return {
    request: problems.length ? null : request,
    problems,
    warnings,
    shape,
    cells,
    labels: shape ? axisLabels(labels, shape.Tq, shape.Tk, causal) : null,
  };
}
