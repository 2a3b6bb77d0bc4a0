#!/usr/bin/env node
// Training a MiniMind in the page (the Train panel, web/train_panel.mjs), in
// headless Chromium at 1280×800: opens the playground, presses Train (#open-train:
// it opens the panel and starts the default run) and watches the run for up to
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
// Usage: node bench/page_training.mjs [--seconds 300]
// Needs the static site (node scripts/build_site.mjs). bench/run.mjs --only
// page-training runs it and writes the "Training in the page" section of BENCHMARKS.md.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';

import { serve } from '../scripts/serve.mjs';
import { CHROMIUM, launchBrowser, openPage } from '../tests/browser/browser.mjs';
import { cpuModel } from './cpu_model.mjs';

const site = fileURLToPath(new URL('../dist/site/', import.meta.url));

/** The goals: all within `LIMIT_SECONDS` of the click. */
export const LIMIT_SECONDS = 300;
export const GOALS = {
  loss: 0.5, // the loss (mean of the last 10 batches) at most half its first value
  previousToken: 0.8,
  induction: 0.5,
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
  document.getElementById('open-train').addEventListener('click', () => (record.t0 ??= performance.now()), { capture: true, once: true });
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
    if (!exposed) throw new Error("#train has no element.snapshots (web/train_panel.mjs's read-only accessor)");
    await page.click('#open-train');
    const settings = await page.evaluate(() => {
      const out = {};
      for (const input of document.querySelectorAll('#train .train-settings input[type="number"], #train .train-settings select'))
        out[input.name] = input.type === 'number' ? Number(input.value) : input.value;
      out.pack = document.querySelector('#train input[name="pack"]').checked;
      out.model = document.querySelector('#train input[name="train-model"]:checked').value;
      return out;
    });
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

if (import.meta.url === `file://${process.argv[1]}`) {
  const k = process.argv.indexOf('--seconds');
  const limitSeconds = k >= 0 ? Number(process.argv[k + 1]) : LIMIT_SECONDS;
  const r = await measurePageTraining({ limitSeconds, log: console.log });
  console.log(JSON.stringify(r, null, 1));
}
