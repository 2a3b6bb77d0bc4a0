#!/usr/bin/env node
// The circuit's speed (issue: the circuit behind a prediction): the trained
// demo model's whole circuit on a 16-token pair (EAP of every edge, path
// patching of every edge, both faithfulness curves), and minimind2-small's
// (MiniMind's initialisation, seed 0) at 64 tokens: EAP of every edge and
// path patching of the top 100. One thread, the Wasm SIMD module in Node.
// npm run bench -- --only circuit writes the "The circuit" section of
// BENCHMARKS.md; node bench/interp/circuit.mjs prints it.
//
// Where the time goes: each piece is timed as its own model.circuit call
// (EAP alone: top 0 and no curves; + path patching; + the curves), and the
// plain forward of one text for scale. Every call runs the clean and the
// corrupt forward again.
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';

import { encodeText } from '../../js/text_encoding.mjs';

import { runHeader } from '../cpu_model.mjs';
import { median } from '../median.mjs';

export const CIRCUIT_BEGIN = '<!-- circuit:';
export const CIRCUIT_END = '<!-- /circuit -->';

const REPS = 5;
const DEMO_DIR = new URL('../../models/minimind-demo/', import.meta.url);
const DEMO_T = 16;
// The demo's pronoun sentence, long enough for 16 tokens with the bos; the corrupt text has 他 for 她.
const DEMO_TEXT = '小明把书给了小红，小红很开心，她';
const SMALL_PRESET = 'minimind2-small';
const SMALL_T = 64;
const SMALL_TOP = 100;

function time(f) {
  const cpu = process.cpuUsage();
  const t = performance.now();
  f();
  const wall = performance.now() - t;
  const used = process.cpuUsage(cpu);
  return { wall, cpu: (used.user + used.system) / 1000 };
}

function timed(f, reps = REPS) {
  f(); // warm-up
  const runs = Array.from({ length: reps }, () => time(f));
  return { wall: median(runs.map((r) => r.wall)), cpu: median(runs.map((r) => r.cpu)) };
}

// The demo's pair: the text's first 16 tokens (bos first), and the same with 她 -> 他.
function demoPair(mm) {
  const read = (name) => readFileSync(new URL(name, DEMO_DIR));
  const model = mm.loadModel({ config: read('config.json').toString(), weights: read('model.safetensors') });
  const tokenizer = mm.loadTokenizer(read('tokenizer.json').toString());
  const she = tokenizer.encode('她');
  const he = tokenizer.encode('他');
  if (she.length !== 1 || he.length !== 1) throw new Error('她 and 他 must be one token each');
  let clean = Array.from(encodeText(tokenizer, DEMO_TEXT));
  while (clean.length < DEMO_T) clean = [...clean, ...clean.slice(1)];
  clean = clean.slice(0, DEMO_T);
  if (!clean.includes(she[0])) clean[DEMO_T - 1] = she[0];
  const corrupt = clean.map((id) => (id === she[0] ? he[0] : id));
  const logits = model.forward(clean).logits;
  const last = logits.data.subarray((DEMO_T - 1) * logits.shape[1], DEMO_T * logits.shape[1]);
  const order = Array.from(last.keys()).sort((a, b) => last[b] - last[a]);
  tokenizer.dispose();
  return { model, clean, corrupt, answer: order[0], wrong: order[1] };
}

// A 64-token pair of seeded ids differing at position 1 (every later position changes).
function smallPair() {
  const clean = [1, ...Array.from({ length: SMALL_T - 1 }, (_, i) => 3 + ((i * 131 + 7) % 6000))];
  const corrupt = clean.map((id, i) => (i === 1 ? id + 1 : id));
  return { clean, corrupt, answer: 100, wrong: 200 };
}

/** Median milliseconds of each piece, one thread. */
export async function measureCircuit({ log = () => {} } = {}) {
  const { loadMiniMind } = await import('../../js/minimind.mjs');
  const started = new Date();
  const load = os.loadavg()[0];
  const mm = await loadMiniMind({ variant: 'simd', threads: 1 });
  const demo = demoPair(mm);
  const d = { clean: demo.clean, corrupt: demo.corrupt, answer: demo.answer, wrong: demo.wrong };
  log('circuit: the demo model, 16 tokens');
  const demoEdges = demo.model.circuit({ ...d, top: 0, faithfulness: false }).edges.length;
  const demoResult = {
    edges: demoEdges,
    forward: timed(() => demo.model.forward(d.clean)),
    eap: timed(() => demo.model.circuit({ ...d, top: 0, faithfulness: false })),
    patched: timed(() => demo.model.circuit({ ...d, faithfulness: false })),
    whole: timed(() => demo.model.circuit(d)),
  };
  demo.model.dispose();
  log('circuit: minimind2-small, 64 tokens');
  const small = mm.createModel({ preset: SMALL_PRESET, seed: 0, init: 'minimind' });
  const s = smallPair();
  const smallEdges = small.circuit({ ...s, top: 0, faithfulness: false }).edges.length;
  const smallResult = {
    edges: smallEdges,
    forward: timed(() => small.forward(s.clean)),
    eap: timed(() => small.circuit({ ...s, top: 0, faithfulness: false }), 3),
    top: timed(() => small.circuit({ ...s, top: SMALL_TOP, faithfulness: false }), 3),
  };
  small.dispose();
  return { header: runHeader(started, load), reps: REPS, demo: demoResult, small: smallResult };
}

const fmt = (ms) => (ms >= 100 ? ms.toFixed(0) : ms.toFixed(1));
const cell = (x) => `${fmt(x.wall)} ms (CPU ${fmt(x.cpu)} ms)`;
const minus = (a, b) => ({ wall: a.wall - b.wall, cpu: a.cpu - b.cpu });

/** The "The circuit" section of BENCHMARKS.md, between its markers. */
export function circuitSection(r) {
  const { header: h, demo, small } = r;
  const rows = [
    [`demo: forward of one text (for scale)`, demo.forward],
    [`demo: EAP of all ${demo.edges} edges (2 forwards + 1 backward + the scores)`, demo.eap],
    [`demo: path patching of all ${demo.edges} edges`, minus(demo.patched, demo.eap)],
    ['demo: both faithfulness curves', minus(demo.whole, demo.patched)],
    ['**demo: the whole circuit (goal ≤ 1.5 s)**', demo.whole],
    [`minimind2-small: forward of one text (for scale)`, small.forward],
    [`**minimind2-small: EAP of all ${small.edges} edges (goal ≤ 2 s)**`, small.eap],
    [`**minimind2-small: path patching of the top ${SMALL_TOP} (goal ≤ 10 s)**`, minus(small.top, small.eap)],
  ];
  return `${CIRCUIT_BEGIN} written by node bench/run.mjs --only circuit; do not edit by hand -->
## The circuit

\`model.circuit\` on one thread (Wasm SIMD in Node; ${h.cpu}, ${h.cores} cores, ${h.date.slice(0, 10)},
load average ${h.load[0].toFixed(1)}–${h.load[1].toFixed(1)}). The demo model (\`models/minimind-demo\`)
on ${DEMO_T} tokens of ${DEMO_TEXT} (corrupt: 她 → 他), answer and wrong its two most likely next
tokens; minimind2-small (MiniMind's initialisation, seed 0) on ${SMALL_T} seeded ids whose corrupt
twin differs at position 1, so every later position changes. Median of ${r.reps} runs after a
warm-up (minimind2-small: 3). Each piece is its own \`model.circuit\` call minus the smaller one
(EAP: \`top: 0\`, no curves; then every edge, or the top ${SMALL_TOP}, path-patched; then the curves);
every call runs the clean and corrupt forwards again. A path-patched edge into block l reruns blocks
l … L − 1 (the last one on its last row), and only the rows from the sender's first changed
position on (the earlier rows are the clean run's: the demo's pair differs at its last token, so
one row per block; minimind2-small's at position 1, so 63 rows), so edges into early blocks cost
most; a faithfulness run is one forward in which every head reads its own q, k and v inputs. Wall
time grows with the machine's load; the CPU time (the process's, one thread) is what an idle core
would take, and is what the goals are read against.

| work | time |
|---|---:|
${rows.map(([name, x]) => `| ${name} | ${cell(x)} |`).join('\n')}
${CIRCUIT_END}
`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  console.log(circuitSection(await measureCircuit({ log: (m) => console.error(m) })));
}
