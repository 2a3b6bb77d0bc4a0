// The demo model's training claims, in the parts quick enough for npm test:
// the native trainer's --max-batches (which npm run replay:demo uses to
// replay the committed log's first batches bit for bit) stops a run without
// changing its batches, the log comparison catches one bit, the committed log
// has the recipe's batches, and the head roles the card and the gallery show
// come from the held-out probe seed and the generated records.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

import { parseTrainLog, trajectoryDifferences } from '../../scripts/trajectory.mjs';
import { GALLERY_TEXT } from '../../web/gallery_text.mjs';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DEMO = join(ROOT, 'models/minimind-demo');
const NATIVE_TRAIN = join(ROOT, 'build/native/core/minimind-train');
const json = (path) => JSON.parse(readFileSync(path, 'utf8'));
const recipe = json(join(ROOT, 'scripts/demo_recipe.json'));
const log = parseTrainLog(readFileSync(join(DEMO, 'train_log.jsonl'), 'utf8'));
const heads = json(join(DEMO, 'heads.json'));
const shapeRuns = json(join(DEMO, 'shape_runs.json'));

test('--max-batches stops a run after its first batches, with the batches and schedule of the whole run, bit for bit', async (t) => {
  if (!existsSync(NATIVE_TRAIN)) return t.skip('build/native/core/minimind-train is not built (npm test builds it)');
  const dir = mkdtempSync(join(tmpdir(), 'minimind-trajectory-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const trained = async (name, extra) => {
    await run(NATIVE_TRAIN, [
      ...['--config', join(ROOT, 'docs/examples/lab-a-6400.json'), '--data', join(ROOT, 'docs/examples/pretrain_tiny.jsonl')],
      ...['--tokenizer', join(ROOT, 'models/minimind-tokenizer/tokenizer.json'), '--out', join(dir, name)],
      ...['--max-seq-len', '32', '--batch-size', '24', '--accumulation-steps', '1', '--lr', '5e-3', '--threads', '2'],
      ...['--log', join(dir, `${name}.jsonl`), ...extra],
    ]);
    return parseTrainLog(readFileSync(join(dir, `${name}.jsonl`), 'utf8'));
  };
  const whole = await trained('whole', []);
  const start = await trained('start', ['--max-batches', '3']);
  assert.equal(whole.length, 10); // 240 lines / 24
  assert.deepEqual(
    start.map((e) => e.batch),
    [1, 2, 3],
  );
  assert.deepEqual(trajectoryDifferences(whole, start), []);
  // The learning rate falls over the whole run's 10 batches, not over 3.
  assert.ok(start[2].lr > whole[9].lr, `${start[2].lr} vs ${whole[9].lr}`);
  await assert.rejects(trained('bad', ['--max-batches', '-1']), /--max-batches must not be negative/);
});

test('the trajectory comparison finds a one-bit difference in a gradient norm, and a replay longer than its record', () => {
  const recorded = log.slice(0, 20);
  assert.deepEqual(trajectoryDifferences(log, structuredClone(recorded)), []);
  const replayed = structuredClone(recorded);
  const bits = new BigInt64Array(new Float64Array([replayed[6].grad_norm]).buffer);
  bits[0] += 1n; // the next double up
  replayed[6].grad_norm = new Float64Array(bits.buffer)[0];
  assert.notEqual(replayed[6].grad_norm, recorded[6].grad_norm);
  assert.deepEqual(trajectoryDifferences(recorded, replayed), [
    { batch: 7, field: 'grad_norm', recorded: recorded[6].grad_norm, replayed: replayed[6].grad_norm },
  ]);
  const longer = trajectoryDifferences(recorded.slice(0, 2), recorded.slice(0, 3));
  assert.deepEqual(
    longer.map((d) => [d.batch, d.field]),
    [[3, 'batch']],
  );
});

test("the committed log has the recipe's batches: every line of the corpus once, in batches of its size", () => {
  const corpus = json(join(DEMO, 'corpus_stats.json'));
  const batchSize = recipe.train['batch-size'];
  assert.equal(corpus.seed, recipe.corpus.seed);
  assert.equal(corpus.texts, recipe.corpus.lines);
  assert.equal(log.length, Math.ceil(corpus.lines / batchSize) * recipe.train.epochs);
  assert.deepEqual(
    log.map((e) => e.batch),
    log.map((_, i) => i + 1),
  );
  assert.equal(json(join(DEMO, 'train_run.json')).batchSize, batchSize);
  assert.equal(log[0].lr <= Number(recipe.train.lr) && log[0].lr > 0.99 * Number(recipe.train.lr), true, `${log[0].lr}`);
});

test('heads.json and shape_runs.json are measured on the held-out probe seed, derived as documented, not the development seed', () => {
  const { developmentSeed, heldOutSeed, heldOutSeedFrom } = recipe.probes;
  assert.equal(developmentSeed, 7);
  assert.notEqual(heldOutSeed, developmentSeed);
  assert.equal(heldOutSeed, parseInt(createHash('sha256').update(heldOutSeedFrom).digest('hex').slice(0, 8), 16));
  assert.equal(heads.probes.seed, heldOutSeed);
  assert.equal(shapeRuns.probeSeed, heldOutSeed);
  for (const r of shapeRuns.runs) assert.equal(r.heads.probes.seed, heldOutSeed, r.name);
});

test("MODEL_CARD.md is what scripts/model_card.mjs writes from the folder's generated files", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'minimind-card-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const files = [
    'config.json',
    'model.safetensors',
    'train_log.jsonl',
    'train_run.json',
    'heads.json',
    'shape_runs.json',
    'qk_stories.json',
    'timeline.json',
    'corpus_stats.json',
  ];
  for (const name of files) copyFileSync(join(DEMO, name), join(dir, name));
  await run(process.execPath, [join(ROOT, 'scripts/model_card.mjs'), '--model', dir]);
  const card = readFileSync(join(dir, 'MODEL_CARD.md'), 'utf8');
  assert.equal(
    card,
    readFileSync(join(DEMO, 'MODEL_CARD.md'), 'utf8'),
    'MODEL_CARD.md is not the generated card: run bash scripts/train_demo.sh --measure',
  );
  assert.match(card, new RegExp(`seed ${recipe.probes.heldOutSeed} `));
  assert.match(card, new RegExp(`seed ${recipe.probes.developmentSeed} was the development set`));
});

test("the gallery's kv-head sentence reads both previous-token scores from the generated records", () => {
  const best = (record) => Math.max(...record.heads.map((h) => h.previousToken)).toFixed(2);
  const kv2 = best(shapeRuns.runs.find((r) => r.num_key_value_heads === 2).heads);
  const kv4 = best(heads);
  assert.ok(GALLERY_TEXT.en['gqa.caption'].includes(`trained with 2, its best previous-token head reached ${kv2}; with 4, ${kv4}`));
  assert.ok(GALLERY_TEXT['zh-CN']['gqa.caption'].includes(`最好的前一个 token 头只有 ${kv2}，用 4 个有 ${kv4}`));
});
