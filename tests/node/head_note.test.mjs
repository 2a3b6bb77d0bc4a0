// The head note (js/head_note.mjs) and the trained model's world
// (js/world.mjs): notes composed from the weights given, in both languages,
// on hand-made matrices and on the trained model's own attention for the
// learner's sentence 小红把书给了小明，他很高兴.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { test } from 'node:test';

import { FEMALE_NAMES, HABITS, MALE_NAMES, makeCorpusLines } from '../../js/corpus.mjs';
import { composeHeadNote, largestWeights, nameSpans, onTextSentence, pronounTarget } from '../../js/head_note.mjs';
import { rolesFromScores } from '../../js/head_roles.mjs';
import { WORLD_SAMPLE, outsideWorld, worldCharacters, worldSummary } from '../../js/world.mjs';
import { translate } from '../../web/i18n.mjs';
import { trainedMatrix, trainedModel } from '../browser/demo.mjs';

const zh = (key, params) => translate('zh-CN', key, params);
const en = (key, params) => translate('en', key, params);

// A [T, T] row-major matrix from rows (a row shorter than T is padded with zeros).
function matrix(rows) {
  const T = rows.length;
  const data = new Float32Array(T * T);
  rows.forEach((row, i) => row.forEach((w, j) => (data[i * T + j] = w)));
  return data;
}

// bos 小 红 把 书 给 了 小 明 ， 他 : 他 (row 10) looks at 明 0.7 and 小 0.2 (小明, 0.9), 红 0.1.
const TOKENS = ['<|im_start|>', '小', '红', '把', '书', '给', '了', '小', '明', '，', '他'];
const ROWS = TOKENS.map((_, i) => (i === 10 ? [0, 0, 0.1, 0, 0, 0, 0, 0.2, 0.7, 0, 0] : Array.from({ length: i + 1 }, () => 1 / (i + 1))));
const HEADS = {
  heads: [
    { layer: 0, head: 0, previousToken: 0.9, induction: 0, pronoun: 0.1, sink: 0.05, role: 'previous-token' },
    { layer: 0, head: 1, previousToken: 0.1, induction: 0, pronoun: 0.8, sink: 0.05, role: 'pronoun' },
  ],
  pronounHead: { layer: 0, head: 1 },
};

test('a name spread over two tokens is one target: its tokens’ weights summed, each named', () => {
  assert.deepEqual(nameSpans(TOKENS), [
    { name: '小红', positions: [1, 2] },
    { name: '小明', positions: [7, 8] },
  ]);
  const target = pronounTarget(TOKENS, matrix(ROWS), 10);
  assert.equal(target.name, '小明');
  assert.ok(Math.abs(target.weight - 0.9) < 1e-6, String(target.weight));
  assert.deepEqual(
    target.parts.map((p) => p.token),
    ['小', '明'],
  );
  assert.deepEqual(
    largestWeights(TOKENS, matrix(ROWS), 10, 2).map((x) => [x.token, x.index]),
    [
      ['明', 8],
      ['小', 7],
    ],
  );
});

test('at a pronoun head the note names each pronoun and where it looks, in both languages; the habit comes from the generator', () => {
  const view = { tokens: TOKENS, weights: matrix(ROWS), row: 10, layer: 0, head: 1, heads: HEADS };
  const z = composeHeadNote(zh, view);
  assert.equal(z.row, 10);
  assert.ok(z.text.includes('“他”（第 10 行）→ 小明 0.90（小 0.20 + 明 0.70）'), z.text);
  assert.ok(z.text.includes(`小明的习惯是“${HABITS['小明']}”`), z.text);
  assert.ok(z.text.includes('代词头'), z.text);
  const e = composeHeadNote(en, view);
  assert.ok(e.text.includes('“他” (row 10) → 小明 0.90 (小 0.20 + 明 0.70)'), e.text);
  assert.ok(e.text.includes('pronoun 0.80'), e.text);
  // When the text goes on with the resolved name's habit, the note says it is on screen.
  const habit = HABITS['小明'];
  const shown = composeHeadNote(en, { ...view, tokens: [...TOKENS, habit[0]], weights: matrix([...ROWS, [1]]) });
  assert.ok(shown.text.includes(`here “${habit[0]}” follows “他”, 小明’s habit`), shown.text);
  // The same weights under 她 say 她: the pronoun is read from the tokens, never assumed.
  const she = composeHeadNote(en, { ...view, tokens: [...TOKENS.slice(0, 10), '她'] });
  assert.ok(she.text.includes('“她” (row 10) → 小明 0.90'), she.text);
});

test('another head, a text without pronouns, no measured roles, or a switch off: no pronoun claim', () => {
  const weights = matrix(ROWS);
  // Another head: its measured role, then the selected row's largest weights.
  const other = composeHeadNote(en, { tokens: TOKENS, weights, row: 10, layer: 0, head: 0, heads: HEADS });
  assert.match(other.text, /^Layer 0, head 0: a previous-token head/);
  assert.ok(other.text.includes('Row 10 (“他”), largest weights: 明 0.70, 小 0.20, 红 0.10.'), other.text);
  assert.doesNotMatch(other.text, /→/);
  // No measured roles (random weights, dropped files): only the row, and the last row when none is selected.
  const bare = composeHeadNote(zh, { tokens: TOKENS, weights, row: null, layer: 0, head: 1, heads: null });
  assert.equal(bare.row, 10);
  assert.equal(bare.text, '第 10 行“他”最大的权重：明 0.70，小 0.20，红 0.10。');
  // No pronoun in the text at the pronoun head: the role and the row.
  const noPronoun = composeHeadNote(en, {
    tokens: TOKENS.slice(0, 9),
    weights: matrix(ROWS.slice(0, 9)),
    row: 4,
    layer: 0,
    head: 1,
    heads: HEADS,
  });
  assert.doesNotMatch(noPronoun.text, /→/);
  assert.ok(noPronoun.text.includes('Row 4 (“书”)'), noPronoun.text);
  // Mask off: no role claim as if the switches were on.
  const off = composeHeadNote(en, { tokens: TOKENS, weights, row: 10, layer: 0, head: 1, heads: HEADS, causal: false });
  assert.match(off.text, /^Causal mask off: the model was trained and measured with the causal mask on/);
  assert.doesNotMatch(off.text, /→|In this text/);
  const zhOff = composeHeadNote(zh, { tokens: TOKENS, weights, row: 10, layer: 0, head: 1, heads: HEADS, scale: false });
  assert.match(zhOff.text, /^没有除以 √d：/);
  // At a stage before the softmax the matrix shows scores: the note says its weights are the softmax's.
  for (const stage of ['scores_raw', 'scores_scaled', 'scores_masked']) {
    const early = composeHeadNote(en, { tokens: TOKENS, weights, row: 10, layer: 0, head: 1, heads: HEADS, stage });
    assert.ok(early.text.startsWith(translate('en', 'note.softmaxStage')), early.text);
  }
  const atSoftmax = composeHeadNote(en, { tokens: TOKENS, weights, row: 10, layer: 0, head: 1, heads: HEADS, stage: 'attn_weights' });
  assert.ok(!atSoftmax.text.includes(translate('en', 'note.softmaxStage')));
});

test('roles a model trained in the page measured label its heads as heads.json does', () => {
  // scores[kind][layer][head], 1 layer × 2 heads
  const roles = rolesFromScores({ previousToken: [[0.7, 0.1]], induction: [[0.0, 0.0]], pronoun: [[0.1, 0.6]] }, 120);
  assert.deepEqual(
    roles.heads.map((h) => h.role),
    ['previous-token', 'pronoun'],
  );
  assert.deepEqual(roles.pronounHead, { layer: 0, head: 1 });
  assert.equal(roles.step, 120);
  assert.equal(rolesFromScores({ previousToken: [[0.1]], induction: [[0]], pronoun: [[0.2]] }).pronounHead, null);
  assert.equal(rolesFromScores(null), null);
});

test('the trained model on 小红把书给了小明，他很高兴: the note gives 他’s weight on 小明’s tokens, summed', async () => {
  const { heads } = await trainedModel();
  const { layer, head } = heads.pronounHead;
  const text = '小红把书给了小明，他很高兴';
  const { tokens, rows } = await trainedMatrix({ text, layer, head });
  const weights = matrix(rows);
  const he = tokens.indexOf('他');
  const span = nameSpans(tokens).find((s) => s.name === '小明');
  const sum = span.positions.reduce((total, j) => total + rows[he][j], 0);
  const note = composeHeadNote(en, { tokens, weights, row: he, layer, head, heads });
  assert.ok(note.text.includes(`“他” (row ${he}) → 小明 ${sum.toFixed(2)}`), note.text);
  assert.ok(sum > 0.5, `他 puts ${sum} on 小明`);
});

test('the world: names and habits counted from the generator, sizes from corpus_stats.json; text outside it is named', async () => {
  const stats = JSON.parse(await readFile(new URL('../../models/minimind-demo/corpus_stats.json', import.meta.url), 'utf8'));
  const world = worldSummary(stats);
  assert.equal(world.names, MALE_NAMES.length + FEMALE_NAMES.length);
  assert.equal(world.habits, new Set(Object.values(HABITS)).size);
  assert.deepEqual([world.texts, world.lines, world.tokens], [stats.texts, stats.lines, stats.tokens]);
  assert.equal(world.example.habit, HABITS[world.example.name]);
  // The sample the page uses holds every character ten times as many texts write.
  const more = new Set(makeCorpusLines(WORLD_SAMPLE * 10, 1).join(''));
  assert.deepEqual(
    [...more].filter((ch) => !worldCharacters().has(ch)),
    [],
  );
  assert.deepEqual(outsideWorld('小红把书给了小明，他很高兴'), []);
  assert.deepEqual(outsideWorld('She gave 小明 a book 🙂'), ['She', 'gave', 'a', 'book', '🙂']);
});

test('a measured role comes with what the head does on this text, and its scores with a legend', () => {
  // An induction head on a text where nothing repeats parks its weight on the first token.
  const tokens = ['<|im_start|>', '今', '天', '很', '好'];
  const sink = matrix(tokens.map((_, i) => (i === 0 ? [1] : [0.9, ...Array.from({ length: i }, () => 0.1 / i)])));
  const heads = { heads: [{ layer: 2, head: 2, previousToken: 0.1, induction: 0.8, pronoun: 0, sink: 0.2, role: 'induction' }] };
  const note = composeHeadNote(en, { tokens, weights: sink, row: 4, layer: 2, head: 2, heads });
  assert.match(note.text, /^Layer 2, head 2: an induction head/);
  assert.ok(
    note.text.includes(
      'On this text (rows 1 on, averaged): 0.90 on the first token, 0.04 on the previous token; no token repeats. Nothing repeats here, so an induction head has nothing to copy.',
    ),
    note.text,
  );
  assert.equal(note.legend, translate('en', 'note.scoresLegend'));
  assert.equal(onTextSentence(zh, tokens, sink, 'induction').includes('归纳头无事可做'), true);
  // Where a token repeats, its weight on the token after the earlier copy is given, and the head is not idle.
  const repeat = ['<|im_start|>', 'a', 'b', 'a'];
  const induction = matrix([[1], [0.5, 0.5], [0.2, 0.4, 0.4], [0.1, 0.1, 0.7, 0.1]]);
  const line = onTextSentence(en, repeat, induction, 'induction');
  assert.ok(line.includes('; 1 tokens repeat, and put 0.70 on the token after their earlier copy.'), line);
  assert.ok(!line.includes('nothing to copy'), line);
  // No measured role: no legend.
  assert.equal(composeHeadNote(en, { tokens, weights: sink, row: 4, layer: 2, head: 2, heads: null }).legend, '');
});
