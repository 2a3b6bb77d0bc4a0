// Writes what the fast replay of the demo model's training
// (tests/node/demo_replay.test.mjs, in npm test: the native trainer on the
// committed lines, as step 3 below) needs, so that it does not regenerate the
// 450,000-text corpus:
//
//   tests/demo_replay/first_batches.jsonl.gz  the corpus lines the run's first
//       batches read, in the order it reads them (gzip, about 120 KiB)
//   tests/demo_replay/weights.json  sha256 of the float32 weights (an F32
//       safetensors file) after every --every batches of those batches
//
//   node scripts/make_demo_replay.mjs [--batches 200] [--every 50] [--threads N]
//        [--corpus build/demo/corpus.jsonl] [--work build/demo-replay-start] [--no-build]
//
// How the checksums are made, from the real training code path:
// 1. the corpus is regenerated from the recipe's seed (scripts/demo_recipe.json)
//    with scripts/make_corpus.mjs, as scripts/train_demo.sh does, and its
//    statistics must equal models/minimind-demo/corpus_stats.json (or --corpus
//    gives a corpus made so);
// 2. the native trainer (build/native/core/minimind-train) runs the demo
//    recipe on that whole corpus, shuffled as the real run was, for --batches
//    batches (--max-batches keeps the whole run's schedule), saving the weights
//    in float32 every --every batches; its log must equal the committed
//    train_log.jsonl's first batches bit for bit, and the checksums are those
//    weights' sha256;
// 3. the same trainer runs again on the committed lines alone, in file order,
//    with one-token filler samples after them so that the data has the corpus's
//    number of samples (the learning rate's schedule and the epoch's length
//    follow it); its weights must have the same checksums: the lines and the
//    filler are all the fast replay needs.
// The order of step 3's lines is computed here from the trainer's documented
// shuffle (core/train/pretrain_data.h, epoch_order); step 3 checks it.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';

import { parseTrainLog, trajectoryDifferences } from './trajectory.mjs';

const { values } = parseArgs({
  options: {
    batches: { type: 'string' },
    every: { type: 'string' },
    threads: { type: 'string' },
    corpus: { type: 'string' },
    work: { type: 'string' },
    'no-build': { type: 'boolean' },
  },
});
const positive = (name, text, fallback) => {
  if (text === undefined) return fallback;
  if (!/^\d+$/.test(text) || Number(text) < 1) {
    console.error(`make_demo_replay: --${name} must be a positive integer, got "${text}"`);
    process.exit(2);
  }
  return Number(text);
};
const batches = positive('batches', values.batches, 200);
const every = positive('every', values.every, 50);
const threads = positive('threads', values.threads, Math.min(availableParallelism(), 4));
if (batches % every !== 0) {
  console.error(`make_demo_replay: --batches ${batches} is not a multiple of --every ${every}`);
  process.exit(2);
}
const work = values.work ?? 'build/demo-replay-start';
const model = 'models/minimind-demo';
const out = 'tests/demo_replay';
const recipe = JSON.parse(readFileSync('scripts/demo_recipe.json', 'utf8'));
const batchSize = recipe.train['batch-size'];
const stats = JSON.parse(readFileSync(join(model, 'corpus_stats.json'), 'utf8'));
const recorded = parseTrainLog(readFileSync(join(model, 'train_log.jsonl'), 'utf8')).slice(0, batches);
mkdirSync(work, { recursive: true });
mkdirSync(out, { recursive: true });
const sh = (command, args) => execFileSync(command, args, { stdio: ['ignore', 'inherit', 'inherit'] });
const fail = (message) => {
  console.error(`make_demo_replay: ${message}`);
  process.exit(1);
};

if (!values['no-build']) sh('bash', ['scripts/build.sh', 'native', 'minimind-train']);

// 1. The corpus.
let corpus = values.corpus;
if (corpus === undefined) {
  corpus = join(work, 'corpus.jsonl');
  const made = join(work, 'corpus_stats.json');
  console.log(`== corpus (js/corpus.mjs, seed ${recipe.corpus.seed}, ${recipe.corpus.lines} texts)`);
  sh(process.execPath, [
    ...['scripts/make_corpus.mjs', '--seed', String(recipe.corpus.seed), '--lines', String(recipe.corpus.lines)],
    ...['--pack-tokens', '--out', corpus, '--stats', made],
  ]);
  if (JSON.stringify(JSON.parse(readFileSync(made, 'utf8'))) !== JSON.stringify(stats))
    fail(`the regenerated corpus's statistics (${made}) differ from ${model}/corpus_stats.json`);
}
const lines = readFileSync(corpus, 'utf8')
  .split('\n')
  .filter((line) => line.trim() !== '');
if (lines.length !== stats.lines) fail(`${corpus} has ${lines.length} samples, ${model}/corpus_stats.json says ${stats.lines}`);

// The trainer's epoch order (core/train/pretrain_data.cpp epoch_order), in
// uint64 arithmetic: SplitMix64 seeded from the seed mixed with the epoch,
// Fisher-Yates from the end, each draw by rejection.
function epochOrder(n, seed, epoch) {
  const M = (1n << 64n) - 1n;
  const splitMix = (state) => () => {
    state = (state + 0x9e3779b97f4a7c15n) & M;
    let z = state;
    z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & M;
    z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & M;
    return z ^ (z >> 31n);
  };
  const mixed = (BigInt(seed) ^ ((0x9e3779b97f4a7c15n * BigInt(epoch + 1)) & M)) & M;
  const next = splitMix(splitMix(mixed)());
  const order = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; --i) {
    const bound = BigInt(i + 1);
    const rejected = ((1n << 64n) - bound) % bound;
    let r = next();
    while (r < rejected) r = next();
    const j = Number(r % bound);
    [order[i], order[j]] = [order[j], order[i]];
  }
  return order;
}
const first = epochOrder(lines.length, recipe.train.seed, 0).slice(0, batches * batchSize);
const firstLines = first.map((i) => lines[i]);

const trainOptions = Object.entries({ ...recipe.train, dtype: 'float32' }).flatMap(([name, value]) => [`--${name}`, String(value)]);
copyFileSync('scripts/demo_config.json', join(work, 'config.json'));
// Runs the recipe on `data` and returns the sha256 of the weights after every `every` batches.
function train(name, data, extra) {
  const dir = join(work, name);
  const log = join(work, `${name}.jsonl`);
  console.log(`== ${name}: the first ${batches} batches on ${threads} thread${threads === 1 ? '' : 's'}`);
  sh('build/native/core/minimind-train', [
    ...['--config', join(work, 'config.json'), '--data', data, '--tokenizer', 'models/minimind-tokenizer/tokenizer.json'],
    ...['--out', dir, ...trainOptions, ...extra, '--threads', String(threads), '--log', log],
    ...['--max-batches', String(batches), '--save-every', String(every)],
  ]);
  const differences = trajectoryDifferences(recorded, parseTrainLog(readFileSync(log, 'utf8')));
  if (differences.length > 0) {
    const d = differences[0];
    fail(`${name}: batch ${d.batch} ${d.field} is ${d.replayed}, ${model}/train_log.jsonl says ${d.recorded}`);
  }
  const checkpoints = [];
  for (let batch = every; batch <= batches; batch += every) {
    const file = join(dir, batch === batches ? '' : `batch-${batch}`, 'model.safetensors');
    checkpoints.push({ batch, sha256: createHash('sha256').update(readFileSync(file)).digest('hex') });
  }
  return checkpoints;
}

// 2. The recipe on the whole corpus.
const checkpoints = train('recipe', corpus, []);

// 3. The committed lines alone, in file order, padded to the corpus's size.
const FILLER = '{"ids": [1]}';
const sampleFile = join(out, 'first_batches.jsonl.gz');
writeFileSync(sampleFile, gzipSync(`${firstLines.join('\n')}\n`, { level: 9 }));
const padded = join(work, 'first_batches_padded.jsonl');
writeFileSync(padded, `${firstLines.join('\n')}\n${`${FILLER}\n`.repeat(lines.length - firstLines.length)}`);
const replayed = train('committed', padded, ['--order', 'file']);
for (const [i, c] of checkpoints.entries()) {
  if (replayed[i].sha256 !== c.sha256) fail(`the committed lines give other weights after batch ${c.batch} than the recipe's run`);
}

const weights = {
  about: "sha256 of the demo recipe run's weights as minimind-train --dtype float32 writes them, made by scripts/make_demo_replay.mjs",
  batches,
  batchSize,
  samples: lines.length,
  filler: JSON.parse(FILLER),
  checkpoints,
};
writeFileSync(join(out, 'weights.json'), `${JSON.stringify(weights, null, 2)}\n`);
const kib = (readFileSync(sampleFile).length / 1024).toFixed(1);
console.log(`${out}: ${firstLines.length} lines (${kib} KiB gzip) and ${checkpoints.length} checksums; both runs agree with the log`);
