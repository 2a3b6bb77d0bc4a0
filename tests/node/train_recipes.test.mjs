// The Train panel's runs as data (js/train_recipes.mjs): each trains on its
// stream for exactly its batches, so that MiniMind's get_lr cosine spans
// them; seeds are set together; the formation probes are held out and large
// enough.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

import { lightHeadProbes } from '../../js/head_roles.mjs';
import { loadMiniMind } from '../../js/minimind.mjs';
import {
  FORMATION_GOALS,
  FORMATION_PROBES,
  TRAIN_RECIPES,
  formationProbeOptions,
  recipeSamples,
  recipeStream,
  recipeTokens,
  withSeed,
} from '../../js/train_recipes.mjs';

const TOKENIZER = readFileSync(new URL('../../models/minimind-tokenizer/tokenizer.json', import.meta.url), 'utf8');
const encode = (text) => [...text].map((c) => 3 + (c.codePointAt(0) % 6000));

test('every recipe is a stream run of one epoch in stream order', () => {
  assert.deepEqual(Object.keys(TRAIN_RECIPES), ['default', 'induction']);
  for (const [id, recipe] of Object.entries(TRAIN_RECIPES)) {
    assert.equal(recipe.id, id);
    assert.equal(recipe.data.source, 'stream');
    assert.equal(recipe.options.epochs, 1);
    assert.equal(recipe.options.order, 'file');
    assert.ok(Number.isSafeInteger(recipe.batches) && recipe.batches > 0);
    assert.equal(recipeTokens(recipe), recipe.batches * recipe.options.batchSize * recipe.options.maxSeqLen);
    recipeStream(recipe, encode); // its mix is one the generator knows
  }
  assert.ok(recipeTokens(TRAIN_RECIPES.induction) <= 2e6, 'the induction run within the 2M-token goal');
});

test('withSeed sets the model, data and trainer seeds together', () => {
  const r = withSeed(TRAIN_RECIPES.induction, 23);
  assert.deepEqual([r.modelSeed, r.data.seed, r.options.seed], [23, 23, 23]);
  assert.deepEqual(r.config, TRAIN_RECIPES.induction.config);
  assert.deepEqual(r.data.mix, TRAIN_RECIPES.induction.data.mix);
  assert.equal(TRAIN_RECIPES.induction.data.seed, 1, 'the recipe itself is left as it was');
  assert.notDeepEqual(recipeSamples({ ...r, batches: 2 }, encode), recipeSamples({ ...TRAIN_RECIPES.induction, batches: 2 }, encode));
});

test('the formation probes: a held-out seed and at least 200 induction queries', async () => {
  assert.notEqual(FORMATION_PROBES.heldOutSeed, FORMATION_PROBES.developmentSeed);
  assert.deepEqual(FORMATION_GOALS, { previousToken: 0.8, induction: 0.5 });
  const mm = await loadMiniMind();
  const tokenizer = mm.loadTokenizer(TOKENIZER);
  const probes = lightHeadProbes(tokenizer, formationProbeOptions());
  assert.equal(probes.induction.length, FORMATION_PROBES.repeats * (FORMATION_PROBES.inductionLength - 1));
  assert.ok(probes.induction.length >= 200);
  const dev = lightHeadProbes(tokenizer, formationProbeOptions(FORMATION_PROBES.developmentSeed));
  assert.notDeepEqual(
    probes.induction.map((p) => p.ids),
    dev.induction.map((p) => p.ids),
  );
  tokenizer.dispose();
});

test("the trainer runs exactly the recipe's batches, on get_lr's cosine over them", async () => {
  const mm = await loadMiniMind();
  const tokenizer = mm.loadTokenizer(TOKENIZER);
  const recipe = { ...TRAIN_RECIPES.default, batches: 4, options: { ...TRAIN_RECIPES.default.options, batchSize: 2, maxSeqLen: 32 } };
  const samples = recipeSamples(recipe, (text) => tokenizer.encode(text));
  assert.equal(samples.length, 8);
  const model = mm.createModel({ config: recipe.config, seed: recipe.modelSeed, init: 'minimind' });
  const trainer = model.trainer({ data: samples, ...recipe.options });
  assert.equal(trainer.info().totalBatches, 4);
  const lr = recipe.options.learningRate;
  for (let i = 0; i < 4; i += 1) {
    const step = trainer.step();
    // MiniMind's get_lr(s, total, lr) = lr (0.1 + 0.45 (1 + cos(π s / total))), s counting batches from 1: down to lr / 10 at the last.
    assert.ok(Math.abs(step.lr - lr * (0.1 + 0.45 * (1 + Math.cos((Math.PI * (i + 1)) / 4)))) < 1e-15, `lr of batch ${i}`);
  }
  assert.equal(trainer.done, true);
  trainer.dispose();
  model.dispose();
  tokenizer.dispose();
});
