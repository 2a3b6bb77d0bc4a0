// Limits: how close the forward passes and training run to what one core (and
// two) of this machine can do at the module's width, measured side by side in
// one run (npm run bench -- --only limits writes the "Limits" section of
// BENCHMARKS.md).
//
// The machine (bench/limits/machine_limits.cpp, in Wasm under Node and natively with
// 128-bit SSE, the width Wasm SIMD has): the matrix kernel's tile on data in
// L1 (arithmetic, GFLOP/s, multiply and add apart: Wasm SIMD has no FMA),
// re-reading arrays of each decode step's weight bytes (stream, GB/s), the
// float16 widening and multiply-add on weights in L1 and on each float16
// decode step's weight bytes re-read from memory (G weights/s), and the
// native build's arithmetic and stream on 2 threads at once. Where Node runs
// relaxed SIMD, the same Wasm measurements with fused multiply-adds
// (machine_limits_relaxed: f32x4.relaxed_madd, as the relaxed build's weight
// products) beside them.
// The work (bench/speed/threads.mjs's child processes, 1 thread each, seeded weights):
// prefill of 64 and 256 tokens and decode per step for minimind2-small and
// minimind-3 in ONNX Runtime Web and ours (float16 and float32 weights), and
// the native trainer on 1 and 2 threads; with relaxed SIMD also the relaxed
// build against the SIMD build (float16 weights, the two side by side in one
// process, bench/speed/threads.mjs childPair), its largest prefill product, and the
// Train panel's two runs' training speed in both builds, side by side too
// (bench/training/recipe_speed.mjs). ROUNDS rounds, interleaved; medians.
//
// What follows from them, per piece of work: a prefill's FLOPs at the tile's
// rate give the fastest it could run if nothing but the products took time;
// a decode step's weight bytes at the stream rate (and, for float16, its
// weights at the widening rates, in L1 and from memory) give the fastest a
// step can run. Dividing ONNX Runtime Web's measured time by that floor gives
// the largest speed-up over it that any kernel of this width could show.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';

import { runHeader } from '../cpu_model.mjs';
import { forwardFlops, matrixWeights } from '../speed/flops.mjs';
import { median, medianFields } from '../median.mjs';
import { recipeSpeed } from '../training/recipe_speed.mjs';
import { NODE_FLAGS, RELAXED_AVAILABLE } from '../relaxed_simd.mjs';
import { WASM_OPTIMISED } from '../wasm_optimised.mjs';
import { child, nativeTrain } from '../speed/threads.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const ROUNDS = 3;
const PRESETS = ['minimind2-small', 'minimind-3'];
const GOAL = 1.43; // × ONNX Runtime Web at 1 thread, every row
const F16_GOAL = 1.6; // float16 decode against float32 decode
const THREADS_GOAL = 1.7; // 2 threads against 1
const FUSED_TRAIN_GOAL = 1.4; // the relaxed build's training tokens/s against the SIMD build's, 1 thread
const RECIPES = ['default', 'induction']; // the Train panel's runs (js/train_recipes.mjs)
const MiB = 2 ** 20;

const presetConfig = (preset) => JSON.parse(readFileSync(`${root}bench/models/${preset}.json`, 'utf8')).config;

function machineLimits(command, args) {
  const out = execFileSync(command[0], [...command.slice(1), ...args], { encoding: 'utf8', maxBuffer: 1 << 20 });
  return JSON.parse(out.trim().split('\n').at(-1));
}

// The first repetition warms the core up (clock, caches); the rest's median.
const settled = (list) => median(list.length > 1 ? list.slice(1) : list);

// {key: [rate per rep]} -> {key: settled rate}.
const settledEach = (lists = {}) => Object.fromEntries(Object.entries(lists).map(([key, list]) => [key, settled(list)]));

function summarise(raw) {
  return {
    isa: raw.isa,
    fused: raw.fused === true,
    threads: raw.threads,
    arithmetic: settled(raw.arithmetic),
    tiles: settledEach(raw.tiles),
    widen16: settled(raw.widen16),
    widen16Stream: settledEach(raw.widen16Stream),
    stream: settledEach(raw.stream),
  };
}

// build/bench-wasm's native_bench.js (optimised Wasm; its relaxed twin with
// NODE_FLAGS) with `args`: the repetitions' ms after the first `warmup`.
function wasmBenchMs(wasmBench, args, warmup) {
  const out = execFileSync(process.execPath, [...NODE_FLAGS, ...WASM_OPTIMISED, wasmBench, ...args], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  return JSON.parse(out.trim().split('\n').at(-1)).ms.slice(warmup);
}

// The prefill's largest product alone (SwiGLU's gate or up: T·D·F, float16
// weights) in the same Wasm build as machine_limits: how near the tile's rate
// the products run when nothing else does.
function productRate(wasmBench, c, T) {
  const ms = wasmBenchMs(wasmBench, ['--work', 'matmul', '--tokens', `${T}x${c.D}x${c.F}:f16`, '--reps', '10'], 3);
  return { gflops: (2 * T * c.D * c.F) / median(ms) / 1e6 };
}

// A decode step's 1-row products alone (native_bench's "products": every
// matrix of the step in its order, 8 steps a repetition) on the preset's
// seeded weights, kept as float16 ('narrowest') or float32, in the same Wasm
// build: ms per step. What the step costs beyond them is its other work.
function stepProducts(wasmBench, preset, storage) {
  const args = ['--preset', preset, '--init', 'minimind', '--storage', storage, '--work', 'products', '--tokens', '8', '--reps', '6'];
  return { ms: median(wasmBenchMs(wasmBench, args, 1)) };
}

/**
 * Runs every measurement ROUNDS times, interleaved. `wasmLimits` and
 * `nativeLimits` are the machine_limits executables (build/bench-wasm's .js,
 * run by node, and build/bench-sse's), `wasmBench` build/bench-wasm's
 * native_bench.js; `wasmLimitsRelaxed` and `wasmBenchRelaxed` their relaxed
 * twins (optional: without them, or without relaxed SIMD in Node, the fused
 * measurements are left out). Returns raw samples and medians.
 */
export function measureLimits({ wasmLimits, wasmBench, nativeLimits, wasmLimitsRelaxed, wasmBenchRelaxed, log = console.log }) {
  const relaxed = Boolean(wasmLimitsRelaxed && wasmBenchRelaxed && RELAXED_AVAILABLE);
  const started = new Date();
  const load0 = os.loadavg()[0];
  // Stream sizes: each preset's weight bytes per decode step, float32 and float16.
  const configs = Object.fromEntries(PRESETS.map((p) => [p, presetConfig(p)]));
  const sizes = new Set();
  const halfSizes = new Set(); // float16 bytes, for the widening from memory
  for (const preset of PRESETS) {
    const w = matrixWeights(configs[preset]);
    sizes.add(Math.round((4 * w) / MiB));
    sizes.add(Math.round((2 * w) / MiB));
    halfSizes.add(Math.round((2 * w) / MiB));
  }
  const list = (set) => [...set].sort((a, b) => a - b).join(',');
  const streamArg = ['--stream-mib', list(sizes), '--widen-mib', list(halfSizes)];
  const jobs = [
    { key: 'machine-wasm', run: () => machineLimits([process.execPath, ...WASM_OPTIMISED, wasmLimits], ['--reps', '4', ...streamArg]) },
    { key: 'machine-sse-1', run: () => machineLimits([nativeLimits], ['--reps', '4', ...streamArg]) },
    { key: 'machine-sse-2', run: () => machineLimits([nativeLimits], ['--reps', '4', '--threads', '2', ...streamArg]) },
  ];
  if (relaxed)
    jobs.push({
      key: 'machine-wasm-relaxed',
      run: () => machineLimits([process.execPath, ...NODE_FLAGS, ...WASM_OPTIMISED, wasmLimitsRelaxed], ['--reps', '4', ...streamArg]),
    });
  for (const preset of PRESETS) {
    for (const T of [64, 256]) jobs.push({ key: `product${T}:${preset}`, run: () => productRate(wasmBench, configs[preset], T) });
    jobs.push({ key: `ort:${preset}`, run: () => child(['ort', preset, '1']) });
    jobs.push({ key: `f16:${preset}`, run: () => child(['ours', preset, '1', 'narrowest']) });
    jobs.push({ key: `f32:${preset}`, run: () => child(['ours', preset, '1', 'float32']) });
    jobs.push({ key: `products16:${preset}`, run: () => stepProducts(wasmBench, preset, 'narrowest') });
    jobs.push({ key: `products32:${preset}`, run: () => stepProducts(wasmBench, preset, 'float32') });
    if (!relaxed) continue;
    for (const T of [64, 256])
      jobs.push({ key: `product${T}-relaxed:${preset}`, run: () => productRate(wasmBenchRelaxed, configs[preset], T) });
    // The SIMD and relaxed builds side by side in one process (bench/speed/threads.mjs childPair).
    jobs.push({ key: `pair:${preset}`, run: () => child(['pair', preset]) });
  }
  if (relaxed) for (const id of RECIPES) jobs.push({ key: `recipe:${id}`, run: () => recipeSpeed(id) });
  jobs.push({ key: 'train-native-1', run: () => nativeTrain(1) });
  jobs.push({ key: 'train-native-2', run: () => nativeTrain(2) });
  const samples = {};
  for (let round = 0; round < ROUNDS; round += 1) {
    // Rotated, so that load from outside falls on every job alike.
    for (let j = 0; j < jobs.length; j += 1) {
      const job = jobs[(j + round * 3) % jobs.length];
      const result = job.key.startsWith('machine') ? summarise(job.run()) : job.run();
      (samples[job.key] ??= []).push(result);
      log(`limits: round ${round + 1}/${ROUNDS} ${job.key} ${JSON.stringify(result)}`);
    }
  }
  return {
    ...runHeader(started, load0),
    rounds: ROUNDS,
    configs,
    samples,
    medians: medianFields(samples),
  };
}

/** The fastest register tile measured ({shape, gflops}); the kernel's 4x8 when no others were. */
export function bestTile(machine) {
  const shapes = Object.entries(machine.tiles ?? {});
  if (shapes.length === 0) return { shape: '4x8', gflops: machine.arithmetic };
  const [shape, gflops] = shapes.reduce((a, b) => (b[1] > a[1] ? b : a));
  return { shape, gflops };
}

/** The nearest measured size to `bytes` in a {MiB: rate} map: its rate (undefined when none was measured). */
function rateAt(bySize, bytes) {
  const sizes = Object.keys(bySize ?? {}).map(Number);
  if (sizes.length === 0) return undefined;
  const nearest = sizes.reduce((a, b) => (Math.abs(b * MiB - bytes) < Math.abs(a * MiB - bytes) ? b : a));
  return bySize[String(nearest)];
}

/**
 * For each piece of work: our times, ONNX Runtime Web's, and the floor the
 * machine sets (ms), so that the largest reachable speed-up is ort / floor.
 */
export function limitRows(r) {
  const m = r.medians;
  const wasm = m['machine-wasm'];
  const tile = bestTile(wasm);
  // The relaxed build's floor: the faster of the fused and the unfused tiles (it could use either).
  const fused = m['machine-wasm-relaxed'];
  const relaxedRate = fused ? Math.max(tile.gflops, bestTile(fused).gflops) : undefined;
  const rows = [];
  for (const preset of PRESETS) {
    const c = r.configs[preset];
    const weights = matrixWeights(c);
    for (const T of [64, 256]) {
      const flops = forwardFlops(c, T);
      const floor = (flops / (tile.gflops * 1e9)) * 1e3;
      rows.push({
        preset,
        work: `prefill ${T}`,
        ort: m[`ort:${preset}`][`prefill${T}`],
        f16: m[`f16:${preset}`][`prefill${T}`],
        f32: m[`f32:${preset}`][`prefill${T}`],
        floor16: floor,
        floor32: floor,
        bound: 'arithmetic',
        flops,
        product: m[`product${T}:${preset}`].gflops,
        // The relaxed build (absent where it was not measured).
        relaxed16: m[`pair:${preset}`]?.relaxed[`prefill${T}`],
        simdPaired: m[`pair:${preset}`]?.simd[`prefill${T}`],
        pairedRatio: m[`pair:${preset}`]?.ratio[`prefill${T}`],
        relaxedRate,
        floorRelaxed: relaxedRate ? (flops / (relaxedRate * 1e9)) * 1e3 : undefined,
        productRelaxed: m[`product${T}-relaxed:${preset}`]?.gflops,
      });
    }
    const bytes32 = 4 * weights;
    const bytes16 = 2 * weights;
    const floor32 = (bytes32 / (rateAt(wasm.stream, bytes32) * 1e9)) * 1e3;
    const memory16 = (bytes16 / (rateAt(wasm.stream, bytes16) * 1e9)) * 1e3;
    const widen16 = (weights / (wasm.widen16 * 1e9)) * 1e3;
    // Widening the step's weights while streaming them (0 when not measured).
    const streamedRate = rateAt(wasm.widen16Stream, bytes16);
    const widenStream16 = streamedRate ? (weights / (streamedRate * 1e9)) * 1e3 : 0;
    const bounds = [
      ['memory', memory16],
      ['widening', widen16],
      ['widening from memory', widenStream16],
    ];
    const [bound, floor16] = bounds.reduce((a, b) => (b[1] > a[1] ? b : a));
    rows.push({
      preset,
      work: 'decode, per step',
      ort: m[`ort:${preset}`].decode,
      f16: m[`f16:${preset}`].decode,
      f32: m[`f32:${preset}`].decode,
      floor16,
      floor32,
      bound,
      bytes32,
      bytes16,
      memory16,
      widen16,
      widenStream16,
      // The step's 1-row products alone (absent in older results).
      products16: m[`products16:${preset}`]?.ms,
      products32: m[`products32:${preset}`]?.ms,
      relaxed16: m[`pair:${preset}`]?.relaxed.decode,
      simdPaired: m[`pair:${preset}`]?.simd.decode,
      pairedRatio: m[`pair:${preset}`]?.ratio.decode,
    });
  }
  return rows;
}

export const LIMITS_BEGIN = '<!-- limits:';
export const LIMITS_END = '<!-- /limits -->';

const fmt = (ms) => (ms >= 100 ? ms.toFixed(0) : ms >= 10 ? ms.toFixed(1) : ms.toFixed(2));
const x = (v) => `${v.toFixed(2)}×`;

const pct = (share) => `${(share * 100).toFixed(0)}%`;

/**
 * Amdahl's law for the native trainer from its tokens/s on 1 and 2 threads and
 * the share of the 2-thread run split across threads (minimind-train reports
 * it): per token, the 2-thread time T2 is the unsplit work S plus the split
 * work P2; the same unsplit work takes S on 1 thread, so the split work took
 * P1 = T1 - S there. Returns S's share of T1 and of T2, how much faster the
 * split work ran (P1 / P2), and the speed-up T1 / (S + P1 / k) for the split
 * work at the machine's own 2-thread scaling and at 2; null without a share.
 */
export function trainingAmdahl(t1, t2, share2, machineScale) {
  if (share2 === undefined) return null;
  const T1 = 1 / t1;
  const T2 = 1 / t2;
  const S = T2 * (1 - share2);
  const P1 = T1 - S;
  return {
    share2,
    serial1: S / T1,
    splitScale: P1 / (T2 * share2),
    machineScale,
    atMachine: T1 / (S + P1 / machineScale),
    atTwo: T1 / (S + P1 / 2),
  };
}

/** A float16 decode step's floors: widening in L1, widening while streaming from memory, streaming alone. */
function f16Floors(w) {
  const weights = w.bytes16 / 2;
  const rate = (ms) => (weights / ms / 1e6).toFixed(2);
  return (
    `the step's ${(weights / 1e6).toFixed(0)} M float16 weights take ${fmt(w.widen16)} ms to widen at ${rate(w.widen16)} G/s (the core's rate in L1)` +
    (w.widenStream16 ? `, ${fmt(w.widenStream16)} ms at ${rate(w.widenStream16)} G/s while re-reading them from memory,` : '') +
    ` and their ${(w.bytes16 / MiB).toFixed(0)} MiB ${fmt(w.memory16)} ms to stream`
  );
}

/**
 * Why a float16 decode step is not F16_GOAL× the float32 one: what the
 * float16 floor (its weights at the widening rates, in L1 and from memory,
 * or their bytes at the stream rate, whichever is longest) allows against
 * our own float32 step, and how far ours is from that floor.
 */
export function f16Limit(w) {
  return (
    `${w.bound}: ${f16Floors(w)}; ` +
    `against our own float32 step (${fmt(w.f32)} ms) that floor (${fmt(w.floor16)} ms) allows ${x(w.f32 / w.floor16)}; ours takes ${fmt(w.f16)} ms, ${x(w.f16 / w.floor16)} the floor` +
    (w.products16 && w.products32
      ? `; its 1-row products alone take ${fmt(w.products16)} ms (${x(w.products16 / w.floor16)} the floor; float32's ${fmt(w.products32)} ms, ${x(w.products32 / w.products16)} as long), the rest of the step (attention, norms, sampling, the JS API) ${fmt(Math.max(0, w.f16 - w.products16))} ms`
      : '')
  );
}

const tileName = (shape) => shape.replace('x', ' × ');
/** "4 × 8 30.6, 2 × 16 33.3": every measured tile's GFLOP/s. */
const tileList = (tiles) =>
  Object.entries(tiles ?? {})
    .map(([shape, gflops]) => `${tileName(shape)} ${gflops.toFixed(1)}`)
    .join(', ');

/**
 * The relaxed build's part of a block, where it was measured (null
 * elsewhere): the fused machine rows, its tiles, its work beside the SIMD
 * build's, and its goals: prefill at GOAL× ONNX Runtime Web against the
 * faster tile's floor, decode no slower than the SIMD build, and each of the
 * Train panel's runs FUSED_TRAIN_GOAL× the SIMD build's tokens/s.
 */
export function relaxedPart(r, rows) {
  const m = r.medians;
  const fused = m['machine-wasm-relaxed'];
  if (!fused) return null;
  const wasm = m['machine-wasm'];
  const plain = bestTile(wasm);
  const best = bestTile(fused);
  const gain = best.gflops / plain.gflops; // the fused tiles' best against the unfused tiles' best
  const tiles = `the fused tiles' best, ${best.gflops.toFixed(1)} GFLOP/s (${tileName(best.shape)}), is ${x(gain)} the unfused tiles' best (${plain.gflops.toFixed(1)}, ${tileName(plain.shape)})`;
  const machineRows = [
    `| arithmetic, fused: the kernel's 4 × 8 tile, data in L1 (GFLOP/s) | ${fused.arithmetic.toFixed(1)} | – | – |`,
    `| arithmetic, fused: the best of ${Object.keys(fused.tiles ?? {}).length || 1} register tiles, data in L1 (GFLOP/s) | ${best.gflops.toFixed(1)} (${tileName(best.shape)}) | – | – |`,
    `| float16 widening + fused multiply-add, data in L1 (G weights/s) | ${fused.widen16.toFixed(2)} | – | – |`,
  ];
  const tilesLine = `Fused (f32x4.relaxed_madd), the same tiles: ${tileList(fused.tiles)}.`;
  const workRows = [];
  const verdicts = [];
  for (const w of rows) {
    if (w.relaxed16 === undefined) continue;
    const vsSimd = w.pairedRatio; // the SIMD build's time over the relaxed build's, each pair measured together
    if (w.flops) {
      workRows.push(
        `| ${w.preset} ${w.work} | ${fmt(w.ort)} ms | ${fmt(w.simdPaired)} ms (${x(w.ort / w.simdPaired)}) | ${fmt(w.relaxed16)} ms (${x(w.ort / w.relaxed16)}) | ${x(vsSimd)} | ${fmt(w.floorRelaxed)} ms: ${x(w.ort / w.floorRelaxed)} |`,
      );
      const speedup = w.ort / w.relaxed16;
      const rate = w.relaxedRate;
      verdicts.push(
        speedup >= GOAL
          ? `| ${w.preset} ${w.work}, relaxed build (float16): ≥ ${GOAL}× ORT-web | ${x(speedup)} | met |`
          : `| ${w.preset} ${w.work}, relaxed build (float16): ≥ ${GOAL}× ORT-web | ${x(speedup)} | missed; arithmetic: ${tiles}; at the faster, with nothing else to do, ${x(w.ort / w.floorRelaxed)}; ${GOAL}× needs the whole prefill at ${((GOAL * w.floorRelaxed * 100) / w.ort).toFixed(0)}% of ${rate.toFixed(1)} GFLOP/s, and its largest product alone (${w.work.split(' ')[1]}·D·F, float16, fused) runs at ${((w.productRelaxed / rate) * 100).toFixed(0)}%; the relaxed build runs its FLOPs at ${((w.flops / w.relaxed16 / 1e6 / rate) * 100).toFixed(0)}%, the SIMD build at ${((w.flops / w.simdPaired / 1e6 / rate) * 100).toFixed(0)}% |`,
      );
      continue;
    }
    workRows.push(
      `| ${w.preset} ${w.work} | ${fmt(w.ort)} ms | ${fmt(w.simdPaired)} ms (${x(w.ort / w.simdPaired)}) | ${fmt(w.relaxed16)} ms (${x(w.ort / w.relaxed16)}) | ${x(vsSimd)} | |`,
    );
    verdicts.push(
      vsSimd >= 1
        ? `| ${w.preset} decode, relaxed build no slower than the SIMD build (float16) | ${x(vsSimd)} | met |`
        : `| ${w.preset} decode, relaxed build no slower than the SIMD build (float16) | ${x(vsSimd)} | missed; widening: fused ${fused.widen16.toFixed(2)} G weights/s in L1 against ${wasm.widen16.toFixed(2)} unfused |`,
    );
  }
  const speeds = [];
  for (const id of RECIPES) {
    const simd = m[`recipe:${id}`]?.simd;
    const relaxed = m[`recipe:${id}`]?.relaxed;
    if (!simd || !relaxed) continue;
    const ratio = relaxed / simd;
    speeds.push(`${id} run: SIMD build ${simd.toFixed(0)} tokens/s, relaxed build ${relaxed.toFixed(0)} (${x(ratio)})`);
    verdicts.push(
      ratio >= FUSED_TRAIN_GOAL
        ? `| training, the panel's ${id} run: relaxed build ≥ ${FUSED_TRAIN_GOAL}× the SIMD build (1 thread) | ${x(ratio)} | met |`
        : `| training, the panel's ${id} run: relaxed build ≥ ${FUSED_TRAIN_GOAL}× the SIMD build (1 thread) | ${x(ratio)} | missed; arithmetic: its products run on these tiles, and ${tiles}: a step spent wholly in products at the tiles' best rates would gain ${x(gain)} |`,
    );
  }
  return { machineRows, tilesLine, workRows, verdicts, speeds };
}

/** One x86 kind's block of the "Limits" section: its machine, its work, its goals. */
function limitsBlock(r) {
  const m = r.medians;
  const wasm = m['machine-wasm'];
  const sse1 = m['machine-sse-1'];
  const sse2 = m['machine-sse-2'];
  const tile = bestTile(wasm);
  const sizes = Object.keys(wasm.stream)
    .map(Number)
    .sort((a, b) => a - b);
  const machineRows = [
    `| arithmetic: the kernel's 4 × 8 tile, data in L1 (GFLOP/s) | ${wasm.arithmetic.toFixed(1)} | ${sse1.arithmetic.toFixed(1)} | ${sse2.arithmetic.toFixed(1)} (${x(sse2.arithmetic / sse1.arithmetic)}) |`,
    `| arithmetic: the best of ${Object.keys(wasm.tiles ?? {}).length || 1} register tiles, data in L1 (GFLOP/s) | ${[wasm, sse1, sse2]
      .map(bestTile)
      .map((best) => `${best.gflops.toFixed(1)} (${tileName(best.shape)})`)
      .join(' | ')} |`,
    `| float16 widening + multiply-add, data in L1 (G weights/s) | ${wasm.widen16.toFixed(2)} | ${sse1.widen16.toFixed(2)} | ${sse2.widen16.toFixed(2)} (${x(sse2.widen16 / sse1.widen16)}) |`,
    ...Object.keys(wasm.widen16Stream ?? {})
      .map(Number)
      .sort((a, b) => a - b)
      .map(
        (s) =>
          `| float16 widening + multiply-add, re-reading ${s} MiB (G weights/s) | ${wasm.widen16Stream[s].toFixed(2)} | ${sse1.widen16Stream[s].toFixed(2)} | ${sse2.widen16Stream[s].toFixed(2)} (${x(sse2.widen16Stream[s] / sse1.widen16Stream[s])}) |`,
      ),
    ...sizes.map(
      (s) =>
        `| stream: re-reading ${s} MiB (GB/s) | ${wasm.stream[s].toFixed(1)} | ${sse1.stream[s].toFixed(1)} | ${sse2.stream[s].toFixed(1)} (${x(sse2.stream[s] / sse1.stream[s])}) |`,
    ),
  ];
  const rows = limitRows(r);
  const relaxed = relaxedPart(r, rows);
  if (relaxed) machineRows.push(...relaxed.machineRows);
  const workRows = rows.map((w) => {
    const rate = (ms) => (w.flops ? `${(w.flops / ms / 1e6).toFixed(1)} GFLOP/s` : `${(w.bytes32 / ms / 1e6).toFixed(1)} GB/s`);
    const rate16 = (ms) => (w.flops ? rate(ms) : `${(w.bytes16 / ms / 1e6).toFixed(1)} GB/s`);
    return (
      `| ${w.preset} ${w.work} | ${fmt(w.ort)} ms (${rate(w.ort)}) | ${fmt(w.f16)} ms (${rate16(w.f16)}, ${x(w.ort / w.f16)}) | ` +
      `${fmt(w.f32)} ms (${rate(w.f32)}, ${x(w.ort / w.f32)}) | ${fmt(w.floor16)} ms: ${x(w.ort / w.floor16)} | ${fmt(w.floor32)} ms: ${x(w.ort / w.floor32)} |`
    );
  });
  // Each goal, measured, and what bounds it where it is missed.
  const verdicts = [];
  for (const w of rows) {
    for (const [storage, ms, floor] of [
      ['float16', w.f16, w.floor16],
      ['float32', w.f32, w.floor32],
    ]) {
      const speedup = w.ort / ms;
      if (speedup >= GOAL) {
        verdicts.push(`| ${w.preset} ${w.work}, ${storage}: ≥ ${GOAL}× ORT-web | ${x(speedup)} | met |`);
        continue;
      }
      const reachable = w.ort / floor;
      const what = w.flops
        ? `arithmetic: at the best tile's ${tile.gflops.toFixed(1)} GFLOP/s (${tileName(tile.shape)}) with nothing else to do, ${x(reachable)}; ${GOAL}× needs the whole prefill at ${((GOAL * floor * 100) / w.ort).toFixed(0)}% of that rate, and its largest product alone (${w.work.split(' ')[1]}·D·F, float16) runs at ${((w.product / tile.gflops) * 100).toFixed(0)}%; ours runs its FLOPs at ${((w.flops / ms / 1e6 / tile.gflops) * 100).toFixed(0)}%, ONNX Runtime Web at ${((w.flops / w.ort / 1e6 / tile.gflops) * 100).toFixed(0)}%`
        : storage === 'float32'
          ? `memory: ${(w.bytes32 / MiB).toFixed(0)} MiB of float32 weights a step at the ${rateAt(wasm.stream, w.bytes32).toFixed(1)} GB/s one core streams them, ${x(reachable)}; ours streams ${(w.bytes32 / ms / 1e6).toFixed(1)} GB/s, ONNX Runtime Web (float32 weights too) ${(w.bytes32 / w.ort / 1e6).toFixed(1)} GB/s`
          : `${w.bound}: ${f16Floors(w)}: ${x(reachable)} at most`;
      verdicts.push(`| ${w.preset} ${w.work}, ${storage}: ≥ ${GOAL}× ORT-web | ${x(speedup)} | missed; ${what} |`);
    }
    if (!w.flops) {
      const speedup = w.f32 / w.f16;
      verdicts.push(
        speedup >= F16_GOAL
          ? `| ${w.preset} decode, float16 ≥ ${F16_GOAL}× float32 | ${x(speedup)} | met |`
          : `| ${w.preset} decode, float16 ≥ ${F16_GOAL}× float32 | ${x(speedup)} | missed; ${f16Limit(w)} |`,
      );
    }
  }
  const t1 = m['train-native-1'].tokensPerSecond;
  const t2 = m['train-native-2'].tokensPerSecond;
  const trainScale = t2 / t1;
  const machine = `the machine itself: 2 threads of the arithmetic tile do ${x(sse2.arithmetic / sse1.arithmetic)} the work of one, and stream ${x(sse2.stream[sizes[0]] / sse1.stream[sizes[0]])}–${x(sse2.stream[sizes.at(-1)] / sse1.stream[sizes.at(-1)])} the bytes`;
  const amdahl = trainingAmdahl(t1, t2, m['train-native-2'].splitShare, sse2.arithmetic / sse1.arithmetic);
  verdicts.push(
    trainScale >= THREADS_GOAL
      ? `| training, 2 threads ≥ ${THREADS_GOAL}× 1 thread (native) | ${x(trainScale)} | met |`
      : `| training, 2 threads ≥ ${THREADS_GOAL}× 1 thread (native) | ${x(trainScale)} | missed; ${
          amdahl
            ? `one thread's share: on 2 threads ${pct(1 - amdahl.share2)} of the step's wall time is work that is not split (${pct(amdahl.serial1)} of the 1-thread step), and the split work runs ${x(amdahl.splitScale)} faster; with them at the machine's ${x(amdahl.machineScale)}, the step could be ${x(amdahl.atMachine)} at most, and with them at 2× ${x(amdahl.atTwo)} (${machine})`
            : machine
        } |`,
  );
  if (relaxed) verdicts.push(...relaxed.verdicts);
  const tileLines = [];
  if (Object.keys(wasm.tiles ?? {}).length)
    tileLines.push(
      `Register tiles (R rows × C columns of the product, R·C/4 accumulators, data in L1), Wasm, 1 thread, GFLOP/s: ${tileList(wasm.tiles)}. Beyond 16 vector registers V8 spills the accumulators; fewer accumulators leave the loads and splats a larger share.`,
    );
  if (relaxed) tileLines.push(relaxed.tilesLine);
  const tilesParagraph = tileLines.length ? `\n${tileLines.join(' ')}\n` : '';
  const relaxedWork = relaxed
    ? `
The relaxed build (\`dist/wasm/minimind-relaxed.*\`: fused multiply-adds in the weight products) against the SIMD build,
float16 weights, the two in one process taking turns (\`bench/speed/threads.mjs\` childPair), in the same rounds as ONNX Runtime
Web; its floor is the prefill's FLOPs at the faster of the fused and the unfused tiles. Speed-up: the median over the
repetitions of the SIMD build's time over the relaxed build's, each pair timed back to back:

| work | ONNX Runtime Web | SIMD build | relaxed build | speed-up | floor: ORT ÷ floor |
|---|---|---|---|---|---|
${relaxed.workRows.join('\n')}
${
  relaxed.speeds.length
    ? `
The Train panel's runs (\`js/train_recipes.mjs\`), 1 thread, their first batches trained by the panel's session code
without snapshots, both builds in one process taking turns batch by batch (\`bench/training/recipe_speed.mjs\`):
${relaxed.speeds.join('; ')}.
`
    : ''
}`
    : '';
  return `### ${r.cpu}

**${r.cpu}**, ${r.cores} cores, ${r.date}, load average ${r.load[0].toFixed(1)} at the start and ${r.load[1].toFixed(1)} at the end
(\`npm run bench -- --only limits\`, \`bench/limits/limits.mjs\`, \`bench/limits/machine_limits.cpp\`). ${r.rounds} rounds, interleaved and
rotated; medians. What one core does at the module's width (4 float lanes; a multiply and an add, as the SIMD build
computes; rows marked fused use relaxed SIMD's f32x4.relaxed_madd, as the relaxed build's weight products), in Wasm under
Node and natively with SSE 4.2; the last column runs the native measurement on 2 threads at once, each on its own data,
and sums them (in brackets: against 1 thread):

| measure | Wasm, 1 thread | native SSE, 1 thread | native SSE, 2 threads |
|---|---|---|---|
${machineRows.join('\n')}
${tilesParagraph}
The same work as the Threads section, 1 thread, in Node (bench/speed/threads.mjs's child processes; ours with the
weights kept as float16 or as float32). A floor is the least time the machine allows: a prefill's FLOPs at the best Wasm
tile's rate (nothing else counted: norms, attention's softmax and the rest take time too), a decode step's weight bytes
at the Wasm stream rate for that many bytes (4 runs a quarter apart, as the 1-row product reads 4 panels), and for float16
also its weights at the widening rates, in L1 and re-reading that many bytes, whichever is longest.
After the floor, the largest speed-up over ONNX Runtime Web it leaves:

| work | ONNX Runtime Web | ours, float16 weights | ours, float32 weights | floor, float16: ORT ÷ floor | floor, float32: ORT ÷ floor |
|---|---|---|---|---|---|
${workRows.join('\n')}
${relaxedWork}
Training (the native trainer, demo config, batch 32 × 64): ${t1.toFixed(0)} tokens/s on 1 thread, ${t2.toFixed(0)} on 2.

| goal | measured | |
|---|---|---|
${verdicts.join('\n')}
`;
}

// The issue's goals hold "on both x86 kinds", and a run measures only the kind
// it runs on: the section keeps one block per kind (a "### CPU" heading each),
// and a run replaces its own kind's block and keeps the others'.

/** The blocks of an existing "Limits" section, by CPU (its "### " headings). */
export function limitsBlocks(section) {
  const blocks = new Map();
  const body = section.replace(LIMITS_END, '');
  for (const part of body.split(/^(?=### )/m).slice(1)) blocks.set(part.slice(4, part.indexOf('\n')), `${part.trimEnd()}\n`);
  return blocks;
}

/** The "Limits" section of BENCHMARKS.md, between its markers: this run's block and the other kinds' kept ones. */
export function limitsSection(r, existing = '') {
  const blocks = limitsBlocks(existing);
  // A block headed by the bare model name came from a run that did not yet
  // name the family and model: this run's numbers replace it.
  const bare = r.cpu.replace(/ \(family .*\)$/, '');
  if (bare !== r.cpu) blocks.delete(bare);
  blocks.set(r.cpu, limitsBlock(r));
  const ordered = [...blocks.keys()].sort().map((cpu) => blocks.get(cpu));
  return `${LIMITS_BEGIN} written by node bench/run.mjs --only limits; do not edit by hand -->
## Limits

One block per x86 kind: a run measures the machine it runs on, replaces that kind's block and keeps the others.

${ordered.join('\n')}${LIMITS_END}
`;
}

// ------------------------------------------------------------------ main
if (import.meta.url === `file://${process.argv[1]}`) {
  const wasmLimits = `${root}build/bench-wasm/bench/machine_limits.js`;
  const wasmBench = `${root}build/bench-wasm/bench/native_bench.js`;
  const nativeLimits = `${root}build/bench-sse/bench/machine_limits`;
  for (const f of [wasmLimits, wasmBench, nativeLimits])
    if (!existsSync(f)) throw new Error(`${f} is missing: npm run bench -- --only limits builds it`);
  console.log(limitsSection(measureLimits({ wasmLimits, wasmBench, nativeLimits })));
}
