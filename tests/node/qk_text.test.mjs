// js/qk_text.mjs on hand-made answers of model.qk(): the pair, the key side
// and the query side named by their measured roles, the head that wrote the
// key side read from the page's matrix, block 0's ranked tokens and RoPE
// pairs, a masked key; every key worded in zh-CN and en.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { componentName, componentRoles, headOf, nameStarts, qkSentences, shownComponents, sideSums, topPairs } from '../../js/qk_text.mjs';
import { wordParams } from '../../js/why_text.mjs';
import { QK_TERMS } from '../../web/messages/qk_terms.mjs';
import { translate } from '../../web/i18n.mjs';

const HEADS = {
  heads: [
    { layer: 0, head: 0, role: 'mixed' },
    { layer: 0, head: 1, role: 'previous-token' },
    { layer: 1, head: 0, role: 'induction' },
  ],
};

// Block 1 of a model with 2 heads: components embed, L0H0, L0H1, L0ffn.
// Tokens: <s> 小 红 唱 小 (the second 小 at 4 looks at 红 at 2).
const TOKENS = ['<s>', '小', '红', '唱', '小'];
const LATER = {
  layer: 1,
  head: 0,
  query: 4,
  key: 2,
  score: 6,
  weight: 0.8123,
  masked: false,
  components: ['embed', 'L0H0', 'L0H1', 'L0ffn'],
  table: [
    [1, 0, 2, 0],
    [0, 0, 0, 0],
    [0.5, 0, 1.5, 0],
    [0, 0, 1, 0],
  ],
  ropePairs: [],
  ropePairsUnrotated: [],
  versus: {
    key: 'mean',
    score: 4,
    table: [
      [0.25, 0, 1.5, 0],
      [0, 0.01, 0, 0],
      [0.1, 0, 2.5, -0.01],
      [-0.35, 0, 0, 0],
    ],
  },
};

// L0H1's weights at 红 (position 2): 0.9 on 小 before it.
const attention = (name, position) => (name === 'L0H1' && position === 2 ? [0.05, 0.9, 0.05, 0, 0] : null);

function word(lang, line) {
  return translate(
    lang,
    line.key,
    wordParams((key, params) => translate(lang, key, params), line.params),
  );
}

test('names a head by its measured role and parses component names', () => {
  const roles = componentRoles(HEADS);
  assert.deepEqual(roles, { L0H1: 'previous-token', L1H0: 'induction' });
  assert.deepEqual(headOf('L12H3'), { layer: 12, head: 3 });
  assert.equal(headOf('L0ffn'), null);
  assert.equal(headOf('embed'), null);
  assert.deepEqual(componentName('L0H1', roles), { key: 'qk.named', params: { name: 'L0H1', role: { key: 'qk.role.previous-token' } } });
  assert.equal(componentName('L0H0', roles), 'L0H0');
  assert.deepEqual(componentName('L2ffn', roles), { key: 'qk.ffn', params: { name: 'L2ffn' } });
});

test('sums each side, orders pairs by size and leaves out negligible components', () => {
  const { q, k } = sideSums(LATER.versus.table);
  assert.deepEqual(
    q.map((x) => +x.toFixed(6)),
    [1.75, 0.01, 2.59, -0.35],
  );
  assert.deepEqual(
    k.map((x) => +x.toFixed(6)),
    [0, 0.01, 4, -0.01],
  );
  assert.deepEqual(topPairs(LATER.versus.table, 3), [
    { q: 2, k: 2, value: 2.5 },
    { q: 0, k: 2, value: 1.5 },
    { q: 3, k: 0, value: -0.35 },
  ]);
  // 5% of 2.5 is 0.125: L0H0's 0.01 and L0ffn's -0.01 on the key side are left out, their cells summed.
  const shown = shownComponents(LATER.versus.table);
  assert.deepEqual(shown.q, [0, 2, 3]);
  assert.deepEqual(shown.k, [0, 2]);
  assert.equal(+shown.rest.toFixed(6), 0);
});

test('a later block: the contrast, its largest pair, the key side written by the previous-token head', () => {
  const lines = qkSentences(LATER, { tokens: TOKENS, roles: componentRoles(HEADS), attention });
  assert.deepEqual(
    lines.map((l) => l.key),
    ['qk.score', 'qk.versusMeanAbove', 'qk.pair', 'qk.keySide', 'qk.readsPrevious', 'qk.querySide'],
  );
  assert.deepEqual(lines[0].params, { query: '小', key: '红', score: '6.00', weight: '0.812' });
  assert.deepEqual(lines[1].params, { diff: '4.00', other: '' });
  assert.equal(lines[2].params.value, '2.50');
  assert.equal(lines[2].params.total, '4.00');
  assert.equal(lines[3].params.value, '4.00');
  assert.deepEqual(lines[4].params, { name: 'L0H1', side: { key: 'qk.side.key' }, token: '红', to: '小', weight: '0.90' });
  // The query side's largest row is L0H1's (2.59); no matrix of it at 4: no reading sentence.
  assert.equal(lines[5].params.value, '2.59');
  assert.equal(
    word('en', lines[3]),
    '“红”’s key side: the largest part is written by L0H1, the previous-token head, 4.00 (all parts together: 4.00).',
  );
  assert.equal(word('zh-CN', lines[4]), 'L0H1 在“红”这里把 0.90 的注意力放在前一个 token“小”上：它写进“红”位置的，主要是从“小”读来的。');
});

test('a head that reads the token before with under half its attention is not said to bring it over', () => {
  const weak = (name, position) => (name === 'L0H1' && position === 2 ? [0.3, 0.4, 0.3, 0, 0] : null);
  const lines = qkSentences(LATER, { tokens: TOKENS, roles: {}, attention: weak });
  const reads = lines.find((l) => l.key.startsWith('qk.reads'));
  assert.equal(reads.key, 'qk.reads');
  assert.deepEqual(reads.params, { name: 'L0H1', side: { key: 'qk.side.key' }, token: '红', to: '小', weight: '0.40', at: 1 });
});

test('a contrast below the mean, or against another key, says so', () => {
  const below = { ...LATER, versus: { ...LATER.versus, score: -1.5 } };
  assert.deepEqual(qkSentences(below, { tokens: TOKENS })[1], { key: 'qk.versusMeanBelow', params: { diff: '1.50', other: '' } });
  const other = { ...LATER, versus: { ...LATER.versus, key: 1, score: 0.25 } };
  assert.deepEqual(qkSentences(other, { tokens: TOKENS })[1], { key: 'qk.versusKeyAbove', params: { diff: '0.25', other: '小' } });
});

test('a masked key: the weight is 0 by the mask and the score is still given', () => {
  const masked = { ...LATER, query: 2, key: 4, masked: true, weight: 0, score: -3.456 };
  const lines = qkSentences(masked, { tokens: TOKENS, roles: componentRoles(HEADS) });
  assert.deepEqual(lines[0], { key: 'qk.masked', params: { query: '红', key: '小', score: '-3.46' } });
  assert.ok(!lines.some((l) => l.key.startsWith('qk.versus')));
  // The table is the score's own (no contrast): its largest cell embed × L0H1, 2.00.
  assert.deepEqual(lines[1], {
    key: 'qk.pairScore',
    params: {
      q: { key: 'qk.embed', params: {} },
      k: { key: 'qk.named', params: { name: 'L0H1', role: { key: 'qk.role.previous-token' } } },
      value: '2.00',
      total: '-3.46',
    },
  });
  assert.equal(word('en', lines[0]), 'The causal mask sets this weight to 0 (“小” comes after “红”); the score is still -3.46.');
});

// Block 0: one component (the embedding); the query ranks the vocabulary, the score splits over RoPE's pairs.
const PRONOUN = {
  layer: 0,
  head: 3,
  query: 10,
  key: 7,
  score: 8.25,
  weight: 0.6,
  masked: false,
  components: ['embed'],
  table: [[8.25]],
  ropePairs: [1, 0.5, -0.25, 4.57, 2.43],
  ropePairsUnrotated: [0.5, 0.5, 0, 5, 2],
  versus: { key: 'mean', score: 2, table: [[2]] },
  ranked: [
    { id: 101, score: 8.97 },
    { id: 102, score: 8.9 },
    { id: 103, score: 8.5 },
    { id: 104, score: 8.25 },
  ],
};
const LABELS = { 101: '叶', 102: '丽', 103: '方', 104: '小' };
const PRONOUN_TOKENS = ['<s>', '小', '明', '把', '苹', '果', '给', '小', '红', '，', '她'];
const IDS = [1, 104, 200, 201, 202, 203, 204, 104, 205, 206, 207];

test('block 0: the ranked tokens, the key’s rank, the names they begin, the RoPE pairs', () => {
  const lines = qkSentences(PRONOUN, { tokens: PRONOUN_TOKENS, ids: IDS, labelOf: (id) => LABELS[id], world: true });
  assert.deepEqual(
    lines.map((l) => l.key),
    ['qk.score', 'qk.versusMeanAbove', 'qk.ranked', 'qk.rankedNames', 'qk.rankedKey', 'qk.ropePair', 'qk.ropeTotal'],
  );
  assert.deepEqual(lines[2].params, { query: '她', top: '叶, 丽, 方, 小', count: 4 });
  assert.deepEqual(lines[4].params, { key: '小', score: '8.25', rank: 4 });
  assert.deepEqual(lines[5].params, { pair: 3, value: '4.57', score: '8.25', unrotated: '5.00' });
  assert.deepEqual(lines[6].params, { unrotated: '8.00', score: '8.25', distance: 3, diff: '0.25' });
  assert.equal(word('en', lines[4]), '“小” scores 8.25, rank 4.');
  // Away from the trained model's world the names are not counted.
  assert.ok(
    !qkSentences(PRONOUN, { tokens: PRONOUN_TOKENS, ids: IDS, labelOf: (id) => LABELS[id] }).some((l) => l.key === 'qk.rankedNames'),
  );
  // A key not among the ranked: its score, and how many were ranked.
  const below = qkSentences(PRONOUN, {
    tokens: PRONOUN_TOKENS,
    ids: IDS.map((id) => (id === 104 ? 999 : id)),
    labelOf: (id) => LABELS[id],
  });
  assert.deepEqual(below.find((l) => l.key === 'qk.rankedKeyBelow').params, { key: '小', score: '8.25', count: 4 });
});

test('counts the ranked labels that begin a female or a male name of the stories', () => {
  // 丽 begins 丽华 (female), 王 王强 (male), 叶 叶兰; 小 begins 小红 and 小明; 明 begins no name; a label that begins names of both genders counts for neither.
  assert.deepEqual(nameStarts(['丽', '明', '']), { female: 1, male: 0 });
  assert.deepEqual(nameStarts(['小', '王', '叶']), { female: 1, male: 1 });
});

test('every key is worded in both languages, with the same keys', () => {
  assert.deepEqual(Object.keys(QK_TERMS.en).sort(), Object.keys(QK_TERMS['zh-CN']).sort());
  const lines = [
    ...qkSentences(LATER, { tokens: TOKENS, roles: componentRoles(HEADS), attention }),
    ...qkSentences({ ...LATER, masked: true }, { tokens: TOKENS }),
    ...qkSentences(PRONOUN, { tokens: PRONOUN_TOKENS, ids: IDS, labelOf: (id) => LABELS[id], world: true }),
  ];
  for (const lang of ['en', 'zh-CN'])
    for (const line of lines) {
      assert.ok(Object.hasOwn(QK_TERMS[lang], line.key), `${lang} ${line.key}`);
      assert.doesNotMatch(word(lang, line), /\{\w+\}/, `${lang} ${line.key} leaves a parameter unfilled`);
    }
});
