// npm run replay:demo: replays the first batches of the demo model's training
// (npm run test:replay: all of them) and compares each batch's loss and
// gradient norm bit for bit with the committed
// models/minimind-demo/train_log.jsonl. The recipe is
// scripts/train_demo.sh's (scripts/demo_recipe.json, scripts/demo_config.json);
// the corpus is regenerated from its seed, and its statistics must equal the
// committed corpus_stats.json first. Run it before every change to the
// forward's or the training's arithmetic (docs/testing.md): "the same sums"
// holds only if this passes; if it fails, retrain the demo model
// (npm run train:demo) or correct the claim that it retrains bit for bit.
//
//   node scripts/replay_demo.mjs [--batches 20 | --all] [--threads N] [--work build/demo-replay] [--no-build]
//                                [--save-every N] [--write-timeline]
//
// --all also saves the weights every ⌊batches / 100⌋ batches and checks that the training
// timeline made from them (scripts/demo_timeline.mjs) is the shipped
// models/minimind-demo/timeline.json, entry for entry (--write-timeline writes it).
//
// --all (npm run test:replay) replays the whole run, every batch of the log,
// and then compares the written model.safetensors byte for byte with the
// shipped models/minimind-demo/model.safetensors: about an hour on 2 threads,
// so it reports its progress every 1% of the batches. Not part of npm test,
// which replays the first 200 from committed lines (tests/node/demo_replay.test.mjs).
//
// --threads defaults to the recipe's count on this machine (every core up to
// 4, as scripts/train_demo.sh); the trainer splits products by output rows,
// so any count must give the same bits. Exit code 0 when every replayed batch
// matches, 1 when one differs (the first differences are printed).
import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

import { defaultSnapshotEvery } from '../js/timeline.mjs';
import { parseTrainLog, trajectoryDifferences } from './trajectory.mjs';

const { values } = parseArgs({
  options: {
    batches: { type: 'string' },
    all: { type: 'boolean' },
    threads: { type: 'string' },
    work: { type: 'string' },
    'no-build': { type: 'boolean' },
    'save-every': { type: 'string' },
    'write-timeline': { type: 'boolean' },
  },
});
const positive = (name, text, fallback) => {
  if (text === undefined) return fallback;
  if (!/^\d+$/.test(text) || Number(text) < 1) {
    console.error(`replay_demo: --${name} must be a positive integer, got "${text}"`);
    process.exit(2);
  }
  return Number(text);
};
if (values.all && values.batches !== undefined) {
  console.error('replay_demo: give --batches or --all, not both');
  process.exit(2);
}
const threads = positive('threads', values.threads, Math.min(availableParallelism(), 4));
// The weights every N batches (and before the first), float32, in WORK/model/batch-N: what
// scripts/demo_timeline.mjs reads to compute the demo's training timeline. The whole
// replay saves them at the timeline's spacing (about 100 entries) and checks the timeline.
const work = values.work ?? 'build/demo-replay';
const model = 'models/minimind-demo';
const recipe = JSON.parse(readFileSync('scripts/demo_recipe.json', 'utf8'));
const recorded = parseTrainLog(readFileSync(join(model, 'train_log.jsonl'), 'utf8'));
const saveEvery = positive('save-every', values['save-every'], values.all ? defaultSnapshotEvery(recorded.length) : 0);
const batches = values.all ? recorded.length : positive('batches', values.batches, 20);
if (batches > recorded.length) {
  console.error(`replay_demo: the log records ${recorded.length} batches, fewer than --batches ${batches}`);
  process.exit(2);
}
mkdirSync(work, { recursive: true });
const sh = (command, args) => execFileSync(command, args, { stdio: ['ignore', 'inherit', 'inherit'] });
// Runs the trainer; a short replay shows its line per batch, a long one a
// line every 1% of the batches with the time taken and the time left.
function trainer(args) {
  const child = spawn('build/native/core/minimind-train', args, { stdio: ['ignore', 'inherit', 'pipe'] });
  const began = Date.now();
  const step = batches <= 100 ? 1 : Math.ceil(batches / 100);
  let pending = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk) => {
    const lines = (pending + chunk).split('\n');
    pending = lines.pop();
    for (const line of lines) {
      const m = /^epoch \d+ batch (\d+)\//.exec(line);
      if (!m) console.error(line);
      else if (Number(m[1]) % step === 0 || Number(m[1]) === batches) {
        const minutes = (Date.now() - began) / 60000;
        const left = (minutes / Number(m[1])) * (batches - Number(m[1]));
        console.error(step === 1 ? line : `${line} (${minutes.toFixed(1)} min, about ${left.toFixed(0)} min left)`);
      }
    }
  });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      if (pending) console.error(pending);
      if (code === 0) resolve();
      else reject(new Error(`minimind-train exited with ${code}`));
    });
  });
}

if (!values['no-build']) sh('bash', ['scripts/build.sh', 'native', 'minimind-train']);

console.log(`== corpus (js/corpus.mjs, seed ${recipe.corpus.seed}, ${recipe.corpus.lines} texts)`);
const corpus = join(work, 'corpus.jsonl');
const stats = join(work, 'corpus_stats.json');
const lines = String(recipe.corpus.lines);
sh(process.execPath, [
  'scripts/make_corpus.mjs',
  '--seed',
  String(recipe.corpus.seed),
  '--lines',
  lines,
  '--pack-tokens',
  '--out',
  corpus,
  '--stats',
  stats,
]);
const committedStats = readFileSync(join(model, 'corpus_stats.json'), 'utf8');
if (JSON.stringify(JSON.parse(readFileSync(stats, 'utf8'))) !== JSON.stringify(JSON.parse(committedStats))) {
  console.error(
    `replay_demo: the regenerated corpus's statistics (${stats}) differ from ${model}/corpus_stats.json: the corpus generator changed`,
  );
  process.exit(1);
}

console.log(`== training: ${values.all ? 'all' : 'the first'} ${batches} batches on ${threads} thread${threads === 1 ? '' : 's'}`);
copyFileSync('scripts/demo_config.json', join(work, 'config.json'));
const log = join(work, 'train_log.jsonl');
const options = Object.entries(recipe.train).flatMap(([name, value]) => [`--${name}`, String(value)]);
await trainer([
  ...['--config', join(work, 'config.json'), '--data', corpus, '--tokenizer', 'models/minimind-tokenizer/tokenizer.json'],
  ...['--out', join(work, 'model'), ...options, '--threads', String(threads), '--log', log, '--max-batches', String(batches)],
  ...(saveEvery ? ['--save-every', String(saveEvery)] : []),
]).catch((error) => {
  console.error(`replay_demo: ${error.message}`);
  process.exit(1);
});

const replayed = parseTrainLog(readFileSync(log, 'utf8'));
const differences = trajectoryDifferences(recorded, replayed);
if (replayed.length !== batches)
  differences.unshift({ batch: replayed.length, field: 'batches', recorded: batches, replayed: replayed.length });
if (differences.length > 0) {
  console.error(`replay_demo: the replay differs from ${model}/train_log.jsonl:`);
  for (const d of differences.slice(0, 10)) console.error(`  batch ${d.batch} ${d.field}: recorded ${d.recorded}, replayed ${d.replayed}`);
  process.exit(1);
}
if (values.all) {
  const written = readFileSync(join(work, 'model', 'model.safetensors'));
  const shipped = readFileSync(join(model, 'model.safetensors'));
  if (!written.equals(shipped)) {
    console.error(
      `replay_demo: every batch as recorded, but ${join(work, 'model', 'model.safetensors')} differs from ${model}/model.safetensors`,
    );
    process.exit(1);
  }
  console.log(`the whole run, ${batches} batches, as recorded; the weights are the shipped ${model}/model.safetensors, byte for byte`);
  // The timeline made from this run's weights: the shipped models/minimind-demo/timeline.json
  // (--write-timeline writes it instead).
  const timelineArgs = [
    'scripts/demo_timeline.mjs',
    '--checkpoints',
    join(work, 'model'),
    values['write-timeline'] ? '--write' : '--check',
  ];
  try {
    sh(process.execPath, timelineArgs);
  } catch {
    process.exit(1);
  }
}
const last = replayed[replayed.length - 1];
console.log(
  `${batches} batches as recorded, bit for bit: loss ${recorded[0].loss} -> ${last.loss}, grad norm ${last.grad_norm} at batch ${last.batch}`,
);
