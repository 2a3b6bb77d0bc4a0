// When a head forms (js/head_formation_events.mjs): the first snapshot at
// which a head's score reaches the threshold of its role, once per head and
// role, with the thresholds that label the demo's heads (roleOf).
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { FORMING_KINDS, FormationTracker, bestHead, formationEvents } from '../../js/head_formation_events.mjs';
import { ROLE_THRESHOLDS, roleOf } from '../../js/head_roles.mjs';

// A snapshot of a 2-layer, 2-head model: scores[kind][layer][head].
const snap = (
  step,
  {
    pronoun = [
      [0, 0],
      [0, 0],
    ],
    induction = [
      [0, 0],
      [0, 0],
    ],
    previousToken = [
      [0, 0],
      [0, 0],
    ],
  } = {},
) => ({
  step,
  scores: { pronoun, induction, previousToken },
});

test('the thresholds are the ones that give a head its role', () => {
  assert.deepEqual(FORMING_KINDS, ['pronoun', 'induction', 'previousToken']);
  assert.equal(ROLE_THRESHOLDS.pronoun, 0.5);
  assert.equal(ROLE_THRESHOLDS.induction, 0.4);
  assert.equal(ROLE_THRESHOLDS.previousToken, 0.6);
  for (const [kind, role] of [
    ['pronoun', 'pronoun'],
    ['induction', 'induction'],
    ['previousToken', 'previous-token'],
  ]) {
    assert.equal(roleOf({ [kind]: ROLE_THRESHOLDS[kind] }), role);
    assert.equal(roleOf({ [kind]: ROLE_THRESHOLDS[kind] - 1e-9 }), 'mixed');
  }
});

test('a head forms at the first snapshot that reaches its threshold, once', () => {
  const snapshots = [
    snap(0),
    snap(10, {
      pronoun: [
        [0.1, 0.49],
        [0, 0],
      ],
    }),
    snap(20, {
      pronoun: [
        [0.1, 0.52],
        [0, 0],
      ],
      previousToken: [
        [0.61, 0],
        [0, 0],
      ],
    }),
    snap(30, {
      pronoun: [
        [0.1, 0.4],
        [0, 0],
      ],
    }), // falls back: no new event
    snap(40, {
      pronoun: [
        [0.1, 0.7],
        [0.5, 0],
      ],
      induction: [
        [0, 0],
        [0, 0.4],
      ],
    }),
  ];
  const events = formationEvents(snapshots);
  assert.deepEqual(
    events.map(({ kind, role, layer, head, step, value }) => [kind, role, layer, head, step, value]),
    [
      ['pronoun', 'pronoun', 0, 1, 20, 0.52],
      ['previousToken', 'previous-token', 0, 0, 20, 0.61],
      ['pronoun', 'pronoun', 1, 0, 40, 0.5],
      ['induction', 'induction', 1, 1, 40, 0.4],
    ],
  );
  const tracker = new FormationTracker();
  assert.deepEqual(tracker.add(snapshots[0]), []);
  assert.deepEqual(tracker.add(snapshots[2]).length, 2);
  assert.deepEqual(tracker.add(snapshots[2]), [], 'a snapshot seen again brings nothing');
  assert.equal(tracker.first('pronoun').step, 20);
  assert.equal(tracker.first('induction'), null);
  assert.deepEqual(tracker.add({ step: 50, scores: null }), [], 'a snapshot without scores brings nothing');
  tracker.clear();
  assert.deepEqual(tracker.events, []);
  assert.equal(tracker.add(snapshots[2]).length, 2, 'after clear, heads form again');
});

test('the best head of a role', () => {
  const s = snap(0, {
    pronoun: [
      [0.1, 0.3],
      [0.7, 0.2],
    ],
  }).scores;
  assert.deepEqual(bestHead(s, 'pronoun'), { layer: 1, head: 0, value: 0.7 });
  assert.deepEqual(bestHead(s, 'induction'), { layer: 0, head: 0, value: 0 }, 'ties: the first head');
  assert.equal(bestHead({ pronoun: null }, 'pronoun'), null);
  assert.equal(bestHead(null, 'pronoun'), null);
});
