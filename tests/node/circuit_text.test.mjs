// The circuit view's logic (js/circuit_text.mjs): the shares, the carrying
// position, the faithfulness point, the induction pair and the sentences, on
// hand-made results of model.circuit()'s shape, then on the trained model:
// the name-swap pair of the demo text and the `heads` command's induction
// probes, where every sentence must agree with the numbers it came from.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import {
  FAITHFUL,
  INDUCTION_TOP,
  carryingPosition,
  circuitSentences,
  curveAt,
  differingPositions,
  edgeShares,
  faithfulAt,
  inductionPair,
  inductionSentence,
  lostShare,
  patchedEdges,
} from '../../js/circuit_text.mjs';
import { inductionProbes } from '../../js/head_roles.mjs';
import { nextToken } from '../../js/pronoun_pair.mjs';
import { componentRoles } from '../../js/qk_text.mjs';
import { encodeText } from '../../js/text_encoding.mjs';
import { patchStory, storyPair, wordParams } from '../../js/why_text.mjs';
import { translate } from '../../web/i18n.mjs';
import { CIRCUIT_TERMS } from '../../web/messages/circuit_terms.mjs';
import { trainedModel } from '../browser/demo.mjs';

const METRIC = { clean: 10, corrupt: -10 };

// A result of the API's shape: edges strongest first by |score|.
function made(edges, metric = METRIC, curves = null) {
  return { metric, edges, curves, rank: 'eap' };
}

function worded(lines, lang = 'en') {
  return lines.map(({ key, params }) =>
    translate(
      lang,
      key,
      wordParams((k, p) => translate(lang, k, p), params),
    ),
  );
}

test('an edge’s share is (clean − patched) / (clean − corrupt), EAP’s estimate −score / (clean − corrupt)', () => {
  assert.equal(lostShare(0, METRIC), 0.5);
  assert.equal(lostShare(-10, METRIC), 1);
  assert.equal(lostShare(12, METRIC), -0.1);
  assert.equal(lostShare(null, METRIC), null);
  assert.equal(lostShare(3, { clean: 2, corrupt: 2 }), null);
  assert.deepEqual(edgeShares({ from: 'embed', to: 'logits', score: -5, patched: 4 }, METRIC), { patched: 0.3, eap: 0.25 });
});

test('the carrying position is the largest part in size, with its part of the parts’ sizes', () => {
  assert.deepEqual(carryingPosition({ positions: [0.5, -3, 1.5] }), { position: 1, part: 0.6 });
  assert.equal(carryingPosition({ positions: [0, 0] }), null);
  assert.equal(carryingPosition({}), null);
  assert.deepEqual(differingPositions({ clean: ['<s>', '小', '红', '她'], corrupt: ['<s>', '苏', '静', '她'] }), [1, 2]);
});

test('the faithful point is the smallest N short of every edge that keeps FAITHFUL of the answer', () => {
  const curve = [
    { edges: 0, share: 0 },
    { edges: 1, share: 0.4 },
    { edges: 2, share: 0.85 },
    { edges: 5, share: 0.7 },
    { edges: 9, share: 1 },
  ];
  assert.equal(faithfulAt(curve, 9).edges, 2);
  assert.equal(
    faithfulAt(
      curve.map((p) => (p.edges < 9 ? { ...p, share: FAITHFUL - 0.01 } : p)),
      9,
    ),
    null,
  );
  const curves = { eap: curve, patched: curve.map((p) => ({ ...p, share: p.share / 2 })) };
  assert.deepEqual(curveAt(curves, 2), { edges: 2, eap: 0.85, patched: 0.425 });
  assert.deepEqual(curveAt(curves, 3), { edges: 3, eap: null, patched: null });
});

test('the sentences name the edges patching measured strongest, in that order, and where each enters', () => {
  const tokens = { clean: ['<s>', '小', '红', '她'], corrupt: ['<s>', '苏', '静', '她'] };
  const edges = [
    { from: 'L0ffn', to: 'logits', score: -9, patched: 6, positions: [0, 0, 0, -9] }, // share 0.2
    { from: 'embed', to: 'L0H3.v', score: -2, patched: -4, positions: [0, -0.2, -1.8, 0] }, // 0.7
    { from: 'L0H3', to: 'L0ffn', score: 1, patched: 13, positions: [0, 0, 0, 1] }, // -0.15
    { from: 'L1H0', to: 'logits', score: 0.5, patched: null, positions: [0.5, 0, 0, 0] },
  ];
  const curves = {
    eap: [
      { edges: 0, share: 0 },
      { edges: 2, share: 0.9 },
      { edges: 4, share: 1 },
    ],
    patched: [
      { edges: 0, share: 0 },
      { edges: 2, share: 0.5 },
      { edges: 4, share: 1 },
    ],
  };
  const lines = circuitSentences(made(edges, METRIC, curves), { tokens, story: { referent: '小红', pronoun: '她' } });
  const keyed = lines.map((l) => l.key);
  assert.deepEqual(
    patchedEdges(made(edges)).map((e) => e.from),
    ['embed', 'L0ffn', 'L0H3'],
  );
  const named = lines.filter((l) => l.key.startsWith('circuit.edge'));
  assert.deepEqual(
    named.map((l) => [l.params.edge, l.params.share, l.params.position, l.params.part]),
    [
      ['embed → L0H3.v', 70, 2, 90],
      ['L0ffn → logits', 20, 3, 100],
      ['L0H3 → L0ffn', 15, 3, 100],
    ],
  );
  assert.equal(named[2].key, 'circuit.edgeAgainstAt');
  // Position 2 is where 红 and 静 differ: the strongest edge carries the referent.
  assert.ok(keyed.includes('circuit.referent'));
  assert.ok(keyed.includes('circuit.estimateOff')); // EAP says 10%, patching 70%
  assert.deepEqual(
    lines
      .filter((l) => l.key.startsWith('circuit.faithful') || l.key.startsWith('circuit.notFaithful'))
      .map((l) => [l.key, l.params.edges ?? null]),
    [
      ['circuit.faithful.eap', 2],
      ['circuit.notFaithful.patched', null],
    ],
  );
  assert.deepEqual(lines.find((l) => l.key === 'circuit.unpatched').params, { count: 1, total: 4 });
  // Where the strongest edge enters at a position both texts share, no referent is claimed.
  const same = edges.map((e, i) => (i === 1 ? { ...e, positions: [0, 0, 0, -2] } : e));
  assert.ok(
    !circuitSentences(made(same), { tokens, story: { referent: '小红', pronoun: '她' } }).some((l) => l.key === 'circuit.referent'),
  );
  // Without a gap there is no share to give.
  assert.deepEqual(
    circuitSentences(made(edges, { clean: 1, corrupt: 1 })).map((l) => l.key),
    ['circuit.metric', 'circuit.noGap'],
  );
});

test('the induction sentence says the circuit only when both of its edges are among the strongest', () => {
  const roles = { L1H1: 'previous-token', L2H2: 'induction', L0H3: 'pronoun' };
  const filler = (n) => Array.from({ length: n }, (_, i) => ({ from: 'embed', to: `L3H${i % 4}.q`, score: -0.01, patched: null }));
  const key = { from: 'L1H1', to: 'L2H2.k', score: -2, patched: 2 };
  const out = { from: 'L2H2', to: 'logits', score: -1.9, patched: 5 };
  const found = inductionSentence(made([key, ...filler(3), out, ...filler(30)]), roles);
  assert.deepEqual(found, {
    key: 'circuit.induction.found',
    params: { previous: 'L1H1', induction: 'L2H2', keyRank: 1, outRank: 5, top: INDUCTION_TOP },
  });
  const late = inductionSentence(made([key, ...filler(INDUCTION_TOP), out]), roles);
  assert.equal(late.key, 'circuit.induction.keysOnly');
  assert.equal(inductionSentence(made([out, ...filler(30), key]), roles).key, 'circuit.induction.outOnly');
  assert.equal(inductionSentence(made(filler(30)), roles).key, 'circuit.induction.none');
  assert.equal(inductionSentence(made([key, out]), { L0H3: 'pronoun' }).key, 'circuit.induction.noRoles');
});

test('a text typed twice gives the induction pair: its first copy reversed, the next tokens of both', () => {
  const pair = inductionPair([1, 11, 12, 13, 14, 11, 12]);
  assert.deepEqual(pair, { clean: [1, 11, 12, 13, 14, 11, 12], corrupt: [1, 14, 13, 12, 11, 11, 12], answer: 13, wrong: 11, copy: 4 });
  // A whole second copy loses its last token; without the bos the same.
  assert.deepEqual(inductionPair([1, 21, 22, 23, 21, 22, 23]).clean, [1, 21, 22, 23, 21, 22]);
  assert.equal(inductionPair([21, 22, 23, 24, 21, 22]).answer, 23);
  assert.equal(inductionPair([1, 11, 12, 13, 14, 15]), null);
  assert.equal(inductionPair([1, 11, 12, 11, 13, 11, 12]), null); // 11 twice in its copy
});

test('every sentence key has both languages, and each fills all its parameters', () => {
  const en = Object.keys(CIRCUIT_TERMS.en);
  assert.deepEqual(Object.keys(CIRCUIT_TERMS['zh-CN']).sort(), en.sort());
  for (const key of en) {
    const names = (text) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
    assert.deepEqual(names(CIRCUIT_TERMS['zh-CN'][key]), names(CIRCUIT_TERMS.en[key]), key);
  }
});

// The trained model: the pair the why section derives from the demo text, at its pronoun.
async function demoCircuit() {
  const { model, tokenizer, heads } = await trainedModel();
  const text = '小明把苹果给了小红，她很开心';
  const labels = ['<bos>', ...tokenizer.display(tokenizer.encode(text)).map((d) => d.text)];
  const pair = storyPair(patchStory(text, labels, labels.indexOf('她')).story, tokenizer);
  const clean = encodeText(tokenizer, pair.clean);
  const corrupt = encodeText(tokenizer, pair.corrupt);
  const answer = nextToken(tokenizer, pair.clean, pair.answer);
  const wrong = nextToken(tokenizer, pair.clean, pair.wrong);
  const result = model.circuit({ clean, corrupt, answer, wrong, top: 50, positions: true });
  const label = (ids) => tokenizer.display(ids).map((d) => d.text);
  return { pair, result, tokens: { clean: label(clean), corrupt: label(corrupt) }, roles: componentRoles(heads) };
}

test('on the demo pair the sentences follow the numbers: the strongest edges, their shares, where they enter', async () => {
  const { pair, result, tokens, roles } = await demoCircuit();
  assert.equal(pair.kind, 'name');
  const lines = circuitSentences(result, { tokens, roles, story: { referent: pair.story.referent, pronoun: pair.story.pronoun } });
  const byLoss = [...result.edges]
    .filter((e) => e.patched !== null)
    .sort((a, b) => Math.abs(b.patched - result.metric.clean) - Math.abs(a.patched - result.metric.clean));
  const named = lines.filter((l) => l.key.startsWith('circuit.edge'));
  assert.deepEqual(
    named.map((l) => l.params.edge),
    byLoss.slice(0, 3).map((e) => `${e.from} → ${e.to}`),
  );
  for (const [i, line] of named.entries()) {
    const share = edgeShares(byLoss[i], result.metric).patched;
    assert.equal(line.params.share, Math.round(Math.abs(share) * 100));
    assert.equal(line.params.position, carryingPosition(byLoss[i]).position);
    assert.equal(line.params.token, tokens.clean[line.params.position]);
  }
  // The referent is claimed only where the strongest edge enters at a position the two texts differ in.
  const differ = differingPositions(tokens);
  const claims = lines.some((l) => l.key === 'circuit.referent');
  assert.equal(claims, differ.includes(carryingPosition(byLoss[0]).position) && edgeShares(byLoss[0], result.metric).patched >= 0);
  assert.equal(worded(lines).length, lines.length);
  for (const text of [...worded(lines, 'en'), ...worded(lines, 'zh-CN')]) assert.ok(!/\{\w+\}/.test(text), text);
});

test('on the heads command’s induction probes the induction sentence agrees with the edges', async (t) => {
  const { model, tokenizer, heads } = await trainedModel();
  const roles = componentRoles(heads);
  let found = 0;
  for (const probe of inductionProbes(tokenizer, { count: 3, length: 12 })) {
    // The second copy cut to its first 6 tokens: the next is the first copy's 7th.
    const pair = inductionPair(probe.ids.slice(0, probe.lead + 12 + 6));
    assert.ok(pair, 'an induction probe is a text typed twice');
    const result = model.circuit({ clean: pair.clean, corrupt: pair.corrupt, answer: pair.answer, wrong: pair.wrong, top: 30 });
    const said = inductionSentence(result, roles);
    const top = result.edges.slice(0, INDUCTION_TOP);
    if (said.key === 'circuit.induction.found') {
      found += 1;
      const { previous, induction, keyRank, outRank } = said.params;
      assert.equal(roles[previous], 'previous-token');
      assert.equal(roles[induction], 'induction');
      assert.deepEqual([top[keyRank - 1].from, top[keyRank - 1].to], [previous, `${induction}.k`]);
      assert.deepEqual([top[outRank - 1].from, top[outRank - 1].to], [induction, 'logits']);
    } else {
      const induction = Object.keys(roles).filter((n) => roles[n] === 'induction');
      const keys = top.some((e) => roles[e.from] === 'previous-token' && induction.some((h) => e.to === `${h}.k`));
      const outs = top.some((e) => induction.includes(e.from) && e.to === 'logits');
      assert.ok(!(keys && outs), `${said.key} although both edges are in the top ${INDUCTION_TOP}`);
    }
  }
  t.diagnostic(`induction circuit found on ${found} of 3 probes`);
  // The trained model's measured heads (heads.json) name a previous-token and an induction head.
  assert.ok(Object.values(roles).includes('induction') && Object.values(roles).includes('previous-token'));
});
