// The Train panel's two runs are js/train_recipes.mjs's recipes: the
// settings shown at first are TRAIN_RECIPES.default and Start trains its
// batches; "Watch an induction head form" fills the settings with
// TRAIN_RECIPES.induction and starts it: its shape, its stream of
// batches × batchSize rows, and a line saying what the run is, in both
// languages.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { TRAIN_RECIPES, recipeTokens } from '../../js/train_recipes.mjs';
import { openPage, useServedBrowser } from './browser.mjs';

const site = useServedBrowser();
const MODEL_FIELDS = ['num_hidden_layers', 'hidden_size', 'num_attention_heads', 'num_key_value_heads'];
const OPTION_FIELDS = ['batchSize', 'maxSeqLen', 'learningRate', 'accumulationSteps', 'gradClip', 'epochs', 'seed'];

// The settings as the panel shows them: {field name: value}.
function shown(page) {
  const names = [...MODEL_FIELDS, 'model_seed', ...OPTION_FIELDS, 'batches', 'streamSeed'];
  return page.evaluate(
    (list) => ({
      ...Object.fromEntries(list.map((n) => [n, document.querySelector(`#train input[name="${n}"]`).value])),
      source: document.querySelector('#train select[name="source"]').value,
      mix: document.querySelector('#train select[name="mix"]').value,
    }),
    names,
  );
}

// A recipe's settings, as the fields hold them.
function expected(recipe, mix) {
  return {
    ...Object.fromEntries(MODEL_FIELDS.map((n) => [n, String(recipe.config[n])])),
    model_seed: String(recipe.modelSeed),
    ...Object.fromEntries(OPTION_FIELDS.map((n) => [n, String(recipe.options[n])])),
    batches: String(recipe.batches),
    streamSeed: String(recipe.data.seed),
    source: 'stream',
    mix,
  };
}

// Waits for the new run (the run before was paused) and its first report of a batch, then pauses it.
async function pauseAfterFirstBatch(page) {
  await page.waitForFunction(() => document.getElementById('train').dataset.phase !== 'paused', null, { timeout: 60000 });
  await page.waitForFunction(() => (document.getElementById('train').trainer?.batchesDone ?? 0) >= 1, null, { timeout: 120000 });
  await page.click('#train [data-train="pause"]');
  await page.waitForFunction(() => document.getElementById('train').dataset.phase === 'paused', null, { timeout: 60000 });
  return page.evaluate(() => ({ trainer: document.getElementById('train').trainer, prepared: document.getElementById('train').prepared }));
}

test('Start trains the default recipe; "Watch an induction head form" fills in the induction recipe and trains it', async () => {
  const { page, errors } = await openPage(site.context);
  await page.goto(`${site.url}?lang=en`);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 60000 });
  await page.click('#open-train');
  const first = TRAIN_RECIPES.default;
  assert.deepEqual(await shown(page), expected(first, 'corpus'), 'the settings shown are the default recipe');
  assert.equal(await page.textContent('#train [data-train="induction"]'), 'Watch an induction head form');
  const r = TRAIN_RECIPES.induction;
  const help = await page.textContent('#train .train-induction-help');
  for (const part of [`${r.batches.toLocaleString('en')} batches`, `(${recipeTokens(r).toLocaleString('en')} token positions)`, '80%'])
    assert.ok(help.includes(part), `${part} in: ${help}`);

  await page.click('#train [data-train="start"]');
  const started = await pauseAfterFirstBatch(page);
  assert.equal(started.trainer.totalBatches, first.batches);

  await page.click('#train [data-train="induction"]');
  const { trainer, prepared } = await pauseAfterFirstBatch(page);
  assert.deepEqual(await shown(page), expected(r, 'copy'), 'the settings show the induction recipe');
  assert.equal(trainer.totalBatches, r.batches);
  const { batchSize } = r.options;
  assert.equal(prepared.data.samples, r.batches * batchSize);
  assert.equal(prepared.data.tokens + prepared.data.padding, recipeTokens(r), 'the rows hold batches × batchSize × maxSeqLen positions');
  assert.ok(prepared.data.texts > prepared.data.samples, 'fresh lines packed into the rows');
  assert.equal(prepared.info.num_hidden_layers, r.config.num_hidden_layers);
  assert.equal(prepared.info.num_attention_heads, r.config.num_attention_heads);
  assert.equal(prepared.info.hidden_size, r.config.hidden_size);

  await page.selectOption('#lang', 'zh-CN');
  await page.waitForFunction(() => document.querySelector('#train [data-train="induction"]').textContent === '看归纳头形成');
  const zh = await page.textContent('#train .train-induction-help');
  assert.ok(zh.includes(`训练 ${r.batches.toLocaleString('zh-CN')} 批`), zh);
  assert.ok(zh.includes(`${recipeTokens(r).toLocaleString('zh-CN')} 个 token 位置`), zh);
  assert.equal(await page.textContent('#train select[name="mix"] option[value="copy"]'), '多些重复片段（归纳头那次训练的比例）');
  assert.deepEqual(errors, []);
  await page.close();
});
