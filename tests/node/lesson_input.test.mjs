// Lesson mode's reading of typed matrices (web/lesson_input.mjs): what the
// lessons' Python shows must work pasted as it is (the `Q = torch.tensor([`
// head, rows with # comments, `])`, one-line torch.tensor([[...], [...]]),
// trailing commas, dtype= and other keyword arguments, what PyTorch prints,
// float('-inf')), and what is not a matrix must be named at its row and column.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { parseMatrix, readRows, validateLesson } from '../../web/lesson_input.mjs';

// The block lesson 2.5 shows, as it is printed there.
const LESSON_Q = `Q = torch.tensor([
    [1.0, 0.0],   # 小明
    [0.0, 1.0],   # 小红
    [0.5, 0.5],   # 她
])`;

const rowsOf = (text, options) => {
  const parsed = parseMatrix(text, 'Q', options);
  assert.equal(parsed.error, undefined, JSON.stringify(parsed.error));
  return parsed.rows;
};

test('the lesson’s torch.tensor block reads as its rows, and its comments name the rows', () => {
  assert.deepEqual(rowsOf(LESSON_Q), [
    [1, 0],
    [0, 1],
    [0.5, 0.5],
  ]);
  assert.deepEqual(parseMatrix(LESSON_Q, 'Q').labels, ['小明', '小红', '她']);
  assert.deepEqual(parseMatrix(LESSON_Q, 'Q').cells[2], ['0.5', '0.5'], 'the numbers as typed, for the dot product shown');
  // Windows line ends, tabs, the closing on the last row's line, a trailing comma after every number.
  const crlf = 'K = torch.tensor([\r\n\t[0.9, 0.1,],  # a\r\n\t[0.2, 0.8,]])  # b\r\n';
  assert.deepEqual(rowsOf(crlf), [
    [0.9, 0.1],
    [0.2, 0.8],
  ]);
  assert.deepEqual(parseMatrix(crlf, 'K').labels, ['a', 'b']);
});

test('one-line tensors, keyword arguments, numpy, tuples and PyTorch’s printed form', () => {
  const want = [
    [1, 2],
    [3, 4],
  ];
  for (const text of [
    'torch.tensor([[1.0, 2.0], [3.0, 4.0]])',
    'Q = torch.tensor([[1.0, 2.0],[3.0, 4.0]], dtype=torch.float32)',
    'V = torch.tensor([[1., 2.], [3., 4.]], dtype=torch.float32, requires_grad=True)',
    "x = torch.tensor([[1, 2], [3, 4]], device='cpu')",
    'np.array([[1, 2,], [3, 4,],])',
    'torch.FloatTensor([[1, 2], [3, 4]])',
    'torch.tensor(((1, 2), (3, 4)))',
    'tensor([[1.0000, 2.0000],\n        [3.0000, 4.0000]], grad_fn=<MmBackward0>)',
    'scores: tensor([[1.0000, 2.0000],\n        [3.0000, 4.0000]])',
    '注意力权重：\ntensor([[1., 2.],\n        [3., 4.]])',
    '[[1, 2], [3, 4]]',
    '1 2\n3 4',
    '1, 2; 3, 4',
    '1，2；3，4',
    'torch.tensor([[[1.0, 2.0], [3.0, 4.0]]])', // a batch of one
  ]) {
    assert.deepEqual(rowsOf(text), want, text);
  }
  // A 1-D tensor is one row; float('-inf') and its spellings are −∞ where scores allow it.
  for (const inf of ["float('-inf')", 'float("-inf")', "-float('inf')", '-torch.inf', '-math.inf', 'float("-infinity")', '-inf', '−∞']) {
    assert.deepEqual(rowsOf(`scores = torch.tensor([1.0, 2.0, ${inf}])`, { allowMinusInfinity: true }), [[1, 2, -Infinity]], inf);
  }
});

test('what is not a matrix is named at its row and column', () => {
  const error = (text, options) => parseMatrix(text, 'Q', options).error;
  assert.deepEqual(error('torch.randn(3, 4)'), {
    key: 'lesson.error.notNumber',
    params: { name: 'Q', row: 1, col: 1, token: 'torch.randn' },
  });
  assert.deepEqual(error('Q = torch.tensor([\n  [1.0, x],\n])'), {
    key: 'lesson.error.notNumber',
    params: { name: 'Q', row: 1, col: 2, token: 'x' },
  });
  assert.deepEqual(error('torch.tensor([[1.0, 2.0], [3.0]])'), {
    key: 'lesson.error.ragged',
    params: { name: 'Q', row: 2, got: 1, want: 2 },
  });
  assert.equal(error("torch.tensor([[1.0, float('-inf')]])").key, 'lesson.error.infinity', 'Q needs finite numbers');
  assert.equal(error("torch.tensor([float('inf')])", { allowMinusInfinity: true }).key, 'lesson.error.notNumber', '+∞ is no score');
  assert.equal(error('Q = torch.tensor([\n])').key, 'lesson.error.empty');
  assert.equal(error('# only a comment').key, 'lesson.error.empty');
});

test('rows keep their lines: a comment names a row only when the row is alone on its line', () => {
  const rows = readRows('torch.tensor([[1, 0], [0, 1]])  # two rows here\n[2, 2]  # third');
  assert.deepEqual(
    rows.map((r) => [r.cells, r.label]),
    [
      [['1', '0'], null],
      [['0', '1'], null],
      [['2', '2'], 'third'],
    ],
  );
  // A paste cut before its "])" still gives the rows it has.
  assert.deepEqual(
    readRows('Q = torch.tensor([\n    [1.0, 0.0],   # 小明\n    [0.0, 1.0],   # 小红').map((r) => r.cells),
    [
      ['1.0', '0.0'],
      ['0.0', '1.0'],
    ],
  );
});

test('validateLesson: pasted Q, K, V give the request, and the comments label the tokens unless labels are typed', () => {
  const K = LESSON_Q.replace('Q =', 'K =');
  const V = 'V = torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], dtype=torch.float32)';
  const lesson = { kind: 'qkv', q: LESSON_Q, k: K, v: V, labels: '' };
  const checked = validateLesson(lesson, { causal: true });
  assert.deepEqual(checked.problems, []);
  assert.deepEqual(checked.request.q, [
    [1, 0],
    [0, 1],
    [0.5, 0.5],
  ]);
  assert.deepEqual(checked.request.v, [
    [1, 2],
    [3, 4],
    [5, 6],
  ]);
  assert.deepEqual(checked.shape, { Tq: 3, Tk: 3, d: 2, dv: 2 });
  assert.deepEqual(checked.labels, { rows: ['小明', '小红', '她'], cols: ['小明', '小红', '她'] });
  assert.deepEqual(checked.notes, [{ key: 'lesson.note.commentLabels', params: { name: 'K', labels: '小明 小红 她' } }]);
  // Typed labels win; no note.
  const typed = validateLesson({ ...lesson, labels: 'A B C' }, { causal: true });
  assert.deepEqual(typed.labels.cols, ['A', 'B', 'C']);
  assert.deepEqual(typed.notes, []);
  // K without comments: Q's name the positions when there are as many queries as keys.
  const plainK = validateLesson({ ...lesson, k: '1 0\n0 1\n0.5 0.5' }, { causal: true });
  assert.deepEqual(plainK.labels.cols, ['小明', '小红', '她']);
  assert.equal(plainK.notes[0].params.name, 'Q');
  // Nothing commented: numbered positions, as before.
  assert.deepEqual(validateLesson({ kind: 'qkv', q: '1 0', k: '1 0\n0 1', v: '', labels: '' }, { causal: true }).labels.cols, ['#0', '#1']);
  // The lesson's softmax example pasted as PyTorch writes it.
  const scores = validateLesson(
    { kind: 'scores', scores: 'torch.tensor([[1.0, 2.0, 3.0], [10.0, 20.0, 30.0]])', labels: '' },
    { causal: false },
  );
  assert.deepEqual(scores.request.scores, [
    [1, 2, 3],
    [10, 20, 30],
  ]);
});
