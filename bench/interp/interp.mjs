#!/usr/bin/env node
// Interpretability speed: the activation-patching sweep over every head of
// minimind2-small (8 layers × 8 heads, seeded weights) on a 16-token prompt,
// with the residual sweep, the logit lens, direct logit attribution and QK
// attribution beside it, on the shipped Wasm builds in Node (npm run bench -- --only interp
// writes the "Interpretability" section of BENCHMARKS.md; node
// bench/interp/interp.mjs prints it).
//
// A patched run resumes at the patched layer from the corrupt run's cached
// residual (earlier layers are not recomputed), and only the last position's
// o_proj and FFN run in the last block; a residual patch at position t reuses
// the corrupt run's keys and values of positions before t.
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';

import { nextToken } from '../../js/pronoun_pair.mjs';
import { encodeText } from '../../js/text_encoding.mjs';
import { defaultRow, rowStory, storyPair } from '../../js/why_text.mjs';

import { runHeader } from '../cpu_model.mjs';
import { median } from '../median.mjs';

const PRESET = 'minimind2-small';
const T = 16;
const REPS = 5;
const VARIANTS = [
  { label: 'Wasm SIMD, 1 thread', variant: 'simd', threads: 1 },
  { label: 'Wasm SIMD + threads, 2 threads', variant: 'threads', threads: 2 },
];

export const INTERP_BEGIN = '<!-- interp:';
export const INTERP_END = '<!-- /interp -->';

// bos + 15 ids; the corrupt prompt differs at position 1, right after the bos: a patched run
// recomputes positions 1..15 (a pair differing at its last token, as the pronoun pair does,
// recomputes one position per block and is much faster).
const DIFFERENT_AT = 1;
const clean = [1, ...Array.from({ length: T - 1 }, (_, i) => 3 + ((i * 131 + 7) % 6000))];
const corrupt = clean.map((id, i) => (i === DIFFERENT_AT ? id + 1 : id));
const ANSWER = 100;
const WRONG = 200;

// QK attribution on a 64-token prompt: one cell of the last block (the largest table, 1 + 7·9 = 64
// components a side) from the run the model keeps, as a click on the page asks for it; and block 0's
// vocabulary ranking (6400 keys). Goals: 5 ms and 50 ms on 1 thread.
const QK_T = 64;
const qkIds = [1, ...Array.from({ length: QK_T - 1 }, (_, i) => 3 + ((i * 131 + 7) % 6000))];
const QK_CELL = { ids: qkIds, layer: 7, head: 3, query: QK_T - 1, key: 30 };
const QK_RANK = { ids: qkIds, layer: 0, head: 3, query: QK_T - 1, key: 30, rankKeys: 10 };

// Wall and CPU milliseconds of one call (CPU: every thread of the process,
// so on a loaded machine the one-thread CPU time is what an idle core would take).
function time(f) {
  const cpu = process.cpuUsage();
  const t = performance.now();
  f();
  const wall = performance.now() - t;
  const used = process.cpuUsage(cpu);
  return { wall, cpu: (used.user + used.system) / 1000 };
}

function timed(f) {
  f(); // warm-up
  const runs = Array.from({ length: REPS }, () => time(f));
  return { wall: median(runs.map((r) => r.wall)), cpu: median(runs.map((r) => r.cpu)) };
}

// The page's default sentence on the trained model: what the why section asks the worker for
// when the text, its row or a switch changes (web/why_worker.mjs): the lens twice (the model's own
// top 1, then the top 5 with the answer mapped), the attribution, and both patching sweeps of the
// pair derived from the text (the referent swapped for another name). The page's goal: 100 ms.
const DEMO_DIR = new URL('../../models/minimind-demo/', import.meta.url);
const DEMO_TEXT = '小明把苹果给了小红，她很开心';

function demoWhy(mm) {
  const read = (name) => readFileSync(new URL(name, DEMO_DIR));
  const model = mm.loadModel({ config: read('config.json').toString(), weights: read('model.safetensors') });
  const tokenizer = mm.loadTokenizer(read('tokenizer.json').toString());
  const ids = encodeText(tokenizer, DEMO_TEXT);
  const labels = tokenizer.display(ids).map((t) => t.text);
  const row = defaultRow(DEMO_TEXT, labels);
  const story = rowStory(DEMO_TEXT, labels, row);
  const pair = storyPair(story, tokenizer);
  const answer = nextToken(tokenizer, pair.clean, pair.answer);
  const wrong = nextToken(tokenizer, pair.clean, pair.wrong);
  const patch = { clean: encodeText(tokenizer, pair.clean), corrupt: encodeText(tokenizer, pair.corrupt), answer, wrong };
  const change = () => {
    model.lens(ids, { top: 1 });
    model.lens(ids, { top: 5, token: answer });
    model.attribute(ids, { position: row, answer, wrong });
    model.patch(patch);
  };
  return { change, T: ids.length, dispose: () => (model.dispose(), tokenizer.dispose()) };
}

/** Median milliseconds per piece of work, per Wasm build. */
export async function measureInterp({ log = () => {} } = {}) {
  const { loadMiniMind } = await import('../../js/minimind.mjs');
  const started = new Date();
  const load = os.loadavg()[0];
  const results = [];
  for (const { label, variant, threads } of VARIANTS) {
    const mm = await loadMiniMind({ variant, threads });
    const model = mm.createModel({ preset: PRESET, seed: 0 });
    const demo = demoWhy(mm);
    const request = { clean, corrupt, answer: ANSWER, wrong: WRONG };
    log(`interp: ${label}`);
    results.push({
      label,
      threads: mm.threads,
      forward: timed(() => model.forward(clean)),
      heads: timed(() => model.patch({ ...request, residual: false })),
      residual: timed(() => model.patch({ ...request, heads: false })),
      both: timed(() => model.patch(request)),
      lens: timed(() => model.lens(clean, { top: 5 })),
      attribute: timed(() => model.attribute(clean, { answer: ANSWER, wrong: WRONG })),
      qkCell: timed(() => model.qk(QK_CELL)),
      qkRank: timed(() => model.qk(QK_RANK)),
      demoWhy: timed(demo.change),
    });
    model.dispose();
    demo.dispose();
  }
  return { header: runHeader(started, load), preset: PRESET, T, differentAt: DIFFERENT_AT, reps: REPS, results };
}

const fmt = (ms) => (ms >= 100 ? ms.toFixed(0) : ms.toFixed(1));

/** The "Interpretability" section of BENCHMARKS.md, between its markers. */
export function interpSection(r) {
  const { header: h } = r;
  const rows = [
    ['forward (for scale)', 'forward'],
    ['patching, every head (64 patched runs)', 'heads'],
    ['patching, every residual layer × position (9 × 16)', 'residual'],
    ['patching, both sweeps (one `model.patch` call)', 'both'],
    ['logit lens, top 5, 9 layers × 16 positions', 'lens'],
    ['direct logit attribution, last position', 'attribute'],
    [`QK attribution, one cell of block 7 at ${QK_T} tokens, from the kept run (goal ≤ 5 ms)`, 'qkCell'],
    ['QK attribution, block 0’s vocabulary ranking, 6400 keys (goal ≤ 50 ms)', 'qkRank'],
    ['the trained model’s why section on a change (page goal ≤ 100 ms)', 'demoWhy'],
  ];
  const head = `| work | ${r.results.map((x) => x.label).join(' | ')} |`;
  const rule = `|---|${r.results.map(() => '---:').join('|')}|`;
  const lines = rows.map(
    ([name, key]) => `| ${name} | ${r.results.map((x) => `${fmt(x[key].wall)} ms (CPU ${fmt(x[key].cpu)} ms)`).join(' | ')} |`,
  );
  return `${INTERP_BEGIN} written by node bench/run.mjs --only interp; do not edit by hand -->
## Interpretability

${r.preset} (seeded weights), a ${r.T}-token prompt, clean and corrupt differing at position
${r.differentAt} (the worst case: every later position is recomputed); median of ${r.reps} runs after
one warm-up, in Node on the Wasm modules the page ships (${h.cpu}, ${h.cores} cores,
${h.date.slice(0, 10)}, load average ${h.load[0].toFixed(1)}–${h.load[1].toFixed(1)}: wall time grows with the load,
so each cell also gives the process's CPU time, all threads together).
Each sweep includes its clean and corrupt runs with the cache of head outputs; a patched run
resumes at the patched layer from the corrupt run's residual (earlier layers are not recomputed)
and runs the last block's o_proj and FFN on the last position alone; a residual patch at
position t takes the corrupt run's keys and values of positions before t from its cache.
The QK rows time \`model.qk\` after one call that ran the model and kept its run (a click on
the matrix of a text already shown), the table [64 × 64] of head 3 of the last block from the last
position to position 30, and the block-0 ranking of the whole vocabulary's keys at a position.
The last row is the page's own work on the trained model (minimind-demo) when the text, the row
or a switch changes, on its default sentence ${DEMO_TEXT} at the row of 她: the logit lens twice,
direct attribution, and both patching sweeps of the pair derived from the text (小红 → 苏静). A
model above 8M parameters (minimind2-small has 26M) patches only when the learner asks.

${head}
${rule}
${lines.join('\n')}
${INTERP_END}
`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  console.log(interpSection(await measureInterp({ log: (m) => console.error(m) })));
}
