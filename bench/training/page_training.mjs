#!/usr/bin/env node
// Training a MiniMind in the page (the Train panel, web/train/), in
// headless Chromium at 1280×800: opens the playground, presses Train (#open-train:
// it opens the panel) and Start (the default run) and watches the run for up to
// five minutes, stopping earlier once every goal is reached:
//   - tokens/s: the panel's own count (the trainer's positions / its training
//     time, snapshots included; element.trainer);
//   - loss: seconds from the click until the loss (mean of the last 10 batches)
//     is half its first value (the mean of the first 10 batches);
//   - previous-token: until some head scores ≥ 0.8 (the snapshots' head-role
//     scores, js/head_roles.mjs lightHeadProbes / scoreHeadRoles);
//   - induction: until some head scores ≥ 0.5;
//   - pronoun: until the attention from 她 on 小红's tokens in the probe sentence
//     (小明把苹果给了小红，她很开心 after the bos), at the head with the best pronoun
//     score of that snapshot, is ≥ 0.5 (from the snapshot's attention).
// Times are the page's own (performance.now()) from the click to the report or
// snapshot that reached the goal (the untrained model's snapshot at batch 0
// counts too: its value is recorded as `initial`). A miss is recorded with the
// best value reached. The default run may end before five minutes; then the
// measurement ends with it.
//
// The panel's two runs (js/train_recipes.mjs: the default run and "watch an
// induction head form") are also measured in Node, on the panel's session code
// (js/train_session.mjs, snapshots at the panel's default spacing, js/timeline.mjs
// defaultSnapshotEvery, with the panel's head-role probes), on 1 thread and on 2 (measureRecipeRuns): tokens/s, and the
// training time until the loss is half its first value, until each head role
// passes the threshold that labels it (js/head_roles.mjs roleOf), and until a
// snapshot's greedy continuation of 小明把苹果给了小红，她 starts with 唱
// (小红's habit, 唱起了歌).
//
// Usage: node bench/training/page_training.mjs [--seconds 300] [--runs [--write]]
// Needs the static site (node scripts/build_site.mjs). bench/run.mjs --only
// page-training runs it and writes the "Training in the page" section of
// BENCHMARKS.md, and "The Train panel's runs" after it.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';

import { ROLE_THRESHOLDS } from '../../js/head_roles.mjs';
import { encodeText } from '../../js/text_encoding.mjs';
import { FORMATION_GOALS, TRAIN_RECIPES, recipeSamples, recipeTokens } from '../../js/train_recipes.mjs';
import { defaultSnapshotEvery } from '../../js/timeline.mjs';
import { LESSON_PROBE, TrainSession } from '../../js/train_session.mjs';
import { serve } from '../../scripts/serve.mjs';
import { CHROMIUM, launchBrowser, openPage } from '../../tests/browser/browser.mjs';
import { cpuModel, runHeader } from '../cpu_model.mjs';
import { describeRecipe } from './head_formation.mjs';

const site = fileURLToPath(new URL('../../dist/site/', import.meta.url));

/**
 * The goals: all within `LIMIT_SECONDS` of the click. A formed head's goals are the recipes'
 * (js/train_recipes.mjs FORMATION_GOALS), stricter than the thresholds that label a head.
 */
const LIMIT_SECONDS = 300;
export const GOALS = {
  loss: 0.5, // the loss (mean of the last 10 batches) at most half its first value
  ...FORMATION_GOALS,
  pronounAttention: 0.5,
};
const LOSS_WINDOW = 10;
const PRONOUN = '她';
const REFERENT = '小红';

const load = () => os.loadavg()[0].toFixed(1);

function chromiumVersion() {
  try {
    return execFileSync(CHROMIUM, ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return 'unknown';
  }
}

// In the page, before the click: records the click's time, every steps report
// ({t, steps: [{step, loss, positions, ms}]}) and a summary of every new snapshot
// (polled every 100 ms from #train's element.snapshots).
function installRecorder({ pronoun, referent }) {
  const root = document.getElementById('train');
  const record = { t0: null, reports: [], snapshots: [], lastStep: -1, problem: null };
  window.__pageTraining = record;
  const start = root.querySelector('[data-train="start"]');
  start.addEventListener('click', () => (record.t0 ??= performance.now()), { capture: true, once: true });
  root.addEventListener('minimind-train-steps', (event) => {
    record.reports.push({
      t: performance.now(),
      steps: event.detail.steps.map((s) => ({ step: s.step, loss: s.loss, positions: s.positions, ms: s.ms })),
    });
  });
  // The token positions of 她 and of 小红 (display texts joined; the last 小红 before 她).
  function positions(tokens) {
    const starts = [];
    let text = '';
    for (const token of tokens) {
      starts.push(text.length);
      text += token;
    }
    const p = text.indexOf(pronoun);
    const r = text.lastIndexOf(referent, p);
    if (p < 0 || r < 0) return null;
    const row = starts.findLastIndex((s) => s <= p);
    const columns = [];
    tokens.forEach((token, k) => {
      if (starts[k] < r + referent.length && starts[k] + token.length > r) columns.push(k);
    });
    return { row, columns };
  }
  function best(matrix) {
    let out = { value: -Infinity, layer: -1, head: -1 };
    matrix?.forEach((row, layer) =>
      row.forEach((value, head) => {
        if (Number.isFinite(value) && value > out.value) out = { value, layer, head };
      }),
    );
    return out;
  }
  function summary(s, t) {
    const at = positions(s.tokens);
    if (!at) record.problem = `no ${pronoun} after ${referent} in the probe tokens ${JSON.stringify(s.tokens)}`;
    const { T, heads: H, attention } = s;
    const mass = (layer, head) => {
      if (!at) return NaN;
      const offset = (layer * H + head) * T * T + at.row * T;
      return at.columns.reduce((sum, k) => sum + attention[offset + k], 0);
    };
    const pronounHead = best(s.scores?.pronoun);
    let anyHead = -Infinity;
    for (let layer = 0; layer < s.layers; layer += 1)
      for (let head = 0; head < H; head += 1) anyHead = Math.max(anyHead, mass(layer, head));
    return {
      t,
      step: s.step,
      previousToken: best(s.scores?.previousToken),
      induction: best(s.scores?.induction),
      pronoun: { ...pronounHead, attention: pronounHead.layer >= 0 ? mass(pronounHead.layer, pronounHead.head) : NaN },
      anyHeadAttention: anyHead,
      tokens: at ? { row: at.row, columns: at.columns, text: s.tokens } : null,
    };
  }
  setInterval(() => {
    const t = performance.now();
    for (const s of root.snapshots ?? []) {
      if (s.step <= record.lastStep) continue;
      record.snapshots.push(summary(s, t));
      record.lastStep = s.step;
    }
  }, 100);
  return Boolean(Object.getOwnPropertyDescriptor(root, 'snapshots'));
}

// Everything reached so far, from the page's records (times in seconds from the click).
function evaluate(record) {
  const sec = (t) => (t - record.t0) / 1000;
  const losses = [];
  const times = [];
  for (const r of record.reports)
    for (const s of r.steps) {
      losses.push(s.loss);
      times.push(r.t);
    }
  const goals = {};
  // Loss: the mean of the last 10 batches against the mean of the first 10.
  const loss = { first: null, best: null, bestStep: null, seconds: null, step: null };
  if (losses.length >= LOSS_WINDOW) {
    let sum = losses.slice(0, LOSS_WINDOW).reduce((a, b) => a + b, 0);
    loss.first = sum / LOSS_WINDOW;
    for (let n = LOSS_WINDOW; n <= losses.length; n += 1) {
      if (n > LOSS_WINDOW) sum += losses[n - 1] - losses[n - 1 - LOSS_WINDOW];
      const mean = sum / LOSS_WINDOW;
      if (loss.best === null || mean < loss.best) {
        loss.best = mean;
        loss.bestStep = n;
      }
      if (loss.seconds === null && mean <= GOALS.loss * loss.first) {
        loss.seconds = sec(times[n - 1]);
        loss.step = n;
        loss.reached = mean;
      }
    }
  }
  goals.loss = loss;
  const firstAt = (value, threshold) => {
    const out = { best: null, seconds: null, step: null };
    for (const s of record.snapshots) {
      const v = value(s);
      if (!Number.isFinite(v.value)) continue;
      if (out.best === null || v.value > out.best.value) out.best = { ...v, step: s.step, seconds: sec(s.t) };
      if (out.seconds === null && v.value >= threshold) Object.assign(out, { seconds: sec(s.t), step: s.step, reached: v });
      if (s.step === 0) out.initial = v.value; // the untrained model's
      out.last = { ...v, step: s.step };
    }
    return out;
  };
  goals.previousToken = firstAt((s) => s.previousToken, GOALS.previousToken);
  goals.induction = firstAt((s) => s.induction, GOALS.induction);
  goals.pronounAttention = firstAt(
    (s) => ({ value: s.pronoun.attention, layer: s.pronoun.layer, head: s.pronoun.head, score: s.pronoun.value }),
    GOALS.pronounAttention,
  );
  const anyHead = Math.max(-Infinity, ...record.snapshots.map((s) => s.anyHeadAttention).filter(Number.isFinite));
  goals.pronounAttention.anyHeadBest = Number.isFinite(anyHead) ? anyHead : null;
  // Wall-clock tokens/s between the first report and the last (snapshots, messages and all).
  const reports = record.reports;
  let wall = null;
  if (reports.length > 1) {
    const positions = reports.slice(1).reduce((sum, r) => sum + r.steps.reduce((a, s) => a + s.positions, 0), 0);
    wall = positions / ((reports.at(-1).t - reports[0].t) / 1000);
  }
  return { goals, batches: losses.length, firstBatchSeconds: times.length ? sec(times[0]) : null, wallTokensPerSecond: wall };
}

const allReached = (goals) => Object.values(goals).every((g) => g.seconds !== null);

/**
 * Runs the measurement; returns {machine: {cpu, cores, chromium, date, load, loadEnd},
 * limitSeconds, goalsWanted, settings (the panel's form), tokensPerSecond (the panel's count),
 * trainer (its last report), batches, totalBatches, firstBatchSeconds, seconds (measured),
 * stopped ('all goals' | 'run done' | 'time limit'), goals, probe: {tokens, row, columns}}.
 */
export async function measurePageTraining({ limitSeconds = LIMIT_SECONDS, log = () => {} } = {}) {
  if (!existsSync(`${site}index.html`)) throw new Error('dist/site/ is missing; run "node scripts/build_site.mjs" first');
  const machine = {
    cpu: cpuModel(),
    cores: os.cpus().length,
    chromium: chromiumVersion(),
    date: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    load: load(),
  };
  const server = await serve(site);
  const browser = await launchBrowser();
  try {
    const { page, errors } = await openPage(browser.context);
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(`${server.url}?lang=en`);
    await page.waitForSelector('body[data-ready="true"]', { timeout: 120000 });
    const exposed = await page.evaluate(installRecorder, { pronoun: PRONOUN, referent: REFERENT });
    if (!exposed) throw new Error("#train has no element.snapshots (web/train/train_run.mjs's read-only accessor)");
    await page.click('#open-train');
    const settings = await page.evaluate(() => {
      const out = {};
      for (const input of document.querySelectorAll('#train .train-settings input[type="number"], #train .train-settings select'))
        out[input.name] = input.type === 'number' ? Number(input.value) : input.value;
      out.pack = document.querySelector('#train input[name="pack"]').checked;
      out.model = document.querySelector('#train input[name="train-model"]:checked').value;
      return out;
    });
    await page.click('#train [data-train="start"]');
    let stopped = 'time limit';
    let status;
    let lastLog = 0;
    for (;;) {
      await page.waitForTimeout(1000);
      status = await page.evaluate(() => {
        const r = window.__pageTraining;
        return { record: r, state: document.getElementById('train').dataset.state, now: performance.now() };
      });
      const { record, state, now } = status;
      if (record.problem) throw new Error(record.problem);
      const elapsed = (now - record.t0) / 1000;
      const result = evaluate(record);
      if (elapsed - lastLog >= 30) {
        lastLog = elapsed;
        const g = result.goals;
        log(
          `page training ${elapsed.toFixed(0)} s: ${result.batches} batches, loss ${g.loss.best?.toFixed(3) ?? '–'} (first ${g.loss.first?.toFixed(3) ?? '–'}), ` +
            `previous-token ${g.previousToken.best?.value.toFixed(2) ?? '–'}, induction ${g.induction.best?.value.toFixed(2) ?? '–'}, ` +
            `她→小红 ${g.pronounAttention.best?.value.toFixed(2) ?? '–'}; load ${load()}`,
        );
      }
      if (allReached(result.goals)) {
        stopped = 'all goals';
        break;
      }
      if (state === 'done') {
        stopped = 'run done';
        break;
      }
      if (elapsed >= limitSeconds) break;
    }
    const trainer = await page.evaluate(() => document.getElementById('train').trainer);
    const { record, now } = status;
    const result = evaluate(record);
    const last = record.snapshots.at(-1);
    if (errors.length) log(`page errors: ${errors.join('; ')}`);
    return {
      machine: { ...machine, loadEnd: load() },
      limitSeconds,
      goalsWanted: GOALS,
      lossWindow: LOSS_WINDOW,
      settings,
      tokensPerSecond: trainer && trainer.trainMs > 0 ? trainer.positions / (trainer.trainMs / 1000) : null,
      wallTokensPerSecond: result.wallTokensPerSecond,
      trainer: {
        batchesDone: trainer?.batchesDone,
        totalBatches: trainer?.totalBatches,
        trainMs: trainer?.trainMs,
        positions: trainer?.positions,
      },
      batches: result.batches,
      firstBatchSeconds: result.firstBatchSeconds,
      seconds: (now - record.t0) / 1000,
      stopped,
      snapshots: record.snapshots.length,
      goals: result.goals,
      probe: last?.tokens ?? null,
      pageErrors: errors,
    };
  } finally {
    await browser.close();
    await server.close();
  }
}

// ------------------------------------------------------------ the panel's runs, in Node

/** The roles the section reports, at the thresholds at which js/head_roles.mjs roleOf labels a head (what the panel announces as formed). */
const ROLES = Object.freeze(['previousToken', 'induction', 'pronoun']);
/** The probe up to its pronoun (小明把苹果给了小红，她), and the first character of its referent's habit (小红: 唱起了歌). */
export const SING_PROMPT = LESSON_PROBE.slice(0, LESSON_PROBE.indexOf(PRONOUN) + 1);
export const SING = '唱';
const GENERATED_TOKENS = 4;
const RUN_IDS = Object.freeze(['default', 'induction']);
/** The spacing of runs measured before it followed the run's length (their results do not say it). */
const LEGACY_SNAPSHOT_EVERY = 10;
const RUN_THREADS = Object.freeze([1, 2]);
/** A run's training time at most: the induction run's whole schedule on 1 thread here. */
const RUN_LIMIT_SECONDS = 1200;

/** The greedy continuation of `prompt` (after the bos): `steps` tokens or fewer (an eos ends it), decoded (an unfinished last character dropped). */
export function greedyContinuation(model, tokenizer, prompt, steps = GENERATED_TOKENS) {
  const generator = model.generator(encodeText(tokenizer, prompt), { greedy: true });
  const ids = [];
  try {
    for (let i = 0; i < steps && !generator.finished; i += 1) {
      const next = generator.step({ trace: false });
      if (next.isEos) break;
      ids.push(next.token);
    }
  } finally {
    generator.dispose();
  }
  // Four tokens may end inside a character (byte-level BPE): its bytes are left out, not shown as U+FFFD.
  return tokenizer.decode(ids).replace(/\uFFFD+$/u, '');
}

function bestHead(matrix) {
  let best = { value: -Infinity, layer: -1, head: -1 };
  matrix?.forEach((row, layer) => row.forEach((value, head) => value > best.value && (best = { value, layer, head })));
  return best;
}

/**
 * One of the panel's runs in this process, as the panel runs it: the
 * recipe's samples, a snapshot at batch 0 and every defaultSnapshotEvery(batches) (head-role
 * scores on the panel's probes) with a greedy continuation of SING_PROMPT,
 * until every measure is reached, the run ends or `limitSeconds` of training
 * time pass. Times (seconds) are training time from the first batch:
 * TrainSession's own (batches and snapshots) plus the generations'. Returns
 * {id, batches, scheduled, snapshotEvery, tokens, seconds, prepareSeconds, tokensPerSecond
 * (the panel's count: positions over its training time), stopped, halfLoss:
 * {seconds, step, first, reached} | null, roles: {role: {seconds, step, value,
 * layer, head} | null}, best: {role: {value, layer, head, step}}, sing:
 * {seconds, step, text} | null, generations: [{step, text}] (each change)}.
 */
export function recipeRun(mm, tokenizer, recipe, { limitSeconds = Infinity } = {}) {
  const prepareStart = performance.now();
  const samples = recipeSamples(recipe, (text) => tokenizer.encode(text));
  const prepareSeconds = (performance.now() - prepareStart) / 1000;
  const model = mm.createModel({ config: recipe.config, seed: recipe.modelSeed, init: 'minimind' });
  const snapshotEvery = defaultSnapshotEvery(recipe.batches); // the panel's
  const session = new TrainSession({ model, tokenizer, samples, options: recipe.options, snapshotEvery });
  let generationMs = 0;
  const clock = () => (session.info().trainMs + generationMs) / 1000;
  const out = {
    id: recipe.id,
    scheduled: recipe.batches,
    snapshotEvery,
    prepareSeconds,
    halfLoss: null,
    roles: Object.fromEntries(ROLES.map((role) => [role, null])),
    best: Object.fromEntries(ROLES.map((role) => [role, null])),
    sing: null,
    generations: [],
  };
  const seen = (snapshot) => {
    for (const role of ROLES) {
      const best = bestHead(snapshot.scores?.[role]);
      if (!out.best[role] || best.value > out.best[role].value) out.best[role] = { ...best, step: snapshot.step };
      if (out.roles[role] === null && best.value >= ROLE_THRESHOLDS[role])
        out.roles[role] = { seconds: clock(), step: snapshot.step, ...best };
    }
    const started = performance.now();
    const text = greedyContinuation(model, tokenizer, SING_PROMPT);
    generationMs += performance.now() - started;
    if (out.generations.at(-1)?.text !== text) out.generations.push({ step: snapshot.step, text });
    if (out.sing === null && text.startsWith(SING)) out.sing = { seconds: clock(), step: snapshot.step, text };
  };
  const allReached = () => out.halfLoss !== null && out.sing !== null && ROLES.every((role) => out.roles[role] !== null);
  seen(session.snapshot()); // the untrained model's, as the panel shows it
  const losses = [];
  let window = 0; // the sum of the last LOSS_WINDOW losses
  out.stopped = 'run done';
  while (!session.done) {
    const { steps, snapshot } = session.runSlice(0); // one batch
    for (const s of steps) {
      losses.push(s.loss);
      window += s.loss - (losses.length > LOSS_WINDOW ? losses[losses.length - 1 - LOSS_WINDOW] : 0);
      if (losses.length === LOSS_WINDOW) out.firstLoss = window / LOSS_WINDOW;
      if (out.halfLoss === null && losses.length >= LOSS_WINDOW && window / LOSS_WINDOW <= GOALS.loss * out.firstLoss)
        out.halfLoss = { seconds: clock(), step: s.step, first: out.firstLoss, reached: window / LOSS_WINDOW };
    }
    if (snapshot) seen(snapshot);
    if (allReached()) {
      out.stopped = 'all reached';
      break;
    }
    if (clock() >= limitSeconds) {
      out.stopped = 'time limit';
      break;
    }
  }
  const info = session.info();
  Object.assign(out, {
    batches: info.batchesDone,
    tokens: info.positions,
    seconds: clock(),
    tokensPerSecond: info.positions / (info.trainMs / 1000),
  });
  session.dispose();
  model.dispose();
  return out;
}

/** A recipe's run in a process of its own on `threads` threads (1: the SIMD build, more: the pthreads build). */
function recipeRunChild(id, threads, limitSeconds) {
  return new Promise((resolve, reject) => {
    const args = [fileURLToPath(import.meta.url), '--run', id, '--threads', String(threads), '--seconds', String(limitSeconds)];
    const proc = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let text = '';
    proc.stdout.on('data', (chunk) => (text += chunk));
    proc.on('error', reject);
    proc.on('close', (code) => {
      if (code !== 0) return reject(new Error(`bench/training/page_training.mjs --run ${id} --threads ${threads} exited with ${code}`));
      resolve(JSON.parse(text.trim().split('\n').at(-1)));
    });
  });
}

/**
 * The panel's runs (default and induction) on 1 and 2 threads, one at a time,
 * each for up to `limitSeconds` of training time. Returns {…runHeader,
 * limitSeconds, runs: [recipeRun's result with threads]}.
 */
export async function measureRecipeRuns({ ids = RUN_IDS, threads = RUN_THREADS, limitSeconds = RUN_LIMIT_SECONDS, log = () => {} } = {}) {
  const load0 = os.loadavg()[0];
  const started = new Date();
  const runs = [];
  for (const id of ids)
    for (const n of threads) {
      const run = await recipeRunChild(id, n, limitSeconds);
      log(
        `panel run ${id}, ${n} thread${n > 1 ? 's' : ''}: ${run.batches} batches, ${run.tokensPerSecond.toFixed(0)} tokens/s, ${run.stopped} after ` +
          `${run.seconds.toFixed(0)} s; 唱 ${run.sing ? `${run.sing.seconds.toFixed(0)} s` : 'no'}`,
      );
      runs.push({ ...run, threads: n });
    }
  return { ...runHeader(started, load0), limitSeconds, runs };
}

export const RUNS_BEGIN = '<!-- page-training-runs: written by node bench/run.mjs --only page-training; do not edit by hand -->';
export const RUNS_END = '<!-- /page-training-runs -->';
const PAGE_TRAINING_END = '<!-- /page-training -->';

/** The "The Train panel's runs" section from measureRecipeRuns' result. */
export function recipeRunsSection(r) {
  const sec = (s) => `${s.toFixed(1)} s`;
  const at = (found, best, threshold) =>
    found
      ? `**${sec(found.seconds)}** (batch ${found.step}${found.layer >= 0 ? `, L${found.layer} H${found.head} ${found.value.toFixed(2)}` : ''})`
      : `not reached (best ${best ? `${best.value.toFixed(2)}, L${best.layer} H${best.head}, batch ${best.step}` : '–'}; ≥ ${threshold})`;
  const rows = r.runs.map((run) => {
    const half = run.halfLoss
      ? `**${sec(run.halfLoss.seconds)}** (batch ${run.halfLoss.step}, ${run.halfLoss.reached.toFixed(3)} of ${run.halfLoss.first.toFixed(3)})`
      : 'not reached';
    const sing = run.sing
      ? `**${sec(run.sing.seconds)}** (batch ${run.sing.step}: ${run.sing.text})`
      : `not reached (last: ${run.generations.at(-1)?.text ?? '–'})`;
    return (
      `| ${run.id} | ${run.threads} | ${run.tokensPerSecond.toFixed(0)} | ${sec(run.prepareSeconds)} | ${half} | ` +
      `${ROLES.map((role) => at(run.roles[role], run.best[role], ROLE_THRESHOLDS[role])).join(' | ')} | ${sing} | ${run.batches} of ${run.scheduled} (${run.stopped}) |`
    );
  });
  const recipes = [...new Set(r.runs.map((run) => run.id))].map((id) => {
    const d = describeRecipe(TRAIN_RECIPES[id]);
    return `- ${id}: ${d.shape}; ${d.data}; ${d.schedule} (${(recipeTokens(TRAIN_RECIPES[id]) / 1000).toFixed(0)}k tokens), model seed ${TRAIN_RECIPES[id].modelSeed}.`;
  });
  return `${RUNS_BEGIN}
## The Train panel's runs

**${r.cpu}**, ${r.cores} cores, ${r.date}, load average ${r.load[0].toFixed(1)} at the start and ${r.load[1].toFixed(1)} at the end
(\`npm run bench -- --only page-training\`, \`bench/training/page_training.mjs\` \`measureRecipeRuns\`). The panel's two runs
(\`js/train_recipes.mjs\`), each trained in Node by the panel's session code (\`js/train_session.mjs\`: a snapshot at batch 0
and every ${[...new Set(r.runs.map((run) => `${run.snapshotEvery ?? LEGACY_SNAPSHOT_EVERY} (${run.id})`))].join(', ')} batches, with the head-role probes the panel plots), on 1 thread (\`dist/wasm/minimind.*\`) and on 2
(\`minimind-threads.*\`), one run at a time, until every measure below was reached, the run ended, or ${r.limitSeconds} s of training time.

${recipes.join('\n')}

Tokens/s: the panel's count (the trainer's positions, batch rows × max_seq_len, over its training time, snapshots
included). Times: training time from the first batch, snapshots and their generations included; the data's preparation
(generating and tokenizing the run's stream, \`js/corpus_stream.mjs\`) comes before it. Loss: the mean of the last
${LOSS_WINDOW} batches at most half the mean of the first ${LOSS_WINDOW}. A role: the first snapshot in which some head passes the
threshold at which \`js/head_roles.mjs\` \`roleOf\` names that role (the panel's label). 唱: the first snapshot whose greedy
continuation of ${SING_PROMPT} (${GENERATED_TOKENS} tokens) starts with 唱, as 小红's habit 唱起了歌 does.

| run | threads | tokens/s | data prepared in | loss at half its first | previous-token ≥ ${ROLE_THRESHOLDS.previousToken} | induction ≥ ${ROLE_THRESHOLDS.induction} | pronoun ≥ ${ROLE_THRESHOLDS.pronoun} | 唱 after 她 | batches |
|---|---|---|---|---|---|---|---|---|---|
${rows.join('\n')}
${RUNS_END}`;
}

/** Writes the section into `mdPath`: in place of the one there, else right after "Training in the page". */
export function writeRecipeRunsSection(section, mdPath) {
  let text = readFileSync(mdPath, 'utf8');
  const from = text.indexOf(RUNS_BEGIN);
  const to = text.indexOf(RUNS_END);
  if (from >= 0 && to > from) text = text.slice(0, from) + section + text.slice(to + RUNS_END.length);
  else {
    const after = text.indexOf(PAGE_TRAINING_END);
    const at = after >= 0 ? after + PAGE_TRAINING_END.length : text.length;
    text = `${text.slice(0, at)}\n\n${section}${text.slice(at)}`;
  }
  writeFileSync(mdPath, text);
}

async function runChild(id, threads, limitSeconds) {
  const { loadMiniMind } = await import('../../js/minimind.mjs');
  const mm = await loadMiniMind({ variant: threads > 1 ? 'threads' : 'simd', threads });
  if (mm.threads !== threads) throw new Error(`asked for ${threads} threads, the module runs ${mm.threads}`);
  const tokenizer = mm.loadTokenizer(readFileSync(new URL('../../models/minimind-tokenizer/tokenizer.json', import.meta.url), 'utf8'));
  const recipe = TRAIN_RECIPES[id];
  if (!recipe) throw new Error(`no recipe "${id}" (known: ${Object.keys(TRAIN_RECIPES).join(', ')})`);
  process.stdout.write(`${JSON.stringify(recipeRun(mm, tokenizer, recipe, { limitSeconds }))}\n`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const flag = (name) => {
    const k = process.argv.indexOf(name);
    return k >= 0 ? process.argv[k + 1] : null;
  };
  const limitSeconds = flag('--seconds') !== null ? Number(flag('--seconds')) : LIMIT_SECONDS;
  if (flag('--run') !== null) {
    await runChild(flag('--run'), Number(flag('--threads') ?? 1), limitSeconds);
  } else if (process.argv.includes('--runs')) {
    // --runs alone: the panel's runs in Node, each for up to RUN_LIMIT_SECONDS; --write puts them in BENCHMARKS.md.
    const runs = await measureRecipeRuns({ limitSeconds: flag('--seconds') !== null ? limitSeconds : RUN_LIMIT_SECONDS, log: console.log });
    const section = recipeRunsSection(runs);
    console.log(section);
    if (process.argv.includes('--write')) {
      writeFileSync(new URL('../../build/bench/page-training-runs.json', import.meta.url), `${JSON.stringify(runs, null, 1)}\n`);
      writeRecipeRunsSection(section, fileURLToPath(new URL('../../BENCHMARKS.md', import.meta.url)));
    }
  } else {
    const r = await measurePageTraining({ limitSeconds, log: console.log });
    console.log(JSON.stringify(r, null, 1));
  }
}
