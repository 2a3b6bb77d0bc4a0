// The logic of the page's "ask the model why" views (js/why_text.mjs): the
// default pair and its answer/wrong habits from the corpus generator, the
// patching normalisation, and the sentences computed from the numbers, on
// hand-made results of the API's shapes.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { GENDER, HABITS, PRONOUN } from '../../js/corpus.mjs';
import { PRONOUN_PAIR, nextToken, pronounPairAnswers } from '../../js/pronoun_pair.mjs';
import {
  attributionParts,
  attributionSentences,
  defaultPair,
  flipPronoun,
  largest,
  lensSentence,
  namesIn,
  normalisePatch,
  parseIds,
  parseTokenField,
  partsSum,
  patchSentences,
  pronounStory,
  restoration,
  storyRow,
} from '../../js/why_text.mjs';
import { encodeText } from '../../js/text_encoding.mjs';
import { translate } from '../../web/i18n.mjs';
import { WHY_TERMS } from '../../web/messages/why_terms.mjs';
import { trainedModel } from '../browser/demo.mjs';

test('the default pair is the CLI’s, and its corrupt text is the clean one with the pronoun flipped', () => {
  const { clean, corrupt } = defaultPair();
  assert.equal(clean, PRONOUN_PAIR.clean);
  assert.equal(clean, '小明把书给了小红，她');
  assert.equal(corrupt, flipPronoun(clean));
  assert.equal(corrupt, '小明把书给了小红，他');
  assert.equal([...clean].length, [...corrupt].length);
});

test('the default answer and wrong are the two referents’ habits, by the corpus’s genders', () => {
  const { clean, corrupt } = defaultPair();
  const story = pronounStory(clean);
  assert.deepEqual(story, { pronoun: '她', referent: '小红', other: '小明', answer: HABITS['小红'], wrong: HABITS['小明'], prefix: clean });
  assert.equal(story.answer[0], '唱');
  assert.equal(story.wrong[0], '踢');
  const flipped = pronounStory(corrupt);
  assert.equal(flipped.referent, '小明');
  assert.equal(flipped.answer, HABITS['小明']);
  // Any pair of the corpus: the referent is the name of the pronoun's gender, wherever it stands.
  const other = pronounStory('苏静把花给了王强，他');
  assert.equal(other.referent, '王强');
  assert.equal(GENDER[other.other], 'female');
  assert.equal(other.answer, HABITS['王强']);
});

test('a text without a pronoun, or without both genders, has no story and nothing to flip', () => {
  assert.equal(pronounStory('今天天气很好'), null);
  assert.equal(pronounStory('小明和王强去公园，他'), null); // two men
  assert.equal(flipPronoun('今天天气很好'), null);
  assert.equal(flipPronoun('他说她很好，她'), '他说她很好，他'); // the last pronoun only
  assert.equal(flipPronoun(`a${PRONOUN.male}`), `a${PRONOUN.female}`);
});

test('names are found longest first and in order', () => {
  assert.deepEqual(namesIn('小明把书给了小红'), [
    { name: '小明', at: 0 },
    { name: '小红', at: 6 },
  ]);
  assert.deepEqual(namesIn('没有名字'), []);
});

test('answer fields: a number or #number is an id, anything else text, empty the default', () => {
  assert.deepEqual(parseTokenField(' 123 '), { id: 123 });
  assert.deepEqual(parseTokenField('#7'), { id: 7 });
  assert.deepEqual(parseTokenField('唱'), { text: '唱' });
  assert.equal(parseTokenField('  '), null);
  assert.deepEqual(parseIds('1 2,#3'), { ids: [1, 2, 3] });
  assert.deepEqual(parseIds('1 x 3'), { bad: 'x' });
});

test('restoration is (patched − corrupt) / (clean − corrupt); none without a gap', () => {
  assert.equal(restoration(4, 4, -2), 1);
  assert.equal(restoration(-2, 4, -2), 0);
  assert.equal(restoration(1, 4, -2), 0.5);
  assert.equal(restoration(7, 4, -2), 1.5);
  assert.equal(restoration(1, 3, 3), null);
});

// L = 2 layers, H = 2 heads, T = 3 tokens; clean 5, corrupt -1 (gap 6).
const PATCH = {
  ids: { clean: [1, 2, 3], corrupt: [1, 2, 4] },
  tokens: { clean: ['a', 'b', '她'], corrupt: ['a', 'b', '他'] },
  metric: { clean: 5, corrupt: -1 },
  heads: [
    [-1, 0.5],
    [4.58, 2],
  ],
  residual: [
    [-1, -1, 5],
    [-1, -1, 5],
    [-1, 2, 3.2],
  ],
};

test('the patch result is normalised cell by cell, and the sentence names the head that restores the most', () => {
  const normal = normalisePatch(PATCH);
  assert.deepEqual(normal.heads, [
    [0, 0.25],
    [0.93, 0.5],
  ]);
  assert.deepEqual(largest(normal.heads), { row: 1, col: 0, value: 0.93 });
  const lines = patchSentences(PATCH);
  assert.deepEqual(lines[1], { key: 'why.patch.head', params: { head: 'L1H0', percent: '93' } });
  // The first residual cell with the largest value: layer 0 (the embeddings) at position 2.
  assert.deepEqual(lines[2], { key: 'why.patch.residualEmb', params: { layer: 'emb', position: 2, token: '他', percent: '100' } });
  const later = patchSentences({
    ...PATCH,
    residual: [
      [-1, -1, 2],
      [-1, -1, 5],
      [-1, 2, 3.2],
    ],
  });
  assert.deepEqual(later[2], { key: 'why.patch.residual', params: { layer: 'L0', position: 2, token: '他', percent: '100' } });
  assert.equal(
    translate('en', later[2].key, later[2].params),
    'In the residual stream, the cell after L0 at position 2 “他” restores the most (100%).',
  );
  assert.equal(translate('en', lines[1].key, lines[1].params), 'Patching L1H0 restores 93% of the answer, the most of any head.');
  assert.match(translate('zh-CN', lines[1].key, lines[1].params), /修补 L1H0 恢复了 93% 的答案/);
  const same = patchSentences({ ...PATCH, metric: { clean: 2, corrupt: 2 } });
  assert.deepEqual(same, [{ key: 'why.patch.noGap', params: { clean: '2.00', corrupt: '2.00' } }]);
});

// The lens at one position (T = 1) over L + 1 = 3 layers, top 2; token 9 is the final top-1 from layer 1 on.
const LENS = {
  ids: [5],
  tokens: ['她'],
  lens: [
    [
      [
        { id: 4, p: 0.5 },
        { id: 9, p: 0.1 },
      ],
    ],
    [
      [
        { id: 9, p: 0.4 },
        { id: 4, p: 0.3 },
      ],
    ],
    [
      [
        { id: 9, p: 0.8 },
        { id: 4, p: 0.1 },
      ],
    ],
  ],
  token: { id: 9, p: [[0.1], [0.4], [0.8]] },
};

test('the lens sentence gives the layer from which the token stays first', () => {
  assert.deepEqual(lensSentence(LENS, 0, 9, '唱'), {
    key: 'why.lens.from',
    params: { token: '唱', layer: 'L0', p: '0.400', pLast: '0.800' },
  });
  assert.equal(lensSentence(LENS, 0, 4, 'x').key, 'why.lens.never');
  const first = { ...LENS, lens: [[[{ id: 9, p: 0.6 }]], ...LENS.lens.slice(1)] };
  assert.equal(lensSentence(first, 0, 9, '唱').key, 'why.lens.fromEmbedding');
  assert.equal(
    translate('en', 'why.lens.from', lensSentence(LENS, 0, 9, '唱').params),
    '“唱” becomes the top prediction after L0 (p = 0.400) and stays first to the last layer (p = 0.800).',
  );
});

// Two layers of two heads; the parts add up to the total.
const ATTRIBUTION = {
  position: 2,
  total: 3,
  embedding: 0.25,
  heads: [
    [2, -0.5],
    [0.5, 0.25],
  ],
  ffn: [0.25, 0.25],
};

test('attribution parts come in the bars’ order, add up to the total, and the sentences name the largest and the named head', () => {
  const parts = attributionParts(ATTRIBUTION);
  assert.deepEqual(
    parts.map((p) => p.name),
    ['emb', 'L0H0', 'L0H1', 'L0 FFN', 'L1H0', 'L1H1', 'L1 FFN'],
  );
  assert.equal(partsSum(parts), 3);
  const lines = attributionSentences(ATTRIBUTION, { layer: 0, head: 1 });
  assert.deepEqual(lines[0], { key: 'why.attr.total', params: { total: '3.00', sum: '3.00' } });
  assert.deepEqual(lines[1], { key: 'why.attr.top', params: { part: 'L0H0', value: '2.00', share: '67' } });
  assert.deepEqual(lines[2], { key: 'why.attr.named', params: { part: 'L0H1', value: '-0.50', share: '-17' } });
  assert.equal(attributionSentences(ATTRIBUTION).length, 2);
  assert.equal(translate('en', lines[1].key, lines[1].params), 'L0H0 writes the most: 2.00 (67% of the total).');
});

test('with the trained model’s tokenizer the pair has one length, the pronoun is its last token, and the two habits start differently', async () => {
  const { tokenizer } = await trainedModel();
  const { clean, corrupt } = defaultPair();
  const ids = { clean: encodeText(tokenizer, clean), corrupt: encodeText(tokenizer, corrupt) };
  assert.equal(ids.clean.length, ids.corrupt.length);
  const labels = tokenizer.display(ids.clean).map((t) => t.text);
  const story = pronounStory(clean);
  assert.equal(storyRow(labels, labels.length - 1, story), true);
  assert.equal(storyRow(labels, labels.length - 2, story), false);
  assert.equal(storyRow(labels, labels.length - 1, null), false);
  const answer = nextToken(tokenizer, story.prefix, story.answer);
  const wrong = nextToken(tokenizer, story.prefix, story.wrong);
  assert.notEqual(answer, wrong);
  assert.deepEqual({ answer, wrong }, pronounPairAnswers(tokenizer)); // the CLI's defaults
  // The first token is the start of the habit's first character (唱, 踢), as the model writes it after the pronoun.
  assert.equal(tokenizer.decode(tokenizer.encode(story.answer)), story.answer);
  assert.ok(tokenizer.display([answer])[0].text.length > 0);
});

test('the views speak both languages with the same keys and parameters', () => {
  const zh = WHY_TERMS['zh-CN'];
  const en = WHY_TERMS.en;
  assert.deepEqual(Object.keys(zh).sort(), Object.keys(en).sort());
  const params = (text) => [...new Set([...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]))].sort();
  for (const key of Object.keys(en)) assert.deepEqual(params(zh[key]), params(en[key]), key);
});
