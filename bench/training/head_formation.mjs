#!/usr/bin/env node
// Head formation in the Train panel's runs (js/train_recipes.mjs): the default
// run and "watch an induction head form", each trained for its whole schedule
// on its corpus stream with seeds 1, 2 and 3 (the model's initialisation and
// the stream's), in Node, the module in Wasm, the panel's session code
// (js/train_session.mjs). CHECKPOINTS times a run (and before its first
// batch) every head is scored on the formation probes of the held-out probe
// seed (js/train_recipes.mjs FORMATION_PROBES, js/head_roles.mjs
// lightHeadProbes / scoreHeadRoles): when does a previous-token head pass 0.8
// and an induction head 0.5, at the same checkpoint, in tokens (batch rows ×
// max_seq_len, as the page counts them)?
//
// Tokens are the measure (the same on any machine); the time they take here is
// tokens ÷ tokens/s, with tokens/s measured on 1 thread (the SIMD build) and 2
// (the pthreads build), and projected to 4 threads from the measured speed-up
// by Amdahl's law.
//
// Usage: node bench/training/head_formation.mjs [--only default,induction] [--seeds 1,2,3] [--jobs 2] [--write]
//        node bench/training/head_formation.mjs --from build/bench/heads-results.json [--rates] [--write]
//          (the section again from a saved run; --rates: its tokens/s measured again, the file updated)
// bench/run.mjs --only heads runs it and writes the "Head formation" section
// (--write: this script writes it, without run.mjs's builds).
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';

import { lightHeadProbes, scoreHeadRoles } from '../../js/head_roles.mjs';
import { previousTokenCap } from '../../js/prev_token_cap.mjs';
import {
  FORMATION_GOALS,
  FORMATION_PROBES,
  TRAIN_RECIPES,
  formationProbeOptions,
  recipeSamples,
  recipeTokens,
  withSeed,
} from '../../js/train_recipes.mjs';
import { TrainSession } from '../../js/train_session.mjs';
import { runHeader } from '../cpu_model.mjs';
import { replaceSection } from '../report.mjs';
import { median } from '../median.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** The goals: a formed head's score (js/train_recipes.mjs FORMATION_GOALS), and the pronoun head's. */
const HEAD_GOALS = Object.freeze({ ...FORMATION_GOALS, pronoun: 0.5 });
export const SEEDS = Object.freeze([1, 2, 3]);
export const RECIPE_IDS = Object.freeze(Object.keys(TRAIN_RECIPES));
const CHECKPOINTS = 40;
// tokens/s: RATE_BATCHES batches after RATE_WARMUP, in a process of its own, RATE_ROUNDS rounds interleaved.
const RATE_WARMUP = 3;
const RATE_BATCHES = 20;
const RATE_ROUNDS = 3;

/** The best score of each role over layers and heads: {previousToken, induction, pronoun}. */
function bestScores(scores) {
  const best = (m) => (m ? Math.max(...m.flat()) : 0);
  return { previousToken: best(scores.previousToken), induction: best(scores.induction), pronoun: best(scores.pronoun) };
}

/**
 * Trains `recipe` (js/train_recipes.mjs, its seeds as given) for its whole
 * schedule, scoring the heads on the formation probes of `probeSeed` before
 * the first batch and `checkpoints` times during the run. Returns {id, seed,
 * batches, tokens, seconds, checkpoints: [{step, tokens, loss, previousToken,
 * induction, pronoun}], reached: {previousToken, induction, pronoun, formed}
 * (tokens at the first checkpoint at or above the goal, or null; formed: both
 * previous-token and induction at one checkpoint)}.
 */
export function runRecipe(mm, tokenizer, recipe, { checkpoints = CHECKPOINTS, probeSeed = FORMATION_PROBES.heldOutSeed } = {}) {
  const samples = recipeSamples(recipe, (text) => tokenizer.encode(text));
  const model = mm.createModel({ config: recipe.config, seed: recipe.modelSeed, init: 'minimind' });
  // The panel's run without its snapshots: the heads are scored here, on the formation probes.
  const session = new TrainSession({ model, tokenizer, samples, options: recipe.options, snapshotEvery: Infinity, roles: false });
  const probes = lightHeadProbes(tokenizer, formationProbeOptions(probeSeed));
  const every = Math.max(1, Math.ceil(recipe.batches / checkpoints));
  const out = { id: recipe.id, seed: recipe.modelSeed, batches: recipe.batches, tokens: 0, seconds: 0, checkpoints: [] };
  const reached = { previousToken: null, induction: null, pronoun: null, formed: null };
  const losses = [];
  let since = 0; // the first loss after the previous checkpoint
  let step = 0;
  const check = () => {
    const best = bestScores(scoreHeadRoles(model, probes));
    const recent = losses.slice(since);
    since = losses.length;
    const loss = recent.length ? recent.reduce((a, b) => a + b, 0) / recent.length : null;
    out.checkpoints.push({ step, tokens: out.tokens, loss, ...best });
    for (const role of ['previousToken', 'induction', 'pronoun'])
      if (reached[role] === null && best[role] >= HEAD_GOALS[role]) reached[role] = out.tokens;
    if (reached.formed === null && best.previousToken >= HEAD_GOALS.previousToken && best.induction >= HEAD_GOALS.induction)
      reached.formed = out.tokens;
  };
  check();
  while (!session.done) {
    const [s] = session.runSlice(0).steps; // one batch
    step = s.step;
    out.tokens += s.positions;
    losses.push(s.loss);
    if (step % every === 0 || session.done) check();
  }
  out.seconds = session.info().trainMs / 1e3;
  out.reached = reached;
  session.dispose();
  model.dispose();
  return out;
}

/** Training tokens/s of `recipe` on `threads` threads (1: the SIMD build, more: the pthreads build): RATE_BATCHES batches after RATE_WARMUP. */
async function recipeRate(id, threads) {
  const { loadMiniMind } = await import('../../js/minimind.mjs');
  const mm = await loadMiniMind({ variant: threads > 1 ? 'threads' : 'simd', threads });
  const tokenizer = mm.loadTokenizer(readFileSync(`${root}models/minimind-tokenizer/tokenizer.json`, 'utf8'));
  const recipe = { ...TRAIN_RECIPES[id], batches: RATE_WARMUP + RATE_BATCHES };
  const samples = recipeSamples(recipe, (text) => tokenizer.encode(text));
  const model = mm.createModel({ config: recipe.config, seed: recipe.modelSeed, init: 'minimind' });
  const session = new TrainSession({ model, tokenizer, samples, options: recipe.options, snapshotEvery: Infinity, roles: false });
  for (let i = 0; i < RATE_WARMUP; i += 1) session.runSlice(0);
  const before = session.info();
  while (!session.done) session.runSlice(0);
  const after = session.info();
  session.dispose();
  model.dispose();
  return { tokensPerSecond: (after.positions - before.positions) / ((after.trainMs - before.trainMs) / 1e3), threads: mm.threads };
}

/** The speed on 4 threads projected from 1 and 2 by Amdahl's law: the parallel share p from s₂ = 1 / (1 − p + p/2). */
export function projectThreads(rate1, rate2, threads = 4) {
  const p = Math.min(1, Math.max(0, 2 * (1 - rate1 / rate2)));
  return { parallelShare: p, tokensPerSecond: rate1 / (1 - p + p / threads) };
}

/** The median of tokens to formation over seeds, a run that never formed counting as more than any: null if most did not. */
export function medianFormation(runs) {
  return medianReached(runs, 'formed');
}

/** The median over runs of the tokens at which `key` of run.reached was passed (a run that never did: more than any), or null. */
function medianReached(runs, key) {
  const tokens = runs.map((r) => r.reached[key] ?? Infinity).sort((a, b) => a - b);
  const m = tokens[(tokens.length - 1) >> 1];
  return Number.isFinite(m) ? m : null;
}

function spawnChild(args) {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [fileURLToPath(import.meta.url), ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
    let text = '';
    proc.stdout.on('data', (chunk) => (text += chunk));
    proc.on('error', reject);
    proc.on('close', (code) => {
      if (code !== 0) return reject(new Error(`bench/training/head_formation.mjs ${args.join(' ')} exited with ${code}`));
      resolve(JSON.parse(text.trim().split('\n').at(-1)));
    });
  });
}

/**
 * Trains every recipe of `only` (default all) with every seed, `jobs` runs at
 * a time (1 thread each), then measures each recipe's tokens/s on 1 and 2
 * threads alone. Returns {…runHeader, probeSeed, seeds, runs: [runRecipe's
 * results], rates: {id: {1, 2, 4 (projected), parallelShare}}}.
 */
export async function measureHeadFormation({ only = null, seeds = SEEDS, jobs = 2, log = console.log } = {}) {
  const load0 = os.loadavg()[0];
  const started = new Date();
  const ids = RECIPE_IDS.filter((id) => !only || only.includes(id));
  const queue = ids.flatMap((id) => seeds.map((seed) => ({ id, seed })));
  const results = new Map();
  const worker = async () => {
    while (queue.length) {
      const { id, seed } = queue.shift();
      const result = await spawnChild(['--child', `${id}:${seed}`]);
      const last = result.checkpoints.at(-1);
      log(
        `heads: ${id} seed ${seed}: ${result.tokens} tokens in ${result.seconds.toFixed(0)} s; formed ${result.reached.formed ?? 'no'}; ` +
          `final previous-token ${last.previousToken.toFixed(2)}, induction ${last.induction.toFixed(2)}, pronoun ${last.pronoun.toFixed(2)}`,
      );
      results.set(`${id}:${seed}`, result);
      // Each run's raw result as it comes: a long measurement keeps what it has if a later step fails.
      mkdirSync(`${root}build/bench`, { recursive: true });
      writeFileSync(`${root}build/bench/heads-run-${id}-${seed}.json`, `${JSON.stringify(result)}\n`);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(jobs, queue.length)) }, worker));
  const { rates, rateLoad } = await measureRates(ids, log);
  // What bounds a young model's previous-token score: the most a purely positional head of the recipe's
  // head_dim can put on the previous token at q/k-norm gain 1 (js/prev_token_cap.mjs), over sentences of the
  // probes' mean length.
  const { loadMiniMind } = await import('../../js/minimind.mjs');
  const mm = await loadMiniMind({ variant: 'simd' });
  const tokenizer = mm.loadTokenizer(readFileSync(`${root}models/minimind-tokenizer/tokenizer.json`, 'utf8'));
  const texts = new Map(lightHeadProbes(tokenizer, formationProbeOptions()).previousToken.map((p) => [p.ids, p.ids.length]));
  tokenizer.dispose();
  const probeTokens = Math.round([...texts.values()].reduce((a, b) => a + b, 0) / texts.size);
  const caps = {};
  for (const id of ids) {
    const { config } = TRAIN_RECIPES[id];
    const headDim = config.head_dim ?? config.hidden_size / config.num_attention_heads;
    caps[id] = { headDim, cap: previousTokenCap(headDim, probeTokens, 1) };
  }
  return {
    ...runHeader(started, load0),
    probeSeed: FORMATION_PROBES.heldOutSeed,
    seeds: [...seeds],
    jobs,
    runs: ids.flatMap((id) => seeds.map((seed) => results.get(`${id}:${seed}`))),
    rates,
    rateLoad,
    probeTokens,
    caps,
  };
}

/**
 * tokens/s of each recipe of `ids` in Node on 1 thread (the SIMD build) and 2
 * (the pthreads build), each the median of RATE_ROUNDS rounds interleaved,
 * and 4 projected by Amdahl's law. Returns {rates: {id: {1, 2, 4,
 * parallelShare}}, rateLoad: [load average before, after]}.
 */
async function measureRates(ids, log = console.log) {
  const before = os.loadavg()[0];
  const samples = Object.fromEntries(ids.map((id) => [id, { 1: [], 2: [] }]));
  for (let round = 0; round < RATE_ROUNDS; round += 1)
    for (const id of ids)
      for (const threads of [1, 2]) {
        const r = await spawnChild(['--rate', id, '--threads', String(threads)]);
        if (r.threads !== threads) throw new Error(`asked for ${threads} threads, the module ran ${r.threads}`);
        samples[id][threads].push(r.tokensPerSecond);
      }
  const rates = {};
  for (const id of ids) {
    const one = median(samples[id][1]);
    const two = median(samples[id][2]);
    const four = projectThreads(one, two);
    rates[id] = { 1: one, 2: two, 4: four.tokensPerSecond, parallelShare: four.parallelShare };
    log(`heads: ${id}: ${one.toFixed(0)} tokens/s on 1 thread, ${two.toFixed(0)} on 2, ${four.tokensPerSecond.toFixed(0)} projected on 4`);
  }
  return { rates, rateLoad: [before, os.loadavg()[0]] };
}

export const HEADS_BEGIN = '<!-- heads: written by node bench/run.mjs --only heads; do not edit by hand -->';
export const HEADS_END = '<!-- /heads -->';
/** The markers of the section bench/training/induction_search.mjs writes after this one (how the induction run was chosen). */
export const SEARCH_BEGIN =
  '<!-- induction-search: written by node bench/training/induction_search.mjs --table --write; do not edit by hand -->';
export const SEARCH_END = '<!-- /induction-search -->';

const f2 = (v) => v.toFixed(2);
const kTokens = (n) => `${(n / 1000).toFixed(0)}k`;
const duration = (s) => (s >= 120 ? `${(s / 60).toFixed(1)} min` : `${s.toFixed(0)} s`);

/** A recipe's shape, data and schedule in words. */
export function describeRecipe(recipe) {
  const c = recipe.config;
  const H = c.num_attention_heads;
  const headDim = c.head_dim ?? c.hidden_size / H;
  const mix = recipe.data.mix
    ? `mix ${Object.entries(recipe.data.mix)
        .map(([kind, w]) => `${kind} ${w}`)
        .join(', ')}`
    : "the corpus's own mix";
  const o = recipe.options;
  return {
    shape: `hidden ${c.hidden_size}, ${c.num_hidden_layers} layers, ${H} heads of ${headDim} (${c.num_key_value_heads} kv)`,
    data: `fresh corpus stream, ${mix}`,
    schedule: `${recipe.batches} batches of ${o.batchSize} × ${o.maxSeqLen}, lr ${o.learningRate}`,
  };
}

/** The "Head formation" section from measureHeadFormation's result. */
export function headFormationSection(r) {
  const cell = (run, role) => {
    const last = run.checkpoints.at(-1);
    const when = run.reached[role];
    return when === null ? f2(last[role]) : `**${f2(last[role])}**, ≥ ${HEAD_GOALS[role]} at ${kTokens(when)}`;
  };
  const recipeRows = [...new Set(r.runs.map((run) => run.id))].map((id) => {
    const d = describeRecipe(TRAIN_RECIPES[id]);
    return `| ${id} | ${d.shape} | ${d.data} | ${d.schedule} | ${kTokens(recipeTokens(TRAIN_RECIPES[id]))} |`;
  });
  const runRows = r.runs.map((run) => {
    const last = run.checkpoints.at(-1);
    return (
      `| ${run.id} | ${run.seed} | ${kTokens(run.tokens)} | ${last.loss === null ? '–' : last.loss.toFixed(3)} | ` +
      `${cell(run, 'previousToken')} | ${cell(run, 'induction')} | ${cell(run, 'pronoun')} | ${run.reached.formed === null ? 'no' : `**${kTokens(run.reached.formed)}**`} |`
    );
  });
  // Per recipe: both heads at once (formation), then the induction head alone.
  const timeRows = Object.entries(r.rates).flatMap(([id, rate]) => {
    const runs = r.runs.filter((run) => run.id === id);
    return [
      ['a previous-token and an induction head', 'formed'],
      ['the induction head alone', 'induction'],
    ].map(([heads, key]) => {
      const tokens = medianReached(runs, key);
      const reached = runs.filter((run) => run.reached[key] !== null).length;
      const at = (threads) => (tokens === null ? '–' : duration(tokens / rate[threads]));
      return (
        `| ${id} | ${heads} | ${tokens === null ? `not reached (${reached} of ${runs.length} seeds)` : `**${kTokens(tokens)}** (${reached} of ${runs.length} seeds)`} | ` +
        `${rate[1].toFixed(0)} | ${rate[2].toFixed(0)} | ${rate[4].toFixed(0)} | ${at(1)} | ${at(2)} | ${at(4)} |`
      );
    });
  });
  const seeds = r.seeds.join(', ');
  return `${HEADS_BEGIN}
## Head formation

**${r.cpu}**, ${r.cores} cores, ${r.date}, load average ${r.load[0].toFixed(1)} at the start and ${r.load[1].toFixed(1)} at the end
(\`npm run bench -- --only heads\`, \`bench/training/head_formation.mjs\`). The Train panel's runs (\`js/train_recipes.mjs\`), each
trained for its whole schedule with seeds ${seeds} (the model's initialisation and the corpus stream's: fresh generated
lines, \`js/corpus_stream.mjs\`, never an epoch over a fixed list), in Node (the module in Wasm, 1 thread,
${r.jobs > 1 ? `${r.jobs} runs side by side` : 'one run at a time'}, the panel's session code). Before the first batch and ${CHECKPOINTS} times a run, every
head is scored on the formation probes of seed ${r.probeSeed}, drawn after the recipes were chosen (no design choice saw
them): ${FORMATION_PROBES.repeats * (FORMATION_PROBES.inductionLength - 1)} induction queries (${FORMATION_PROBES.repeats} random spans of ${FORMATION_PROBES.inductionLength} corpus tokens said twice), previous-token
on ${FORMATION_PROBES.texts} held-out sentences, pronoun on ${FORMATION_PROBES.pronouns} (\`js/head_roles.mjs\` \`lightHeadProbes\`). Goals: previous-token ≥ ${HEAD_GOALS.previousToken},
induction ≥ ${HEAD_GOALS.induction}, pronoun ≥ ${HEAD_GOALS.pronoun}. Tokens are batch rows × max_seq_len, as the page counts them.

| recipe | shape | data | schedule | tokens |
|---|---|---|---|---|
${recipeRows.join('\n')}

A score cell is the best head's at the run's end, in bold with the point where the run first passed the goal; formed: the
first checkpoint with a previous-token head and an induction head at their goals at once. Loss: the mean of the batches
after the checkpoint before the last.

| run | seed | tokens | loss | previous-token | induction | pronoun | formed at |
|---|---|---|---|---|---|---|---|
${runRows.join('\n')}

Tokens to formation (the median over the seeds, a seed that never formed counting as more than any) and the training
time they take here: tokens/s of the recipe in Node${r.rateLoad ? ` (measured at load average ${r.rateLoad[0].toFixed(1)}–${r.rateLoad[1].toFixed(1)})` : ''}, ${RATE_BATCHES} batches after ${RATE_WARMUP}, median of ${RATE_ROUNDS} rounds interleaved, on 1 thread
(\`dist/wasm/minimind.*\`) and 2 (\`minimind-threads.*\`); 4 threads projected by Amdahl's law from the measured speed-up
(parallel share ${Object.entries(r.rates)
    .map(([id, rate]) => `${id} ${f2(rate.parallelShare)}`)
    .join(', ')}). The panel's snapshots and the data's preparation come on top.

| recipe | heads | tokens to reach them | tokens/s, 1 thread | 2 threads | 4 threads (projected) | time, 1 thread | 2 threads | 4 threads (projected) |
|---|---|---|---|---|---|---|---|---|
${timeRows.join('\n')}

What bounds the previous-token score of a young model: MiniMind's q/k norm scales every query and key to the RMS of its
norm weights (1 at the start) and RoPE turns them by position, so a head whose scores depend on position alone can put at
most about ${Object.entries(r.caps)
    .map(([id, c]) => `${f2(c.cap)} (${id}, head_dim ${c.headDim})`)
    .join(', ')} of a ${r.probeTokens}-token sentence's attention on the previous token (the probes' mean length;
\`js/prev_token_cap.mjs\`, the best a seeded search over q and k finds). Above that a head must grow its norm weights
against MiniMind's weight decay, or follow content as well as position.
${HEADS_END}`;
}

function parseArgs(argv) {
  const args = { only: null, seeds: [...SEEDS], jobs: 2, child: null, rate: null, threads: 1, write: false, from: null, rates: false };
  for (let i = 0; i < argv.length; i += 1) {
    const value = () => {
      if (i + 1 >= argv.length) throw new Error(`${argv[i]} needs a value`);
      return argv[++i];
    };
    if (argv[i] === '--only') args.only = value().split(',');
    else if (argv[i] === '--seeds') args.seeds = value().split(',').map(Number);
    else if (argv[i] === '--jobs') args.jobs = Number(value());
    else if (argv[i] === '--child') args.child = value();
    else if (argv[i] === '--rate') args.rate = value();
    else if (argv[i] === '--threads') args.threads = Number(value());
    else if (argv[i] === '--write') args.write = true;
    else if (argv[i] === '--from') args.from = value();
    else if (argv[i] === '--rates') args.rates = true;
    else throw new Error(`unknown flag ${argv[i]}`);
  }
  for (const id of [...(args.only ?? []), ...(args.rate ? [args.rate] : [])])
    if (!TRAIN_RECIPES[id]) throw new Error(`no recipe "${id}" (known: ${RECIPE_IDS.join(', ')})`);
  if (!args.seeds.every((s) => Number.isSafeInteger(s) && s >= 0)) throw new Error('--seeds needs non-negative integers');
  if (!(Number.isSafeInteger(args.jobs) && args.jobs >= 1)) throw new Error('--jobs needs a positive integer');
  return args;
}

async function child(spec) {
  const [id, seed] = spec.split(':');
  const { loadMiniMind } = await import('../../js/minimind.mjs');
  const mm = await loadMiniMind({ variant: 'simd' });
  const tokenizer = mm.loadTokenizer(readFileSync(`${root}models/minimind-tokenizer/tokenizer.json`, 'utf8'));
  process.stdout.write(`${JSON.stringify(runRecipe(mm, tokenizer, withSeed(TRAIN_RECIPES[id], Number(seed))))}\n`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const args = parseArgs(process.argv.slice(2));
  if (args.child) await child(args.child);
  else if (args.rate) process.stdout.write(`${JSON.stringify(await recipeRate(args.rate, args.threads))}\n`);
  else {
    // --from FILE: the section again from a run's saved result (build/bench/heads-results.json), measuring
    // nothing; with --rates, its tokens/s measured again (on a quieter machine than the runs had).
    let result = args.from
      ? JSON.parse(readFileSync(args.from, 'utf8'))
      : await measureHeadFormation({ only: args.only, seeds: args.seeds, jobs: args.jobs });
    if (args.from && args.rates) {
      result = { ...result, ...(await measureRates(Object.keys(result.rates))) };
      writeFileSync(args.from, `${JSON.stringify(result, null, 1)}\n`);
    }
    const section = headFormationSection(result);
    console.log(section);
    if (args.write) {
      if (!args.from) writeFileSync(`${root}build/bench/heads-results.json`, `${JSON.stringify(result, null, 1)}\n`);
      replaceSection(`${root}BENCHMARKS.md`, HEADS_BEGIN, HEADS_END, section);
    }
  }
}
