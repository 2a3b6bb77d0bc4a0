// The fast replay of the demo model's training: the first batches of
// scripts/demo_recipe.json's run, re-trained by the native trainer that
// trained the demo (build/native/core/minimind-train, which npm test builds)
// from the corpus lines they read (tests/demo_replay/, written by
// scripts/make_demo_replay.mjs, which also says how the checksums were made
// on the whole regenerated corpus). Every batch's loss, learning rate,
// gradient norm and token count must be the committed train_log.jsonl's
// doubles, and the float32 weights after every checkpoint the committed
// sha256. The whole run against the shipped weights is npm run test:replay
// (about an hour, not in npm test), which also checks the whole shipped
// timeline.json; here its first two entries are made again from the
// replayed weights.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { gunzipSync } from 'node:zlib';

import { parseTrainLog, trajectoryDifferences } from '../../scripts/trajectory.mjs';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const NATIVE_TRAIN = join(ROOT, 'build/native/core/minimind-train');
const file = (path) => readFileSync(join(ROOT, path));
const json = (path) => JSON.parse(file(path).toString('utf8'));
const recipe = json('scripts/demo_recipe.json');
const stats = json('models/minimind-demo/corpus_stats.json');
const weights = json('tests/demo_replay/weights.json');
const log = parseTrainLog(file('models/minimind-demo/train_log.jsonl').toString('utf8'));
const lines = gunzipSync(file('tests/demo_replay/first_batches.jsonl.gz'))
  .toString('utf8')
  .split('\n')
  .filter((line) => line !== '');

test("the committed lines fill the checked batches, and the data they make has the corpus's samples", () => {
  assert.equal(weights.batchSize, recipe.train['batch-size']);
  assert.equal(lines.length, weights.batches * weights.batchSize);
  assert.equal(weights.samples, stats.lines);
  assert.ok(weights.batches <= log.length);
  for (const line of lines) assert.equal(typeof JSON.parse(line).text, 'string', line.slice(0, 80));
  assert.equal(weights.checkpoints.at(-1).batch, weights.batches);
  assert.equal(new Set(weights.checkpoints.map((c) => c.sha256)).size, weights.checkpoints.length, 'the weights change');
});

test("the demo recipe's first batches re-trained: the committed log's doubles and the weights' checksums, bit for bit", async (t) => {
  if (!existsSync(NATIVE_TRAIN)) return t.skip('build/native/core/minimind-train is not built (npm test builds it)');
  const dir = mkdtempSync(join(tmpdir(), 'minimind-demo-replay-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  // The lines in the order the shuffled run reads them, then one-token filler
  // samples that no checked batch reaches: the schedule (the learning rate's
  // cosine, the epoch's length) follows the corpus's number of samples.
  const data = join(dir, 'data.jsonl');
  writeFileSync(data, `${lines.join('\n')}\n${`${JSON.stringify(weights.filler)}\n`.repeat(weights.samples - lines.length)}`);
  const every = weights.checkpoints[0].batch;
  // The recipe's options, the weights saved as float32 (the recipe's float16 is only the file it writes).
  const options = Object.entries({ ...recipe.train, dtype: 'float32' }).flatMap(([name, value]) => [`--${name}`, String(value)]);
  await run(
    NATIVE_TRAIN,
    [
      ...['--config', join(ROOT, 'scripts/demo_config.json'), '--data', data, '--order', 'file'],
      ...['--tokenizer', join(ROOT, 'models/minimind-tokenizer/tokenizer.json'), '--out', join(dir, 'model'), ...options],
      ...['--threads', '2', '--log', join(dir, 'log.jsonl'), '--max-batches', String(weights.batches), '--save-every', String(every)],
    ],
    { maxBuffer: 64 << 20 },
  );
  const replayed = parseTrainLog(readFileSync(join(dir, 'log.jsonl'), 'utf8'));
  assert.equal(replayed.length, weights.batches);
  assert.deepEqual(trajectoryDifferences(log, replayed), []);
  const sums = weights.checkpoints.map(({ batch }) => {
    const folder = batch === weights.batches ? 'model' : `model/batch-${batch}`;
    return {
      batch,
      sha256: createHash('sha256')
        .update(readFileSync(join(dir, folder, 'model.safetensors')))
        .digest('hex'),
    };
  });
  assert.deepEqual(sums, weights.checkpoints);

  // The shipped timeline's first entries (models/minimind-demo/timeline.json), made again from
  // this replay's weights: batch 0 (saved before the first batch) and batch 133 (the timeline's
  // spacing: a second run of the same data stops there and writes its weights as that checkpoint).
  const timelineEvery = json('models/minimind-demo/timeline.json').every;
  assert.ok(timelineEvery <= weights.batches, "the replayed batches reach the timeline's second entry");
  await run(
    NATIVE_TRAIN,
    [
      ...['--config', join(ROOT, 'scripts/demo_config.json'), '--data', data, '--order', 'file'],
      ...['--tokenizer', join(ROOT, 'models/minimind-tokenizer/tokenizer.json'), '--out', join(dir, `model/batch-${timelineEvery}`)],
      ...[...options, '--threads', '2', '--max-batches', String(timelineEvery)],
    ],
    { maxBuffer: 64 << 20 },
  );
  const checked = await run(
    process.execPath,
    ['scripts/demo_timeline.mjs', '--checkpoints', join(dir, 'model'), '--check', '--to', String(timelineEvery)],
    { cwd: ROOT, maxBuffer: 64 << 20 },
  );
  assert.match(checked.stdout, /2 entries made again equal/);
});
