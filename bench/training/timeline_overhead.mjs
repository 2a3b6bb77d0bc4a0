#!/usr/bin/env node
// What the training timeline (js/timeline.mjs) costs a run: the Train
// panel's two runs (js/train_recipes.mjs default and induction), their first
// SNAPSHOTS × every batches at the default spacing (defaultSnapshotEvery of
// the recipe's batches), trained twice side by side in one process: one
// session as the panel runs it (role scores and the timeline entry at every
// snapshot) and one whose snapshots skip the entry (TrainSession
// `timeline: false`), the two taking turns batch by batch in alternating
// order (on a host whose speed drifts, both see the same moments). Both start
// from the same weights and read the same batches, so they do the same work
// but the entries. The overhead is the difference of their training times
// (batches and snapshots) over the run without entries, in CPU time (the
// process's, one thread, summed over each session's own calls: a busy host
// delays both alike but adds nothing to it) and in wall time.
// The split: at each snapshot the entry's pieces are timed again on the same
// weights, outside the runs' times: the held-out loss and ICL score
// (positionLosses over the ICL sequences), the composition (headComposition:
// model.keyComposition on the induction probe) and the half floats of the
// attention. One thread, the Wasm SIMD module in Node; a snapshot of each
// session first, not timed, so that compiling the code of a first call counts
// in neither.
// npm run bench -- --only timeline writes the "The training timeline" section
// of BENCHMARKS.md; node bench/training/timeline_overhead.mjs prints it.
import { readFileSync } from 'node:fs';
import os from 'node:os';

import { halfFromFloats } from '../../js/half_float.mjs';
import { defaultSnapshotEvery, headComposition, positionLosses, timelineProbes } from '../../js/timeline.mjs';
import { TRAIN_RECIPES, recipeSamples } from '../../js/train_recipes.mjs';
import { TrainSession } from '../../js/train_session.mjs';

import { runHeader } from '../cpu_model.mjs';

export const TIMELINE_BEGIN = '<!-- timeline-overhead:';
export const TIMELINE_END = '<!-- /timeline-overhead -->';

/** Snapshots after the one at batch 0 each run takes. */
const SNAPSHOTS = 10;
/** The recipes, and how many times each is measured (the default run's batches are short: its share is noisier). */
const ROUNDS = Object.freeze({ default: 3, induction: 1 });
/** The goal: the timeline adds at most this share to a run's time. */
const GOAL = 0.05;

/** f()'s result, and its time added to `sum` ({wall, cpu} in ms). */
function timed(sum, f) {
  const cpu = process.cpuUsage();
  const t = performance.now();
  const out = f();
  sum.wall += performance.now() - t;
  const used = process.cpuUsage(cpu);
  sum.cpu += (used.user + used.system) / 1000;
  return out;
}

/** {recipe, every, batches, snapshots, off, on, split: {loss, composition, half}}, each time {wall, cpu} in ms, of one recipe. */
async function measureRecipe(mm, tokenizer, id, log) {
  const recipe = TRAIN_RECIPES[id];
  const every = defaultSnapshotEvery(recipe.batches);
  const batches = every * SNAPSHOTS;
  // The run's first batches: its data and options, its schedule cut short (the cost does not depend on it).
  const run = { ...recipe, batches };
  const samples = recipeSamples(run, (text) => tokenizer.encode(text));
  const sessionOf = (timeline) =>
    new TrainSession({
      model: mm.createModel({ config: run.config, seed: run.modelSeed, init: 'minimind' }),
      tokenizer,
      samples,
      options: run.options,
      snapshotEvery: every,
      timeline,
    });
  const sessions = { on: sessionOf(true), off: sessionOf(false) };
  const times = { on: { wall: 0, cpu: 0 }, off: { wall: 0, cpu: 0 } };
  const probes = timelineProbes(tokenizer);
  const split = { loss: { wall: 0, cpu: 0 }, composition: { wall: 0, cpu: 0 }, half: { wall: 0, cpu: 0 } };
  let snapshots = 0;
  const pieces = (snapshot) => {
    const model = sessions.on.model;
    timed(split.loss, () => positionLosses(model, probes.icl));
    timed(split.composition, () => headComposition(model, probes.induction));
    timed(split.half, () => halfFromFloats(snapshot.attention));
    snapshots += 1;
  };
  // Warm-up, not timed: the engine compiles each piece's code on its first call (once a page, not once a snapshot).
  for (const key of ['on', 'off']) sessions[key].snapshot();
  // Batch 0's snapshot, as the panel takes it before the first batch.
  for (const key of ['on', 'off']) {
    const snapshot = timed(times[key], () => sessions[key].snapshot());
    if (key === 'on') pieces(snapshot);
  }
  for (let b = 0; b < batches; b += 1) {
    for (const key of b % 2 ? ['off', 'on'] : ['on', 'off']) {
      const { snapshot } = timed(times[key], () => sessions[key].runSlice(0));
      if (key === 'on' && snapshot) pieces(snapshot);
    }
    if ((b + 1) % every === 0) log?.(`${id}: ${b + 1}/${batches} batches`);
  }
  const out = {
    recipe: id,
    every,
    batches,
    snapshots,
    ...times,
    split,
  };
  for (const s of Object.values(sessions)) {
    s.model.dispose();
    s.dispose();
  }
  return out;
}

/** {header, recipes: [{recipe, every, batches, snapshots, rounds: [measureRecipe's]}]}: the recipes one after the other. */
export async function measureTimelineOverhead({ log = () => {} } = {}) {
  const started = new Date();
  const load = os.loadavg()[0];
  const { loadMiniMind } = await import('../../js/minimind.mjs');
  const mm = await loadMiniMind({ variant: 'simd' }); // one thread
  const tokenizer = mm.loadTokenizer(readFileSync(new URL('../../models/minimind-tokenizer/tokenizer.json', import.meta.url), 'utf8'));
  const recipes = [];
  for (const [id, rounds] of Object.entries(ROUNDS)) {
    const measured = [];
    for (let k = 0; k < rounds; k += 1) measured.push(await measureRecipe(mm, tokenizer, id, log));
    recipes.push({ ...measured[0], rounds: measured });
  }
  tokenizer.dispose();
  return { header: runHeader(started, load), recipes };
}

const pct = (x) => `${(100 * x).toFixed(1)}%`;
const sec = (ms) => `${(ms / 1000).toFixed(1)} s`;

/** The "The training timeline" section of BENCHMARKS.md, between its markers. */
export function timelineOverheadSection(r) {
  const { header: h } = r;
  const rows = r.recipes.map((x) => {
    // The rounds pooled: their times summed.
    const sum = (read) => x.rounds.reduce((n, round) => n + read(round), 0);
    const on = { wall: sum((q) => q.on.wall), cpu: sum((q) => q.on.cpu) };
    const off = { wall: sum((q) => q.off.wall), cpu: sum((q) => q.off.cpu) };
    const [loss, composition, half] = ['loss', 'composition', 'half'].map((piece) => sum((q) => q.split[piece].cpu));
    const overhead = (on.cpu - off.cpu) / off.cpu;
    const each = x.rounds.length > 1 ? ` (rounds: ${x.rounds.map((q) => pct((q.on.cpu - q.off.cpu) / q.off.cpu)).join(', ')})` : '';
    const entries = loss + composition + half;
    const goal = overhead <= GOAL ? 'met' : 'missed';
    const share = (ms) => pct(ms / off.cpu);
    return `| ${x.recipe} | ${x.every} | ${x.batches} × ${x.rounds.length} | ${x.snapshots * x.rounds.length} | ${sec(off.cpu)} | ${sec(on.cpu)} | **${pct(overhead)}** (${goal})${each} | ${pct((on.wall - off.wall) / off.wall)} | ${share(entries)}: ${share(loss)}, ${share(composition)}, ${share(half)} | ${(entries / (x.snapshots * x.rounds.length)).toFixed(1)} ms |`;
  });
  return `${TIMELINE_BEGIN} written by node bench/run.mjs --only timeline; do not edit by hand -->
## The training timeline

What the timeline entry at every snapshot (\`js/timeline.mjs\`) adds to the Train panel's runs
(\`js/train_recipes.mjs\`), on one thread (Wasm SIMD in Node; ${h.cpu}, ${h.cores} cores,
${h.date.slice(0, 10)}, load average ${h.load[0].toFixed(1)}–${h.load[1].toFixed(1)};
\`bench/training/timeline_overhead.mjs\`). Each run's first batches at the default spacing (a snapshot
at batch 0 and every ${'`every`'} batches; the default run's in several rounds, pooled), trained twice
from the same weights on the same batches, batch by batch in turns: with the entries and with
snapshots that skip them (role scores, predictions and the attention are taken in both). Goal: the
timeline adds at most ${pct(GOAL)} to a run's time, read in CPU time (the process's, over each
session's own calls: the host's load delays both runs but adds no CPU time); wall time beside it.
The split times each piece of the entry again on the same weights at each snapshot (CPU time, as a
share of the run without entries): the held-out loss and ICL score (\`positionLosses\`), the
composition (\`headComposition\`), the attention's half floats.

| run | every | batches × rounds | snapshots | CPU without entries | CPU with entries | overhead (CPU) | overhead (wall) | split: all = loss and ICL, composition, half floats | per entry |
|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|
${rows.join('\n')}
${TIMELINE_END}
`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const result = await measureTimelineOverhead({ log: (line) => process.stderr.write(`${line}\n`) });
  process.stdout.write(`${JSON.stringify(result)}\n\n${timelineOverheadSection(result)}`);
}
