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
  defaultRow,
  measuresDiffer,
  patchStory,
  pronounIndexOfRow,
  residualJourney,
  rowStory,
  storyPair,
  wordParams,
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
  assert.deepEqual(story, {
    pronoun: '她',
    at: 9,
    referent: '小红',
    other: '小明',
    answer: HABITS['小红'],
    wrong: HABITS['小明'],
    prefix: clean,
  });
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
  // The first residual cell with the largest value: layer 0 (the embeddings) at position 2, the clean text's token (patched in).
  assert.deepEqual(lines[2], { key: 'why.patch.residualEmb', params: { layer: 'embed', position: 2, token: '她', percent: '100' } });
  const later = patchSentences({
    ...PATCH,
    residual: [
      [-1, -1, 2],
      [-1, -1, 5],
      [-1, 2, 3.2],
    ],
  });
  assert.deepEqual(later[2], { key: 'why.patch.residual', params: { layer: 'L0', position: 2, token: '她', percent: '100' } });
  assert.equal(
    translate('en', later[2].key, later[2].params),
    'In the residual stream, the cell after L0 at position 2 “她” restores the most (100%).',
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
    ['embed', 'L0H0', 'L0H1', 'L0 FFN', 'L1H0', 'L1H1', 'L1 FFN'],
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

// The labels the page's matrix shows for a text (the bos first), as the worker reads them.
async function labelsOf(text) {
  const { tokenizer } = await trainedModel();
  return { tokenizer, labels: tokenizer.display(encodeText(tokenizer, text)).map((t) => t.text) };
}

test('the selected row’s pronoun tells the story, not only the last one', async () => {
  const text = '小红把球给了小明，他很开心。小明把书给了小红，她';
  const { labels } = await labelsOf(text);
  const rows = labels.flatMap((label, row) => (label === '他' || label === '她' ? [row] : []));
  assert.equal(rows.length, 2);
  assert.equal(pronounIndexOfRow(text, labels, rows[0]), text.indexOf('他'));
  assert.equal(pronounIndexOfRow(text, labels, rows[1]), text.lastIndexOf('她'));
  assert.equal(pronounIndexOfRow(text, labels, 1), null);
  const he = rowStory(text, labels, rows[0]);
  assert.deepEqual([he.pronoun, he.referent, he.answer, he.row], ['他', '小明', HABITS['小明'], rows[0]]);
  assert.equal(he.prefix, '小红把球给了小明，他');
  const she = rowStory(text, labels, rows[1]);
  assert.deepEqual([she.pronoun, she.referent], ['她', '小红']);
  // The worker explains a story at its own row only.
  assert.equal(storyRow(labels, rows[0], he), true);
  assert.equal(storyRow(labels, rows[1], he), false);
  // After typing the page opens on the last pronoun with a story, else the last token.
  assert.equal(defaultRow(text, labels), rows[1]);
  assert.equal(defaultRow('今天天气很好', (await labelsOf('今天天气很好')).labels), (await labelsOf('今天天气很好')).labels.length - 1);
  const twoMen = '小明和王强去公园，他很开心';
  const men = await labelsOf(twoMen);
  assert.equal(defaultRow(twoMen, men.labels), men.labels.length - 1);
});

test('the default pair swaps the referent for a free name of its gender and token count, else flips the pronoun', async () => {
  const { tokenizer } = await trainedModel();
  // The measured case: 小红 → 苏静 (two tokens each), answer 唱 #1719, wrong 跳 #4724.
  const story = pronounStory('小明把书给了小红，她');
  const pair = storyPair(story, tokenizer);
  assert.equal(pair.kind, 'name');
  assert.equal(pair.replacement, '苏静');
  assert.equal(pair.corrupt, '小明把书给了苏静，她');
  assert.equal(encodeText(tokenizer, pair.clean).length, encodeText(tokenizer, pair.corrupt).length);
  assert.equal(nextToken(tokenizer, pair.clean, pair.answer), 1719);
  assert.equal(nextToken(tokenizer, pair.clean, pair.wrong), 4724);
  // A name already in the text is not a replacement: 苏静 named, the next free one is taken.
  const taken = storyPair(pronounStory('苏静和小明把书给了小红，她'), tokenizer);
  assert.equal(taken.kind, 'name');
  assert.notEqual(taken.replacement, '苏静');
  assert.ok(!taken.corrupt.includes('小红'));
  // 小明 is the only one-token name: the pronoun is flipped, and the habits are the two names'.
  const he = storyPair(pronounStory('小红把球给了小明，他很开心'), tokenizer);
  assert.equal(he.kind, 'pronoun');
  assert.deepEqual([he.clean, he.corrupt], ['小红把球给了小明，他', '小红把球给了小明，她']);
  assert.deepEqual([he.answer, he.wrong], [HABITS['小明'], HABITS['小红']]);
  // No story: the lesson's pair.
  const lesson = storyPair(null, tokenizer);
  assert.deepEqual([lesson.kind, lesson.clean, lesson.corrupt], ['lesson', PRONOUN_PAIR.clean, PRONOUN_PAIR.corrupt]);
});

test('without a story the patching pair is the lesson’s, and the reason names what the text lacks', async () => {
  const cases = [
    ['今天天气很好', 'why.pair.noPronoun'],
    ['今天，她很开心', 'why.pair.noNames'],
    ['小明和王强去公园，他很开心', 'why.pair.oneGender'],
  ];
  for (const [text, key] of cases) {
    const { labels } = await labelsOf(text);
    const { story, reason } = patchStory(text, labels, labels.length - 1);
    assert.equal(story, null, text);
    assert.equal(reason.key, key, text);
  }
  const text = '小明和王强去公园，他很开心';
  const { labels } = await labelsOf(text);
  assert.equal(
    translate(
      'en',
      'why.pair.lesson',
      wordParams((k, p) => translate('en', k, p), { reason: patchStory(text, labels, 1).reason }),
    ),
    'This is the lesson’s pair, not your text: before “他” the text names 小明、王强, not a man and a woman, so gender cannot tell who “他” is.',
  );
  // A row that is not a pronoun patches the text's last story.
  const story = '小明把苹果给了小红，她很开心';
  const shown = await labelsOf(story);
  assert.equal(patchStory(story, shown.labels, 1).story.referent, '小红');
});

// A residual grid of the shape the name pair gives (restorations, clean 10 and corrupt 0).
function residualResult(rows) {
  return {
    metric: { clean: 10, corrupt: 0 },
    heads: [[1]],
    residual: rows.map((row) => row.map((v) => v * 10)),
    tokens: { clean: ['<s>', '小', '红', '，', '她'], corrupt: ['<s>', '苏', '静', '，', '她'] },
  };
}

test('the residual grid’s journey: from the name to the pronoun in one block, over several, or only at the last position', () => {
  const jump = residualResult([
    [0, 0.99, 0.04, 0, 0],
    [0, 0.01, 0, 0, 0.99],
    [0, 0, 0, 0, 0.99],
  ]);
  assert.deepEqual(residualJourney(jump), {
    source: { layer: 0, position: 1, value: 0.99 },
    arrival: { layer: 1, value: 0.99 },
    blocks: [0, 0],
  });
  const line = patchSentences(jump).at(-1);
  assert.equal(line.key, 'why.patch.jump');
  const en = (k, p) => translate('en', k, p);
  assert.equal(
    en(line.key, wordParams(en, line.params)),
    'Causal tracing (as in ROME): patching position 1 “小” (embed) restores 99%; from after L0 on, position 4 “她” restores the most (99%), to the last layer. Block L0 carries the referent to the pronoun in one jump.',
  );
  const move = residualResult([
    [0, 0.9, 0, 0, 0.1],
    [0, 0.5, 0, 0, 0.4],
    [0, 0, 0, 0, 0.95],
  ]);
  assert.deepEqual(residualJourney(move).blocks, [0, 1]);
  assert.equal(patchSentences(move).at(-1).key, 'why.patch.move');
  const flip = residualResult([
    [0, 0, 0, 0, 1],
    [0, 0, 0, 0, 1],
  ]);
  assert.deepEqual(residualJourney(flip), { lastOnly: true, value: 1 });
  assert.equal(patchSentences(flip).at(-1).key, 'why.patch.lastOnly');
});

test('the trained model on the name pair: the largest residual cell is the name’s first token after the embeddings, the pronoun after every block', async () => {
  const { model, tokenizer } = await trainedModel();
  const pair = storyPair(pronounStory('小明把书给了小红，她'), tokenizer);
  const result = model.patch({
    clean: encodeText(tokenizer, pair.clean),
    corrupt: encodeText(tokenizer, pair.corrupt),
    answer: nextToken(tokenizer, pair.clean, pair.answer),
    wrong: nextToken(tokenizer, pair.clean, pair.wrong),
  });
  const labels = tokenizer.display(encodeText(tokenizer, pair.clean)).map((t) => t.text);
  const journey = residualJourney({ ...result, tokens: { clean: labels, corrupt: labels } });
  assert.equal(labels[journey.source.position], '小');
  assert.equal(labels[journey.source.position + 1], '红');
  assert.equal(journey.source.layer, 0);
  assert.equal(journey.arrival.layer, 1);
  assert.ok(journey.source.value > 0.9 && journey.arrival.value > 0.9);
  assert.ok(result.metric.clean > 10 && result.metric.corrupt < -10, JSON.stringify(result.metric));
  const best = largest(normalisePatch(result).heads);
  assert.deepEqual([best.row, best.col], [0, 3]); // L0H3, the pronoun head of heads.json
});

test('a lens token that leads, is overtaken and leads again names both moments', () => {
  const lens = {
    lens: [[[{ id: 4, p: 0.3 }]], [[{ id: 9, p: 0.5 }]], [[{ id: 4, p: 0.4 }]], [[{ id: 9, p: 0.7 }]], [[{ id: 9, p: 0.9 }]]],
    token: { id: 9, p: [[0.1], [0.5], [0.3], [0.7], [0.9]] },
  };
  const line = lensSentence(lens, 0, 9, '。');
  assert.deepEqual(line, {
    key: 'why.lens.fromAgain',
    params: { token: '。', layer: 'L2', p: '0.700', pLast: '0.900', first: 'L0', pFirst: '0.500', lost: 'L1' },
  });
  assert.equal(
    translate('en', line.key, line.params),
    '“。” is first on top after L0 (p = 0.500), is overtaken after L1, and is the top prediction again from after L2 to the last layer (p = 0.900).',
  );
});

test('patching and direct attribution of one head: one sentence with both numbers; none for a head switched off', () => {
  const result = {
    metric: { clean: 10, corrupt: 0 },
    heads: [
      [9.4, 1],
      [null, 0],
    ],
    residual: [[0]],
    tokens: { clean: ['a'], corrupt: ['a'] },
  };
  const line = measuresDiffer(result, ATTRIBUTION, { layer: 0, head: 0 });
  assert.deepEqual(line, { key: 'why.attr.versusPatch', params: { head: 'L0H0', percent: '94', value: '2.00', share: '67' } });
  assert.equal(measuresDiffer(result, ATTRIBUTION, { layer: 1, head: 0 }), null);
  // A switched-off head's cell is null, not a restoration of its raw value.
  assert.equal(normalisePatch(result).heads[1][0], null);
});
