// The training part of npm run bench (node bench/run.mjs --only train runs it
// alone): MiniMind's pretraining loop, batch after batch, in four runtimes on
// the same model, initial weights, data and batch shapes, interleaved batch by
// batch; the matrix products of a training step (forward against backward);
// and the memory of each training run.
//
//   wasm-simd          our module through the JS API in Node, one thread: model.trainer()
//   native             the core's Trainer, -O3 -march=native (bench/training/native_train_bench.cpp)
//   native-sse         the same, -O3 -msse4.2 -mno-avx
//   pytorch-openblas   bench/training/torch_train.py: Debian's torch on one thread, on OpenBLAS
import { spawn, spawnSync, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { createInterface } from 'node:readline';

import { cpuModel } from '../cpu_model.mjs';

// MiniMind's recipe (trainer/train_pretrain.py defaults) except accumulation 1,
// so that every batch is a whole optimizer step.
const TRAIN_RECIPE = { batchSize: 32, learningRate: 5e-4, accumulationSteps: 1, gradClip: 1.0, epochs: 1, order: 'file' };
const MODEL_SEED = 0; // the core's seeded random weights (all runtimes start from them)
const MODEL_INIT = 'minimind'; // at MiniMind's from-scratch scale: the first loss is near ln V
const DATA_SEED = 1234; // the random token ids
// Generation 3, tied embeddings, vocab 6400. intermediate_size is left out, so
// that the core computes MiniMind's default, ceil(hidden·π/64)·64: 256 for
// hidden 64, 448 for hidden 128.
const TRAIN_CONFIGS = [
  {
    name: 'lab-a-train',
    note: "lab-a's shapes with MiniMind's vocabulary",
    config: { hidden_size: 64, num_hidden_layers: 2, num_attention_heads: 4, num_key_value_heads: 2, head_dim: 16, vocab_size: 6400 },
    runs: [{ T: 64, warmup: 3, timed: 12 }],
  },
  {
    name: 'h128-l4',
    note: 'hidden 128 × 4 layers',
    config: { hidden_size: 128, num_hidden_layers: 4, num_attention_heads: 4, num_key_value_heads: 2, head_dim: 32, vocab_size: 6400 },
    runs: [
      { T: 64, warmup: 3, timed: 10 },
      { T: 256, warmup: 2, timed: 5 },
    ],
  },
];
const TRAIN_BASELINE = 'pytorch-openblas';
const TRAIN_TARGETS = { 'wasm-simd': 0.5, native: 1.0 }; // × pytorch-openblas tokens/s
const BACKWARD_TARGET = 0.8; // Wasm: backward GFLOP/s / forward GFLOP/s
const MATMUL_WARMUP = 3; // repetitions dropped at the start of each micro-benchmark process
const MATMUL_REPS = 4; // kept per process; three processes per runtime
// The linear layers of one h128-l4 training batch (32 × 64 tokens): x [N, in]
// against W [out, in], and how many such products a batch has.
const N = TRAIN_RECIPE.batchSize * 64;
const TRAIN_MATMUL = {
  config: 'h128-l4',
  T: 64,
  shapes: [
    { shape: `${N}x128x128`, what: 'q_proj, o_proj', count: 2 * 4 },
    { shape: `${N}x128x64`, what: 'k_proj, v_proj', count: 2 * 4 },
    { shape: `${N}x128x448`, what: 'gate_proj, up_proj', count: 2 * 4 },
    { shape: `${N}x448x128`, what: 'down_proj', count: 4 },
    // The trainer runs the head and the loss on whole sequences, about 256 rows at a time.
    { shape: '256x128x6400', what: 'lm_head (4 sequences of 64 at a time)', count: TRAIN_RECIPE.batchSize / 4 },
  ],
};

export function summary(ms) {
  const sorted = [...ms].sort((a, b) => a - b);
  const at = (q) => {
    const x = q * (sorted.length - 1);
    const lo = Math.floor(x);
    return sorted[lo] + (sorted[Math.min(lo + 1, sorted.length - 1)] - sorted[lo]) * (x - lo);
  };
  return { median: at(0.5), p25: at(0.25), p75: at(0.75), runs: ms.length, samples: ms };
}

// A fixed stream of ids in [3, V): SplitMix32-style mixing of a counter, each
// draw u in [0, 1) turned into rank ⌊(V − 3)^u⌋ (p ∝ 1/rank, Zipf-like, as
// words in text), so that there is something to learn and the loss falls.
function randomIds(count, vocab, seed) {
  const out = new Array(count);
  let state = seed >>> 0;
  for (let i = 0; i < count; i += 1) {
    state = (state + 0x9e3779b9) >>> 0;
    let z = state;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    z = (z ^ (z >>> 16)) >>> 0;
    const rank = Math.min(vocab - 3, Math.floor(Math.exp((z / 2 ** 32) * Math.log(vocab - 3)))); // 1 .. V − 3
    out[i] = 2 + rank;
  }
  return out;
}

// MiniMind pretraining JSONL: one {"ids": [...]} per sample, each exactly T ids.
function trainingData(samples, T, vocab) {
  const ids = randomIds(samples * T, vocab, DATA_SEED + T);
  const lines = [];
  for (let s = 0; s < samples; s += 1) lines.push(JSON.stringify({ ids: ids.slice(s * T, (s + 1) * T) }));
  return `${lines.join('\n')}\n`;
}

// ------------------------------------------------------------------ OpenBLAS
// Debian's torch is linked against libblas.so.3, by default the reference
// BLAS. OpenBLAS is unpacked from Debian's package into build/openblas (no
// system change) and put first on LD_LIBRARY_PATH for the PyTorch process.
function ensureOpenBlas(root, log) {
  const dir = `${root}build/openblas`;
  const find = () => {
    if (!existsSync(`${dir}/usr`)) return null;
    for (const entry of readdirSync(`${dir}/usr`, { withFileTypes: true, recursive: true })) {
      const parent = entry.path ?? entry.parentPath;
      if (entry.name === 'libblas.so.3' && parent.endsWith('openblas-pthread')) return parent;
    }
    return null;
  };
  let lib = find();
  if (lib) return lib;
  log('unpacking OpenBLAS for PyTorch: apt-get download libopenblas0-pthread into build/openblas');
  mkdirSync(dir, { recursive: true });
  const download = spawnSync('apt-get', ['download', 'libopenblas0-pthread'], { cwd: dir, encoding: 'utf8' });
  const deb = readdirSync(dir).find((f) => /^libopenblas0-pthread_.*\.deb$/.test(f));
  if (!deb)
    throw new Error(
      `apt-get download libopenblas0-pthread failed (${(download.stderr ?? download.error?.message ?? '').trim()}); ` +
        'PyTorch would run on the reference BLAS, which is no fair anchor',
    );
  execFileSync('dpkg', ['-x', deb, '.'], { cwd: dir });
  lib = find();
  if (!lib) throw new Error(`${deb} holds no openblas-pthread/libblas.so.3`);
  return lib;
}

// ------------------------------------------------------------------ line servers
// A child process answering one JSON line per request line.
async function lineServer(name, command, commandArgs, { env, ready }) {
  const child = spawn(command, commandArgs, { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  const lines = createInterface({ input: child.stdout });
  const waiting = [];
  let stderr = '';
  lines.on('line', (line) => waiting.shift()?.resolve(line));
  await new Promise((resolve, reject) => {
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
      if (ready.test(stderr)) resolve();
    });
    child.on('exit', (code) => {
      const error = new Error(`${name} exited with ${code}: ${stderr.trim().split('\n').slice(-20).join('\n')}`);
      reject(error);
      for (const w of waiting.splice(0)) w.reject(error);
    });
  });
  return {
    name,
    request(line) {
      return new Promise((resolve, reject) => {
        waiting.push({
          resolve: (text) => {
            const answer = JSON.parse(text);
            if (answer.error) reject(new Error(`${name}: ${answer.error}`));
            else resolve(answer);
          },
          reject,
        });
        child.stdin.write(`${line}\n`);
      });
    },
    close() {
      child.stdin.end();
      return new Promise((resolve) => (child.exitCode === null ? child.on('exit', resolve) : resolve()));
    },
  };
}

// ------------------------------------------------------------------ one run
// One config at one sequence length: every runtime trains the same model on the
// same batches, one batch each in turn (rotated order), so that load from
// outside hits them alike and no two run at the same time.
async function trainRun(spec, run, env) {
  const { root, loadModule, log, files } = env;
  const B = TRAIN_RECIPE.batchSize;
  const batches = run.warmup + run.timed;
  const tag = `${spec.name}-T${run.T}`;
  const { mm, memory: wasmMemory } = await loadModule(tag);
  const bytesEmpty = wasmMemory()?.buffer.byteLength;
  const model = mm.createModel({ config: spec.config, seed: MODEL_SEED, init: MODEL_INIT });
  const info = model.info();
  const configJson = model.configJson();
  const data = trainingData(batches * B, run.T, info.vocab_size);
  const base = `${files}/${tag}`;
  writeFileSync(`${base}.config.json`, configJson);
  writeFileSync(`${base}.jsonl`, data);
  writeFileSync(`${base}.safetensors`, model.safetensors({ dtype: 'F32' }));
  const bytesModel = wasmMemory()?.buffer.byteLength;
  const trainer = model.trainer({ data, maxSeqLen: run.T, seed: 0, ...TRAIN_RECIPE });

  const runtimes = {
    'wasm-simd': {
      async step() {
        const t = performance.now();
        const s = trainer.step();
        const ms = performance.now() - t;
        return { loss: s.loss, lr: s.lr, gradNorm: s.gradNorm, tokens: s.tokens, ms, innerMs: s.ms };
      },
      async memory() {
        return { ...trainer.info().memory, wasmMemory: wasmMemory()?.buffer.byteLength };
      },
      close() {
        trainer.dispose();
        model.dispose();
      },
    },
  };
  const common = ['--config', `${base}.config.json`, '--data', `${base}.jsonl`, '--seq', String(run.T), '--batch', String(B)];
  const recipe = ['--lr', String(TRAIN_RECIPE.learningRate), '--clip', String(TRAIN_RECIPE.gradClip)];
  recipe.push('--accumulation', String(TRAIN_RECIPE.accumulationSteps));
  for (const [name, executable] of Object.entries(env.trainExecutables)) {
    const server = await lineServer(name, executable, [...common, ...recipe, '--seed', String(MODEL_SEED), '--init', MODEL_INIT], {
      ready: /ready in/,
    });
    runtimes[name] = { step: () => server.request('step'), memory: () => server.request('memory'), close: () => server.close() };
  }
  const torch = await lineServer(
    TRAIN_BASELINE,
    env.python,
    [`${root}bench/training/torch_train.py`, ...common, ...recipe, '--weights', `${base}.safetensors`],
    { ready: /samples ready/, env: env.torchEnv },
  );
  const blas = await torch.request('check');
  if (!blas.blas.some((l) => /openblas/i.test(l)))
    throw new Error(`PyTorch is not running on OpenBLAS (loaded: ${blas.blas.join(', ') || 'none'}); no fair anchor`);
  runtimes[TRAIN_BASELINE] = { step: () => torch.request('step'), memory: () => torch.request('memory'), close: () => torch.close() };

  const names = Object.keys(runtimes);
  const steps = Object.fromEntries(names.map((n) => [n, []]));
  for (let b = 0; b < batches; b += 1) {
    for (let i = 0; i < names.length; i += 1) {
      const n = names[(i + b) % names.length];
      steps[n].push(await runtimes[n].step());
    }
  }
  const memory = {};
  for (const n of names) memory[n] = await runtimes[n].memory();
  memory['wasm-simd'].wasmEmpty = bytesEmpty;
  memory['wasm-simd'].wasmModel = bytesModel;
  for (const n of names) await runtimes[n].close();

  const stats = {};
  for (const n of names) stats[n] = summary(steps[n].slice(run.warmup).map((s) => s.ms));
  const tokensPerBatch = B * run.T;
  const result = {
    config: spec.name,
    T: run.T,
    B,
    warmup: run.warmup,
    timed: run.timed,
    tokensPerBatch,
    labelledPerBatch: steps['wasm-simd'][0].tokens,
    steps,
    stats,
    memory,
    blas,
  };
  const line = names
    .map(
      (n) =>
        `${n} ${((tokensPerBatch / stats[n].median) * 1000).toFixed(0)} tok/s (loss ${steps[n][0].loss.toFixed(6)} -> ${steps[n].at(-1).loss.toFixed(4)})`,
    )
    .join(', ');
  log(`train ${tag}: ${line}`);
  const first = steps[TRAIN_BASELINE][0].loss;
  const firstDiff = Math.max(...names.map((n) => Math.abs(steps[n][0].loss - first)));
  log(
    `train ${tag}: first-batch losses differ by at most ${firstDiff.toExponential(1)} (${(firstDiff / first).toExponential(1)} relative)`,
  );
  for (const n of names) if (!(steps[n].at(-1).loss < steps[n][0].loss)) log(`train ${tag}: WARNING: the loss of ${n} did not fall`);
  return { result, info };
}

// ------------------------------------------------------------------ matrix products
// native_bench --work backward on the h128-l4 shapes: forward (x·Wᵀ), dx, dW and
// the whole linear_backward, in each native build and in Wasm (node).
function trainMatmul(executables, wasmMicro) {
  const calls = Object.fromEntries(Object.entries(executables).map(([name, exe]) => [name, [exe, []]]));
  if (wasmMicro) calls['wasm-simd'] = ['node', [wasmMicro]];
  const samples = {};
  const tokens = TRAIN_MATMUL.shapes.map((s) => s.shape).join(',');
  for (let round = 0; round < 3; round += 1) {
    for (const [runtime, [command, pre]] of Object.entries(calls)) {
      const out = execFileSync(
        command,
        [...pre, '--preset', 'lab-a', '--work', 'backward', '--tokens', tokens, '--reps', String(MATMUL_WARMUP + MATMUL_REPS)],
        { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] },
      );
      for (const line of out.trim().split('\n')) {
        const answer = JSON.parse(line);
        const entry = (samples[`${runtime} ${answer.tokens}`] ??= { forward: [], backward: [], dx: [], dw: [] });
        entry.forward.push(...answer.forward.slice(MATMUL_WARMUP));
        entry.backward.push(...answer.ms.slice(MATMUL_WARMUP));
        entry.dx.push(...answer.dx.slice(MATMUL_WARMUP));
        entry.dw.push(...answer.dw.slice(MATMUL_WARMUP));
      }
    }
  }
  return Object.entries(samples).map(([key, ms]) => {
    const [runtime, shape] = key.split(' ');
    const [rows, inner, outer] = shape.split('x').map(Number);
    return {
      runtime,
      shape,
      flops: 2 * rows * inner * outer, // one product; the backward has two
      forward: summary(ms.forward),
      backward: summary(ms.backward),
      dx: summary(ms.dx),
      dw: summary(ms.dw),
    };
  });
}

// ------------------------------------------------------------------ all of it
export async function benchTraining(env) {
  const { root, log } = env;
  const started = Date.now();
  env.files = `${root}build/bench/train`;
  mkdirSync(env.files, { recursive: true });
  const libDir = ensureOpenBlas(root, log);
  env.torchEnv = {
    LD_LIBRARY_PATH: [libDir, process.env.LD_LIBRARY_PATH].filter(Boolean).join(':'),
    OPENBLAS_NUM_THREADS: '1',
    OMP_NUM_THREADS: '1',
    MKL_NUM_THREADS: '1',
  };
  // PyTorch's BLAS: the same matmul on OpenBLAS and on the system's default
  // libblas.so.3 (Debian's reference BLAS unless the alternative was switched).
  const check = (extra) =>
    JSON.parse(
      execFileSync(env.python, [`${root}bench/training/torch_train.py`, '--check'], {
        encoding: 'utf8',
        env: { ...process.env, OPENBLAS_NUM_THREADS: '1', OMP_NUM_THREADS: '1', ...extra },
      })
        .trim()
        .split('\n')
        .pop(),
    );
  const blasCheck = { openblas: check(env.torchEnv), systemDefault: check({}) };
  if (!blasCheck.openblas.blas.some((l) => /openblas/i.test(l)))
    throw new Error(`PyTorch does not load OpenBLAS from ${libDir} (loaded: ${blasCheck.openblas.blas.join(', ')})`);
  log(
    `training: PyTorch ${blasCheck.openblas.torch}, [2048×128]·[128×6400] matmul at ${blasCheck.openblas.gflops.toFixed(1)} GFLOP/s on ` +
      `${blasCheck.openblas.blas[0]}, ${blasCheck.systemDefault.gflops.toFixed(1)} on the system default (${blasCheck.systemDefault.blas.join(', ')})`,
  );
  const cpus = os.cpus();
  const training = {
    machine: {
      cpu: cpuModel(),
      cores: cpus.length,
      date: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
      load: os.loadavg()[0].toFixed(1),
      command: env.command,
      isa: {},
    },
    recipe: TRAIN_RECIPE,
    modelSeed: MODEL_SEED,
    modelInit: MODEL_INIT,
    dataSeed: DATA_SEED,
    blasCheck,
    targets: TRAIN_TARGETS,
    backwardTarget: BACKWARD_TARGET,
    configs: [],
    runs: [],
  };
  for (const spec of TRAIN_CONFIGS) {
    let entry;
    for (const run of spec.runs) {
      const { result, info } = await trainRun(spec, run, env);
      training.runs.push(result);
      for (const n of Object.keys(env.trainExecutables))
        training.machine.isa[n] = `${result.steps[n][0].isa}, ${result.steps[n][0].kernel} matrix kernel`;
      entry ??= {
        name: spec.name,
        note: spec.note,
        params: info.parameters,
        config: {
          D: info.hidden_size,
          L: info.num_hidden_layers,
          H: info.num_attention_heads,
          Hkv: info.num_key_value_heads,
          Dh: info.head_dim,
          F: info.intermediate_size,
          V: info.vocab_size,
        },
      };
    }
    training.configs.push(entry);
  }
  log('training: matrix products of an h128-l4 batch, forward against backward');
  training.matmul = trainMatmul(env.executables, env.wasmMicro);
  training.matmulShapes = TRAIN_MATMUL;
  training.seconds = Math.round((Date.now() - started) / 1000);
  training.machine.loadEnd = os.loadavg()[0].toFixed(1);
  return training;
}
