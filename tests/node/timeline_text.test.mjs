// The moments of a training timeline and their sentences (js/timeline_text.mjs)
// on synthetic entries: where a head crosses its role's threshold, the
// stretch before it, the ICL change over that stretch and which earlier
// head writes its keys, each branch of the wording.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { ROLE_THRESHOLDS } from '../../js/head_roles.mjs';
import { ICL_CHANGE, compactTokens, momentSentence, timelineMoments, topSource } from '../../js/timeline_text.mjs';
import { wordParams } from '../../js/why_text.mjs';
import { translate } from '../../web/i18n.mjs';
import { TIMELINE_TERMS } from '../../web/messages/timeline_terms.mjs';

const QUIET = { previousToken: 0.1, induction: 0.05, pronoun: 0.1, sink: 0.2 };

// An entry of 3 blocks × 2 heads: every head quiet but those in `heads` ({L2H1: {induction: 0.5}}).
function entry(step, { heads = {}, icl = -0.1, composition = {}, gaps = {} } = {}) {
  const all = {};
  for (let l = 0; l < 3; l += 1) for (let h = 0; h < 2; h += 1) all[`L${l}H${h}`] = { ...QUIET, ...heads[`L${l}H${h}`] };
  return { step, tokens: step * 512, loss: 5, trainLoss: 5, icl, heads: all, composition, gaps, T: 0, attention: null };
}

const keys = (parts) => parts.map((p) => p.key);

test('compactTokens says counts in k and M', () => {
  assert.equal(compactTokens(950), '950');
  assert.equal(compactTokens(1500), '1.5k');
  assert.equal(compactTokens(350000), '350k');
  assert.equal(compactTokens(1234567), '1.2M');
  assert.equal(compactTokens(13.7e6), '14M');
  assert.equal(compactTokens(999999), '1M');
});

test('topSource picks the largest finite share', () => {
  assert.deepEqual(topSource({ L0H0: 0.2, L1H1: 0.62, L1H0: NaN }), { source: 'L1H1', share: 0.62 });
  assert.equal(topSource({}), null);
  assert.equal(topSource(null), null);
});

test('an induction head forming: the moment, the stretch from the last entry below half the threshold, mostly from a named head', () => {
  const t = ROLE_THRESHOLDS.induction;
  const entries = [
    entry(0, { icl: -0.05 }),
    entry(10, { heads: { L2H1: { induction: t / 2 - 0.01 } }, icl: -0.1 }), // last below half: the stretch starts here
    entry(20, { heads: { L2H1: { induction: t / 2 + 0.05 } }, icl: -0.2 }),
    entry(30, {
      heads: { L2H1: { induction: t + 0.05 }, L1H0: { previousToken: 0.9 } },
      icl: -0.5,
      composition: { L2H1: { L0H0: 0.1, L0H1: 0.05, L1H0: 0.62, L1H1: 0.23 } },
      gaps: { L2H1: 2.5 },
    }),
    entry(40, { heads: { L2H1: { induction: t + 0.1 }, L1H0: { previousToken: 0.9 } }, icl: -0.6 }),
  ];
  const moments = timelineMoments(entries);
  // L1H0 crosses the previous-token threshold at the same entry; FORMING_KINDS puts induction first.
  assert.deepEqual(
    moments.map((m) => [m.kind, m.head, m.index]),
    [
      ['induction', 'L2H1', 3],
      ['previousToken', 'L1H0', 3],
    ],
  );
  const [m] = moments;
  assert.equal(m.from, 1);
  assert.equal(m.tokens, 30 * 512);
  assert.equal(m.value, t + 0.05);
  assert.ok(Math.abs(m.icl.change - (-0.5 - -0.1)) < 1e-12);
  assert.deepEqual(m.composition, { source: 'L1H0', share: 0.62, role: 'previous-token' });
  const parts = momentSentence(m, { minGap: 1 });
  assert.deepEqual(keys(parts), ['timeline.formed', 'timeline.keysMostlyRole', 'timeline.iclFell']);
  assert.deepEqual(parts[0].params, {
    tokens: compactTokens(30 * 512),
    head: 'L2H1',
    role: { key: 'timeline.become.induction', params: {} },
    value: (t + 0.05).toFixed(2),
  });
  assert.deepEqual(parts[1].params, { source: 'L1H0', share: 62, role: { key: 'qk.role.previous-token', params: {} } });
  assert.deepEqual(parts[2].params, { change: '0.40', from: compactTokens(10 * 512), to: compactTokens(30 * 512) });
});

test('the largest share without a role, a rise, and a flat ICL score', () => {
  const t = ROLE_THRESHOLDS.induction;
  const at = (icl) => [
    entry(0, { icl: 0 }),
    entry(10, {
      heads: { L2H0: { induction: t } },
      icl,
      composition: { L2H0: { L0H0: 0.3, L1H1: 0.45, L1H0: 0.25 } },
      gaps: { L2H0: 1.5 },
    }),
  ];
  const [rose] = timelineMoments(at(0.2));
  assert.equal(rose.from, 0, 'no entry below half: the stretch starts at the first');
  assert.deepEqual(rose.composition, { source: 'L1H1', share: 0.45, role: null });
  assert.deepEqual(keys(momentSentence(rose, { minGap: 1 })), ['timeline.formed', 'timeline.keysLargest', 'timeline.iclRose']);
  const [flat] = timelineMoments(at(-(ICL_CHANGE - 0.01)));
  const parts = momentSentence(flat, { minGap: 1 });
  assert.equal(parts[2].key, 'timeline.iclFlat');
  assert.equal(parts[2].params.change, (ICL_CHANGE - 0.01).toFixed(2));
  // Just over the threshold of a change: said as a fall.
  assert.equal(momentSentence(timelineMoments(at(-(ICL_CHANGE + 0.01)))[0], { minGap: 1 })[2].key, 'timeline.iclFell');
});

test('mostly from a head that holds no role; the largest share from one that does', () => {
  const t = ROLE_THRESHOLDS.induction;
  const make = (shares, heads = {}) => [
    entry(0),
    entry(10, { heads: { L2H0: { induction: t }, ...heads }, composition: { L2H0: shares }, gaps: { L2H0: 3 } }),
  ];
  const [mostly] = timelineMoments(make({ L1H1: 0.7, L0H0: 0.3 }));
  assert.equal(momentSentence(mostly, { minGap: 1 })[1].key, 'timeline.keysMostly');
  const [largest] = timelineMoments(make({ L1H1: 0.4, L0H0: 0.35 }, { L1H1: { previousToken: 0.8 } }));
  const part = momentSentence(largest, { minGap: 1 })[1];
  assert.equal(part.key, 'timeline.keysLargestRole');
  assert.equal(part.params.share, 40);
});

test('a gap too small to split, a head of block 0, and a head formed at the first entry', () => {
  const t = ROLE_THRESHOLDS.induction;
  const small = [entry(0), entry(10, { heads: { L2H0: { induction: t + 0.2 } }, composition: { L2H0: null }, gaps: { L2H0: 0.62 } })];
  const [m] = timelineMoments(small);
  assert.equal(m.composition, 'small');
  const parts = momentSentence(m, { minGap: 1 });
  assert.equal(parts[1].key, 'timeline.gapSmall');
  assert.deepEqual(parts[1].params, { gap: '0.62', min: 1 });

  const first = [entry(0, { heads: { L0H1: { pronoun: ROLE_THRESHOLDS.pronoun + 0.1 } } }), entry(10)];
  const [p] = timelineMoments(first);
  assert.deepEqual([p.kind, p.head, p.index, p.icl, p.composition], ['pronoun', 'L0H1', 0, null, null]);
  assert.deepEqual(keys(momentSentence(p, { minGap: 1 })), ['timeline.formed', 'timeline.iclFirst']);

  // Where the keys come from is measured on the induction probe: not told of a pronoun or previous-token head.
  const later = [
    entry(0),
    entry(10, {
      heads: { L2H1: { pronoun: ROLE_THRESHOLDS.pronoun + 0.1 }, L1H1: { previousToken: ROLE_THRESHOLDS.previousToken + 0.1 } },
      composition: { L2H1: { L0H0: 0.7, L1H1: 0.2 }, L1H1: null },
      gaps: { L2H1: 3, L1H1: -2 },
    }),
  ];
  const told = timelineMoments(later);
  assert.deepEqual(
    told.map((x) => [x.kind, x.head, x.composition]),
    [
      ['pronoun', 'L2H1', null],
      ['previousToken', 'L1H1', null],
    ],
  );
  for (const x of told) assert.deepEqual(keys(momentSentence(x, { minGap: 1 })), ['timeline.formed', 'timeline.iclFlat']);
});

test('a head counted once: dropping below and crossing again is no new moment', () => {
  const t = ROLE_THRESHOLDS.previousToken;
  const entries = [
    entry(0),
    entry(10, { heads: { L1H1: { previousToken: t } } }),
    entry(20),
    entry(30, { heads: { L1H1: { previousToken: t } } }),
  ];
  assert.equal(timelineMoments(entries).length, 1);
  assert.equal(timelineMoments([entry(0), entry(10)]).length, 0);
});

test('both catalogues word every sentence with the same parameters and no placeholder left', () => {
  const en = Object.keys(TIMELINE_TERMS.en);
  assert.deepEqual(Object.keys(TIMELINE_TERMS['zh-CN']).sort(), en.sort());
  const names = (text) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
  for (const key of en) assert.deepEqual(names(TIMELINE_TERMS['zh-CN'][key]), names(TIMELINE_TERMS.en[key]), key);
  const t = ROLE_THRESHOLDS.induction;
  const cases = [
    [
      entry(0),
      entry(10, { heads: { L2H0: { induction: t }, L1H1: { previousToken: 0.9 } }, icl: -1, composition: { L2H0: { L1H1: 0.7 } } }),
    ],
    [entry(0), entry(10, { heads: { L2H0: { induction: t } }, icl: 1, composition: { L2H0: { L1H1: 0.3 } } })],
    [entry(0), entry(10, { heads: { L2H0: { induction: t } }, composition: { L2H0: null }, gaps: { L2H0: 0.5 } })],
    [entry(0, { heads: { L0H0: { pronoun: 0.9 } } })],
  ];
  const said = new Set();
  for (const entries of cases)
    for (const moment of timelineMoments(entries))
      for (const part of momentSentence(moment, { minGap: 1 }))
        for (const lang of ['en', 'zh-CN']) {
          said.add(part.key);
          const text = translate(
            lang,
            part.key,
            wordParams((key, params) => translate(lang, key, params), part.params),
          );
          assert.ok(!/\{\w+\}/.test(text) && !text.startsWith('timeline.'), text);
        }
  assert.ok(said.size >= 8, [...said].join(' '));
});
