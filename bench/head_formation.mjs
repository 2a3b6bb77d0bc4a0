#!/usr/bin/env node
// Head formation within the page's five minutes: the Train panel's default
// run (js/train_session.mjs DEFAULT_CONFIG and DEFAULT_OPTIONS on the
// project's corpus, 8000 texts, packed as the panel packs them) and variants
// of it, each trained on the same budget of tokens: what the page trains in
// 5 minutes at its measured rate ("Training tokens/s in the page" in
// BENCHMARKS.md, bench/page_training.mjs). Every tenth of the budget the
// head-role scores the panel plots (js/head_roles.mjs lightHeadProbes,
// scoreHeadRoles) are read: does any change of the default grow a
// previous-token head (≥ 0.8) or an induction head (≥ 0.5) in that time, as
// the page's goals ask?
//
// Each variant runs in its own Node process (Wasm, 1 thread), `--jobs` at a
// time; a budget in tokens, not seconds, makes the runs comparable whatever
// else the machine does. MiniMind's trainer is the module's (model.trainer),
// with the page's own data path (js/train_data.mjs trainingSamples).
//
// Usage: node bench/head_formation.mjs [--tokens N] [--only NAME[,NAME...]] [--jobs 2]
// bench/run.mjs --only heads runs it and writes the "Head formation" section.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';

import { makeCorpusLines } from '../js/corpus.mjs';
import { lightHeadProbes, scoreHeadRoles } from '../js/head_roles.mjs';
import { trainingSamples } from '../js/train_data.mjs';
import { DEFAULT_CONFIG, DEFAULT_LINES, DEFAULT_MODEL_SEED, DEFAULT_OPTIONS, TrainSession } from '../js/train_session.mjs';
import { runHeader } from './cpu_model.mjs';
import { GOALS } from './page_training.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));

/** The page's goals (bench/page_training.mjs) for the head-role scores; the pronoun score against its attention goal. */
export const HEAD_GOALS = Object.freeze({
  previousToken: GOALS.previousToken,
  induction: GOALS.induction,
  pronoun: GOALS.pronounAttention,
});
export const PAGE_SECONDS = 300;
const CHECKPOINTS = 10;

/**
 * The runs: the page's default and one change each. `epochs: 'fill'` takes
 * as many epochs as the budget holds (the learning rate's cosine then spans
 * the whole budget).
 */
export const VARIANTS = Object.freeze([
  { name: 'default', what: "the page's default run (3 epochs)" },
  { name: 'longer', what: 'the same texts for as many epochs as the budget holds', epochs: 'fill' },
  { name: 'more-text', what: '40000 texts, as many epochs as the budget holds', lines: 40000, epochs: 'fill' },
  { name: 'lr-0.01', what: 'learning rate 0.01', epochs: 'fill', options: { learningRate: 1e-2 } },
  { name: 'batch-4', what: 'batch 4: 4× the optimizer steps for the same tokens', epochs: 'fill', options: { batchSize: 4 } },
  { name: 'kv-4', what: '4 kv heads (no K/V shared between heads)', epochs: 'fill', config: { num_key_value_heads: 4 } },
  {
    name: 'head-dim-32',
    what: '2 heads of 32 dimensions (2 kv heads)',
    epochs: 'fill',
    config: { num_attention_heads: 2, num_key_value_heads: 2 },
  },
  { name: 'copy-only', what: "only the corpus's copying lines (spans and sentences said twice)", epochs: 'fill', mix: { induction: 1 } },
  { name: 'seq-32', what: 'max_seq_len 32, batch 32 (the same tokens a batch)', epochs: 'fill', options: { maxSeqLen: 32, batchSize: 32 } },
]);

/** The page's training tokens/s from BENCHMARKS.md's "Training in the page" section, or null. */
export function pageTokensPerSecond(markdown) {
  const match = /\*\*Training tokens\/s in the page: (\d+(?:\.\d+)?)\*\*/.exec(markdown);
  return match ? Number(match[1]) : null;
}

/** The best score of each role over layers and heads: {previousToken, induction, pronoun}. */
function bestScores(scores) {
  const best = (m) => (m ? Math.max(...m.flat()) : 0);
  return { previousToken: best(scores.previousToken), induction: best(scores.induction), pronoun: best(scores.pronoun) };
}

/**
 * Trains one variant until `budgetTokens` positions (batch rows × max_seq_len,
 * as the page counts them) or the end of its run. Returns {name, config,
 * options, samples, steps, tokens, seconds, checkpoints: [{step, tokens, loss,
 * previousToken, induction, pronoun}] (at batch 0 and every tenth of the
 * budget), reached: {role: tokens or null}}.
 */
export function runVariant(mm, tokenizer, variant, budgetTokens, { checkpoints = CHECKPOINTS } = {}) {
  const config = { ...DEFAULT_CONFIG, ...variant.config };
  const base = { ...DEFAULT_OPTIONS, ...variant.options };
  const texts = makeCorpusLines(variant.lines ?? DEFAULT_LINES, 1, { mix: variant.mix ?? null });
  const samples = trainingSamples(
    texts.map((text) => tokenizer.encode(text)),
    { maxSeqLen: base.maxSeqLen },
  );
  const perEpoch = samples.length * base.maxSeqLen;
  const epochs = variant.epochs === 'fill' ? Math.max(1, Math.ceil(budgetTokens / perEpoch)) : base.epochs;
  const model = mm.createModel({ config, seed: DEFAULT_MODEL_SEED, init: 'minimind' });
  // The panel's own run, without its snapshots: the head-role scores are read here, at checkpoints.
  const session = new TrainSession({ model, tokenizer, samples, options: { ...base, epochs }, snapshotEvery: Infinity, roles: false });
  const probes = lightHeadProbes(tokenizer);
  const out = {
    name: variant.name,
    config,
    options: session.options,
    samples: samples.length,
    steps: 0,
    tokens: 0,
    seconds: 0,
    checkpoints: [],
  };
  const reached = { previousToken: null, induction: null, pronoun: null };
  const losses = [];
  let since = 0; // the first loss after the previous checkpoint
  const check = () => {
    const best = bestScores(scoreHeadRoles(model, probes));
    const recent = losses.slice(since);
    since = losses.length;
    const loss = recent.length ? recent.reduce((a, b) => a + b, 0) / recent.length : null;
    out.checkpoints.push({ step: out.steps, tokens: out.tokens, loss, ...best });
    for (const role of Object.keys(reached)) if (reached[role] === null && best[role] >= HEAD_GOALS[role]) reached[role] = out.tokens;
  };
  check();
  let next = budgetTokens / checkpoints;
  while (!session.done && out.tokens < budgetTokens) {
    const [step] = session.runSlice(0).steps; // one batch
    const info = session.info();
    out.steps = info.batchesDone;
    out.tokens = info.positions;
    losses.push(step.loss);
    if (out.tokens >= next || session.done || out.tokens >= budgetTokens) {
      check();
      next += budgetTokens / checkpoints;
    }
  }
  out.seconds = session.info().trainMs / 1e3;
  out.reached = reached;
  session.dispose();
  model.dispose();
  return out;
}

async function child(name, budgetTokens) {
  const variant = VARIANTS.find((v) => v.name === name);
  if (!variant) throw new Error(`no variant "${name}" (known: ${VARIANTS.map((v) => v.name).join(', ')})`);
  const { loadMiniMind } = await import('../js/minimind.mjs');
  const mm = await loadMiniMind({ variant: 'simd' });
  const tokenizer = mm.loadTokenizer(readFileSync(`${root}models/minimind-tokenizer/tokenizer.json`, 'utf8'));
  process.stdout.write(`${JSON.stringify(runVariant(mm, tokenizer, variant, budgetTokens))}\n`);
}

/**
 * Runs the variants (`only`: names, default all) `jobs` at a time in child
 * processes on `budgetTokens` each. Returns {…runHeader, budgetTokens,
 * pageTokensPerSecond, runs: [runVariant's results, in VARIANTS' order]}.
 */
export async function measureHeadFormation({ budgetTokens, pageRate = null, only = null, jobs = 2, log = console.log }) {
  const load0 = os.loadavg()[0];
  const started = new Date();
  const names = VARIANTS.map((v) => v.name).filter((n) => !only || only.includes(n));
  const results = new Map();
  const queue = [...names];
  const one = (name) =>
    new Promise((resolve, reject) => {
      const proc = spawn(process.execPath, [fileURLToPath(import.meta.url), '--child', name, '--tokens', String(budgetTokens)], {
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let text = '';
      proc.stdout.on('data', (chunk) => (text += chunk));
      proc.on('error', reject);
      proc.on('close', (code) => {
        if (code !== 0) return reject(new Error(`head formation "${name}" exited with ${code}`));
        const result = JSON.parse(text.trim().split('\n').at(-1));
        const last = result.checkpoints.at(-1);
        log(
          `heads: ${name}: ${result.steps} batches, ${result.tokens} tokens in ${result.seconds.toFixed(0)} s; ` +
            `best previous-token ${last.previousToken.toFixed(2)}, induction ${last.induction.toFixed(2)}, pronoun ${last.pronoun.toFixed(2)}`,
        );
        results.set(name, result);
        resolve();
      });
    });
  const worker = async () => {
    while (queue.length) await one(queue.shift());
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(jobs, names.length)) }, worker));
  return {
    ...runHeader(started, load0),
    budgetTokens,
    pageTokensPerSecond: pageRate,
    runs: names.map((n) => results.get(n)),
  };
}

export const HEADS_BEGIN = '<!-- heads: written by node bench/run.mjs --only heads; do not edit by hand -->';
export const HEADS_END = '<!-- /heads -->';

const f2 = (v) => v.toFixed(2);
const kTokens = (n) => `${(n / 1000).toFixed(0)}k`;

/** The "Head formation" section from measureHeadFormation's result. */
export function headFormationSection(r) {
  const peak = (run, role) => run.checkpoints.reduce((best, c) => (c[role] > best[role] ? c : best), run.checkpoints[0]);
  const cell = (run, role) => {
    const best = peak(run, role);
    const when = run.reached[role];
    return when === null
      ? `${f2(best[role])} (at ${kTokens(best.tokens)})`
      : `**${f2(best[role])}**, ≥ ${HEAD_GOALS[role]} at ${kTokens(when)}`;
  };
  const rows = r.runs.map((run) => {
    const variant = VARIANTS.find((v) => v.name === run.name);
    const last = run.checkpoints.at(-1);
    return (
      `| ${run.name} | ${variant.what} | ${run.steps} | ${kTokens(run.tokens)} | ${last.loss === null ? '–' : last.loss.toFixed(3)} | ` +
      `${cell(run, 'previousToken')} | ${cell(run, 'induction')} | ${cell(run, 'pronoun')} |`
    );
  });
  const met = (role) => r.runs.filter((run) => run.reached[role] !== null).map((run) => run.name);
  const verdict = (role, label) => {
    const names = met(role);
    return names.length
      ? `${label} ≥ ${HEAD_GOALS[role]} within the budget: ${names.join(', ')}`
      : `${label} ≥ ${HEAD_GOALS[role]}: in none of the runs`;
  };
  const rate = r.pageTokensPerSecond
    ? ` (${PAGE_SECONDS} s at the page's ${r.pageTokensPerSecond} tokens/s, "Training in the page" above)`
    : '';
  return `${HEADS_BEGIN}
## Head formation in the page's 5 minutes

**${r.cpu}**, ${r.cores} cores, ${r.date}, load average ${r.load[0].toFixed(1)} at the start and ${r.load[1].toFixed(1)} at the end
(\`npm run bench -- --only heads\`, \`bench/head_formation.mjs\`). The Train panel's default run and one change of it
per row, each trained in Node (the module in Wasm, 1 thread, ${r.runs.length > 1 ? 'two runs side by side' : 'one run'}) on a budget of
**${r.budgetTokens} tokens**${rate}, or until its run ends. Every tenth of the budget (and before the first batch) the head-role
scores the panel plots are read (\`js/head_roles.mjs\` \`lightHeadProbes\` / \`scoreHeadRoles\`, best over layers and
heads); a cell gives the best score seen and where it was reached (tokens trained), bold with the point where it
passed the page's goal. Loss: the mean of the batches after the checkpoint before the last.

| run | change from the default | batches | tokens | loss | previous-token | induction | pronoun |
|---|---|---|---|---|---|---|---|
${rows.join('\n')}

${verdict('previousToken', 'Previous-token')}; ${verdict('induction', 'induction')}; ${verdict('pronoun', 'pronoun')}.
${HEADS_END}`;
}

function parseArgs(argv) {
  const args = { tokens: null, only: null, jobs: 2, child: null };
  for (let i = 0; i < argv.length; i += 1) {
    const value = () => {
      if (i + 1 >= argv.length) throw new Error(`${argv[i]} needs a value`);
      return argv[++i];
    };
    if (argv[i] === '--tokens') args.tokens = Number(value());
    else if (argv[i] === '--only') args.only = value().split(',');
    else if (argv[i] === '--jobs') args.jobs = Number(value());
    else if (argv[i] === '--child') args.child = value();
    else throw new Error(`unknown flag ${argv[i]}`);
  }
  if (args.tokens !== null && !(Number.isSafeInteger(args.tokens) && args.tokens > 0)) throw new Error('--tokens needs a positive integer');
  if (!(Number.isSafeInteger(args.jobs) && args.jobs >= 1)) throw new Error('--jobs needs a positive integer');
  return args;
}

/** The token budget: --tokens, else PAGE_SECONDS at the page's rate in BENCHMARKS.md. */
export function budgetFrom(args, markdown) {
  if (args.tokens) return { budgetTokens: args.tokens, pageRate: null };
  const pageRate = pageTokensPerSecond(markdown);
  if (pageRate === null)
    throw new Error(
      'BENCHMARKS.md has no "Training tokens/s in the page" yet: run npm run bench -- --only page-training, or give --tokens',
    );
  return { budgetTokens: Math.round(PAGE_SECONDS * pageRate), pageRate };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const args = parseArgs(process.argv.slice(2));
  if (args.child) {
    await child(args.child, args.tokens);
  } else {
    const { budgetTokens, pageRate } = budgetFrom(args, readFileSync(`${root}BENCHMARKS.md`, 'utf8'));
    const result = await measureHeadFormation({ budgetTokens, pageRate, only: args.only, jobs: args.jobs });
    console.log(headFormationSection(result));
  }
}
