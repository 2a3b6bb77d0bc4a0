// What a learner types in lesson mode -> matrices for the core, or messages
// that say exactly what is wrong (never a silently empty view).
// A matrix is one row per line (or rows separated by ";"), numbers separated
// by spaces or commas (Chinese punctuation ，、； too). What the lesson's
// Python shows works as it is pasted:
//   Q = torch.tensor([
//       [1.0, 0.0],   # 小明
//       [0.5, 0.5],   # 她
//   ], dtype=torch.float32)
// also torch.tensor([[...], [...]]) on one line, np.array(...), what PyTorch
// prints (tensor([[...]], grad_fn=<...>)), trailing commas and
// float('-inf'), -torch.inf, -math.inf for −∞. The innermost [...] lists are
// the rows; numbers outside any bracket form rows by lines, as typed. A
// "# comment" alone on a row's line names that row's token (小明, 她): the
// labels when none are typed. Anything else (a word, a call such as
// torch.randn(3, 4)) is reported as "not a number" at its row and column.
// Messages are {key, params} for the catalogue; rows and columns count from 1.

/** Bounds of a worked example on screen (the core allows more). */
const LESSON_LIMITS = { tokens: 16, dims: 64 };
const MAX_TEXT = 20000;
const MAX_LABEL = 24;

const NUMBER = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?$/i;
const MINUS_INFINITY = /^(?:[-−]∞|-inf|-infinity)$/i;

// Python's ways of writing ±infinity, rewritten to what the parser reads.
const INF_WORD = String.raw`inf(?:inity)?`;
const PYTHON_INFINITY = [
  [new RegExp(String.raw`[-−]\s*float\(\s*(['"])\s*\+?${INF_WORD}\s*\1\s*\)`, 'giu'), ' -inf '],
  [new RegExp(String.raw`float\(\s*(['"])\s*-\s*${INF_WORD}\s*\1\s*\)`, 'giu'), ' -inf '],
  [new RegExp(String.raw`float\(\s*(['"])\s*\+?${INF_WORD}\s*\1\s*\)`, 'giu'), ' inf '],
  [/[-−]\s*(?:torch|math|np|numpy)\s*\.\s*inf\b/giu, ' -inf '],
  [/\b(?:torch|math|np|numpy)\s*\.\s*inf\b/giu, ' inf '],
];
// Calls that only wrap a literal: torch.tensor(...), np.array(...), tensor(...) as printed.
const CONSTRUCTOR =
  /(?<![\w.])(?:(?:torch|np|numpy|jnp|tf)\s*\.\s*)?(?:tensor|Tensor|FloatTensor|DoubleTensor|HalfTensor|as_tensor|array|asarray|constant)\s*\(/gu;
// ", dtype=torch.float32", ", requires_grad=True", ", grad_fn=<SoftmaxBackward0>", ", device='cpu'".
const KEYWORD_ARGUMENT = /[,，]\s*[A-Za-z_]\w*\s*=\s*(?:<[^>\n]*>|'[^'\n]*'|"[^"\n]*"|[\w.]+)/gu;
// "Q =", "scores:", "注意力权重：" at the start of a line (not "==").
const HEAD = /^[ \t]*[\p{L}_][\p{L}\p{N}_.]*[ \t]*(?:=(?!=)|[:：])/gmu;
const PIECE = /\[|\]|[;；]|\n|[\s,，、]+|[^\s,，、;；[\]]+/gu;

/** The code of one line and its "# comment" (the comment's text, trimmed, or null). */
function splitComment(line) {
  const at = line.indexOf('#');
  if (at < 0) return { code: line, comment: null };
  const comment = line.slice(at + 1).trim();
  return { code: line.slice(0, at), comment: comment || null };
}

/**
 * Typed text -> [{cells: string[], line, label}] in order: the innermost [...]
 * lists, and outside brackets each line (or ";"-separated part) of numbers.
 * label is the row's comment when the row is alone on its line.
 */
export function readRows(text) {
  const lines = text
    .slice(0, MAX_TEXT)
    .split(/\r\n|\r|\n/u)
    .map(splitComment);
  let code = lines.map((l) => l.code).join('\n');
  for (const [pattern, replacement] of PYTHON_INFINITY) code = code.replace(pattern, replacement);
  code = code
    .replace(KEYWORD_ARGUMENT, ' ')
    .replace(HEAD, (head) => head.replace(/[^\n]/gu, ' '))
    .replace(CONSTRUCTOR, ' ')
    .replace(/\(/gu, '[') // tuples, as torch.tensor(((1, 2), (3, 4))) allows; other calls stay words
    .replace(/\)/gu, ']');
  const rows = [];
  const stack = []; // open lists: {atoms: [{text, line}], children}
  let loose = []; // atoms outside brackets: a row per line
  let line = 0;
  const push = (atoms) => atoms.length && rows.push({ cells: atoms.map((a) => a.text), line: atoms[0].line });
  const endLoose = () => {
    push(loose);
    loose = [];
  };
  for (const [piece] of code.matchAll(PIECE)) {
    if (piece === '[') {
      if (stack.length) stack.at(-1).children += 1;
      else endLoose();
      stack.push({ atoms: [], children: 0 });
    } else if (piece === ']') {
      const list = stack.pop();
      if (list) push(list.atoms); // an innermost list is a row; one beside lists is a row of its own (and ragged)
    } else if (piece === ';' || piece === '；' || piece === '\n') {
      if (!stack.length) endLoose();
      if (piece === '\n') line += 1;
    } else if (/^[\s,，、]+$/u.test(piece)) {
      line += piece.split('\n').length - 1;
      if (!stack.length && piece.includes('\n')) endLoose();
    } else {
      (stack.length ? stack.at(-1).atoms : loose).push({ text: piece, line });
    }
  }
  endLoose();
  // Unclosed lists (a paste that stops before "])"): their numbers still count.
  while (stack.length) push(stack.pop().atoms);
  rows.sort((a, b) => a.line - b.line); // a list closed after an inner unclosed one keeps its place
  const perLine = new Map();
  for (const row of rows) perLine.set(row.line, (perLine.get(row.line) ?? 0) + 1);
  return rows.map((row) => ({ ...row, label: perLine.get(row.line) === 1 ? (lines[row.line]?.comment ?? null) : null }));
}

/**
 * {rows: number[][], cells: string[][], labels: (string | null)[]} or {error: {key, params}}.
 * labels: each row's "# comment" (null where a row has none).
 * maxRows/maxCols bound the shape; −∞ is allowed only where the scores are typed.
 */
export function parseMatrix(text, name, { maxRows = LESSON_LIMITS.tokens, maxCols = LESSON_LIMITS.dims, allowMinusInfinity = false } = {}) {
  const read = readRows(text);
  const cells = read.map((row) => row.cells);
  if (cells.length === 0) return { error: { key: 'lesson.error.empty', params: { name } } };
  // A word (or a call such as torch.randn(3, 4)) is named first: it is what breaks the shape too.
  const rows = [];
  for (let i = 0; i < cells.length; i += 1) {
    const row = [];
    for (let j = 0; j < cells[i].length; j += 1) {
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
  const width = cells[0].length;
  for (let i = 0; i < cells.length; i += 1) {
    if (cells[i].length !== width) {
      return { error: { key: 'lesson.error.ragged', params: { name, row: i + 1, got: cells[i].length, want: width } } };
    }
  }
  if (cells.length > maxRows || width > maxCols) {
    return { error: { key: 'lesson.error.tooBig', params: { name, rows: cells.length, cols: width, maxRows, maxCols } } };
  }
  return { rows, cells, labels: read.map((row) => (row.label === null ? null : row.label.slice(0, MAX_LABEL))) };
}

/** Token labels typed separated by spaces; at most one per token. */
function parseLabels(text) {
  return text
    .split(/\s+/u)
    .filter(Boolean)
    .slice(0, LESSON_LIMITS.tokens)
    .map((label) => label.slice(0, MAX_LABEL));
}

/** The rows' comments as token labels, when every row has one. */
function commentLabels(matrix) {
  return matrix && !matrix.error && matrix.labels.every((label) => label !== null) ? matrix.labels : null;
}

/**
 * Row and column labels of a [Tq, Tk] result: the typed labels name the key
 * positions; queries are the same positions when Q and K have as many rows,
 * the last Tq positions under the causal mask (as the core places them).
 */
function axisLabels(labels, Tq, Tk, causal) {
  const cols = Array.from({ length: Tk }, (_, j) => labels[j] ?? `#${j}`);
  const offset = Tq === Tk ? 0 : causal && Tq < Tk ? Tk - Tq : null;
  const rows = Array.from({ length: Tq }, (_, i) => (offset === null ? `#${i}` : cols[offset + i]));
  return { rows, cols };
}

/**
 * The lesson state -> {request, problems, warnings, notes, labels, cells}.
 * request is what the worker computes ({kind, q, k, v} or {kind, scores}),
 * null when any problem stands in the way. Without typed labels, the rows'
 * "# comments" of K (or of Q, V, the typed scores: rows that are the key
 * positions) label the tokens, and a note says so.
 */
export function validateLesson(lesson, { causal }) {
  const problems = [];
  const warnings = [];
  const notes = [];
  let labels = parseLabels(lesson.labels ?? '');
  let commented = []; // [name, matrix] whose comments may name the keys
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
      if (shape.Tq === shape.Tk) commented = [['scores', scores]];
    }
  } else {
    const q = parseMatrix(lesson.q ?? '', 'Q');
    const k = parseMatrix(lesson.k ?? '', 'K');
    const hasV = readRows(lesson.v ?? '').length > 0; // a V of comments alone is no V
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
      commented = [['K', k], ...(shape.Tq === shape.Tk ? [['Q', q]] : []), ...(hasV ? [['V', v]] : [])];
    }
    if (problems.length === 0) request = { kind: 'qkv', q: q.rows, k: k.rows, v: v.rows };
  }
  if (labels.length === 0) {
    const found = commented.find(([, matrix]) => commentLabels(matrix));
    if (found) {
      labels = commentLabels(found[1]);
      notes.push({ key: 'lesson.note.commentLabels', params: { name: found[0], labels: labels.join(' ') } });
    }
  }
  if (shape && labels.length > 0 && labels.length !== shape.Tk) {
    warnings.push({ key: 'lesson.warn.labels', params: { labels: labels.length, tokens: shape.Tk } });
  }
  return {
    request: problems.length ? null : request,
    problems,
    warnings,
    notes,
    shape,
    cells,
    labels: shape ? axisLabels(labels, shape.Tq, shape.Tk, causal) : null,
  };
}
