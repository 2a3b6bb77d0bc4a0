// Writes BENCHMARKS.md and bench/speed/time_vs_length.svg from the results of
// bench/run.mjs (the same data it saves to build/bench/results.json). The
// Training section sits between two marker comments near the end of the file:
// writeTrainingSection (node bench/run.mjs --only train) replaces just that
// part, and a run without training keeps the section that is there; the same
// for the "Training in the page" section after it (writePageTrainingSection,
// --only page-training).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, relative } from 'node:path';

import { capTable, normGains } from './training/prev_token_cap.mjs';

const RUNTIMES = ['wasm-simd', 'wasm-simd-f32', 'wasm-relaxed', 'wasm-scalar', 'ort-web', 'native', 'native-sse'];
// The key-ratio table's columns: ours (wasm-relaxed only in runs that measured it).
const OURS = (data) => RUNTIMES.filter((r) => r !== BASELINE && data.results.some((p) => p.items.some((i) => i.stats[r])));
const BASELINE = 'ort-web';
// Okabe-Ito colours (colour-blind safe), plus a dash pattern each.
const STYLE = {
  'wasm-simd': { color: '#0072B2', dash: '' },
  'wasm-simd-f32': { color: '#E69F00', dash: '4 2' },
  'wasm-relaxed': { color: '#000000', dash: '1 2' },
  'wasm-scalar': { color: '#56B4E9', dash: '6 3' },
  'ort-web': { color: '#D55E00', dash: '' },
  native: { color: '#009E73', dash: '2 3' },
  'native-sse': { color: '#CC79A7', dash: '8 3 2 3' },
};
const MiB = 2 ** 20;

const fmt = (x, digits = 1) => (x === undefined || Number.isNaN(x) ? '–' : x >= 100 ? Math.round(x).toString() : x.toFixed(digits));
const ratio = (x) => (x === undefined ? '–' : `${x.toFixed(2)}×`);
const mib = (bytes) => (bytes === undefined ? '–' : `${(bytes / MiB).toFixed(0)} MiB`);

// "64x512x1664:f16" -> "64·512·1664, W float16".
function shapeLabel(shape) {
  const [dims, storage] = shape.split(':');
  return `${dims.replaceAll('x', '·')}, W ${storage === 'f16' ? 'float16' : 'float32'}`;
}

function workLabel(item, data) {
  if (item.work === 'prefill') return `prefill ${item.T}`;
  if (item.work === 'decode') return `decode ${data.decode.steps} (after ${data.decode.prompt})`;
  return `forward ${item.T}, trace`;
}

function runsNote(data) {
  const slow = [];
  const more = [];
  for (const [preset, reps] of Object.entries(data.reps)) {
    for (const [runtime, n] of Object.entries(reps)) if (n < data.baseReps) slow.push(`${runtime} on ${preset}: ${n}`);
    if (Object.values(reps).every((n) => n > data.baseReps)) more.push(`${preset}: ${Math.min(...Object.values(reps))}`);
  }
  return (
    (more.length ? ` More for the cheap presets, against the noise (${more.join('; ')}).` : '') +
    (slow.length ? ` Fewer for the slow combinations, to keep the run short: ${slow.join('; ')}.` : '')
  );
}

function headline(data) {
  const rows = [];
  const ours = OURS(data);
  const pick = (preset, work, T) => data.results.find((r) => r.preset === preset)?.items.find((i) => i.work === work && i.T === T);
  const wanted = [
    ['minimind2-small', 'prefill', 64],
    ['minimind2-small', 'decode', data.decode.steps],
    ['minimind-3', 'prefill', 256],
    ['minimind-3', 'decode', data.decode.steps],
  ];
  for (const [preset, work, T] of wanted) {
    const item = pick(preset, work, T);
    if (!item) continue;
    const base = item.stats[BASELINE].median;
    rows.push(
      `| ${preset} | ${workLabel(item, data)} | ${fmt(base)} ms | ` +
        ours.map((r) => ratio(base / item.stats[r]?.median)).join(' | ') +
        ' |',
    );
  }
  const notes = [];
  const overheads = data.results.map((r) => {
    const stats = r.items.find((i) => i.work === 'trace')?.stats ?? {};
    const off = stats['wasm-simd no trace']?.median;
    const on = stats['wasm-simd trace']?.median;
    return `${r.preset} ${fmt(((on - off) / off) * 100, 0)} %`;
  });
  notes.push(`- Full trace at ${data.traceTokens} tokens, wasm-simd: ${overheads.join(', ')} slower than without.`);
  const micro = [...new Set(data.matmul.map((m) => m.shape))].map((shape) => {
    const at = (runtime) => data.matmul.find((m) => m.shape === shape && m.runtime === runtime)?.stats.median;
    return `${shapeLabel(shape)} ${ratio(at('native-sse') / at('wasm-simd'))}`;
  });
  if (micro.length) notes.push(`- Matrix product alone, wasm-simd against native-sse (same kernel): ${micro.join(', ')}.`);
  if (!rows.length) return notes.join('\n');
  return [
    `| preset | work | ort-web median | ${ours.join(' | ')} |`,
    `|---|---|---|${ours.map(() => '---|').join('')}`,
    ...rows,
    '',
    ...notes,
  ].join('\n');
}

function presetTable(result, data) {
  const lines = [
    '| work | runtime | median ms | p25–p75 ms | runs | tokens/s | GFLOP/s | × ort-web |',
    '|---|---|---|---|---|---|---|---|',
  ];
  for (const item of result.items.filter((i) => i.work !== 'trace')) {
    const base = item.stats[BASELINE]?.median;
    for (const runtime of RUNTIMES) {
      const s = item.stats[runtime];
      if (!s) continue;
      lines.push(
        `| ${workLabel(item, data)} | ${runtime} | ${fmt(s.median)} | ${fmt(s.p25)}–${fmt(s.p75)} | ${s.runs} | ` +
          `${fmt((item.tokens / s.median) * 1000)} | ${fmt(item.flops / s.median / 1e6, 2)} | ${ratio(base / s.median)} |`,
      );
    }
  }
  return lines.join('\n');
}

function traceTable(data) {
  const lines = [
    `| preset | runtime | forward ${data.traceTokens} ms | with full trace ms | overhead | ort-web forward ${data.traceTokens} ms | traced × ort-web |`,
    '|---|---|---|---|---|---|---|',
  ];
  for (const result of data.results) {
    const item = result.items.find((i) => i.work === 'trace');
    const ortPrefill = item.stats[BASELINE]?.median; // measured in the same rounds
    for (const runtime of ['wasm-simd', 'native-sse']) {
      const off = item.stats[`${runtime} no trace`]?.median;
      const on = item.stats[`${runtime} trace`]?.median;
      if (off === undefined) continue;
      lines.push(
        `| ${result.preset} | ${runtime} | ${fmt(off)} | ${fmt(on)} | ${fmt(((on - off) / off) * 100, 0)} % | ${fmt(ortPrefill)} | ${ratio(ortPrefill / on)} |`,
      );
    }
  }
  return lines.join('\n');
}

function checksTable(data) {
  const lines = [
    '| preset | T | max \\|logit\\| | own token predicted | ort-web − wasm-simd | wasm-relaxed − wasm-simd | wasm-simd-f32 − wasm-simd | wasm-scalar − wasm-simd | native, native-sse − wasm-simd (logit 0 of the last row) |',
    '|---|---|---|---|---|---|---|---|---|',
  ];
  const decode = [];
  for (const result of data.results) {
    for (const check of result.checks) {
      if (check.T !== undefined) {
        lines.push(
          `| ${result.preset} | ${check.T} | ${fmt(check.logitScale)} | ${(100 * check.selfPrediction).toFixed(0)}% | ${check.ortVsSimd.toExponential(1)} | ` +
            `${check.relaxedVsSimd === undefined ? '–' : check.relaxedVsSimd.toExponential(1)} | ` +
            `${check.f32VsSimd === 0 ? '0' : check.f32VsSimd.toExponential(1)} | ` +
            `${check.scalarVsSimd.toExponential(1)} | ${check.nativeVsSimd.toExponential(1)} |`,
        );
      } else if (check.decodeTokens) {
        const ref = JSON.stringify(check.decodeTokens['wasm-simd']);
        const same = Object.entries(check.decodeTokens)
          .filter(([, t]) => JSON.stringify(t) === ref)
          .map(([n]) => n);
        const differ = Object.keys(check.decodeTokens).filter((n) => !same.includes(n));
        decode.push(
          `- ${result.preset}: the ${data.decode.steps} greedy tokens agree in ${same.join(', ')}` +
            (differ.length ? `; differ in ${differ.join(', ')}` : '') +
            ` (first ones: ${check.decodeTokens['wasm-simd'].slice(0, 6).join(', ')}, …).`,
        );
      }
    }
  }
  return `${lines.join('\n')}\n\n${decode.join('\n')}`;
}

function memoryTable(data) {
  const lines = [
    '| preset | weights as float32 | runtime | weights as stored | Wasm memory: empty instance | after build | after a 256-token forward | RSS Δ across the build |',
    '|---|---|---|---|---|---|---|---|',
  ];
  for (const result of data.results) {
    for (const [runtime, m] of Object.entries(result.memory)) {
      lines.push(
        `| ${result.preset} | ${mib(result.params * 4)} | ${runtime}${m.highWater ? ' ¹' : ''} | ${mib(m.stored)} | ${mib(m.before)} | ${mib(m.built)} | ` +
          `${mib(m.forward256)} | ${mib(m.rssBuilt)} |`,
      );
    }
  }
  return lines.join('\n');
}

function loadingTable(data) {
  const lines = [
    '| preset | F16 file | weights as stored | Wasm memory, streamed load (JS API) | whole file copied in first | limit: stored + 64 MiB |',
    '|---|---|---|---|---|---|',
  ];
  const m1 = (bytes) => (bytes === undefined ? '–' : `${(bytes / MiB).toFixed(1)} MiB`);
  for (const r of data.loading ?? []) {
    lines.push(
      `| ${r.preset} | ${m1(r.fileBytes)} | ${m1(r.storedBytes)} | ${m1(r.streamed.peak)} (${r.streamed.peak <= r.limit ? 'within' : 'over'}) | ${m1(r.whole.peak)} | ${m1(r.limit)} |`,
    );
  }
  return lines.join('\n');
}

function pageTable(data) {
  const lines = [
    '| preset | page load to first matrix (median of pages) | keystroke to painted matrix (median of keystrokes) | keystroke to the start of that frame |',
    '|---|---|---|---|',
  ];
  for (const r of data.page ?? []) {
    lines.push(`| ${r.preset} | ${fmt(r.firstMatrix, 0)} ms | ${fmt(r.median)} ms (${r.keystrokes} keystrokes) | ${fmt(r.toFrame)} ms |`);
  }
  return lines.join('\n');
}

function matmulTable(data) {
  if (!data.matmul.length) return '';
  const lines = ['| shape M·K·N | runtime | median ms | GFLOP/s | × native-sse |', '|---|---|---|---|---|'];
  for (const shape of [...new Set(data.matmul.map((m) => m.shape))]) {
    const rows = data.matmul.filter((m) => m.shape === shape);
    const sse = rows.find((m) => m.runtime === 'native-sse')?.stats.median;
    for (const m of rows)
      lines.push(
        `| ${shapeLabel(shape)} | ${m.runtime} | ${fmt(m.stats.median, 2)} | ${fmt(m.flops / m.stats.median / 1e6, 1)} | ${ratio(sse / m.stats.median)} |`,
      );
  }
  return lines.join('\n');
}

// Shares of the FLOPs of a prefill by kind of matrix product.
function flopTable(data) {
  const T = data.traceTokens;
  const lines = [
    `| preset | FLOPs of prefill ${T} | q,k,v,o projections | attention (q·kᵀ, P·v) | FFN | lm_head |`,
    '|---|---|---|---|---|---|',
  ];
  for (const { preset, config: c } of data.results) {
    const proj = c.L * (2 * T * c.D * c.H * c.Dh + 4 * T * c.D * c.Hkv * c.Dh + 2 * T * c.H * c.Dh * c.D);
    const attn = c.L * 4 * c.H * T * T * c.Dh;
    const ffn = c.L * 6 * T * c.D * c.F;
    const head = 2 * T * c.D * c.V;
    const total = proj + attn + ffn + head;
    const pct = (x) => `${((x / total) * 100).toFixed(0)} %`;
    lines.push(`| ${preset} | ${(total / 1e9).toFixed(2)} G | ${pct(proj)} | ${pct(attn)} | ${pct(ffn)} | ${pct(head)} |`);
  }
  return lines.join('\n');
}

export function writeReport(data, mdPath, svgPath) {
  writeFileSync(svgPath, svgPlot(data));
  const m = data.machine;
  const svgRel = relative(dirname(mdPath), svgPath);
  const training = data.training ? trainingSection(data.training) : existingTrainingSection(mdPath);
  const pageTraining = data.pageTraining ? pageTrainingSection(data.pageTraining) : existingPageTrainingSection(mdPath);
  const md = `# Benchmarks

MiniMind's forward pass on the same shapes and the same weights in six runtimes, measured in one
run of \`${m.command}\` (\`bench/run.mjs\`); training in four runtimes against PyTorch in the
[Training](#training) section at the end. This file is written by that run; do not edit it by
hand, re-run it (\`node bench/run.mjs --only train\` re-measures the Training section alone).

| | |
|---|---|
| CPU | ${m.cpu} |
| vector instructions | ${m.simd} |
| cores | ${m.cores} (every runtime runs on one thread) |
| memory | ${m.memoryGiB} GiB |
| Node | ${m.node} |
| Emscripten | ${m.emscripten} |
| onnxruntime-web | ${m.ortWeb} |
| native compiler | ${m.cxx} |
| ONNX export | PyTorch ${m.torch}, opset 17 |
| date | ${m.date} |
| command | \`${m.command}\` (took ${Math.floor(m.seconds / 60)} min ${m.seconds % 60} s) |
| load average | ${m.load} at the start, ${m.loadEnd} at the end |

## Runtimes

- **wasm-simd**: our WebAssembly module (\`dist/wasm/minimind.mjs\`, SIMD128) through the JS API
  (\`js/minimind.mjs\`) in Node, one thread. Times include the JS API (argument checks, copying the
  logits out of Wasm memory).
  The weights stay float16 in memory (the seeded weights are float16 values, as MiniMind's
  released checkpoints are), and the matrix kernel widens them to float32 on the fly.
- **wasm-simd-f32**: the same module with the weights kept as float32
  (\`createModel({weightStorage: 'float32'})\`): twice the bytes, bit-identical results.
- **wasm-relaxed**: the relaxed build (\`dist/wasm/minimind-relaxed.*\`): the same module with
  relaxed SIMD's fused multiply-add (\`f32x4.relaxed_madd\`) in the weight products, float16 weights.
  Not bit-identical to wasm-simd (a fused multiply-add rounds once); the check below holds it to
  the tolerance ONNX Runtime Web is held to. Node 20 runs it behind \`--experimental-wasm-relaxed-simd\`.
- **wasm-scalar**: the same without SIMD (\`dist/wasm/minimind-scalar.*\`), float16 weights.
- **ort-web**: ONNX Runtime Web ${m.ortWeb}, wasm backend in Node, \`numThreads = 1\`, SIMD, graph
  optimisation \`all\`, on the graphs \`bench/speed/make_onnx.py\` exports from a plain-PyTorch MiniMind
  written from the spec with our seeded weights (two graphs per preset: prefill, and decode with
  past/present k/v). Times are \`session.run\` calls, input tensors made inside.
- **native**: the same C++ core built with \`-O3 -march=native\` (\`bench/speed/native_bench.cpp\`,
  \`build/bench-native\`), timed inside the process, float16 weights.
- **native-sse**: the same with \`-O3 -msse4.2 -mno-avx\` (\`build/bench-sse\`): 128-bit vectors,
  the width Wasm SIMD has.

## Method

- Work per preset: prefill (a forward without cache) of ${data.prefillLengths.join(', ')} tokens; cached decoding
  of ${data.decode.steps} greedy tokens after a ${data.decode.prompt}-token prompt (our API:
  \`model.generator(prompt, {greedy: true})\`, then \`step({trace: false})\` ${data.decode.steps} times; ONNX Runtime:
  the decode graph fed its own present k/v and the argmax token), only the ${data.decode.steps} steps timed;
  a ${data.traceTokens}-token forward with the full trace (\`forward(ids, {trace: true})\`: every stage of
  every layer) against the same forward without.
- Token ids: \`3 + (i · 2654435761 mod 2³²) mod (V − 3)\` for i = 0, 1, …
- Median of ${data.baseReps} runs after one warm-up run.${runsNote(data)} p25–p75 is the interquartile range.
- **The machine is a virtual machine on a shared host: its clock and memory bandwidth vary with
  the host's other work, so the numbers are noisy.** The runtimes are interleaved: each round
  runs every runtime once, in a rotated order, so that load from outside hits all of them alike;
  the ratios are more stable than the absolute times. Each work item has its own rounds, so the
  same forward can take different times in two tables.
- FLOPs count 2·m·n·k for every matrix product: per layer q, k, v, o projections
  (2·T·D·H·Dh + 2·2·T·D·Hkv·Dh + 2·T·H·Dh·D), attention scores q·kᵀ and weights·v over the full
  T × Tk matrices (2·2·H·T·Tk·Dh, Tk = cached + new tokens), SwiGLU (3·2·T·D·F); plus lm_head
  (2·T·D·V). Norms, RoPE, softmax and SiLU are not counted. GFLOP/s = FLOPs / median time.
- **× ort-web** = ONNX Runtime Web's median time / this runtime's median time: above 1 is faster
  than ONNX Runtime Web, below 1 slower.

## Key ratios (speed relative to ONNX Runtime Web)

${headline(data)}

## Results

${data.results.map((r) => `### ${r.preset}\n\nD ${r.config.D}, L ${r.config.L}, H ${r.config.H}, Hkv ${r.config.Hkv}, Dh ${r.config.Dh}, F ${r.config.F}, V ${r.config.V}; ${(r.params / 1e6).toFixed(1)} M parameters.\n\n${presetTable(r, data)}`).join('\n\n')}

### Prefill time against sequence length

![Prefill time against sequence length, one line per runtime, log-log](${svgRel})

### Trace overhead

Measured in its own interleaved rounds, ONNX Runtime's forward of the same tokens among them (load
changed during the run, so these times can differ from the prefill tables). The full trace copies
every stage of every layer (for minimind-3 at 64 tokens ~${fmt(traceFloats(data, 'minimind-3') / MiB, 0)} Mi floats); in
Wasm it also crosses into JS as typed arrays.

${traceTable(data)}

### Matrix product alone (Wasm against native SSE)

The JS API has no matrix-product entry, so \`bench/speed/native_bench.cpp\` itself is also compiled with
emcmake (the shipped module's compile flags, SIMD128; \`build/bench-wasm\`) and run by Node:
\`linear_rows\` (core/ops/linear.cpp) on x [M, K] and packed W [N, K] (float32, or float16 widened in the
kernel), median of ${data.matmul[0]?.stats.runs} runs
(three processes per runtime and shape, interleaved; the first three runs of each process dropped).

${matmulTable(data)}

### The page

\`bench/speed/page_latency.mjs\` opens the playground (\`dist/site/\`, served on localhost) in headless
Chromium at 1400×1000, five fresh pages per preset, and types nine words after the lesson's sentence.
The page measures itself: \`minimind:first-matrix\` (navigation to the first matrix drawn) and, per
keystroke, from the input event's time stamp to the end of the frame that painted the matrix for
that text or a newer one. Tiny models (lab-a) answer keystrokes on the main thread (a twin of the
worker's model, \`web/inline_model.mjs\`); larger ones go through the Web Worker.

${pageTable(data)}

### Where the FLOPs are

${flopTable(data)}

## Memory

Wasm memory is the instance's \`WebAssembly.Memory\` buffer size; the JS API does not expose it, so
\`bench/run.mjs\` notes the memory of each instantiation (a wrapper around
\`WebAssembly.instantiate\`). Each preset gets a fresh instance of our module, so its figures
belong to that preset alone. RSS Δ is the Node process's resident-set growth across building the
model (ONNX Runtime: creating both sessions); all runtimes share the process and the garbage
collector runs when it likes, so it is rough.

${memoryTable(data)}

### Loading a float16 checkpoint

\`bench/memory/load_memory.mjs\` writes a float16 model.safetensors of the preset's shapes (with
\`lm_head.weight\` next to the tied embedding, as released checkpoints may carry it) and loads it
in a fresh instance: through the JS API, which hands the core one tensor at a time, and, for
contrast, by copying the whole file into Wasm memory first. Wasm memory never shrinks, so its size
after loading is the peak.

${loadingTable(data)}

¹ one ONNX Runtime instance serves every preset (its two sessions, prefill and decode, are
released after each): its memory is the high-water mark so far.

## Checks

The runtimes compute with the same weights, seeded with the embedding at MiniMind's from-scratch
scale (\`init: 'minimind'\`, U(±1/sqrt(D)); with the presets' U(-1, 1) the tied lm_head maps every
position back to its own token, and agreeing on such a model proves little): the largest absolute
logit difference over all positions and the vocabulary, on the prefill inputs (for the native
builds, which print one logit, that logit), and the share of positions whose argmax is their own
input token. The bench stops with an error when ort-web, wasm-relaxed or a native build differs by more than
1e-4 of the largest |logit|, when wasm-scalar or wasm-simd-f32 is not bit-identical to wasm-simd,
or when more than half of the positions predict their own token.

${checksTable(data)}
${training ? `\n${training}` : ''}${pageTraining ? `\n${pageTraining}` : ''}`;
  writeFileSync(mdPath, md);
  return basename(mdPath);
}

function traceFloats(data, preset) {
  const r = data.results.find((x) => x.preset === preset);
  if (!r) return undefined;
  const c = r.config;
  const T = data.traceTokens;
  // block_input … block_output: 7 [T, D], 5 [T, H, Dh] (q_proj, q_norm, q_rope, head_outputs,
  // attn_concat), 4 [T, Hkv, Dh], 4 [H, T, T], 3 [T, F]
  const perLayer = 7 * T * c.D + 5 * T * c.H * c.Dh + 4 * T * c.Hkv * c.Dh + 4 * c.H * T * T + 3 * T * c.F;
  return c.L * perLayer + T * c.D + T * c.V;
}

// ------------------------------------------------------------------ training
const TRAINING_BEGIN = '<!-- training: written by bench/run.mjs (node bench/run.mjs --only train rewrites this part alone) -->';
const TRAINING_END = '<!-- /training -->';
const TRAIN_RUNTIMES = ['wasm-simd', 'native', 'native-sse', 'pytorch-openblas'];
const TRAIN_BASELINE = 'pytorch-openblas';

const runLabel = (r) => `${r.B} × ${r.T}`;
const gflops = (flops, ms) => fmt(flops / ms / 1e6, 1);

function targetCell(ratioValue, target) {
  if (target === undefined || ratioValue === undefined) return '–';
  if (ratioValue >= target) return `≥ ${target}×: met`;
  return `≥ ${target}×: missed by ${(((target - ratioValue) / target) * 100).toFixed(0)} %`;
}

function trainingSpeedTable(t) {
  const lines = [
    `| config | batch × seq | runtime | median ms / batch | p25–p75 ms | tokens/s | × ${TRAIN_BASELINE} | target |`,
    '|---|---|---|---|---|---|---|---|',
  ];
  for (const r of t.runs) {
    const base = r.stats[TRAIN_BASELINE]?.median;
    for (const runtime of TRAIN_RUNTIMES) {
      const s = r.stats[runtime];
      if (!s) continue;
      const x = base / s.median;
      lines.push(
        `| ${r.config} | ${runLabel(r)} | ${runtime} | ${fmt(s.median)} | ${fmt(s.p25)}–${fmt(s.p75)} | ` +
          `${fmt((r.tokensPerBatch / s.median) * 1000, 0)} | ${ratio(x)} | ${runtime === TRAIN_BASELINE ? '–' : targetCell(x, t.targets[runtime])} |`,
      );
    }
  }
  return lines.join('\n');
}

// Forward and backward GFLOP/s per shape and, weighted by how often a batch
// runs each product, for the whole batch.
function trainingMatmulRows(t) {
  const rows = [];
  const runtimes = [...new Set(t.matmul.map((m) => m.runtime))];
  const order = ['wasm-simd', 'native', 'native-sse'].filter((r) => runtimes.includes(r));
  const totals = {};
  for (const { shape, what, count } of t.matmulShapes.shapes) {
    for (const runtime of order) {
      const m = t.matmul.find((x) => x.shape === shape && x.runtime === runtime);
      if (!m) continue;
      const tot = (totals[runtime] ??= { flops: 0, forward: 0, backward: 0, dx: 0, dw: 0 });
      tot.flops += count * m.flops;
      for (const k of ['forward', 'backward', 'dx', 'dw']) tot[k] += count * m[k].median;
      rows.push({ what, shape, count, runtime, flops: m.flops, ms: m });
    }
  }
  return { rows, totals, order };
}

function trainingMatmulTable(t) {
  const { rows, totals, order } = trainingMatmulRows(t);
  const lines = [
    '| product | N·in·out | per batch | runtime | forward x·Wᵀ GFLOP/s | backward dx + dW GFLOP/s | dx = dy·W | dW = dyᵀ·x | backward / forward |',
    '|---|---|---|---|---|---|---|---|---|',
  ];
  for (const r of rows) {
    const f = r.flops / r.ms.forward.median;
    const b = (2 * r.flops) / r.ms.backward.median;
    lines.push(
      `| ${r.what} | ${r.shape.replaceAll('x', '·')} | ${r.count} | ${r.runtime} | ${gflops(r.flops, r.ms.forward.median)} | ` +
        `${gflops(2 * r.flops, r.ms.backward.median)} | ${gflops(r.flops, r.ms.dx.median)} | ${gflops(r.flops, r.ms.dw.median)} | ${ratio(b / f)} |`,
    );
  }
  for (const runtime of order) {
    const tot = totals[runtime];
    lines.push(
      `| **all of a batch** (weighted by count) | | | ${runtime} | ${gflops(tot.flops, tot.forward)} | ${gflops(2 * tot.flops, tot.backward)} | ` +
        `${gflops(tot.flops, tot.dx)} | ${gflops(tot.flops, tot.dw)} | ${ratio((2 * tot.flops) / tot.backward / (tot.flops / tot.forward))} |`,
    );
  }
  return lines.join('\n');
}

function backwardTargetLine(t) {
  const tot = trainingMatmulRows(t).totals['wasm-simd'];
  if (!tot) return '- Target (Wasm backward ≥ 0.8× forward GFLOP/s): not measured (no emcmake).';
  const x = (2 * tot.flops) / tot.backward / (tot.flops / tot.forward);
  return `- Target: the backward's products in Wasm at ≥ ${t.backwardTarget}× the forward's GFLOP/s, over a whole batch: ${ratio(x)} (${targetCell(x, t.backwardTarget).split(': ')[1]}).`;
}

function lossTable(t) {
  const lines = [
    `| config | batch × seq | runtime | loss, batch 1 | − ${TRAIN_BASELINE} | loss, last batch | max \\|Δ loss\\| to ${TRAIN_BASELINE}, all batches | grad norm, batch 1 |`,
    '|---|---|---|---|---|---|---|---|',
  ];
  for (const r of t.runs) {
    const base = r.steps[TRAIN_BASELINE];
    for (const runtime of TRAIN_RUNTIMES) {
      const steps = r.steps[runtime];
      if (!steps) continue;
      const first = steps[0].loss - base[0].loss;
      const maxDiff = Math.max(...steps.map((s, i) => Math.abs(s.loss - base[i].loss)));
      const exp = (x) => (x === 0 ? '0' : x.toExponential(1));
      lines.push(
        `| ${r.config} | ${runLabel(r)} | ${runtime} | ${steps[0].loss.toFixed(6)} | ${runtime === TRAIN_BASELINE ? '–' : exp(first)} | ` +
          `${steps.at(-1).loss.toFixed(4)} (batch ${steps.length}) | ${runtime === TRAIN_BASELINE ? '–' : exp(maxDiff)} | ${steps[0].gradNorm?.toFixed(4) ?? '–'} |`,
      );
    }
  }
  return lines.join('\n');
}

function lossesFall(t) {
  const flat = t.runs.flatMap((r) => Object.entries(r.steps).map(([runtime, steps]) => ({ r, runtime, steps })));
  const rising = flat.filter(({ steps }) => !(steps.at(-1).loss < steps[0].loss));
  if (!rising.length) return 'The loss fell from the first to the last batch in every run.';
  return `**The loss did not fall** in: ${rising.map(({ r, runtime }) => `${r.config} ${runLabel(r)} ${runtime}`).join(', ')}.`;
}

function trainingMemoryTable(t) {
  const m1 = (bytes) => (bytes === undefined ? '–' : `${(bytes / MiB).toFixed(1)} MiB`);
  const lines = [
    "| config | batch × seq | weights (float32) | gradients | AdamW moments | activations | transposed weights | model's packed weights | total (the trainer's) | native total | Wasm memory of the instance | PyTorch peak RSS |",
    '|---|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const r of t.runs) {
    const w = r.memory['wasm-simd'];
    const nativeTotals = ['native', 'native-sse'].map((n) => r.memory[n]?.total).filter((x) => x !== undefined);
    const native = nativeTotals.every((x) => x === w.total) ? 'the same' : nativeTotals.map(m1).join(', ');
    lines.push(
      `| ${r.config} | ${runLabel(r)} | ${m1(w.weights)} | ${m1(w.gradients)} | ${m1(w.adam)} | ${m1(w.activations)} | ${m1(w.transposedWeights)} | ` +
        `${m1(w.modelWeights)} | ${m1(w.total)} | ${native} | ${m1(w.wasmMemory)} | ${m1(r.memory[TRAIN_BASELINE]?.maxRss)} |`,
    );
  }
  return lines.join('\n');
}

function configLine(c) {
  const x = c.config;
  const f =
    c.name === 'h128-l4'
      ? " (MiniMind's default for hidden 128: ⌈128·π/64⌉·64)"
      : c.name === 'lab-a-train'
        ? " (MiniMind's default for hidden 64)"
        : '';
  return `- **${c.name}** (${c.note}): D ${x.D}, L ${x.L}, H ${x.H}, Hkv ${x.Hkv}, Dh ${x.Dh}, F ${x.F}${f}, V ${x.V}, generation 3, tied embeddings; ${(c.params / 1e6).toFixed(2)} M parameters.`;
}

function trainingSection(t) {
  const m = t.machine;
  const blas = t.blasCheck.openblas;
  const reference = t.blasCheck.systemDefault;
  const checks = t.runs.map((r) => `${r.config} ${runLabel(r)} ${fmt(r.blas.gflops, 0)}`).join(', ');
  const runs = t.runs.map((r) => `${r.config} ${runLabel(r)}: ${r.warmup} + ${r.timed}`).join('; ');
  const isa = Object.entries(m.isa ?? {})
    .map(([n, i]) => `${n} ${i}`)
    .join(', ');
  return `${TRAINING_BEGIN}
## Training

MiniMind's pretraining loop (\`trainer/train_pretrain.py\`) on the same models, initial weights,
data and batch shapes in four runtimes, measured in one run of \`${m.command}\` on
**${m.cpu}** (${m.cores} cores; every runtime on one thread), ${m.date}, load average ${m.load} at
the start and ${m.loadEnd} at the end; the training part took ${Math.floor(t.seconds / 60)} min ${t.seconds % 60} s.

- **wasm-simd**: our module through the JS API in Node, \`model.trainer({data, batchSize, maxSeqLen,
  learningRate, accumulationSteps, gradClip, epochs, order: 'file'})\`, each \`step()\` timed from JS.
- **native**, **native-sse**: the core's \`Trainer\` (\`bench/training/native_train_bench.cpp\`), built with
  \`-O3 -march=native\` and with \`-O3 -msse4.2 -mno-avx\` (${isa}); \`step()\` timed inside the process.
  Every build computes the same bits (no FMA, each output one sequential sum): natively the matrix kernel
  runs on 8-float AVX2 registers where the CPU has AVX2 (\`core/ops/linear_avx2.h\`), elsewhere on four-float
  lanes (\`core/util/simd_lanes.h\`); native-sse switches the AVX2 kernel off, so it has Wasm SIMD's width.
- **pytorch-openblas**: \`bench/training/torch_train.py\`, Debian's PyTorch ${blas.torch} (\`torch.set_num_threads(1)\`)
  on OpenBLAS (\`${blas.blas[0]}\`, unpacked from Debian's \`libopenblas0-pthread\` into
  \`build/openblas\`, \`LD_LIBRARY_PATH\`, \`OPENBLAS_NUM_THREADS=1\`): the plain-PyTorch MiniMind of
  \`tests/make_fixtures.py\`, \`F.cross_entropy(..., ignore_index=-100)\`, \`clip_grad_norm_\`,
  \`torch.optim.AdamW\`; the whole step timed (batch slicing, forward, backward, clipping, optimizer, zero_grad).
- **BLAS check**: a float32 [2048×128]·[128×6400] matmul in PyTorch, one thread: **${fmt(blas.gflops, 1)} GFLOP/s on
  OpenBLAS**, ${fmt(reference.gflops, 1)} GFLOP/s with the system's default \`libblas.so.3\` (\`${reference.blas.join('`, `')}\`),
  which Debian's torch runs on unless told otherwise; and again in each training process: ${checks} GFLOP/s.

Recipe: batch ${t.recipe.batchSize}, learning rate ${t.recipe.learningRate} with MiniMind's cosine \`get_lr\` over the run's
batches, accumulation ${t.recipe.accumulationSteps} (every batch is an optimizer step), gradient clip ${t.recipe.gradClip},
AdamW with torch's defaults (β 0.9, 0.999, eps 1e-8, weight decay 0.01), float32, one epoch in file order. Weights:
the core's seeded random ones (seed ${t.modelSeed}, \`init: '${t.modelInit}'\`: the embedding at MiniMind's from-scratch
scale, so the first loss is near ln V = ${fmt(Math.log(t.configs[0]?.config.V ?? 6400), 2)}), handed to PyTorch as a float32 model.safetensors from the JS API.
Data: every sample exactly T random ids in 3..V−1 (seed ${t.dataSeed}) with Zipf-like frequencies (id 2 + r with
p(r) ∝ 1/r: something to learn), the same JSONL file for every runtime, so
every position but the first is a target (B·(T−1) per batch). The runtimes take turns batch by batch (rotated
order, never two at once); batches dropped + timed: ${runs}. **tokens/s = B·T / the median batch time**. The
machine is shared with other work, so absolute numbers are noisy; the ratios less so.

${t.configs.map(configLine).join('\n')}

### Tokens per second

Targets: wasm-simd ≥ ${t.targets['wasm-simd']}× and native ≥ ${t.targets.native}× ${TRAIN_BASELINE}'s tokens/s.

${trainingSpeedTable(t)}

### Matrix products of a training batch (${t.matmulShapes.config}, ${t.recipe.batchSize} × ${t.matmulShapes.T})

\`bench/speed/native_bench.cpp --work backward\` (natively, and compiled with emcmake and run by Node for
wasm-simd) on every linear of an ${t.matmulShapes.config} batch, float32 weights as training keeps them: the
forward's product (\`linear_rows\`, x [N, in]·Wᵀ) against \`linear_backward\` (core/ops/linear.h: dx = dy·W
and dW += dyᵀ·x, transposes and packing included; twice the forward's FLOPs), and its two halves
timed apart. N = ${t.recipe.batchSize}·${t.matmulShapes.T} rows; lm_head runs one sequence (${t.matmulShapes.T} rows) at a time, ${t.recipe.batchSize} times a
batch. Medians of ${t.matmul[0]?.forward.runs} repetitions (three processes per runtime, the first three repetitions of each dropped).

${trainingMatmulTable(t)}

${backwardTargetLine(t)}

### Losses

The same first batch from the same weights should give the same loss everywhere (up to float32
rounding); afterwards the runs drift apart slowly as rounding differences compound. ${lossesFall(t)}

${lossTable(t)}

### Memory of a training run

The trainer's own count (\`trainer.info().memory\` in Wasm, \`Trainer::memory()\` natively) after the last
batch: float32 master weights, one gradient per weight, AdamW's two moments, the activations kept for the
backward and their gradients (for the batch shape), the transposed weights the backward multiplies by, and the
model's own packed copy the forward reads. Wasm memory is the instance's \`WebAssembly.Memory\` size (a
fresh instance per run; it never shrinks). PyTorch's peak RSS includes the Python interpreter and torch itself.

${trainingMemoryTable(t)}
${TRAINING_END}
`;
}

// The part of an existing report between `begin` and `end` (empty if none).
export function existingSection(mdPath, begin, end) {
  if (!existsSync(mdPath)) return '';
  const text = readFileSync(mdPath, 'utf8');
  const from = text.indexOf(begin);
  const to = text.indexOf(end);
  if (from < 0 || to < from) return '';
  return text.slice(from, to + end.length) + '\n';
}

// Replaces the part between `begin` and `end` of an existing report with
// `section` (or appends it), leaving every other byte as it is.
export function replaceSection(mdPath, begin, end, section) {
  let text = existsSync(mdPath) ? readFileSync(mdPath, 'utf8') : '# Benchmarks\n';
  const from = text.indexOf(begin);
  const to = text.indexOf(end);
  if (from >= 0 && to > from) {
    let after = to + end.length;
    if (text[after] === '\n') after += 1;
    text = text.slice(0, from) + section + text.slice(after);
  } else {
    text = `${text.replace(/\n*$/, '')}\n\n${section}`;
  }
  writeFileSync(mdPath, text);
}

// The Training section as it is in an existing report (empty if none).
function existingTrainingSection(mdPath) {
  return existingSection(mdPath, TRAINING_BEGIN, TRAINING_END);
}

// Replaces the Training section of an existing report (or appends one),
// leaving every other byte as it is.
export function writeTrainingSection(training, mdPath) {
  replaceSection(mdPath, TRAINING_BEGIN, TRAINING_END, trainingSection(training));
}

// ------------------------------------------------------------------ training in the page
const PAGE_TRAINING_BEGIN =
  '<!-- page-training: written by bench/run.mjs (node bench/run.mjs --only page-training rewrites this part alone) -->';
const PAGE_TRAINING_END = '<!-- /page-training -->';

const secs = (x) => `${x.toFixed(1)} s`;
const headName = (v) => `L${v.layer} H${v.head}`;
const STOPPED = {
  'all goals': 'every goal was reached',
  'run done': 'the default run ended',
  'time limit': 'the time limit',
};

function pageGoalRows(p) {
  const limit = `${p.limitSeconds / 60} min`;
  const g = p.goals;
  const want = p.goalsWanted;
  const missed = (best) =>
    `not within ${limit}${p.stopped === 'run done' ? ` (the run ended after ${secs(p.seconds)})` : ''}; best ${best}`;
  const rows = [];
  const loss = g.loss;
  rows.push([
    `loss (mean of the last ${p.lossWindow} batches) at most half its first value (the mean of the first ${p.lossWindow}: ${fmt(loss.first, 3)})`,
    `≤ ${fmt(loss.first * want.loss, 3)}`,
    loss.seconds !== null
      ? `**${secs(loss.seconds)}** (batch ${loss.step}, ${fmt(loss.reached, 3)})`
      : missed(loss.best === null ? '–' : `${fmt(loss.best, 3)} (batch ${loss.bestStep})`),
    loss.seconds !== null ? 'met' : 'missed',
  ]);
  const snapshotRow = (label, goal, r, extra = () => '') => {
    const init =
      (r.initial === undefined ? '' : `; the untrained model (batch 0): ${fmt(r.initial, 2)}`) +
      (r.last ? `; the last snapshot (batch ${r.last.step}): ${fmt(r.last.value, 2)} (${headName(r.last)}${extra(r.last)})` : '');
    const result =
      r.seconds !== null
        ? `**${secs(r.seconds)}** (batch ${r.step}, ${headName(r.reached)}: ${fmt(r.reached.value, 2)}${extra(r.reached)})${init}`
        : missed(r.best ? `${fmt(r.best.value, 2)} (${headName(r.best)}, batch ${r.best.step}${extra(r.best)})${init}` : '–');
    rows.push([label, `≥ ${goal}`, result, r.seconds !== null ? 'met' : 'missed']);
  };
  snapshotRow("some head's previous-token score", want.previousToken, g.previousToken);
  snapshotRow("some head's induction score", want.induction, g.induction);
  const tokens = p.probe ? `tokens ${p.probe.columns.join(', ')} from row ${p.probe.row}` : '';
  snapshotRow(
    `attention from 她 on 小红 (${tokens}) at the head with the best pronoun score`,
    want.pronounAttention,
    g.pronounAttention,
    (v) => `, its pronoun score ${fmt(v.score, 2)}`,
  );
  return rows;
}

// The trained demo model's training (from its card) and q/k norm gains.
// "13,350 batches of 16 × 64", as the demo model's card (scripts/model_card.mjs) states its data.
function demoTraining() {
  const card = new URL('../models/minimind-demo/MODEL_CARD.md', import.meta.url);
  const m = existsSync(card) && /([\d,]+) batches of (\d+) samples × (\d+) tokens/.exec(readFileSync(card, 'utf8'));
  return m ? `${m[1]} batches of ${m[2]} × ${m[3]}` : 'an unrecorded number of batches';
}
function demoGains() {
  const file = new URL('../models/minimind-demo/model.safetensors', import.meta.url);
  if (!existsSync(file)) return '–';
  const { min, max } = normGains(file);
  return `${min.toFixed(2)}–${max.toFixed(2)}`;
}

function pageTrainingSection(p) {
  const m = p.machine;
  const s = p.settings;
  const rows = pageGoalRows(p);
  const allMet = rows.every((r) => r[3] === 'met');
  const g = p.goals.pronounAttention;
  const atInit = g.seconds !== null && g.step === 0;
  const headsMissed = p.goals.previousToken.seconds === null || p.goals.induction.seconds === null;
  return `${PAGE_TRAINING_BEGIN}
## Training in the page

The playground's Train panel (\`web/train/\`; the run in its own worker,
\`web/train_worker.mjs\`, \`web/train_host.mjs\`, \`js/train_session.mjs\`) in headless ${m.chromium},
measured by \`bench/training/page_training.mjs\` in one run of \`${p.command}\` on **${m.cpu}** (${m.cores} cores,
shared with other work), ${m.date}, load average ${m.load} at the start and ${m.loadEnd} at the end. The bench
opens the playground (1280×800, \`?lang=en\`), presses **Train** (\`#open-train\`: it opens the panel) and
**Start** (the default run) and watches for up to ${p.limitSeconds / 60} minutes, stopping earlier when every goal
is reached or the run ends. Times are the page's own (\`performance.now()\`), from the Start click to the
loss report or the snapshot (every ${s.snapshotEvery} batches, and at batch 0) that reached the goal,
read through \`#train\`'s read-only \`element.snapshots\` and \`element.trainer\`.

The default run: a new generation-3 MiniMind (hidden ${s.hidden_size}, ${s.num_hidden_layers} layers, ${s.num_attention_heads} heads,
${s.num_key_value_heads} kv heads, vocabulary 6400, model seed ${s.model_seed}) on ${s.batches} batches of fresh generated corpus lines
(\`js/corpus_stream.mjs\`, the ${s.mix} mix, corpus seed ${s.streamSeed}${s.pack ? ', packed' : ''}), batch ${s.batchSize} × ${s.maxSeqLen}, learning rate ${s.learningRate}, gradient clip ${s.gradClip},
${s.epochs} ${s.epochs === 1 ? 'epoch' : 'epochs'}: ${p.trainer.totalBatches} batches. The first batch was reported ${secs(p.firstBatchSeconds)} after the
click (the worker loads the model, generates and tokenizes the corpus first). Stopped after
${secs(p.seconds)} (${STOPPED[p.stopped]}), ${p.batches} batches done, ${p.snapshots} snapshots read.

**Training tokens/s in the page: ${fmt(p.tokensPerSecond, 0)}** (the panel's own count: the trainer's
positions, batch rows × ${s.maxSeqLen}, over its training time, snapshots included); ${fmt(p.wallTokensPerSecond, 0)} by the wall clock
between the first and the last loss report.

**Goal: all of these within ${p.limitSeconds / 60} minutes of the click: ${allMet ? 'met' : 'missed'}.** Head-role scores are the
snapshots' (\`js/head_roles.mjs\` \`lightHeadProbes\` / \`scoreHeadRoles\`); the attention from 她 is the
snapshot's attention of the probe \`${p.probe ? p.probe.text.slice(1).join('') : '–'}\` (after the bos), summed over 小红's
tokens, at that snapshot's best pronoun head. L·H is layer · head.

| measure | goal | result | |
|---|---|---|---|
${rows.map((r) => `| ${r.join(' | ')} |`).join('\n')}
${
  atInit
    ? `
The attention goal is met by the untrained model's own snapshot at batch 0 (seeded random weights):
this measure alone does not show that the run learnt the pronoun; its best pronoun head's pronoun
score (mean over held-out sentences) says more.
`
    : ''
}${
    headsMissed
      ? `
What bounds the previous-token score of a young model (\`bench/training/prev_token_cap.mjs\`, computed in this
run): MiniMind's q/k norm scales every query and key to the RMS of its norm weights, which start at 1,
and with RoPE (theta 1e6) the most a head whose scores depend on position alone can put on the
previous token, mean over the rows of a sequence of that many tokens, is about this (the best a seeded
search over q and k finds, from 6 starts: reachable, and no start found more):

${capTable()}

The default model has head_dim ${s.hidden_size / s.num_attention_heads}; its heads reach 0.8 only once training has grown the
norm weights by about half, against MiniMind's weight decay (0.01 on every parameter). An induction
head reads a previous-token head's output, so it forms after one. The project's trained model
(\`models/minimind-demo\`, head_dim 32, trained for ${demoTraining()}) has q/k norm weights of
RMS ${demoGains()} (per layer and norm).
`
      : ''
  }${PAGE_TRAINING_END}
`;
}

// The "Training in the page" section as it is in an existing report (empty if none).
function existingPageTrainingSection(mdPath) {
  return existingSection(mdPath, PAGE_TRAINING_BEGIN, PAGE_TRAINING_END);
}

/** Replaces the "Training in the page" section of an existing report (or appends one), leaving every other byte as it is. */
export function writePageTrainingSection(pageTraining, mdPath) {
  replaceSection(mdPath, PAGE_TRAINING_BEGIN, PAGE_TRAINING_END, pageTrainingSection(pageTraining));
}

// ------------------------------------------------------------------ SVG
// The 1-2-5 step at or below (round = Math.floor) or above (Math.ceil) x.
function nice(x, round) {
  const decade = 10 ** Math.floor(Math.log10(x));
  const steps = [1, 2, 5, 10].map((m) => m * decade);
  return round === Math.floor ? steps.filter((v) => v <= x).at(-1) : steps.find((v) => v >= x);
}

function svgPlot(data) {
  const panelW = 300;
  const panelH = 240;
  const margin = { left: 66, right: 12, top: 34, bottom: 44 };
  const legendH = 34;
  const width = data.results.length * panelW;
  const height = panelH + legendH;
  const lengths = data.prefillLengths;
  const parts = [];
  const esc = (s) => String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;');
  data.results.forEach((result, p) => {
    const x0 = p * panelW;
    const items = result.items.filter((i) => i.work === 'prefill');
    const values = items.flatMap((i) => RUNTIMES.map((r) => i.stats[r]?.median).filter((v) => v > 0));
    const lo = nice(Math.min(...values), Math.floor);
    const hi = nice(Math.max(...values), Math.ceil);
    const px = (T) =>
      x0 +
      margin.left +
      ((Math.log2(T) - Math.log2(lengths[0])) / (Math.log2(lengths.at(-1)) - Math.log2(lengths[0]))) *
        (panelW - margin.left - margin.right);
    const py = (ms) =>
      margin.top + (1 - (Math.log10(ms) - Math.log10(lo)) / (Math.log10(hi) - Math.log10(lo))) * (panelH - margin.top - margin.bottom);
    parts.push(`<text x="${x0 + panelW / 2}" y="18" text-anchor="middle" font-weight="bold">${esc(result.preset)}</text>`);
    for (let d = 10 ** Math.floor(Math.log10(lo)); d <= hi; d *= 10) {
      for (const m of [1, 2, 5]) {
        const v = d * m;
        if (v < lo * 0.9999 || v > hi * 1.0001) continue;
        const y = py(v).toFixed(1);
        parts.push(`<line x1="${px(lengths[0])}" x2="${px(lengths.at(-1))}" y1="${y}" y2="${y}" stroke="#ddd"/>`);
        parts.push(
          `<text x="${px(lengths[0]) - 6}" y="${y}" dy="4" text-anchor="end" font-size="11">${v >= 1000 ? `${v / 1000} s` : `${v} ms`}</text>`,
        );
      }
    }
    for (const T of lengths) {
      parts.push(`<line x1="${px(T)}" x2="${px(T)}" y1="${margin.top}" y2="${panelH - margin.bottom}" stroke="#eee"/>`);
      parts.push(`<text x="${px(T)}" y="${panelH - margin.bottom + 16}" text-anchor="middle" font-size="11">${T}</text>`);
    }
    parts.push(
      `<text x="${x0 + margin.left + (panelW - margin.left - margin.right) / 2}" y="${panelH - 10}" text-anchor="middle" font-size="11">prompt tokens (prefill)</text>`,
    );
    const midY = (margin.top + panelH - margin.bottom) / 2;
    if (p === 0)
      parts.push(
        `<text x="12" y="${midY}" transform="rotate(-90 12 ${midY})" text-anchor="middle" font-size="11">median time (log scale)</text>`,
      );
    for (const runtime of RUNTIMES) {
      const points = items.filter((i) => i.stats[runtime]).map((i) => [px(i.T), py(i.stats[runtime].median)]);
      if (!points.length) continue;
      const { color, dash } = STYLE[runtime];
      parts.push(
        `<polyline fill="none" stroke="${color}" stroke-width="2"${dash ? ` stroke-dasharray="${dash}"` : ''} points="${points.map(([x, y]) => `${x.toFixed(1)},${y.toFixed(1)}`).join(' ')}"/>`,
      );
      for (const [x, y] of points) parts.push(`<circle cx="${x.toFixed(1)}" cy="${y.toFixed(1)}" r="3" fill="${color}"/>`);
    }
  });
  const legendY = panelH + 14;
  RUNTIMES.forEach((runtime, i) => {
    const x = 20 + i * (width / RUNTIMES.length);
    const { color, dash } = STYLE[runtime];
    parts.push(
      `<line x1="${x}" x2="${x + 28}" y1="${legendY}" y2="${legendY}" stroke="${color}" stroke-width="2"${dash ? ` stroke-dasharray="${dash}"` : ''}/>`,
    );
    parts.push(`<text x="${x + 34}" y="${legendY}" dy="4" font-size="12">${runtime}</text>`);
  });
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">
<title>MiniMind prefill time against sequence length (median, log-log), one line per runtime</title>
<rect width="100%" height="100%" fill="white"/>
${parts.join('\n')}
</svg>
`;
}
