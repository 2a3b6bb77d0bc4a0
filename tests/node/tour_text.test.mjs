// The tour's sentences (js/tour_text.mjs) follow the view they are given:
// another row, another head's role, a switch, another prediction gives other
// sentences, and every number in them is read from the view's rows. Views
// here are made from the trained model's own forward pass (its tokens and
// matrices), never typed numbers.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { SAYS, rowLargest, tourSentences } from '../../js/tour_text.mjs';
import { STEPS, chapterRange } from '../../web/tour/chapters.mjs';
import { readTourHash, tourHash } from '../../web/tour/tour_route.mjs';
import { headOfRole, modelShape, rowOf } from '../../web/tour/tour_state.mjs';
import { headLabel, tokenizeText } from '../../web/demo_model.mjs';
import { trainedModel } from '../browser/demo.mjs';

const STAGES = ['scores_raw', 'scores_scaled', 'attn_weights'];

// A view of the trained model on its lesson sentence: layer, head, row and switches as given.
async function demoView({ layer, head, row, causal = true, scale = true, stage = 'attn_weights' }) {
  const { model, tokenizer, heads, sentence } = await trainedModel();
  const { tokens, ids } = tokenizeText(tokenizer, sentence.text, 128);
  const { trace } = model.forward(ids, { causalMask: causal, scaleScores: scale, trace: { layers: [layer], stages: STAGES } });
  const T = tokens.length;
  const at = row ?? T - 1;
  const rows = Object.fromEntries(
    STAGES.map((s) => [s, Array.from(trace.get(layer, s).data.subarray((head * T + at) * T, (head * T + at + 1) * T))]),
  );
  const entry = heads.heads.find((h) => h.layer === layer && h.head === head);
  const info = model.info();
  return {
    view: {
      text: sentence.text,
      tokens,
      special: tokens.map((_, i) => i === 0),
      row: row ?? null,
      at,
      cell: null,
      layer,
      head,
      stage,
      causal,
      scale,
      ablate: [],
      preset: 'minimind-demo',
      info: modelShape(info),
      role: entry ? { role: entry.role, ...headLabel(entry) } : null,
      rows,
      prediction: null,
    },
  };
}

const words = (lines) => JSON.stringify(lines);

test('every step says something known, and every say of the chapters exists', () => {
  for (const step of STEPS) if (!step.exercise) assert.ok(SAYS.includes(step.say), step.say);
  assert.ok(STEPS.every((step, k) => step.index === k));
  // Each chapter ends with its exercise.
  for (const slug of new Set(STEPS.map((s) => s.chapter))) {
    const [, last] = chapterRange(slug);
    assert.ok(STEPS[last].exercise, slug);
  }
});

test('the links: #tour, #tour/N, #tour/NAME, and nothing else', () => {
  assert.deepEqual(readTourHash('#tour'), { index: 0, chapter: null });
  assert.deepEqual(readTourHash('#tour/3'), { index: 2, chapter: null });
  assert.deepEqual(readTourHash('#tour/mask'), { index: chapterRange('mask')[0], chapter: 'mask' });
  for (const bad of ['', '#why', '#tour/0', `#tour/${STEPS.length + 1}`, '#tour/nowhere', '#tours'])
    assert.equal(readTourHash(bad), null, bad);
  assert.equal(tourHash(chapterRange('mask')[0], 'mask'), '#tour/mask');
  assert.equal(tourHash(chapterRange('mask')[0] + 1, 'mask'), `#tour/${chapterRange('mask')[0] + 2}`);
});

test('rows and heads of a step come from the tokens and heads.json', async () => {
  const { heads } = await trainedModel();
  assert.deepEqual(headOfRole(heads, 'pronoun'), heads.pronounHead);
  const sink = headOfRole(heads, 'sink');
  assert.equal(heads.heads.find((h) => h.layer === sink.layer && h.head === sink.head).role, 'sink');
  assert.equal(headOfRole(null, 'sink'), null);
  const tokens = ['<|im_start|>', '小明', '她', '很', '她', '好'];
  assert.equal(rowOf('pronoun', tokens), 4);
  assert.equal(rowOf('last', tokens), 5);
  assert.equal(rowOf({ token: '很' }, tokens), 3);
  assert.equal(rowOf(null, tokens), null);
  assert.equal(rowOf('last', null), undefined);
});

test('the sentences follow the row, the stage and the switches, with the numbers of the row', async () => {
  const { heads, sentence } = await trainedModel();
  const { layer, head } = heads.pronounHead;
  const { view } = await demoView({ layer, head, row: sentence.pronoun });
  const softmax = tourSentences('scores.softmax', view);
  const [top] = rowLargest(view.rows.attn_weights, 1);
  const line = softmax.find((l) => l.key === 'tour.weights.two');
  assert.equal(line.params.token, view.tokens[sentence.pronoun]);
  assert.equal(line.params.key, view.tokens[top.index]);
  assert.equal(line.params.weight, top.value.toFixed(2));
  // Another row: another token and other numbers.
  const other = (await demoView({ layer, head, row: 2 })).view;
  assert.notEqual(words(tourSentences('scores.softmax', other)), words(softmax));
  assert.equal(tourSentences('scores.softmax', other)[1].params.token, other.tokens[2]);
  // The mask: on, the row's hidden keys are counted; off, no key is.
  const masked = tourSentences('scores.masked', { ...view, stage: 'scores_masked' })[1];
  assert.equal(masked.key, 'tour.scores.masked');
  assert.equal(masked.params.masked, view.tokens.length - sentence.pronoun - 1);
  const off = (await demoView({ layer, head, row: sentence.pronoun, causal: false })).view;
  assert.equal(tourSentences('scores.masked', off)[1].key, 'tour.scores.unmasked');
  const mask = tourSentences('mask.off', off)[0];
  assert.equal(mask.key, 'tour.mask.off');
  const future = off.rows.attn_weights.slice(sentence.pronoun + 1).reduce((a, b) => a + b, 0);
  assert.equal(mask.params.future, future.toFixed(2));
  assert.ok(future > 0);
});

test('with the mask off, a top prediction that is the next token is called copying only when the mask on predicted another', async () => {
  const { heads, sentence } = await trainedModel();
  const { view } = await demoView({ ...heads.pronounHead, row: sentence.pronoun, causal: false });
  const next = view.tokens[sentence.pronoun + 1];
  const say = (top, masked) =>
    tourSentences('mask.off', { ...view, prediction: { query: '', top: { label: top, p: 0.9 }, on: null, masked } });
  const copying = say(next, { label: `${next}?`, p: 0.5 });
  assert.ok(copying.some((l) => l.key === 'tour.predict.cheats' && l.params.next === next));
  assert.ok(copying.some((l) => l.key === 'tour.predict.masked' && l.params.masked === `${next}?` && l.params.p === '0.500'));
  // The same top with the mask on: no copying claim.
  assert.ok(say(next, { label: next, p: 0.8 }).some((l) => l.key === 'tour.predict.sees'));
  assert.ok(!say(next, { label: next, p: 0.8 }).some((l) => l.key === 'tour.predict.cheats'));
  assert.ok(say(`${next}?`, null).some((l) => l.key === 'tour.predict.sees'));
});

test('the heads chapter says the measured role of the head shown, and GQA follows the shape', async () => {
  const { heads } = await trainedModel();
  const prev = headOfRole(heads, 'previous-token');
  const { view } = await demoView({ ...prev, row: 5 });
  const lines = tourSentences('heads.role', view);
  assert.equal(lines[0].key, 'tour.heads.role');
  assert.equal(lines[0].params.role.key, 'role.previous-token');
  assert.equal(lines[1].key, 'tour.heads.previous');
  assert.equal(lines[1].params.previous, view.tokens[4]);
  assert.equal(lines[1].params.weight, view.rows.attn_weights[4].toFixed(2));
  const none = tourSentences('heads.role', { ...view, role: null });
  assert.equal(none[0].key, 'tour.heads.noRole');
  const gqa = tourSentences('forward.gqa', { ...view, head: 3, info: { ...view.info, H: 4, Hkv: 2 } })[0];
  assert.deepEqual([gqa.key, gqa.params.rep, gqa.params.kv, gqa.params.heads], ['tour.forward.gqa', 2, 1, '2, 3']);
  assert.equal(tourSentences('forward.gqa', view)[0].key, 'tour.forward.noGqa');
});
