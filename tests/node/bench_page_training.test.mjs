// bench/training/page_training.mjs's runs in Node: a recipe runs as the panel runs it
// (snapshots at batch 0 and at the panel's default spacing, a greedy continuation of the
// probe at each), the thresholds are the ones that label heads, and the
// section reports what was reached when.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

import {
  GOALS,
  RUNS_BEGIN,
  RUNS_END,
  SING,
  SING_PROMPT,
  greedyContinuation,
  recipeRun,
  recipeRunsSection,
} from '../../bench/training/page_training.mjs';
import { ROLE_THRESHOLDS, roleOf } from '../../js/head_roles.mjs';
import { loadMiniMind } from '../../js/minimind.mjs';
import { FORMATION_GOALS, TRAIN_RECIPES } from '../../js/train_recipes.mjs';

const mm = await loadMiniMind();
const tokenizer = mm.loadTokenizer(readFileSync(new URL('../../models/minimind-tokenizer/tokenizer.json', import.meta.url), 'utf8'));

test('the role thresholds are those at which roleOf names a head', () => {
  const below = { previousToken: 0, induction: 0, pronoun: 0, sink: 0 };
  assert.equal(roleOf({ ...below, previousToken: ROLE_THRESHOLDS.previousToken }), 'previous-token');
  assert.equal(roleOf({ ...below, previousToken: ROLE_THRESHOLDS.previousToken - 0.01 }), 'mixed');
  assert.equal(roleOf({ ...below, induction: ROLE_THRESHOLDS.induction }), 'induction');
  assert.equal(roleOf({ ...below, induction: ROLE_THRESHOLDS.induction - 0.01 }), 'mixed');
  assert.equal(roleOf({ ...below, pronoun: ROLE_THRESHOLDS.pronoun }), 'pronoun');
  assert.equal(SING_PROMPT, '小明把苹果给了小红，她');
});

test('the bench keeps no copy of the thresholds or the goals: it imports them', () => {
  const source = readFileSync(new URL('../../bench/training/page_training.mjs', import.meta.url), 'utf8');
  assert.match(source, /import \{ ROLE_THRESHOLDS \} from '\.\.\/\.\.\/js\/head_roles\.mjs'/u);
  assert.doesNotMatch(source, /ROLE_THRESHOLDS\s*=/u, 'a second definition of the thresholds');
  assert.equal(GOALS.previousToken, FORMATION_GOALS.previousToken);
  assert.equal(GOALS.induction, FORMATION_GOALS.induction);
  for (const kind of ['previousToken', 'induction']) assert.ok(GOALS[kind] > ROLE_THRESHOLDS[kind], 'the goals are stricter');
});

test('a greedy continuation is the argmax of each step, decoded', () => {
  const model = mm.createModel({ config: TRAIN_RECIPES.default.config, seed: 5, init: 'minimind' });
  const ids = [1, ...tokenizer.encode(SING_PROMPT)];
  const expected = [];
  for (let i = 0; i < 3; i += 1) {
    const { logits } = model.forward([...ids, ...expected]);
    const V = logits.shape[2];
    const last = logits.data.subarray(logits.data.length - V);
    let best = 0;
    for (let v = 1; v < V; v += 1) if (last[v] > last[best]) best = v;
    expected.push(best);
  }
  assert.equal(greedyContinuation(model, tokenizer, SING_PROMPT, 3), tokenizer.decode(expected).replace(/\uFFFD+$/u, ''));
  model.dispose();
});

test('a recipe run records snapshots, the loss and the generations until its end', () => {
  const recipe = { ...TRAIN_RECIPES.default, batches: 12, options: { ...TRAIN_RECIPES.default.options, batchSize: 4, maxSeqLen: 32 } };
  const run = recipeRun(mm, tokenizer, recipe);
  assert.equal(run.id, 'default');
  assert.equal(run.batches, 12);
  assert.equal(run.scheduled, 12);
  assert.equal(run.tokens, 12 * 4 * 32);
  assert.equal(run.stopped, 'run done');
  assert.ok(run.tokensPerSecond > 0 && run.seconds > 0 && run.prepareSeconds >= 0);
  assert.ok(run.firstLoss > 0);
  assert.equal(run.generations[0].step, 0, "the untrained model's continuation first");
  assert.deepEqual(Object.keys(run.best), ['previousToken', 'induction', 'pronoun']);
  // The panel's default spacing: about 100 snapshots a run, so a 12-batch run has one at every batch.
  assert.equal(run.snapshotEvery, 1);
  for (const role of Object.keys(run.best)) assert.ok(Number.isInteger(run.best[role].step) && run.best[role].step <= 12);
  if (run.sing) assert.ok(run.sing.text.startsWith(SING));
});

test('the section gives each run its times, or its best when a measure was not reached', () => {
  const run = (threads, sing) => ({
    id: 'induction',
    threads,
    scheduled: 100,
    batches: 80,
    tokens: 80 * 1024,
    seconds: 40,
    prepareSeconds: 1.25,
    tokensPerSecond: 2048,
    stopped: 'all reached',
    firstLoss: 8,
    halfLoss: { seconds: 3.04, step: 12, first: 8, reached: 3.9 },
    roles: {
      previousToken: { seconds: 20, step: 50, value: 0.61, layer: 0, head: 1 },
      induction: null,
      pronoun: { seconds: 10, step: 30, value: 0.5, layer: 1, head: 0 },
    },
    best: {
      previousToken: { value: 0.7, layer: 0, head: 1, step: 80 },
      induction: { value: 0.31, layer: 1, head: 1, step: 70 },
      pronoun: { value: 0.8, layer: 1, head: 0, step: 80 },
    },
    sing: sing ? { seconds: 30.5, step: 60, text: '唱起了歌' } : null,
    generations: [{ step: 0, text: '的的的' }],
  });
  const text = recipeRunsSection({
    cpu: 'Test CPU',
    cores: 2,
    date: 'today',
    load: [1, 2],
    limitSeconds: 600,
    runs: [run(1, true), run(2, false)],
  });
  assert.ok(text.startsWith(RUNS_BEGIN) && text.endsWith(RUNS_END));
  assert.match(
    text,
    /\| induction \| 1 \| 2048 \| 1\.3 s \| \*\*3\.0 s\*\* \(batch 12, 3\.900 of 8\.000\) \| \*\*20\.0 s\*\* \(batch 50, L0 H1 0\.61\) \| not reached \(best 0\.31, L1 H1, batch 70; ≥ 0\.4\) \| \*\*10\.0 s\*\* \(batch 30, L1 H0 0\.50\) \| \*\*30\.5 s\*\* \(batch 60: 唱起了歌\) \| 80 of 100 \(all reached\) \|/,
  );
  assert.match(text, /\| induction \| 2 \| .* \| not reached \(last: 的的的\) \| 80 of 100/);
});
