// bench/head_formation.mjs: the token budget comes from the page's measured
// rate, a variant trains the page's default model with its one change on the
// page's data path and reads the head-role scores as it goes, and the section
// reports what was reached where.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

import {
  HEADS_BEGIN,
  HEADS_END,
  VARIANTS,
  budgetFrom,
  headFormationSection,
  pageTokensPerSecond,
  runVariant,
} from '../../bench/head_formation.mjs';
import { loadMiniMind } from '../../js/minimind.mjs';

const mm = await loadMiniMind();
const tokenizer = mm.loadTokenizer(readFileSync(new URL('../../models/minimind-tokenizer/tokenizer.json', import.meta.url), 'utf8'));

test("the budget is 300 s at the page's tokens/s from BENCHMARKS.md, or --tokens", () => {
  const markdown = 'text\n**Training tokens/s in the page: 4203** (the panel…)\n';
  assert.equal(pageTokensPerSecond(markdown), 4203);
  assert.deepEqual(budgetFrom({ tokens: null }, markdown), { budgetTokens: 1260900, pageRate: 4203 });
  assert.deepEqual(budgetFrom({ tokens: 5000 }, markdown), { budgetTokens: 5000, pageRate: null });
  assert.equal(pageTokensPerSecond('no such line'), null);
  assert.throws(() => budgetFrom({ tokens: null }, 'no such line'), /no "Training tokens\/s in the page"/);
});

test('a variant trains the default model with its change until the budget, scoring heads before and after', () => {
  const budget = 2 * 16 * 64; // two batches of the default
  const run = runVariant(
    mm,
    tokenizer,
    VARIANTS.find((v) => v.name === 'default'),
    budget,
    { checkpoints: 2 },
  );
  assert.equal(run.steps, 2);
  assert.equal(run.tokens, budget);
  assert.equal(run.config.num_key_value_heads, 2);
  assert.equal(run.options.epochs, 3);
  assert.equal(run.checkpoints[0].step, 0);
  assert.equal(run.checkpoints[0].loss, null);
  assert.equal(run.checkpoints.at(-1).step, 2);
  assert.ok(run.checkpoints.at(-1).loss > 0);
  for (const c of run.checkpoints) {
    for (const role of ['previousToken', 'induction', 'pronoun']) assert.ok(c[role] >= 0 && c[role] <= 1, `${role} ${c[role]}`);
  }
  // An untrained model's heads are far from the goals.
  assert.equal(run.reached.previousToken, null);

  const short = (name, tokens) =>
    runVariant(
      mm,
      tokenizer,
      VARIANTS.find((v) => v.name === name),
      tokens,
      { checkpoints: 1 },
    );
  const kv = short('kv-4', 16 * 64);
  assert.equal(kv.config.num_key_value_heads, 4);
  assert.equal(kv.steps, 1);
  // 'fill': enough epochs for the budget (one here), not the page's 3.
  assert.equal(kv.options.epochs, 1);
  const seq = short('seq-32', 32 * 32);
  assert.equal(seq.options.maxSeqLen, 32);
  assert.equal(seq.tokens, 32 * 32);
});

test('the section names each run, its best scores, and where a goal was passed', () => {
  const checkpoint = (tokens, previousToken, induction, pronoun) => ({
    step: tokens / 1024,
    tokens,
    loss: 2.5,
    previousToken,
    induction,
    pronoun,
  });
  const result = {
    cpu: 'Test CPU',
    cores: 2,
    date: 'today',
    load: [0.1, 0.2],
    budgetTokens: 4096,
    pageTokensPerSecond: 4203,
    runs: [
      {
        name: 'default',
        steps: 4,
        tokens: 4096,
        checkpoints: [checkpoint(0, 0.1, 0.05, 0.2), checkpoint(2048, 0.3, 0.06, 0.6), checkpoint(4096, 0.25, 0.04, 0.7)],
        reached: { previousToken: null, induction: null, pronoun: 2048 },
      },
      {
        name: 'kv-4',
        steps: 4,
        tokens: 4096,
        checkpoints: [checkpoint(0, 0.1, 0.05, 0.2), checkpoint(4096, 0.85, 0.1, 0.4)],
        reached: { previousToken: 4096, induction: null, pronoun: null },
      },
    ],
  };
  const text = headFormationSection(result);
  assert.ok(text.startsWith(HEADS_BEGIN) && text.endsWith(HEADS_END));
  assert.match(text, /\*\*4096 tokens\*\* \(300 s at the page's 4203 tokens\/s/);
  // The best previous-token score of the default run, 0.30, seen at 2048 tokens (2k), not passed.
  assert.match(
    text,
    /\| default \| the page's default run .* \| 4 \| 4k \| 2\.500 \| 0\.30 \(at 2k\) \| 0\.06 \(at 2k\) \| \*\*0\.70\*\*, ≥ 0\.5 at 2k \|/,
  );
  assert.match(text, /\| kv-4 \| 4 kv heads .* \| \*\*0\.85\*\*, ≥ 0\.8 at 4k \|/);
  assert.match(
    text,
    /Previous-token ≥ 0\.8 within the budget: kv-4; induction ≥ 0\.5: in none of the runs; pronoun ≥ 0\.5 within the budget: default\./,
  );
});
