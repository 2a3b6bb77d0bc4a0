#!/usr/bin/env node
// Threads: the same work on 1 and 2 threads, ours against ONNX Runtime Web,
// in Node, side by side in one run (npm run bench -- --only threads writes the
// "Threads" section of BENCHMARKS.md; node bench/speed/threads.mjs prints it).
//
//   ours 1     dist/wasm/minimind.* (SIMD128, one thread), float16 weights
//   ours 2     dist/wasm/minimind-threads.* (SIMD128 + pthreads), 2 threads
//   ort-web N  onnxruntime-web's wasm backend, env.wasm.numThreads = N
//
// Work: prefill of 64 and 256 tokens and greedy decoding (32 steps after a
// 32-token prompt, per step) on minimind2-small and minimind-3 with the
// seeded weights of bench/speed/make_onnx.py (seed 0, init 'minimind'); training
// tokens/s of the demo model's config (batch 32 × 64) in our Wasm builds and
// natively (minimind-train --threads N).
//
// Each measurement runs in a child process of its own (ONNX Runtime Web
// reads numThreads once per process), in ROUNDS interleaved rounds; the
// report gives the median of the rounds' medians.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { runHeader } from '../cpu_model.mjs';
import { median, medianFields } from '../median.mjs';
import { ortTimes, promptIds } from './ort_times.mjs';
import '../relaxed_simd.mjs'; // the relaxed build's children (childPair): relaxed SIMD on in Node 20
import { decodeStepMs, timeSideBySide } from './side_by_side.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const ROUNDS = 3;
const PRESETS = ['minimind2-small', 'minimind-3'];
const PREFILL = [64, 256];
const TRAIN = { batch: 32, seqLen: 64, warmup: 1, steps: 4 };
const SEED = 0;
const INIT = 'minimind';

// ------------------------------------------------------------------ child processes

// weightStorage: 'narrowest' (the seeded weights are float16 values, kept so) or 'float32'.
async function childOurs(preset, threads, weightStorage = 'narrowest') {
  const { loadMiniMind } = await import('../../js/minimind.mjs');
  const mm = await loadMiniMind({ variant: threads > 1 ? 'threads' : 'simd', threads });
  const model = mm.createModel({ preset, seed: SEED, init: INIT, weightStorage });
  const out = {};
  for (const T of PREFILL) {
    model.forward(promptIds(T));
    out[`prefill${T}`] = median(Array.from({ length: T > 64 ? 3 : 5 }, () => time(() => model.forward(promptIds(T)))));
  }
  decodeStepMs(model);
  out.decode = median([decodeStepMs(model), decodeStepMs(model), decodeStepMs(model)]);
  out.threads = mm.threads;
  return out;
}

// The SIMD and the relaxed build (1 thread, float16 weights) side by side in
// one process (bench/speed/side_by_side.mjs). Returns {simd: {prefill64, prefill256,
// decode}, relaxed: {…}, ratio: {…}} (ratio: the median over the repetitions
// of the SIMD build's time over the relaxed build's, each pair timed together).
const PAIR_REPS = { prefill64: 9, prefill256: 5, decode: 5 };
async function childPair(preset) {
  const { loadMiniMind } = await import('../../js/minimind.mjs');
  const models = {};
  for (const variant of ['simd', 'relaxed'])
    models[variant] = (await loadMiniMind({ variant })).createModel({ preset, seed: SEED, init: INIT });
  const { simd, relaxed } = timeSideBySide(models, Object.keys(PAIR_REPS), (work) => PAIR_REPS[work], 'simd');
  for (const model of Object.values(models)) model.dispose();
  const { ratio, ...relaxedTimes } = relaxed;
  const { ratio: _, ...simdTimes } = simd;
  return { simd: simdTimes, relaxed: relaxedTimes, ratio };
}

async function childTrainOurs(threads) {
  const { loadMiniMind } = await import('../../js/minimind.mjs');
  const mm = await loadMiniMind({ variant: threads > 1 ? 'threads' : 'simd', threads });
  const config = JSON.parse(readFileSync(`${root}scripts/demo_config.json`, 'utf8'));
  const model = mm.createModel({ config, seed: 42, init: 'minimind' });
  const steps = TRAIN.warmup + TRAIN.steps;
  const data = Array.from({ length: TRAIN.batch * steps }, (_, i) =>
    Array.from({ length: TRAIN.seqLen }, (_, j) => 3 + ((i * 131 + j * 17) % 6000)),
  );
  const trainer = model.trainer({ data, batchSize: TRAIN.batch, maxSeqLen: TRAIN.seqLen, learningRate: 1e-3, epochs: 1 });
  for (let s = 0; s < TRAIN.warmup; s += 1) trainer.step();
  const t = performance.now();
  for (let s = 0; s < TRAIN.steps; s += 1) trainer.step();
  const seconds = (performance.now() - t) / 1000;
  return { tokensPerSecond: (TRAIN.steps * TRAIN.batch * TRAIN.seqLen) / seconds, threads: mm.threads };
}

function time(f) {
  const t = performance.now();
  f();
  return performance.now() - t;
}

// ------------------------------------------------------------------ native training

const NATIVE_TRAIN = `${root}build/native/core/minimind-train`;

function nativeTrainCorpus() {
  const file = `${root}build/bench/threads-corpus.jsonl`;
  if (!existsSync(file)) {
    mkdirSync(`${root}build/bench`, { recursive: true });
    const lines = Array.from({ length: TRAIN.batch * 40 }, (_, i) =>
      JSON.stringify({ ids: Array.from({ length: TRAIN.seqLen }, (_, j) => 3 + ((i * 131 + j * 17) % 6000)) }),
    );
    writeFileSync(file, `${lines.join('\n')}\n`);
  }
  return file;
}

/** The native trainer on `threads` threads, 40 batches of the demo config: {tokensPerSecond, threads}. */
export function nativeTrain(threads) {
  const out = `${root}build/bench/threads-train-${threads}`;
  mkdirSync(out, { recursive: true });
  const r = spawnSync(
    NATIVE_TRAIN,
    [
      ...['--config', `${root}scripts/demo_config.json`, '--data', nativeTrainCorpus(), '--out', out],
      ...['--max-seq-len', String(TRAIN.seqLen), '--batch-size', String(TRAIN.batch), '--accumulation-steps', '1'],
      ...['--lr', '1e-3', '--epochs', '1', '--order', 'file', '--threads', String(threads)],
    ],
    { encoding: 'utf8' },
  );
  if (r.status !== 0) throw new Error(`minimind-train --threads ${threads} failed: ${r.stderr}`);
  // The last line's tokens/s covers the whole run (its first batch included).
  const rates = [...r.stderr.matchAll(/([\d.]+) tokens\/s/g)].map((m) => Number(m[1]));
  // On 2+ threads: the share of the run's wall time split across threads (the rest ran on one).
  const split = r.stderr.match(/split across threads \(([\d.]+)%\)/);
  return { tokensPerSecond: rates.at(-1), threads, ...(split ? { splitShare: Number(split[1]) / 100 } : {}) };
}

// ------------------------------------------------------------------ the parent

/**
 * One measurement in a child process of its own: ['ours', preset, threads,
 * weightStorage?], ['ort', preset, threads] (prefill64, prefill256 and decode
 * per step, ms) or ['train', '-', threads] (tokensPerSecond).
 */
export function child(args) {
  const r = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--child', ...args], {
    encoding: 'utf8',
    maxBuffer: 16 << 20,
  });
  if (r.status !== 0) throw new Error(`bench/speed/threads.mjs --child ${args.join(' ')} failed: ${r.stderr.slice(-2000)}`);
  return JSON.parse(r.stdout.trim().split('\n').at(-1));
}

/** Runs every measurement, ROUNDS times interleaved; returns the raw results and their medians. */
export function measureThreads({ log = console.log } = {}) {
  if (!existsSync(NATIVE_TRAIN)) execFileSync('bash', ['scripts/build.sh', 'native', 'minimind-train'], { cwd: root, stdio: 'inherit' });
  const started = new Date();
  const load0 = os.loadavg()[0];
  const jobs = [];
  for (const preset of PRESETS) {
    for (const threads of [1, 2]) {
      jobs.push({ key: `ours-${threads}:${preset}`, run: () => child(['ours', preset, String(threads)]) });
      jobs.push({ key: `ort-${threads}:${preset}`, run: () => child(['ort', preset, String(threads)]) });
    }
  }
  for (const threads of [1, 2]) {
    jobs.push({ key: `train-ours-${threads}`, run: () => child(['train', '-', String(threads)]) });
    jobs.push({ key: `train-native-${threads}`, run: () => nativeTrain(threads) });
  }
  const samples = {};
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const job of jobs) {
      const result = job.run();
      (samples[job.key] ??= []).push(result);
      log(`threads: round ${round + 1}/${ROUNDS} ${job.key} ${JSON.stringify(result)}`);
    }
  }
  return {
    ...runHeader(started, load0),
    rounds: ROUNDS,
    samples,
    medians: medianFields(samples),
  };
}

export const THREADS_BEGIN = '<!-- threads:';
export const THREADS_END = '<!-- /threads -->';

const fmt = (ms) => (ms >= 100 ? ms.toFixed(0) : ms >= 10 ? ms.toFixed(1) : ms.toFixed(2));

/** The "Threads" section of BENCHMARKS.md, between its markers. */
export function threadsSection(r) {
  const m = r.medians;
  const rows = [];
  for (const preset of PRESETS) {
    for (const [work, label] of [
      ['prefill64', 'prefill 64'],
      ['prefill256', 'prefill 256'],
      ['decode', 'decode, per step'],
    ]) {
      const o1 = m[`ours-1:${preset}`][work];
      const o2 = m[`ours-2:${preset}`][work];
      const r1 = m[`ort-1:${preset}`][work];
      const r2 = m[`ort-2:${preset}`][work];
      rows.push(
        `| ${preset} ${label} | ${fmt(r1)} ms | ${fmt(o1)} ms (${(r1 / o1).toFixed(2)}×) | ${fmt(r2)} ms | ` +
          `${fmt(o2)} ms (${(r2 / o2).toFixed(2)}×) | ${(o1 / o2).toFixed(2)}× | ${(r1 / r2).toFixed(2)}× |`,
      );
    }
  }
  const t = (key) => m[key].tokensPerSecond;
  const trainRows = [
    `| our Wasm (\`minimind.*\` / \`minimind-threads.*\`) | ${t('train-ours-1').toFixed(0)} | ${t('train-ours-2').toFixed(0)} | ${(t('train-ours-2') / t('train-ours-1')).toFixed(2)}× |`,
    `| native (\`minimind-train --threads N\`) | ${t('train-native-1').toFixed(0)} | ${t('train-native-2').toFixed(0)} | ${(t('train-native-2') / t('train-native-1')).toFixed(2)}× |`,
  ];
  return `${THREADS_BEGIN} written by node bench/run.mjs --only threads; do not edit by hand -->
## Threads

**${r.cpu}**, ${r.cores} cores, ${r.date}, load average ${r.load[0].toFixed(1)} at the start and ${r.load[1].toFixed(1)} at the end
(\`npm run bench -- --only threads\`, \`bench/speed/threads.mjs\`). Every measurement runs in a process of its
own, ${r.rounds} rounds interleaved; medians of the rounds' medians. Ours on 1 thread is the SIMD build
(\`dist/wasm/minimind.*\`), on 2 threads the pthreads build (\`minimind-threads.*\`), both with float16
weights; ONNX Runtime Web's wasm backend with \`env.wasm.numThreads\` 1 or 2, in Node. (×) after our
time: ORT-web's time ÷ ours at the same thread count.

| work | ORT-web 1 thread | ours 1 thread | ORT-web 2 threads | ours 2 threads | ours 2 vs 1 | ORT-web 2 vs 1 |
|---|---|---|---|---|---|---|
${rows.join('\n')}

Training the demo model's config (hidden 128, 4 layers, 4 heads, vocabulary 6400), batch ${TRAIN.batch} × ${TRAIN.seqLen},
tokens/s (our Wasm: ${TRAIN.steps} batches after ${TRAIN.warmup}; native: the whole run of 40 batches as \`minimind-train\` reports it):

| trainer | 1 thread | 2 threads | 2 vs 1 |
|---|---|---|---|
${trainRows.join('\n')}
${THREADS_END}
`;
}

// ------------------------------------------------------------------ main

const args = process.argv.slice(2);
if (args[0] === '--child') {
  const [kind, preset, threads, storage] = args.slice(1);
  const n = Number(threads);
  const result =
    kind === 'pair'
      ? await childPair(preset)
      : kind === 'ours'
        ? await childOurs(preset, n, storage)
        : kind === 'ort'
          ? await ortTimes({ preset, threads: n, prefill: PREFILL })
          : await childTrainOurs(n);
  process.stdout.write(`${JSON.stringify(result)}\n`);
  process.exit(0);
} else if (import.meta.url === `file://${process.argv[1]}`) {
  const result = measureThreads();
  console.log(threadsSection(result));
}
