// The exercises of js/exercises.mjs against real models: the trained demo
// model (models/minimind-demo, loaded as the other Node tests load it) on the
// lesson's sentence, and random-weight models. Every right answer the
// exercise computes is accepted, answers it refuses are wrong by the model's
// own numbers (recomputed here from a forward), and a model or text without
// an answer says why.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

import { EXERCISES, exercise, runExercise, textScreen } from '../../js/exercises.mjs';
import { EDGE_CHOICES, EDGE_SHARE } from '../../js/exercises/circuit.mjs';
import { PRONOUN_SHARE } from '../../js/exercises/pronoun.mjs';
import { loadMiniMind } from '../../js/minimind.mjs';
import { LESSON_PROBE } from '../../js/train_session.mjs';
import { encodeText } from '../../js/text_encoding.mjs';
import { STEPS } from '../../web/tour/chapters.mjs';

const DIR = new URL('../../models/minimind-demo/', import.meta.url);
const mm = await loadMiniMind();
const demoConfig = readFileSync(new URL('config.json', DIR), 'utf8');
const demo = mm.loadModel({ config: demoConfig, weights: new Uint8Array(readFileSync(new URL('model.safetensors', DIR))) });
const tokenizer = mm.loadTokenizer(readFileSync(new URL('tokenizer.json', DIR), 'utf8'));

// The lesson's sentence at the pronoun's row, block 1 head 2, the cell 她 -> 小.
const PRONOUN_ROW = 9;
const lesson = (rest = {}) =>
  textScreen(tokenizer, LESSON_PROBE, { layer: 1, head: 2, row: PRONOUN_ROW, cell: { query: 9, key: 6 }, ...rest });

// [H][T] attention weights of `layer` at `row`, computed here from a forward (the test's own reading).
function weightsAt(model, screen, layer, row, { causal = screen.causal, scale = screen.scale } = {}) {
  const { trace } = model.forward(screen.ids, {
    trace: { layers: [layer], stages: ['attn_weights'] },
    causalMask: causal,
    scaleScores: scale,
  });
  const { shape, data } = trace.get(layer, 'attn_weights');
  const [, H, , T] = shape;
  return Array.from({ length: H }, (_, h) => Array.from(data.subarray((h * T + row) * T, (h * T + row + 1) * T)));
}

function topAfter(model, ids, ablate = []) {
  const { logits } = model.forward(ids, ablate.length ? { ablate } : {});
  const V = logits.shape[2];
  const last = logits.data.subarray((ids.length - 1) * V);
  let best = 0;
  for (let id = 1; id < V; id += 1) if (last[id] > last[best]) best = id;
  return best;
}

test('every exercise has an answer on the demo model, and each right answer it computes is accepted', () => {
  // One exercise per tour chapter that has one, in the tour's order.
  const tourExercises = STEPS.filter((step) => step.exercise).map((step) => step.exercise);
  assert.deepEqual(
    EXERCISES.map((e) => e.name),
    tourExercises,
  );
  for (const { name } of EXERCISES) {
    const e = exercise(name);
    const screen = lesson();
    assert.equal(e.available(demo, screen), null, name);
    const answers = e.answers(demo, screen);
    assert.ok(answers.length > 0, `${name}: no right answer`);
    for (const answer of answers) assert.deepEqual(e.check(demo, screen, answer), { solved: true }, `${name}: ${JSON.stringify(answer)}`);
    const { question } = runExercise(demo, screen, { name });
    assert.match(question.key, /^exercise\.q\./);
  }
});

test('the pronoun heads of block 0 are those that put half of 她 on 小红: L0H1 and L0H3 on the demo', () => {
  const screen = lesson();
  const shares = weightsAt(demo, screen, 0, PRONOUN_ROW).map((w) => w[6] + w[7]); // 小 红 at 6, 7
  const expected = shares.flatMap((share, head) => (share >= PRONOUN_SHARE ? [{ layer: 0, head }] : []));
  assert.deepEqual(exercise('pronoun-head').answers(demo, screen), expected);
  assert.ok(expected.some((h) => h.head === 1) && expected.some((h) => h.head === 3), JSON.stringify(shares));
  // A click on a head: the head on screen is the answer; a head below the share and one of block 1 are refused with a hint.
  const e = exercise('pronoun-head');
  for (const { head } of expected) assert.equal(e.check(demo, lesson({ layer: 0, head }), null).solved, true);
  const wrong = shares.findIndex((share) => share < PRONOUN_SHARE);
  const refused = e.check(demo, lesson({ layer: 0, head: wrong }), null);
  assert.equal(refused.solved, false);
  assert.equal(refused.hint.key, 'exercise.hint.pronounHead');
  assert.equal(refused.hint.params.share, shares[wrong].toFixed(2));
  assert.equal(e.check(demo, lesson({ layer: 1, head: 3 }), null).hint.key, 'exercise.hint.pronounHeadBlock');
});

test("tokens, scores, the mask and √d: right answers are the model trace's, wrong ones refused", () => {
  const screen = lesson();
  const T = screen.ids.length;
  const tokens = exercise('tokens-count');
  assert.deepEqual(tokens.answers(demo, screen), [T]);
  assert.equal(tokens.check(demo, screen, T - 1).hint.key, 'exercise.hint.tokensBos');
  assert.equal(tokens.check(demo, screen, String(T)).solved, true);

  // With the mask off, the row of 小明 (position 1) reads later tokens: the largest of them is the answer.
  const mask = exercise('mask-cheat');
  const free = weightsAt(demo, screen, 1, 1, { causal: false })[2];
  const later = free.slice(2);
  const best = 2 + later.indexOf(Math.max(...later));
  assert.deepEqual(mask.answers(demo, screen), [best]);
  assert.equal(mask.question(demo, screen).params.token, '小明');
  const wrongLater = best === T - 1 ? T - 2 : T - 1;
  assert.equal(mask.check(demo, screen, wrongLater).solved, false);
  assert.equal(mask.check(demo, screen, 0).hint.key, 'exercise.hint.aLaterKey'); // not a later token

  // √d: every key whose weight is larger with ÷√d off, and none whose weight shrinks.
  const scale = exercise('scale-sharper');
  const on = weightsAt(demo, screen, 1, PRONOUN_ROW)[2];
  const off = weightsAt(demo, screen, 1, PRONOUN_ROW, { scale: false })[2];
  const grows = scale.answers(demo, screen);
  for (let j = 0; j <= PRONOUN_ROW; j += 1) assert.equal(grows.includes(j), off[j] > on[j] + 1e-6, `key ${j}`);
  const shrinks = on.findIndex((w, j) => j <= PRONOUN_ROW && off[j] < w);
  assert.equal(scale.check(demo, screen, shrinks).hint.key, 'exercise.hint.scaleSharper');

  const scores = exercise('scores-top');
  const [top] = scores.answers(demo, screen);
  assert.ok(top <= PRONOUN_ROW);
  const other = top === 0 ? 1 : 0;
  assert.equal(scores.check(demo, screen, other).solved, false);
  assert.equal(scores.check(demo, screen, PRONOUN_ROW + 1).hint.key, 'exercise.hint.aVisibleKey'); // masked key
});

test('switching a head off: exactly the heads whose ablation takes 唱 off the top are right', () => {
  const screen = lesson();
  const ids = screen.ids.slice(0, PRONOUN_ROW + 1);
  const sing = topAfter(demo, ids);
  assert.equal(exercise('switch-off').question(demo, screen).params.token, '唱');
  const { num_hidden_layers: L, num_attention_heads: H } = demo.info();
  const expected = [];
  for (let l = 0; l < L; l += 1) for (let h = 0; h < H; h += 1) if (topAfter(demo, ids, [[l, h]]) !== sing) expected.push([[l, h]]);
  const e = exercise('switch-off');
  assert.deepEqual(e.answers(demo, screen), expected);
  const kept = [[L - 1, H - 1]];
  assert.ok(!expected.some(([[l, h]]) => l === L - 1 && h === H - 1));
  assert.equal(e.check(demo, lesson({ ablate: kept }), null).hint.key, 'exercise.hint.switchOffStill');
  assert.equal(e.check(demo, lesson({ ablate: [] }), null).hint.key, 'exercise.hint.switchOffNone');
  assert.equal(e.check(demo, lesson({ ablate: [...expected[0], [3, 3]] }), null).hint.key, 'exercise.hint.switchOffOne');
  assert.equal(e.check(demo, lesson({ ablate: expected[0] }), null).solved, true);
});

test('the lens block is the first residual layer whose top token is 唱; the others are refused', () => {
  const screen = lesson();
  const ids = screen.ids.slice(0, PRONOUN_ROW + 1);
  const sing = topAfter(demo, ids);
  const { lens } = demo.lens(ids, { top: 1 });
  const first = lens.findIndex((layer) => layer[PRONOUN_ROW][0].id === sing);
  const e = exercise('lens-block');
  assert.deepEqual(e.answers(demo, screen), [first]);
  for (let l = 0; l < lens.length; l += 1) assert.equal(e.check(demo, screen, l).solved, l === first, `lens row ${l}`);
  assert.equal(e.check(demo, screen, lens.length).hint.key, 'exercise.hint.aBlock');
});

test('the pronoun head looking at another name: typed sentences are read as the head reads them', () => {
  const e = exercise('other-name');
  const screen = lesson();
  assert.equal(e.check(demo, screen, LESSON_PROBE).solved, false); // the lesson's own: 她 looks at 小红
  assert.equal(e.check(demo, screen, '小红把书给了小明，他').solved, true);
  assert.equal(e.check(demo, screen, '今天天气很好').hint.key, 'exercise.hint.otherNameStory');
  // The screen's text when no answer is given (the learner typed it into the page).
  assert.equal(e.check(demo, textScreen(tokenizer, '小红把书给了小明，他'), null).solved, true);
});

test('GQA, why this weight and the Train panel on a random preset and the demo', () => {
  const lab = mm.createModel({ preset: 'lab-a', seed: 0 });
  const { num_attention_heads: H, num_key_value_heads: Hkv } = lab.info();
  const R = H / Hkv;
  assert.ok(R > 1);
  const screen = {
    text: 'abcde',
    ids: [3, 4, 5, 6, 7],
    labels: [...'abcde'],
    tokenizer: null,
    layer: 1,
    head: H - 1,
    row: 3,
    cell: { query: 3, key: 1 },
  };
  const gqa = exercise('forward-gqa');
  const group = Array.from({ length: R }, (_, k) => H - R + k);
  assert.deepEqual(gqa.answers(lab, screen)[0], group);
  assert.equal(gqa.check(lab, screen, [...group].reverse()).solved, true);
  assert.equal(gqa.check(lab, screen, [0, ...group]).solved, false);

  // The component with the largest key-side part of the contrast, from model.qk itself.
  const weight = exercise('weight-source');
  const qk = lab.qk({ ids: screen.ids, layer: 1, head: H - 1, query: 3, key: 1, versus: 'mean' });
  const parts = qk.components.map((_, c) => qk.versus.table.reduce((sum, row) => sum + row[c], 0));
  const largest = parts.reduce((best, x, c) => (Math.abs(x) > Math.abs(parts[best]) ? c : best), 0);
  assert.ok(weight.answers(lab, screen).includes(qk.components[largest]));
  const smallest = parts.reduce((best, x, c) => (Math.abs(x) < Math.abs(parts[best]) ? c : best), 0);
  assert.equal(weight.check(lab, screen, qk.components[smallest]).hint.key, 'exercise.hint.weightSource');
  assert.equal(weight.available(lab, { ...screen, layer: 0 }).kind, 'blockZero');
  assert.equal(weight.available(lab, { ...screen, cell: null }).kind, 'noCell');

  const train = exercise('train-setting');
  const settings = { batches: 10, batchSize: 4, maxSeqLen: 32, source: 'stream' };
  assert.deepEqual(train.answers(lab, { ...screen, train: settings }), [10 * 4 * 32]);
  assert.equal(train.check(lab, { ...screen, train: settings }, '1,280').solved, true);
  assert.equal(train.check(lab, { ...screen, train: settings }, 40).hint.key, 'exercise.hint.trainRows');
  assert.equal(train.available(lab, { ...screen, train: { ...settings, source: 'file' } }).kind, 'fileData');
  lab.dispose();
});

test("the circuit's edge: the right edges are those path patching finds near the largest; others refused", () => {
  const e = exercise('circuit-edge');
  const screen = lesson();
  // The why section's pair on the lesson sentence, from the storyPair of its pronoun, encoded here.
  const clean = encodeText(tokenizer, '小明把苹果给了小红，她');
  const corrupt = encodeText(tokenizer, '小明把苹果给了苏静，她');
  const ids = (text) => tokenizer.encode(text);
  const answer = ids('唱起了歌')[0];
  const wrong = ids('跳起了舞')[0];
  const { metric, edges } = demo.circuit({ clean, corrupt, answer, wrong, top: EDGE_CHOICES, faithfulness: false });
  const listed = edges.slice(0, EDGE_CHOICES);
  const name = (edge) => `${edge.from} → ${edge.to}`;
  assert.deepEqual(runExercise(demo, screen, { name: 'circuit-edge' }).choices, listed.map(name));
  const moved = listed.map((edge) => Math.abs(edge.patched - metric.clean));
  const largest = Math.max(...moved);
  const expected = listed.filter((_, k) => moved[k] >= EDGE_SHARE * largest).map(name);
  assert.deepEqual(e.answers(demo, screen), expected);
  for (let k = 0; k < listed.length; k += 1) {
    const verdict = e.check(demo, screen, name(listed[k]));
    assert.equal(verdict.solved, moved[k] >= EDGE_SHARE * largest, name(listed[k]));
    if (!verdict.solved) assert.equal(verdict.hint.key, 'exercise.hint.circuitEdge');
  }
  // EAP's first edge is not path patching's on the demo: the exercise is not "pick the top row".
  assert.ok(!expected.includes(name(listed[0])), `${name(listed[0])} is both`);
  assert.equal(e.check(demo, screen, 'embed → nowhere').hint.key, 'exercise.hint.anEdge');
  // A text typed twice: the copy's pair (js/circuit_text.mjs), without a story.
  const twice = textScreen(tokenizer, '今天天气很好今天天气');
  assert.equal(e.available(demo, twice), null);
  assert.equal(e.question(demo, twice).key, 'exercise.q.circuitEdgeCopy');
});

test('no answer: a preset without a tokenizer, a text without a pronoun story, a model without a pronoun head', () => {
  const lab = mm.createModel({ preset: 'lab-a', seed: 0 });
  const ids = { text: 'abc', ids: [3, 4, 5], labels: [...'abc'], tokenizer: null, layer: 0, head: 0, row: 2 };
  for (const name of ['pronoun-head', 'switch-off', 'lens-block', 'other-name', 'circuit-edge'])
    assert.deepEqual(runExercise(lab, ids, { name }), { name, available: false, reason: { kind: 'noTokenizer', params: {} } }, name);
  lab.dispose();
  // The demo model on a sentence without a pronoun whose referent is named.
  const weather = textScreen(tokenizer, '今天天气很好');
  for (const name of ['pronoun-head', 'switch-off', 'lens-block'])
    assert.equal(exercise(name).available(demo, weather).kind, 'noStory', name);
  // Random weights in the demo's shape, with its tokenizer: no head of block 0 puts half of 她 on 小红.
  const random = mm.createModel({ config: JSON.parse(demoConfig), seed: 3 });
  const screen = lesson();
  const shares = weightsAt(random, screen, 0, PRONOUN_ROW).map((w) => w[6] + w[7]);
  const reason = exercise('pronoun-head').available(random, screen);
  if (shares.every((s) => s < PRONOUN_SHARE)) assert.equal(reason.kind, 'noPronounHead');
  else assert.equal(reason, null);
  assert.ok(
    shares.every((s) => s < PRONOUN_SHARE),
    `a random head reached ${Math.max(...shares)}`,
  );
  assert.equal(exercise('other-name').available(random, screen).kind, 'noLessonHead');
  random.dispose();
  assert.equal(exercise('mask-cheat').available(demo, textScreen(tokenizer, '好')), null); // bos + 好: a later token
  assert.equal(exercise('tokens-count').available(demo, { ...weather, ids: [], labels: [] }).kind, 'noText');
});
