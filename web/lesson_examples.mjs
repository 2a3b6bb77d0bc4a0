// Every worked example of lesson 2.5 (Attention and the causal mask) with the
// numbers it types and the numbers it prints. One click loads the example;
// the core computes it, and the page compares its answer with the lesson's
// printed lines (`checks`).
//
// A check line compares one printed row (or one printed value) at the
// lesson's own precision. `status` says what to expect:
//   exact         the lesson's number, digit for digit
//   rounded       the lesson rounded differently (a note explains)
//   illustrative  the lesson's number is a made-up illustration, not
//                 computed from its own scores (a note explains)
//   input         the lesson computed from unrounded values; we start from
//                 its printed (rounded) ones, so the last digit may differ
// Lesson text uses −∞ (U+2212) the way the page prints it.

/** The stages of the hand computation, in the lesson's order. */
export const LESSON_STAGES = ['raw', 'scaled', 'masked', 'weights', 'output'];

// A lesson's 3×3 scores typed as Q (a 4th column of zeros) with K the identity,
// so Q·Kᵀ is exactly the lesson's scores and d = 4 as there; the row of 她 selected.
const scoresAsQ = ({ id, q, decimals, cell, checks }) => ({
  id,
  kind: 'qkv',
  q,
  k: identityRows(3, 4),
  v: '',
  scores: '',
  labels: '小红 很 她',
  causal: false,
  scale: true,
  decimals,
  cell,
  row: 2,
  note: id,
  checks,
});

// One check per printed row of a lesson's matrix, labelled as the lesson prints it (scores[0], scores[1], ...).
const rowChecks = (name, stage, decimals, rows, status) =>
  rows.map((lesson, row) => ({ label: `${name}[${row}]`, stage, row, decimals, lesson, ...(status ? { status } : {}) }));

// One check per printed weight of the query token's row: query→key, as the lesson prints them.
const cellChecks = (query, row, keys, decimals, values) =>
  keys.map((key, col) => ({ label: `${query}→${key}`, stage: 'weights', row, col, decimals, lesson: values[col] }));

const identityRows = (rows, cols) =>
  Array.from({ length: rows }, (_, i) => Array.from({ length: cols }, (_, j) => (i === j ? '1' : '0')).join(' ')).join('\n');

export const LESSON_EXAMPLES = [
  {
    // §2 "动手实操": Q·Kᵀ and softmax, no ÷√d, no mask; V is not given.
    id: 'she',
    kind: 'qkv',
    q: '0.1 0.2 0.3 0.1\n0.0 0.1 0.0 0.2\n0.9 0.1 0.8 0.0',
    k: '0.8 0.2 0.9 0.1\n0.0 0.3 0.1 0.5\n0.7 0.1 0.7 0.0',
    v: '',
    scores: '',
    labels: '小红 很 她',
    causal: false,
    scale: false,
    decimals: 4,
    cell: [2, 0], // scores[2][0] = 0.9*0.8 + 0.1*0.2 + 0.8*0.9 + 0.0*0.1 = 1.46
    row: 2,
    checks: [
      ...rowChecks('scores', 'raw', 4, [
        ['0.4000', '0.1400', '0.3000'],
        ['0.0400', '0.1300', '0.0100'],
        ['1.4600', '0.1100', '1.2000'],
      ]),
      ...rowChecks('attention_weights', 'weights', 4, [
        ['0.3737', '0.2881', '0.3381'],
        ['0.3263', '0.3570', '0.3167'],
        ['0.4925', '0.1277', '0.3798'],
      ]),
      ...cellChecks('她', 2, ['小红', '很', '她'], 3, ['0.493', '0.128', '0.380']),
    ],
  },
  scoresAsQ({
    // §3 "Self-Attention 流程": the lesson gives the 3×3 scores directly, then
    // ÷√4 and softmax.
    id: 'flow',
    q: '0.8 0.1 0.3 0\n0.2 0.5 0.1 0\n0.9 0.1 0.7 0',
    decimals: 2,
    cell: [2, 0],
    checks: [
      ...rowChecks('scores', 'raw', 1, [
        ['0.8', '0.1', '0.3'],
        ['0.2', '0.5', '0.1'],
        ['0.9', '0.1', '0.7'],
      ]),
      ...rowChecks(
        'attention_weights',
        'weights',
        2,
        [
          ['0.50', '0.20', '0.30'],
          ['0.25', '0.50', '0.25'],
          ['0.65', '0.10', '0.25'],
        ],
        'illustrative',
      ),
    ],
  }),
  {
    // §3 "为什么要除以 √d": small scores spread, large ones winner-takes-all.
    id: 'softmax',
    kind: 'scores',
    q: '',
    k: '',
    v: '',
    scores: '1 2 3\n10 20 30',
    labels: '',
    causal: false,
    scale: true,
    decimals: 2,
    row: null,
    checks: [
      { label: 'softmax([1, 2, 3])', stage: 'weights', row: 0, decimals: 2, lesson: ['0.09', '0.24', '0.67'] },
      { label: 'softmax([10, 20, 30])', stage: 'weights', row: 1, decimals: 2, lesson: ['0.00', '0.00', '1.00'] },
    ],
  },
  scoresAsQ({
    // §3 second "动手实操": the lesson's run used random nn.Linear weights, so
    // only its printed scores can be reproduced: typed as Q with K = I.
    id: 'random',
    q: '-0.0169 0.1395 -0.0236 0\n-0.3668 -0.1999 -0.3604 0\n-0.0078 0.1269 -0.0131 0',
    decimals: 4,
    cell: [2, 1],
    checks: [
      ...rowChecks('scores', 'raw', 4, [
        ['-0.0169', '0.1395', '-0.0236'],
        ['-0.3668', '-0.1999', '-0.3604'],
        ['-0.0078', '0.1269', '-0.0131'],
      ]),
      ...rowChecks(
        'scores / √4 ',
        'scaled',
        4,
        [
          ['-0.0085', '0.0698', '-0.0118'],
          ['-0.1834', '-0.0999', '-0.1802'],
          ['-0.0039', '0.0635', '-0.0066'],
        ],
        'input',
      ),
      ...rowChecks(
        'attention_weights',
        'weights',
        4,
        [
          ['0.3249', '0.3513', '0.3238'],
          ['0.3236', '0.3518', '0.3246'],
          ['0.3261', '0.3488', '0.3252'],
        ],
        'input',
      ),
      ...cellChecks('她', 2, ['小红', '很', '她'], 3, ['0.326', '0.349', '0.325']),
    ],
  }),
  {
    // §4 code, step 2: −∞ typed into the scores becomes 0 after softmax.
    id: 'masked-softmax',
    kind: 'scores',
    q: '',
    k: '',
    v: '',
    scores: '1 2 -inf',
    labels: '',
    causal: false,
    scale: true,
    decimals: 2,
    row: null,
    checks: [{ label: 'softmax([1, 2, −∞])', stage: 'weights', row: 0, decimals: 2, lesson: ['0.27', '0.73', '0.00'] }],
  },
  {
    // §4 Causal Mask: 今天 天气 很 好. The lesson gives only the scores the mask
    // keeps; the future ones are typed as 0 (the mask replaces them anyway).
    id: 'causal',
    kind: 'scores',
    q: '',
    k: '',
    v: '',
    scores: '0.8 0 0 0\n0.5 0.6 0 0\n0.3 0.7 0.4 0\n0.2 0.5 0.3 0.8',
    labels: '今天 天气 很 好',
    causal: true,
    scale: true,
    decimals: 2,
    row: 2,
    note: 'causal',
    checks: [
      { label: 'scores[今天]', stage: 'masked', row: 0, decimals: 1, lesson: ['0.8', '−∞', '−∞', '−∞'] },
      { label: 'scores[天气]', stage: 'masked', row: 1, decimals: 1, lesson: ['0.5', '0.6', '−∞', '−∞'] },
      { label: 'scores[很]', stage: 'masked', row: 2, decimals: 1, lesson: ['0.3', '0.7', '0.4', '−∞'] },
      { label: 'scores[好]', stage: 'masked', row: 3, decimals: 1, lesson: ['0.2', '0.5', '0.3', '0.8'] },
      { label: 'softmax[今天]', stage: 'weights', row: 0, decimals: 2, lesson: ['1.00', '0.00', '0.00', '0.00'] },
      { label: 'softmax[天气]', stage: 'weights', row: 1, decimals: 2, lesson: ['0.47', '0.53', '0.00', '0.00'], status: 'rounded' },
      { label: 'softmax[很]', stage: 'weights', row: 2, decimals: 2, lesson: ['0.24', '0.47', '0.29', '0.00'], status: 'illustrative' },
      { label: 'softmax[好]', stage: 'weights', row: 3, decimals: 2, lesson: ['0.13', '0.27', '0.22', '0.38'], status: 'illustrative' },
    ],
  },
];

export const EXAMPLE_IDS = LESSON_EXAMPLES.map((e) => e.id);

export function exampleById(id) {
  return LESSON_EXAMPLES.find((e) => e.id === id) ?? null;
}

/** The editable part of the lesson state an example loads. */
export function exampleLesson(example) {
  const { kind, q, k, v, scores, labels, decimals } = example;
  return { example: example.id, kind, q, k, v, scores, labels, decimals };
}
