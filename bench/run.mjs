#!/usr/bin/env node
// npm run bench: times MiniMind's forward pass on the same shapes and the same
// weights in six runtimes, and training (bench/training/train.mjs) in four, in one run,
// and writes BENCHMARKS.md and bench/speed/time_vs_length.svg.
//
//   wasm-simd      our Wasm module (dist/wasm/minimind.*), SIMD128, in Node, one thread;
//                  weights kept as float16 (the seeded weights are float16 values)
//   wasm-simd-f32  the same module with the weights kept as float32 (weightStorage)
//   wasm-relaxed   the relaxed build (minimind-relaxed.*: fused multiply-adds in the
//                  weight products, f32x4.relaxed_madd), float16 weights; where
//                  Node runs relaxed SIMD (Node 20: bench/relaxed_simd.mjs sets its flag)
//   wasm-scalar    our Wasm module built without SIMD (minimind-scalar.*)
//   ort-web      ONNX Runtime Web's wasm backend in Node, one thread, SIMD, on the graphs
//                bench/speed/make_onnx.py exports with our seeded weights
//   native       the same C++ core built natively, -O3 -march=native (bench/speed/native_bench.cpp)
//   native-sse   the same, -O3 with 128-bit SSE4.2 only (no AVX): Wasm SIMD's width
//
// Training (bench/training/train.mjs): wasm-simd, native, native-sse and pytorch-openblas
// (bench/training/torch_train.py: Debian's torch on one thread, on an OpenBLAS unpacked
// into build/openblas) train the same configs batch by batch.
//
// Training in the page (bench/training/page_training.mjs): the playground's Train panel in
// headless Chromium, its default run for up to 5 minutes: tokens/s and the time
// to the loss, head-role and pronoun-attention goals; then the panel's two runs
// (js/train_recipes.mjs) in Node on 1 and 2 threads (measureRecipeRuns).
//
// Usage: node bench/run.mjs [--presets lab-a,minimind-3] [--reps N] [--out FILE]
//                           [--only train|forward|page-training|heads|threads|wllama|limits|interp|circuit|soak|timeline|scrub]
//                           [--run-seconds N]   (page-training: each panel run's training time cap)
// --only train runs the training part alone (~4 minutes) and rewrites only the
// "Training" section of BENCHMARKS.md (between its marker comments), so the
// other sections keep their numbers; --only page-training does the same for the
// "Training in the page" section (≤ 5 minutes, after building the site) and
// "The Train panel's runs" (≤ 20 minutes a run);
// --only heads trains the Train panel's runs (js/train_recipes.mjs) with 3 seeds
// each and scores their heads as they go (bench/training/head_formation.mjs, ~30 minutes)
// and rewrites only "Head formation";
// --only threads measures 1 against 2 threads, ours and ONNX Runtime Web's
// (bench/speed/threads.mjs), and rewrites only the "Threads" section; --only wllama
// times llama.cpp's Wasm build (@wllama/wllama), ONNX Runtime Web and ours in one
// headless Chromium (bench/speed/wllama.mjs) and rewrites only "llama.cpp in the browser";
// --only limits measures what one core and two can do at the module's width
// (bench/limits/machine_limits.cpp) beside ours and ONNX Runtime Web (bench/limits/limits.mjs)
// and rewrites only "Limits";
// --only interp times activation patching, the logit lens and attribution on
// minimind2-small (bench/interp/interp.mjs) and rewrites only "Interpretability";
// --only circuit times the circuit (EAP, path patching, faithfulness) on the demo
// model and minimind2-small (bench/interp/circuit.mjs) and rewrites only "The circuit";
// --only soak uses the playground for a long time in headless Chromium (1,000
// forwards, 20 generations, 10 training cycles, 20 model switches; bench/memory/soak.mjs,
// on the built site) and rewrites only "Soak";
// --only timeline trains the panel's two runs' first batches with and without the
// timeline's entries, side by side (bench/training/timeline_overhead.mjs, ~5 minutes),
// and rewrites only "The training timeline"; --only scrub moves the Train panel's timeline
// scrubber over the shipped demo timeline in headless Chromium (bench/speed/timeline_scrub.mjs,
// ~2 minutes, needs the site) and rewrites only "Scrubbing the timeline";
// --only forward is the rest, and keeps the training, threads and llama.cpp sections as they are.
// Everything missing is made first: the Wasm builds (npm run build:wasm), the
// ONNX graphs (/usr/bin/python3 bench/speed/make_onnx.py), the native builds
// (build/bench-native, build/bench-sse), the Wasm micro benchmark
// (build/bench-wasm) and OpenBLAS (build/openblas). Raw samples go to
// build/bench/results.json (--only train: build/bench/train-results.json;
// --only page-training: build/bench/page-training-results.json).
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

import { argmax } from '../js/argmax.mjs';
import { checkAgreement, selfPrediction } from './speed/agreement.mjs';
import { NODE_FLAGS, RELAXED_AVAILABLE } from './relaxed_simd.mjs';
import { cpuModel } from './cpu_model.mjs';
import { forwardFlops } from './speed/flops.mjs';
import { measureLoadMemory } from './memory/load_memory.mjs';
import { measurePageLatency } from './speed/page_latency.mjs';
import {
  RUNS_BEGIN,
  RUNS_END,
  measurePageTraining,
  measureRecipeRuns,
  recipeRunsSection,
  writeRecipeRunsSection,
} from './training/page_training.mjs';
import { WASM_OPTIMISED } from './wasm_optimised.mjs';
import { existingSection, replaceSection, writePageTrainingSection, writeReport, writeTrainingSection } from './report.mjs';
import {
  HEADS_BEGIN,
  HEADS_END,
  RECIPE_IDS,
  SEARCH_BEGIN,
  SEARCH_END,
  SEEDS,
  headFormationSection,
  measureHeadFormation,
} from './training/head_formation.mjs';
import { LIMITS_BEGIN, LIMITS_END, limitsSection, measureLimits } from './limits/limits.mjs';
import { CIRCUIT_BEGIN, CIRCUIT_END, circuitSection, measureCircuit } from './interp/circuit.mjs';
import { INTERP_BEGIN, INTERP_END, interpSection, measureInterp } from './interp/interp.mjs';
import { SOAK_BEGIN, SOAK_END, runSoak, soakSection } from './memory/soak.mjs';
import { TIMELINE_BEGIN, TIMELINE_END, measureTimelineOverhead, timelineOverheadSection } from './training/timeline_overhead.mjs';
import { SCRUB_BEGIN, SCRUB_END, measureTimelineScrub, timelineScrubSection } from './speed/timeline_scrub.mjs';
import { THREADS_BEGIN, THREADS_END, measureThreads, threadsSection } from './speed/threads.mjs';
import { WLLAMA_BEGIN, WLLAMA_END, measureWllama, wllamaSection } from './speed/wllama.mjs';
import { benchTraining, summary } from './training/train.mjs';
import { writeSummary } from './summary.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const started = Date.now();
const PRESETS = ['lab-a', 'minimind2-small', 'minimind-3'];
const SEED = 0; // bench/speed/make_onnx.py's default seed: both runtimes build the same weights
// The seeded embedding at MiniMind's from-scratch scale (U(±1/sqrt(D)), createModel's init
// 'minimind'): with the presets' U(-1, 1) the tied lm_head maps every position back to its own
// token, and runtimes that agree on such logits could still disagree on everything else.
const INIT = 'minimind';

const PREFILL_LENGTHS = [16, 64, 256];
const DECODE = { prompt: 32, steps: 32 };
const TRACE_TOKENS = 64;
const MATMUL_WARMUP = 3; // runs dropped at the start of each matmul process
const MATMUL_SHAPES = ['64x512x1664', '64x512x1664:f16', '256x768x2432', '256x768x2432:f16', '1x768x2432', '1x768x2432:f16']; // M·K·N: x [M, K] times Wᵀ, W [N, K]
const NATIVE_FLAVOURS = {
  native: { dir: 'build/bench-native', flags: '-march=native' },
  'native-sse': { dir: 'build/bench-sse', flags: '-msse4.2 -mno-avx' },
};

// ------------------------------------------------------------------ arguments
const args = process.argv.slice(2);
// --help: which part answers which question, and where its numbers land
// (bench/README.md says the same with the files of each part).
const PARTS = [
  ['forward', 'a forward pass in six runtimes, memory, the page', 'Runtimes, Results, Memory, Checks'],
  ['train', 'training in four runtimes against PyTorch', 'Training'],
  ['page-training', "the Train panel's default run and its two runs", "Training in the page, The Train panel's runs"],
  ['heads', 'when heads form, over seeds', 'Head formation'],
  ['threads', 'one thread against two', 'Threads'],
  ['wllama', "llama.cpp's Wasm build in the same browser", 'llama.cpp in the browser'],
  ['limits', "how close to the machine's limits each piece of work runs", 'Limits'],
  ['interp', 'the interpretability tools', 'Interpretability'],
  ['circuit', 'the circuit: edge attribution, path patching, faithfulness', 'The circuit'],
  ['soak', 'a long session in the page', 'Soak'],
  ['timeline', "what the training timeline adds to the panel's runs", 'The training timeline'],
  ['scrub', "a redraw of the timeline's scrubber in the page", 'Scrubbing the timeline'],
];
if (args.includes('--help') || args.includes('-h')) {
  console.log('usage: npm run bench -- [--only PART] [--presets lab-a,minimind-3] [--reps N] [--out FILE] [--run-seconds N]');
  console.log('no --only: every part; --only PART measures one part and rewrites only its sections of BENCHMARKS.md:');
  for (const [part, what, where] of PARTS) console.log(`  ${part.padEnd(14)} ${what} -> ${where}`);
  console.log('raw samples: build/bench/; what each file answers: bench/README.md');
  process.exit(0);
}
function option(name, fallback) {
  const i = args.indexOf(name);
  return i >= 0 && i + 1 < args.length ? args[i + 1] : fallback;
}
const presets = option('--presets', PRESETS.join(',')).split(',');
for (const p of presets) if (!PRESETS.includes(p)) fail(`unknown preset "${p}" (${PRESETS.join(', ')})`);
const baseReps = Number(option('--reps', '10'));
const outFile = option('--out', `${root}BENCHMARKS.md`);
const only = option('--only', null);
if (only !== null && !PARTS.some(([part]) => part === only))
  fail(`--only takes ${PARTS.map(([part]) => `"${part}"`).join(', ')}, got "${only}"`);
const runForward = only === null || only === 'forward';
const runTraining = only === null || only === 'train';
const runPageTraining = only === null || only === 'page-training';
const commandLine = ['npm run bench', ...(args.length ? ['--', ...args] : [])].join(' ');

// Repetitions after one warm-up. The scalar build is ~3× slower than SIMD: it
// gets fewer runs on the big presets so that the whole run stays near 10 minutes.
function repsFor(runtime, preset) {
  if (preset === 'lab-a') return baseReps * 2; // cheap: more runs against the noise
  if (runtime === 'wasm-scalar' && preset === 'minimind-3') return Math.min(baseReps, 3);
  if (runtime === 'wasm-scalar' && preset === 'minimind2-small') return Math.min(baseReps, 5);
  return baseReps;
}

function fail(message) {
  console.error(`bench: ${message}`);
  process.exit(1);
}

function log(message) {
  console.log(`[${((Date.now() - started) / 1000).toFixed(0).padStart(4)} s] ${message}`);
}

// ------------------------------------------------------------------ setup
function newestMtime(dirs) {
  let newest = 0;
  for (const dir of dirs) {
    for (const entry of readdirSync(`${root}${dir}`, { withFileTypes: true, recursive: true })) {
      if (entry.isFile() && /\.(cpp|h|txt|cmake)$/.test(entry.name))
        newest = Math.max(newest, statSync(`${entry.path ?? entry.parentPath}/${entry.name}`).mtimeMs);
    }
  }
  return newest;
}

// Runs a setup step; its output is shown only when it fails.
function run(command, commandArgs, what, { quiet = true } = {}) {
  const result = spawnSync(command, commandArgs, { cwd: root, stdio: quiet ? 'pipe' : 'inherit', encoding: 'utf8' });
  if (result.status !== 0) {
    if (quiet) process.stderr.write(`${result.stdout ?? ''}${result.stderr ?? ''}`.split('\n').slice(-40).join('\n'));
    fail(`${what} failed (${command} ${commandArgs.join(' ')})`);
  }
}

// Training alone needs only the SIMD module.
function ensureWasm() {
  const names = runForward
    ? ['minimind.mjs', 'minimind.wasm', 'minimind-relaxed.mjs', 'minimind-relaxed.wasm', 'minimind-scalar.mjs', 'minimind-scalar.wasm']
    : ['minimind.mjs', 'minimind.wasm', 'minimind-relaxed.mjs', 'minimind-relaxed.wasm'];
  const files = names.map((f) => `${root}dist/wasm/${f}`);
  const sources = newestMtime(['core', 'wasm']);
  if (files.every((f) => existsSync(f) && statSync(f).mtimeMs >= sources)) return;
  if (!runForward) {
    log('the Wasm module is missing or older than core/ and wasm/: bash scripts/build.sh wasm minimind_wasm minimind_wasm_relaxed');
    run('bash', ['scripts/build.sh', 'wasm', 'minimind_wasm', 'minimind_wasm_relaxed'], 'building the Wasm module', { quiet: false });
    return;
  }
  log('the Wasm builds are missing or older than core/ and wasm/: npm run build:wasm');
  run('npm', ['run', 'build:wasm'], 'npm run build:wasm', { quiet: false });
}

function makeOnnxVersion() {
  return Number(/^GENERATOR_VERSION = (\d+)/m.exec(readFileSync(`${root}bench/speed/make_onnx.py`, 'utf8'))[1]);
}

function ensureOnnx() {
  const version = makeOnnxVersion();
  const stale = presets.filter((p) => {
    const manifest = `${root}bench/models/${p}.json`;
    if (!existsSync(manifest)) return true;
    const m = JSON.parse(readFileSync(manifest, 'utf8'));
    return (
      m.generator_version !== version ||
      m.seed !== SEED ||
      m.init !== INIT ||
      !['prefill', 'decode'].every((k) => existsSync(`${root}bench/models/${p}.${k}.onnx`))
    );
  });
  if (stale.length === 0) return;
  const probe = spawnSync('/usr/bin/python3', ['-c', 'import torch, numpy'], { encoding: 'utf8' });
  if (probe.status !== 0)
    fail(
      'the ONNX models are made with PyTorch, and /usr/bin/python3 cannot import torch and numpy.\n' +
        '  Install them: apt-get install python3-torch python3-numpy   (then run npm run bench again)',
    );
  log(`exporting ONNX graphs for ${stale.join(', ')} (bench/speed/make_onnx.py, ~1-2 minutes)`);
  run(
    '/usr/bin/python3',
    ['bench/speed/make_onnx.py', ...stale.flatMap((p) => ['--preset', p]), '--seed', String(SEED), '--init', INIT],
    'bench/speed/make_onnx.py',
    { quiet: false },
  );
}

// Configures (once) and builds (incrementally) native_bench (and
// native_train_bench in the native trees) in one tree.
function buildBench(dir, configure, label, targets = ['native_bench']) {
  if (!existsSync(`${root}${dir}/CMakeCache.txt`)) {
    log(`configuring ${dir} (${label})`);
    run(
      configure[0],
      [...configure.slice(1), '-S', '.', '-B', dir, '-DCMAKE_BUILD_TYPE=Release', '-DMINIMIND_BENCH=ON', '-DMINIMIND_TESTS=OFF'],
      `configuring ${dir}`,
    );
  }
  log(`building ${targets.map((t) => `${dir}/bench/${t}`).join(', ')} (${label})`);
  run('cmake', ['--build', dir, '--target', ...targets, '-j', String(os.cpus().length)], `building ${dir}`);
}

function ensureNative() {
  for (const [name, flavour] of Object.entries(NATIVE_FLAVOURS))
    buildBench(flavour.dir, ['cmake', `-DCMAKE_CXX_FLAGS=${flavour.flags}`], `${name}: -O3 ${flavour.flags}`, [
      'native_bench',
      'native_train_bench',
    ]);
}

// The matmul micro benchmark has no entry in the public JS API: the same
// native_bench.cpp is compiled with emcmake (the shipped module's compile
// flags, SIMD128) and run by node. Skipped when emcmake is not there.
function ensureWasmMicro() {
  if (spawnSync('emcmake', ['--help'], { stdio: 'ignore' }).error) return null;
  buildBench('build/bench-wasm', ['emcmake', 'cmake'], 'Wasm SIMD128 and its relaxed twin, for the matmul micro benchmark', [
    'native_bench',
    'native_bench_relaxed',
  ]);
  return `${root}build/bench-wasm/bench/native_bench.js`;
}

// ------------------------------------------------------------------ helpers
// The benchmark's token ids (native_bench.cpp computes the same).
function benchIds(n, vocab) {
  return Int32Array.from({ length: n }, (_, i) => 3 + ((Math.imul(i, 2654435761) >>> 0) % (vocab - 3)));
}

function maxAbsDiff(a, b) {
  let d = 0;
  for (let i = 0; i < a.length; i += 1) d = Math.max(d, Math.abs(a[i] - b[i]));
  return d;
}

function maxAbs(a) {
  let m = 0;
  for (let i = 0; i < a.length; i += 1) m = Math.max(m, Math.abs(a[i]));
  return m;
}

function decodeFlops(c) {
  let sum = 0;
  for (let s = 0; s < DECODE.steps; s += 1) sum += forwardFlops(c, 1, DECODE.prompt + s);
  return sum;
}

// The Wasm memory of each instance: the JS API does not expose it, so the
// bench notes every WebAssembly.Memory that an instantiation exports or imports.
const wasmMemories = [];
let instantiating = null;
const originalInstantiate = WebAssembly.instantiate;
WebAssembly.instantiate = async function instantiate(source, imports) {
  const result = await originalInstantiate.call(this, source, imports);
  const instance = result.instance ?? result;
  const candidates = [...Object.values(instance.exports ?? {}), ...Object.values(imports ?? {}).flatMap((m) => Object.values(m ?? {}))];
  const memory = candidates.find((e) => e instanceof WebAssembly.Memory);
  if (memory) wasmMemories.push({ label: instantiating, memory });
  return result;
};
function memoryOf(label) {
  return [...wasmMemories].reverse().find((m) => m.label === label)?.memory;
}

// ------------------------------------------------------------------ runtimes
// Each runtime: {name, prefill(ids) -> logits?, decode(prompt) -> {ms, tokens},
// trace(ids, on), dispose()}; every timed call returns milliseconds.

async function ourRuntime(variant, preset, memory, weightStorage = 'narrowest') {
  const { loadMiniMind } = await import('../js/minimind.mjs');
  const base = { simd: 'minimind', relaxed: 'minimind-relaxed', scalar: 'minimind-scalar' }[variant];
  const name = `wasm-${variant}${weightStorage === 'float32' ? '-f32' : ''}`;
  // A fresh instance per preset (a distinct module URL), so that its memory
  // figures belong to this preset alone.
  instantiating = name;
  const mm = await loadMiniMind({
    variant,
    moduleUrl: new URL(`../dist/wasm/${base}.mjs?preset=${preset}&storage=${weightStorage}`, import.meta.url),
    wasmBinary: readFileSync(`${root}dist/wasm/${base}.wasm`),
  });
  const wasmMemory = memoryOf(name);
  const rss0 = process.memoryUsage().rss;
  const bytes0 = wasmMemory?.buffer.byteLength;
  const t0 = performance.now();
  const model = mm.createModel({ preset, seed: SEED, weightStorage, init: INIT });
  const buildMs = performance.now() - t0;
  const info = model.info();
  memory[name] = {
    before: bytes0,
    built: wasmMemory?.buffer.byteLength,
    rssBuilt: process.memoryUsage().rss - rss0,
    stored: info.stored_weights.bytes,
  };
  return {
    name,
    info,
    buildMs,
    wasmBytes: () => wasmMemory?.buffer.byteLength,
    async prefill(ids) {
      const t = performance.now();
      const { logits } = model.forward(ids);
      return { ms: performance.now() - t, logits: logits.data };
    },
    async trace(ids, on) {
      const t = performance.now();
      model.forward(ids, on ? { trace: true } : {});
      return { ms: performance.now() - t };
    },
    async decode(prompt) {
      const generator = model.generator(prompt, { greedy: true });
      const tokens = [];
      const t = performance.now();
      for (let s = 0; s < DECODE.steps; s += 1) {
        const step = generator.step({ trace: false });
        tokens.push(step.token);
        if (step.isEos) break;
      }
      const ms = performance.now() - t;
      generator.dispose();
      return { ms, tokens };
    },
    dispose() {
      model.dispose();
    },
  };
}

async function ortRuntime(preset, c, memory) {
  const ort = await import('onnxruntime-web');
  ort.env.wasm.numThreads = 1;
  ort.env.wasm.simd = true;
  ort.env.logLevel = 'error';
  instantiating = 'ort-web';
  const options = { executionProviders: ['wasm'], graphOptimizationLevel: 'all' };
  const rss0 = process.memoryUsage().rss;
  const t0 = performance.now();
  const prefillSession = await ort.InferenceSession.create(`${root}bench/models/${preset}.prefill.onnx`, options);
  const decodeSession = await ort.InferenceSession.create(`${root}bench/models/${preset}.decode.onnx`, options);
  const buildMs = performance.now() - t0;
  const wasmMemory = memoryOf('ort-web');
  memory['ort-web'] = { built: wasmMemory?.buffer.byteLength, rssBuilt: process.memoryUsage().rss - rss0, highWater: true };
  const idsTensor = (ids) =>
    new ort.Tensor(
      'int64',
      BigInt64Array.from(ids, (v) => BigInt(v)),
      [1, ids.length],
    );
  return {
    name: 'ort-web',
    buildMs,
    wasmBytes: () => wasmMemory?.buffer.byteLength,
    async prefill(ids) {
      const t = performance.now();
      const out = await prefillSession.run({ input_ids: idsTensor(ids) });
      return { ms: performance.now() - t, logits: out.logits.data };
    },
    async decode(prompt) {
      // Prefill the prompt (not timed), then feed each argmax token with the
      // previous step's present k/v as past k/v: the decode graph.
      let out = await prefillSession.run({ input_ids: idsTensor(prompt) });
      const tokens = [];
      const t = performance.now();
      for (let s = 0; s < DECODE.steps; s += 1) {
        const last = out.logits.dims[1] - 1;
        const token = argmax(out.logits.data, last * c.V, (last + 1) * c.V);
        tokens.push(token);
        const feeds = { input_ids: idsTensor([token]) };
        for (let l = 0; l < c.L; l += 1) {
          feeds[`past_key_${l}`] = out[`present_key_${l}`];
          feeds[`past_value_${l}`] = out[`present_value_${l}`];
        }
        out = await decodeSession.run(feeds);
      }
      return { ms: performance.now() - t, tokens };
    },
    async dispose() {
      await prefillSession.release();
      await decodeSession.release();
    },
  };
}

async function nativeRuntime(name, executable, preset) {
  const child = spawn(executable, ['--preset', preset, '--seed', String(SEED), '--init', INIT, '--serve'], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const lines = createInterface({ input: child.stdout });
  const waiting = [];
  lines.on('line', (line) => waiting.shift()?.(JSON.parse(line)));
  let stderr = '';
  const ready = new Promise((resolve, reject) => {
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
      if (stderr.includes('built in')) resolve();
    });
    child.on('exit', (code) => reject(new Error(`${name} exited with ${code}: ${stderr}`)));
  });
  await ready;
  const request = (kind, tokens, reps = 1) =>
    new Promise((resolve, reject) => {
      waiting.push((answer) => (answer.error ? reject(new Error(`${name}: ${answer.error}`)) : resolve(answer)));
      child.stdin.write(`${kind} ${tokens} ${reps}\n`);
    });
  return {
    name,
    isa: (await request('prefill', 1)).isa,
    buildMs: Number(/built in (\d+)/.exec(stderr)?.[1]),
    request,
    async prefill(ids) {
      const answer = await request('prefill', ids.length);
      return { ms: answer.ms[0], logit0: answer.logit0 };
    },
    async trace(ids, on) {
      return { ms: (await request(on ? 'trace' : 'prefill', ids.length)).ms[0] };
    },
    async decode(prompt) {
      const answer = await request('decode', prompt.length);
      return { ms: answer.ms[0], tokens: answer.generated };
    },
    dispose() {
      child.stdin.end();
    },
  };
}

// ------------------------------------------------------------------ measuring
// Runs `calls` (name -> async () => ms) interleaved: one warm-up each, then
// round after round, each round in a rotated order, until every call has its
// repetitions. Returns name -> [ms...].
async function interleaved(calls, reps) {
  const names = Object.keys(calls);
  const samples = Object.fromEntries(names.map((n) => [n, []]));
  for (const n of names) await calls[n](); // warm-up
  const rounds = Math.max(...names.map((n) => reps[n]));
  for (let r = 0; r < rounds; r += 1) {
    for (let i = 0; i < names.length; i += 1) {
      const n = names[(i + r) % names.length];
      if (samples[n].length < reps[n]) samples[n].push(await calls[n]());
    }
  }
  return samples;
}

async function benchPreset(preset, executables) {
  const memory = {};
  const manifest = JSON.parse(readFileSync(`${root}bench/models/${preset}.json`, 'utf8'));
  const simd = await ourRuntime('simd', preset, memory);
  const i = simd.info;
  const c = {
    D: i.hidden_size,
    L: i.num_hidden_layers,
    H: i.num_attention_heads,
    Hkv: i.num_key_value_heads,
    Dh: i.head_dim,
    F: i.intermediate_size,
    V: i.vocab_size,
  };
  for (const k of Object.keys(c))
    if (manifest.config[k] !== c[k])
      fail(`${preset}: the ONNX graphs have ${k} = ${manifest.config[k]}, our preset ${c[k]}; re-run bench/speed/make_onnx.py`);
  const simdF32 = await ourRuntime('simd', preset, memory, 'float32');
  const relaxed = RELAXED_AVAILABLE ? await ourRuntime('relaxed', preset, memory) : null;
  const scalar = await ourRuntime('scalar', preset, memory);
  const ort = await ortRuntime(preset, c, memory);
  const natives = [];
  for (const [name, executable] of Object.entries(executables)) natives.push(await nativeRuntime(name, executable, preset));
  const runtimes = [simd, simdF32, ...(relaxed ? [relaxed] : []), scalar, ort, ...natives];
  log(`${preset}: built (${runtimes.map((r) => `${r.name} ${Math.round(r.buildMs)} ms`).join(', ')})`);
  const reps = Object.fromEntries(runtimes.map((r) => [r.name, repsFor(r.name, preset)]));
  const result = { preset, config: c, params: i.parameters, memory, items: [], checks: [], build: {} };
  for (const r of runtimes) result.build[r.name] = r.buildMs;

  // Correctness first: the same logits from the same weights. The first
  // 256-token forward also gives the Wasm memory after a long forward.
  for (const T of PREFILL_LENGTHS) {
    const ids = benchIds(T, c.V);
    const logits = {};
    for (const r of runtimes) {
      const out = await r.prefill(ids);
      if (T === 256 && memory[r.name]) memory[r.name].forward256 = r.wasmBytes();
      logits[r.name] = out.logits ?? out.logit0;
    }
    const ours = logits['wasm-simd'];
    const check = {
      T,
      ortVsSimd: maxAbsDiff(ours, logits['ort-web']),
      scalarVsSimd: maxAbsDiff(ours, logits['wasm-scalar']),
      f32VsSimd: maxAbsDiff(ours, logits['wasm-simd-f32']),
      ...(relaxed ? { relaxedVsSimd: maxAbsDiff(ours, logits['wasm-relaxed']) } : {}),
      nativeVsSimd: Math.max(...natives.map((n) => Math.abs(logits[n.name] - ours[(T - 1) * c.V]))),
      logitScale: maxAbs(ours),
      selfPrediction: selfPrediction(ours, ids, c.V),
    };
    try {
      checkAgreement(preset, check);
    } catch (error) {
      fail(error.message);
    }
    result.checks.push(check);
  }

  for (const T of PREFILL_LENGTHS) {
    const ids = benchIds(T, c.V);
    const calls = Object.fromEntries(runtimes.map((r) => [r.name, async () => (await r.prefill(ids)).ms]));
    const samples = await interleaved(calls, reps);
    result.items.push({ work: 'prefill', T, flops: forwardFlops(c, T), tokens: T, stats: mapValues(samples, summary) });
    log(`${preset}: prefill ${T}: ${line(samples)}`);
  }

  const prompt = benchIds(DECODE.prompt, c.V);
  const generated = {};
  const decodeCalls = Object.fromEntries(
    runtimes.map((r) => [
      r.name,
      async () => {
        const { ms, tokens } = await r.decode(prompt);
        if (tokens.length < DECODE.steps || tokens.includes(2))
          fail(`${preset}: greedy decoding of ${r.name} reached the end-of-sequence token; pick another prompt`);
        generated[r.name] = tokens;
        return ms;
      },
    ]),
  );
  const decodeSamples = await interleaved(decodeCalls, reps);
  result.items.push({
    work: 'decode',
    T: DECODE.steps,
    flops: decodeFlops(c),
    tokens: DECODE.steps,
    stats: mapValues(decodeSamples, summary),
  });
  result.checks.push({ decodeTokens: generated });
  log(`${preset}: decode ${DECODE.steps} after ${DECODE.prompt}: ${line(decodeSamples)}`);

  // Trace overhead: the same forward with and without every stage traced,
  // interleaved with ONNX Runtime's forward of the same tokens as the baseline.
  const traceIds = benchIds(TRACE_TOKENS, c.V);
  const traced = [simd, natives.find((n) => n.name === 'native-sse')].filter(Boolean);
  const traceCalls = { 'ort-web': async () => (await ort.prefill(traceIds)).ms };
  for (const r of traced) {
    traceCalls[`${r.name} no trace`] = async () => (await r.trace(traceIds, false)).ms;
    traceCalls[`${r.name} trace`] = async () => (await r.trace(traceIds, true)).ms;
  }
  const traceSamples = await interleaved(
    traceCalls,
    mapValues(traceCalls, () => repsFor('wasm-simd', preset)),
  );
  result.items.push({
    work: 'trace',
    T: TRACE_TOKENS,
    flops: forwardFlops(c, TRACE_TOKENS),
    tokens: TRACE_TOKENS,
    stats: mapValues(traceSamples, summary),
  });
  log(`${preset}: trace ${TRACE_TOKENS}: ${line(traceSamples)}`);

  result.isa = Object.fromEntries(natives.map((n) => [n.name, n.isa]));
  for (const r of runtimes) await r.dispose();
  return result;
}

function mapValues(object, f) {
  return Object.fromEntries(Object.entries(object).map(([k, v]) => [k, f(v)]));
}

function line(samples) {
  return Object.entries(samples)
    .map(([n, ms]) => `${n} ${summary(ms).median.toFixed(1)} ms`)
    .join(', ');
}

async function matmulMicro(executables, wasmMicro) {
  const flavours = { ...executables };
  const calls = {};
  const results = {};
  for (const shape of MATMUL_SHAPES) {
    for (const [name, executable] of Object.entries(flavours)) calls[`${name} ${shape}`] = [executable, []];
    if (wasmMicro) calls[`wasm-simd ${shape}`] = ['node', [...WASM_OPTIMISED, wasmMicro]];
    if (wasmMicro && RELAXED_AVAILABLE)
      calls[`wasm-relaxed ${shape}`] = [
        'node',
        [...NODE_FLAGS, ...WASM_OPTIMISED, wasmMicro.replace(/native_bench\.js$/, 'native_bench_relaxed.js')],
      ];
  }
  // One process per call runs the repetitions (the first MATMUL_WARMUP of
  // them are dropped: caches, clock); the processes alternate, shape by
  // shape, three times.
  for (let round = 0; round < 3; round += 1) {
    for (const [key, [command, pre]] of Object.entries(calls)) {
      const shape = key.split(' ')[1];
      const out = execFileSync(
        command,
        [...pre, '--preset', 'lab-a', '--work', 'matmul', '--tokens', shape, '--reps', String(Math.ceil(baseReps / 3) + MATMUL_WARMUP)],
        {
          encoding: 'utf8',
          stdio: ['ignore', 'pipe', 'ignore'],
        },
      );
      const ms = JSON.parse(out.trim().split('\n').pop()).ms.slice(MATMUL_WARMUP);
      (results[key] ??= []).push(...ms);
    }
  }
  return Object.entries(results).map(([key, ms]) => {
    const [runtime, shape] = key.split(' ');
    const [M, K, N] = shape.replace(':f16', '').split('x').map(Number);
    return { runtime, shape, flops: 2 * M * K * N, stats: summary(ms) };
  });
}

// ------------------------------------------------------------------ main
function machine() {
  const cpuinfo = readFileSync('/proc/cpuinfo', 'utf8');
  const text = (command, commandArgs) => {
    try {
      return execFileSync(command, commandArgs, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })
        .split('\n')[0]
        .trim();
    } catch {
      return 'unknown';
    }
  };
  const flags = /^flags\s*:(.*)$/m.exec(cpuinfo)?.[1].split(/\s+/) ?? [];
  return {
    cpu: cpuModel(cpuinfo),
    cores: os.cpus().length,
    simd: ['sse4_2', 'avx', 'avx2', 'fma', 'avx512f'].filter((f) => flags.includes(f)).join(', '),
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    emscripten: /\b(\d+\.\d+\.\d+)\b/.exec(text('emcc', ['--version']))?.[1] ?? 'unknown',
    ortWeb: JSON.parse(readFileSync(`${root}node_modules/onnxruntime-web/package.json`, 'utf8')).version,
    cxx: text('c++', ['--version']),
    torch: runForward ? JSON.parse(readFileSync(`${root}bench/models/${presets[0]}.json`, 'utf8')).torch : undefined,
    date: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    command: ['npm run bench', ...(args.length ? ['--', ...args] : [])].join(' '),
    load: os.loadavg()[0].toFixed(1),
  };
}

// A fresh instance of our SIMD module (a distinct module URL) for one training
// run, so that its Wasm memory belongs to that run alone.
async function loadTrainingModule(label) {
  const { loadMiniMind } = await import('../js/minimind.mjs');
  instantiating = `train ${label}`;
  const mm = await loadMiniMind({
    variant: 'simd',
    moduleUrl: new URL(`../dist/wasm/minimind.mjs?train=${label}`, import.meta.url),
    wasmBinary: readFileSync(`${root}dist/wasm/minimind.wasm`),
  });
  return { mm, memory: () => memoryOf(`train ${label}`) };
}

async function training(executables, wasmMicro) {
  const python = '/usr/bin/python3';
  if (spawnSync(python, ['-c', 'import torch'], { encoding: 'utf8' }).status !== 0)
    fail(
      'the training anchor runs PyTorch, and /usr/bin/python3 cannot import torch.\n' +
        '  Install it: apt-get install python3-torch python3-numpy   (then run the bench again)',
    );
  log('training: wasm-simd, native, native-sse and pytorch-openblas, batch by batch');
  const trainExecutables = Object.fromEntries(
    Object.entries(NATIVE_FLAVOURS).map(([name, f]) => [name, `${root}${f.dir}/bench/native_train_bench`]),
  );
  try {
    return await benchTraining({
      root,
      log,
      python,
      executables,
      trainExecutables,
      wasmMicro,
      loadModule: loadTrainingModule,
      command: ['npm run bench', ...(args.length ? ['--', ...args] : [])].join(' '),
    });
  } catch (error) {
    fail(`training: ${error.message}`);
  }
}

// The Train panel's default run in headless Chromium (the site must be built).
async function pageTraining() {
  log('training in the page: the Train panel in headless Chromium, up to 5 minutes');
  try {
    const result = await measurePageTraining({ log });
    return { ...result, command: commandLine };
  } catch (error) {
    fail(`training in the page: ${error.message}`);
  }
}

async function main() {
  // The soak drives the built site (its own copy of the Wasm module), built here only if missing.
  if (only === 'soak') {
    mkdirSync(`${root}build/bench`, { recursive: true });
    if (!existsSync(`${root}dist/site/index.html`)) run('node', ['scripts/build_site.mjs'], 'building the site');
    const result = await runSoak({ log }).catch((error) => fail(`soak: ${error.message}`));
    writeFileSync(`${root}build/bench/soak-results.json`, `${JSON.stringify(result, null, 1)}\n`);
    replaceSection(outFile, SOAK_BEGIN, SOAK_END, soakSection(result));
    log(`wrote the "Soak" section of ${outFile.replace(root, '')} (raw: build/bench/soak-results.json)`);
    return;
  }
  ensureWasm();
  if (only === 'page-training') {
    mkdirSync(`${root}build/bench`, { recursive: true });
    log('building the site (node scripts/build_site.mjs)');
    run('node', ['scripts/build_site.mjs'], 'building the site');
    const result = await pageTraining();
    writeFileSync(`${root}build/bench/page-training-results.json`, `${JSON.stringify(result, null, 1)}\n`);
    writePageTrainingSection(result, outFile);
    log(`wrote the "Training in the page" section of ${outFile.replace(root, '')} (raw: build/bench/page-training-results.json)`);
    const runSeconds = option('--run-seconds', null);
    const runs = await measureRecipeRuns({ log, ...(runSeconds !== null ? { limitSeconds: Number(runSeconds) } : {}) });
    writeFileSync(`${root}build/bench/page-training-runs.json`, `${JSON.stringify(runs, null, 1)}\n`);
    writeRecipeRunsSection(recipeRunsSection(runs), outFile);
    log(`wrote "The Train panel's runs" in ${outFile.replace(root, '')} (raw: build/bench/page-training-runs.json)`);
    return;
  }
  if (only === 'heads') {
    ensureWasm();
    mkdirSync(`${root}build/bench`, { recursive: true });
    log(`head formation: the Train panel's runs (${RECIPE_IDS.join(', ')}) with seeds ${SEEDS.join(', ')}, 2 at a time`);
    const result = await measureHeadFormation({ log });
    writeFileSync(`${root}build/bench/heads-results.json`, `${JSON.stringify(result, null, 1)}\n`);
    replaceSection(outFile, HEADS_BEGIN, HEADS_END, headFormationSection(result));
    log(`wrote the "Head formation" section of ${outFile.replace(root, '')} (raw: build/bench/heads-results.json)`);
    return;
  }
  if (only === 'threads') {
    ensureOnnx();
    mkdirSync(`${root}build/bench`, { recursive: true });
    const result = measureThreads({ log });
    writeFileSync(`${root}build/bench/threads-results.json`, `${JSON.stringify(result, null, 1)}\n`);
    replaceSection(outFile, THREADS_BEGIN, THREADS_END, threadsSection(result));
    log(`wrote the "Threads" section of ${outFile.replace(root, '')} (raw: build/bench/threads-results.json)`);
    return;
  }
  if (only === 'interp') {
    ensureWasm();
    if (!existsSync(`${root}dist/wasm/minimind-threads.wasm`)) run('bash', ['scripts/build.sh', 'wasm-threads'], 'the threads build');
    mkdirSync(`${root}build/bench`, { recursive: true });
    const result = await measureInterp({ log });
    writeFileSync(`${root}build/bench/interp-results.json`, `${JSON.stringify(result, null, 1)}\n`);
    replaceSection(outFile, INTERP_BEGIN, INTERP_END, interpSection(result));
    log(`wrote the "Interpretability" section of ${outFile.replace(root, '')} (raw: build/bench/interp-results.json)`);
    return;
  }
  if (only === 'circuit') {
    ensureWasm();
    mkdirSync(`${root}build/bench`, { recursive: true });
    const result = await measureCircuit({ log });
    writeFileSync(`${root}build/bench/circuit-results.json`, `${JSON.stringify(result, null, 1)}\n`);
    replaceSection(outFile, CIRCUIT_BEGIN, CIRCUIT_END, circuitSection(result));
    log(`wrote the "The circuit" section of ${outFile.replace(root, '')} (raw: build/bench/circuit-results.json)`);
    return;
  }
  if (only === 'timeline') {
    ensureWasm();
    mkdirSync(`${root}build/bench`, { recursive: true });
    const result = await measureTimelineOverhead({ log });
    writeFileSync(`${root}build/bench/timeline-results.json`, `${JSON.stringify(result, null, 1)}\n`);
    replaceSection(outFile, TIMELINE_BEGIN, TIMELINE_END, timelineOverheadSection(result));
    log(`wrote the "The training timeline" section of ${outFile.replace(root, '')} (raw: build/bench/timeline-results.json)`);
    return;
  }
  if (only === 'scrub') {
    mkdirSync(`${root}build/bench`, { recursive: true });
    const result = await measureTimelineScrub({ log });
    writeFileSync(`${root}build/bench/scrub-results.json`, `${JSON.stringify(result, null, 1)}\n`);
    replaceSection(outFile, SCRUB_BEGIN, SCRUB_END, timelineScrubSection(result));
    log(`wrote the "Scrubbing the timeline" section of ${outFile.replace(root, '')} (raw: build/bench/scrub-results.json)`);
    return;
  }
  if (only === 'wllama') {
    ensureWasm();
    ensureOnnx();
    mkdirSync(`${root}build/bench`, { recursive: true });
    const result = await measureWllama({ log });
    writeFileSync(`${root}build/bench/wllama-results.json`, `${JSON.stringify(result, null, 1)}\n`);
    replaceSection(outFile, WLLAMA_BEGIN, WLLAMA_END, wllamaSection(result));
    log(`wrote the "llama.cpp in the browser" section of ${outFile.replace(root, '')} (raw: build/bench/wllama-results.json)`);
    return;
  }
  if (only === 'limits') {
    ensureWasm();
    ensureOnnx();
    buildBench('build/bench-sse', ['cmake', `-DCMAKE_CXX_FLAGS=${NATIVE_FLAVOURS['native-sse'].flags}`], 'native-sse', ['machine_limits']);
    buildBench('build/bench-wasm', ['emcmake', 'cmake'], 'Wasm SIMD128 and its relaxed twins', [
      'machine_limits',
      'native_bench',
      'machine_limits_relaxed',
      'native_bench_relaxed',
    ]);
    if (!existsSync(`${root}build/native/core/minimind-train`))
      run('bash', ['scripts/build.sh', 'native', 'minimind-train'], 'building minimind-train');
    mkdirSync(`${root}build/bench`, { recursive: true });
    const result = measureLimits({
      wasmLimits: `${root}build/bench-wasm/bench/machine_limits.js`,
      wasmBench: `${root}build/bench-wasm/bench/native_bench.js`,
      nativeLimits: `${root}build/bench-sse/bench/machine_limits`,
      wasmLimitsRelaxed: `${root}build/bench-wasm/bench/machine_limits_relaxed.js`,
      wasmBenchRelaxed: `${root}build/bench-wasm/bench/native_bench_relaxed.js`,
      log,
    });
    writeFileSync(`${root}build/bench/limits-results.json`, `${JSON.stringify(result, null, 1)}\n`);
    replaceSection(outFile, LIMITS_BEGIN, LIMITS_END, limitsSection(result, existingSection(outFile, LIMITS_BEGIN, LIMITS_END)));
    log(`wrote the "Limits" section of ${outFile.replace(root, '')} (raw: build/bench/limits-results.json)`);
    return;
  }
  if (runForward) ensureOnnx();
  ensureNative();
  const wasmMicro = ensureWasmMicro();
  const executables = Object.fromEntries(Object.entries(NATIVE_FLAVOURS).map(([name, f]) => [name, `${root}${f.dir}/bench/native_bench`]));
  mkdirSync(`${root}build/bench`, { recursive: true });
  if (only === 'train') {
    log(`training only, on ${os.cpus()[0]?.model} (${os.cpus().length} cores, load ${os.loadavg()[0].toFixed(1)})`);
    const train = await training(executables, wasmMicro);
    writeFileSync(`${root}build/bench/train-results.json`, `${JSON.stringify(train, null, 1)}\n`);
    writeTrainingSection(train, outFile);
    log(`wrote the Training section of ${outFile.replace(root, '')} (raw samples: build/bench/train-results.json)`);
    return;
  }
  const info = machine();
  log(`benchmarking ${presets.join(', ')} on ${info.cpu} (${info.cores} cores, load ${info.load})`);
  const results = [];
  for (const preset of presets) results.push(await benchPreset(preset, executables));
  log('matmul micro benchmark');
  const matmul = await matmulMicro(executables, wasmMicro);
  log('Wasm memory while loading an F16 checkpoint');
  const loading = [];
  for (const preset of presets.filter((p) => p !== 'lab-a')) loading.push(await measureLoadMemory(preset));
  log('the page in headless Chromium: load to first matrix, keystroke to painted matrix');
  run('node', ['scripts/build_site.mjs'], 'building the site');
  const page = await measurePageLatency({ presets: presets.filter((p) => p !== 'minimind-3'), runs: 5 });
  const train = runTraining ? await training(executables, wasmMicro) : undefined;
  const pageTrain = runPageTraining ? await pageTraining() : undefined;
  info.seconds = Math.round((Date.now() - started) / 1000);
  info.loadEnd = os.loadavg()[0].toFixed(1);
  const reps = Object.fromEntries(
    presets.map((p) => [
      p,
      Object.fromEntries(['wasm-simd', 'wasm-simd-f32', 'wasm-scalar', 'ort-web', 'native', 'native-sse'].map((r) => [r, repsFor(r, p)])),
    ]),
  );
  const data = {
    machine: info,
    reps,
    baseReps,
    results,
    matmul,
    loading,
    page,
    decode: DECODE,
    prefillLengths: PREFILL_LENGTHS,
    traceTokens: TRACE_TOKENS,
    training: train,
    pageTraining: pageTrain,
  };
  writeFileSync(`${root}build/bench/results.json`, `${JSON.stringify(data, null, 1)}\n`);
  // Kept: only --only heads, --only threads, --only wllama, --only limits and --only interp measure them.
  const heads = existingSection(outFile, HEADS_BEGIN, HEADS_END);
  const panelRuns = existingSection(outFile, RUNS_BEGIN, RUNS_END); // --only page-training measures them
  const search = existingSection(outFile, SEARCH_BEGIN, SEARCH_END); // bench/training/induction_search.mjs --write
  const threads = existingSection(outFile, THREADS_BEGIN, THREADS_END);
  const wllama = existingSection(outFile, WLLAMA_BEGIN, WLLAMA_END);
  const limits = existingSection(outFile, LIMITS_BEGIN, LIMITS_END);
  const interp = existingSection(outFile, INTERP_BEGIN, INTERP_END);
  const circuit = existingSection(outFile, CIRCUIT_BEGIN, CIRCUIT_END); // --only circuit measures it
  const soak = existingSection(outFile, SOAK_BEGIN, SOAK_END); // --only soak measures it
  const timeline = existingSection(outFile, TIMELINE_BEGIN, TIMELINE_END); // --only timeline measures it
  const scrub = existingSection(outFile, SCRUB_BEGIN, SCRUB_END); // --only scrub measures it
  writeReport(data, outFile, `${root}bench/speed/time_vs_length.svg`);
  if (heads) replaceSection(outFile, HEADS_BEGIN, HEADS_END, heads);
  if (search) replaceSection(outFile, SEARCH_BEGIN, SEARCH_END, search);
  if (panelRuns) writeRecipeRunsSection(panelRuns, outFile);
  if (threads) replaceSection(outFile, THREADS_BEGIN, THREADS_END, threads);
  if (wllama) replaceSection(outFile, WLLAMA_BEGIN, WLLAMA_END, wllama);
  if (limits) replaceSection(outFile, LIMITS_BEGIN, LIMITS_END, limits);
  if (interp) replaceSection(outFile, INTERP_BEGIN, INTERP_END, interp);
  if (circuit) replaceSection(outFile, CIRCUIT_BEGIN, CIRCUIT_END, circuit);
  if (soak) replaceSection(outFile, SOAK_BEGIN, SOAK_END, soak);
  if (timeline) replaceSection(outFile, TIMELINE_BEGIN, TIMELINE_END, timeline);
  if (scrub) replaceSection(outFile, SCRUB_BEGIN, SCRUB_END, scrub);
  log(`wrote ${outFile.replace(root, '')} and bench/speed/time_vs_length.svg (raw samples: build/bench/results.json)`);
}

await main();
// Every run rewrites part of the file (a full run all of it): the summary at its top is read back from the sections.
// A section it cannot read is reported, not fatal: the measurements are written already.
try {
  writeSummary(outFile);
  log(`wrote the summary at the top of ${outFile.replace(root, '')} (node bench/summary.mjs rebuilds it alone)`);
} catch (error) {
  log(`the summary at the top of ${outFile.replace(root, '')} is not rewritten: ${error.message}`);
}
