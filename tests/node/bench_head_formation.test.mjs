// bench/training/head_formation.mjs: a recipe trains on its stream for its whole
// schedule with the heads scored before and during the run; tokens to
// formation is a median over seeds in which a seed that never formed counts
// as more than any; 4 threads are projected from 1 and 2 by Amdahl's law; the
// section reports what was reached where.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

import {
  HEADS_BEGIN,
  HEADS_END,
  describeRecipe,
  headFormationSection,
  medianFormation,
  projectThreads,
  runRecipe,
} from '../../bench/training/head_formation.mjs';
import { loadMiniMind } from '../../js/minimind.mjs';
import { TRAIN_RECIPES } from '../../js/train_recipes.mjs';

const mm = await loadMiniMind();
const tokenizer = mm.loadTokenizer(readFileSync(new URL('../../models/minimind-tokenizer/tokenizer.json', import.meta.url), 'utf8'));

test('a recipe trains for its batches, its heads scored before the first and at each checkpoint', () => {
  const recipe = { ...TRAIN_RECIPES.default, batches: 3, options: { ...TRAIN_RECIPES.default.options, batchSize: 4, maxSeqLen: 32 } };
  const run = runRecipe(mm, tokenizer, recipe, { checkpoints: 3 });
  assert.equal(run.id, 'default');
  assert.equal(run.tokens, 3 * 4 * 32);
  assert.deepEqual(
    run.checkpoints.map((c) => [c.step, c.tokens]),
    [
      [0, 0],
      [1, 128],
      [2, 256],
      [3, 384],
    ],
  );
  assert.equal(run.checkpoints[0].loss, null);
  assert.ok(run.checkpoints.at(-1).loss > 0);
  for (const c of run.checkpoints)
    for (const role of ['previousToken', 'induction', 'pronoun']) assert.ok(c[role] >= 0 && c[role] <= 1, `${role} ${c[role]}`);
  // An untrained model's heads are far from the goals.
  assert.equal(run.reached.previousToken, null);
  assert.equal(run.reached.formed, null);
});

test('tokens to formation: the median over seeds, a seed that never formed above any', () => {
  const runs = (...formed) => formed.map((f) => ({ reached: { formed: f } }));
  assert.equal(medianFormation(runs(300, 100, 200)), 200);
  assert.equal(medianFormation(runs(300, null, 100)), 300);
  assert.equal(medianFormation(runs(null, null, 100)), null);
});

test("4 threads projected by Amdahl's law from the speed-up of 2", () => {
  const p = projectThreads(100, 180);
  assert.ok(Math.abs(p.parallelShare - 2 * (1 - 1 / 1.8)) < 1e-12);
  assert.ok(Math.abs(p.tokensPerSecond - 300) < 1e-9);
  assert.deepEqual(projectThreads(100, 200), { parallelShare: 1, tokensPerSecond: 400 });
  assert.deepEqual(projectThreads(100, 90), { parallelShare: 0, tokensPerSecond: 100 });
});

test('the section names each recipe, each run, where the goals were passed and the time they take', () => {
  const checkpoint = (tokens, previousToken, induction, pronoun) => ({
    step: tokens / 1024,
    tokens,
    loss: 2.5,
    previousToken,
    induction,
    pronoun,
  });
  const run = (id, seed, checkpoints, reached) => ({ id, seed, batches: 4, tokens: checkpoints.at(-1).tokens, checkpoints, reached });
  const result = {
    cpu: 'Test CPU',
    cores: 2,
    date: 'today',
    load: [0.1, 0.2],
    probeSeed: 99,
    seeds: [1, 2, 3],
    jobs: 2,
    runs: [
      run('default', 1, [checkpoint(0, 0.1, 0.05, 0.2), checkpoint(4096, 0.3, 0.06, 0.7)], {
        previousToken: null,
        induction: null,
        pronoun: 4096,
        formed: null,
      }),
      ...[1, 2, 3].map((seed) =>
        run('induction', seed, [checkpoint(0, 0.1, 0.05, 0.2), checkpoint(300000, 0.85, 0.6, 0.4)], {
          previousToken: 300000,
          induction: seed === 3 ? null : 300000,
          pronoun: null,
          formed: seed === 3 ? null : 300000,
        }),
      ),
    ],
    rates: {
      default: { 1: 2000, 2: 3600, 4: 6000, parallelShare: 0.89 },
      induction: { 1: 1000, 2: 1800, 4: 3000, parallelShare: 0.89 },
    },
    probeTokens: 13,
    caps: { default: { headDim: 16, cap: 0.561 }, induction: { headDim: 64, cap: 0.904 } },
  };
  const text = headFormationSection(result);
  assert.ok(text.startsWith(HEADS_BEGIN) && text.endsWith(HEADS_END));
  assert.match(text, /^## Head formation$/m);
  const d = describeRecipe(TRAIN_RECIPES.induction);
  assert.ok(text.includes(`| induction | ${d.shape} | ${d.data} | ${d.schedule} |`));
  assert.match(text, /\| default \| 1 \| 4k \| 2\.500 \| 0\.30 \| 0\.06 \| \*\*0\.70\*\*, ≥ 0\.5 at 4k \| no \|/);
  assert.match(
    text,
    /\| induction \| 1 \| 300k \| 2\.500 \| \*\*0\.85\*\*, ≥ 0\.8 at 300k \| \*\*0\.60\*\*, ≥ 0\.5 at 300k \| 0\.40 \| \*\*300k\*\* \|/,
  );
  // Two of three seeds formed at 300k: the median is 300k; 300000 / 1000 tokens/s = 5 min on 1 thread.
  const both = 'a previous-token and an induction head';
  assert.match(
    text,
    new RegExp(
      `\\| induction \\| ${both} \\| \\*\\*300k\\*\\* \\(2 of 3 seeds\\) \\| 1000 \\| 1800 \\| 3000 \\| 5\\.0 min \\| 2\\.8 min \\| 100 s \\|`,
    ),
  );
  assert.match(
    text,
    new RegExp(`\\| default \\| ${both} \\| not reached \\(0 of 1 seeds\\) \\| 2000 \\| 3600 \\| 6000 \\| – \\| – \\| – \\|`),
  );
  // The induction head alone: seeds 1 and 2 at 300k, seed 3 never: the median is 300k.
  assert.match(text, /\| induction \| the induction head alone \| \*\*300k\*\* \(2 of 3 seeds\) \| 1000 \|/);
  assert.match(text, /\| default \| the induction head alone \| not reached \(0 of 1 seeds\) \|/);
  assert.match(text, /previous-token ≥ 0\.8,\s+induction ≥ 0\.5, pronoun ≥ 0\.5/);
  assert.match(text, /probes of seed 99/);
  assert.match(text, /at\s+most about 0\.56 \(default, head_dim 16\), 0\.90 \(induction, head_dim 64\) of a 13-token sentence's/);
});
