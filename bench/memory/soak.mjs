#!/usr/bin/env node
// Long use of the playground, in headless Chromium: forward passes on text
// that changes every time, generations played to their end, training runs
// started, paused, resumed and stopped, and model switches, on the page as
// the site serves it (cross-origin isolated). Every step waits for what the
// page shows when it is done (a step that never finishes is a hang and stops
// the soak with its name). The tab's memory is measured after a warm-up (one
// round of each kind), after each kind's run, and at the end, each time with
// the same model and text on screen, after a garbage collection in the page
// and in every worker:
//   - performance.measureUserAgentSpecificMemory(): the page's and the
//     workers' JavaScript heaps, the DOM and canvases (eager, with
//     --enable-blink-features=ForceEagerMeasureMemory; it leaves out Wasm memory);
//   - the Wasm memory of every module instance: the workers' from a 'memory'
//     request (web/worker.mjs, web/train_host.mjs), the page's own (the
//     keystroke twin of a tiny model) from the WebAssembly.Memory its
//     instantiation made;
//   - the bytes the workers' allocators hand out (MiniMind.heapBytesInUse),
//     which fall back when memory is freed, unlike the Wasm memory;
//   - the resident memory of the browser's renderer processes (Linux /proc),
//     printed, not compared: the OS keeps pages a process has freed.
// "Tab memory" is the first two together. tests/browser/soak.test.mjs runs a
// short soak in npm test; npm run bench -- --only soak runs the full counts
// and writes the "Soak" section of BENCHMARKS.md.
//
// Usage: node bench/memory/soak.mjs [--forwards N] [--generations N] [--training-cycles N] [--model-switches N]
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';

import { serve } from '../../scripts/serve.mjs';
import { encodeText } from '../../js/text_encoding.mjs';
import { tokenLabels } from '../../js/token_text.mjs';
import { CHROMIUM, SITE, launchBrowser, openPage } from '../../tests/browser/browser.mjs';
import { trainedModel } from '../../tests/browser/demo.mjs';
import { runHeader } from '../cpu_model.mjs';

export const SOAK_BEGIN = '<!-- soak:';
export const SOAK_END = '<!-- /soak -->';

/** The full soak (npm run bench -- --only soak). */
const FULL_COUNTS = { forwards: 1000, generations: 20, trainingCycles: 10, modelSwitches: 20 };
/** How far the tab's memory may end from its level after the warm-up, as a fraction of it. */
export const TOLERANCE = 0.1;

// Model switches cycle through these and end on the page's own model (the
// trained one, with MiniMind's tokenizer in the worker): two presets small
// enough for the page's main-thread twin, and minimind2-small (25.8 M
// parameters) for a large build and release.
const MODELS = ['lab-b', 'minimind2-small', 'lab-a', 'minimind-demo'];
const WARM_UP = { forwards: 10, generations: 1, trainingCycles: 1, modelSwitches: MODELS.length };
// The text on screen whenever memory is measured (and the start of every forward pass's text).
const HOME_TEXT = '小明把苹果给了小红，她很开心';
// Prompts the trained model ends by itself (its end-of-text token), greedy, after 7, 17, 17, 20 and
// 22 tokens: the starts of texts it writes (it ends a text near 50 tokens).
const PROMPTS = [
  '小明把苹果给了小红，她很开心。小明把苹果给了小红，她很开心。今天天气不好。小红把玩具给了小明，他',
  '小明把苹果给了小红，她很开心。小明把苹果给了小红，她很开心。今天天气不好。',
  '她很开心。今天天气不好，大家都很开心。今天天气不好。小红把玩具给了小明，他踢起了球。',
  '小红很开心。今天天气不好。小红把玩具给了小明，他踢起了球。小明把面包给了小红，',
  '小明把书给了小红，她唱起了歌。小明把书给了小红，她唱起了歌。',
];
const KINDS = ['forwards', 'generations', 'trainingCycles', 'modelSwitches'];
const FORWARD_CHUNK = 100; // forward passes per call into the page
const STEP_TIMEOUT_MS = 180_000; // a step that takes longer has hung (a full generation takes seconds)
const WORKER_FORWARD = 'minimind:worker-forward'; // web/model_client.mjs's mark per forward pass the worker ran
const FLAGS = ['--enable-blink-features=ForceEagerMeasureMemory', '--js-flags=--expose-gc'];

// The k-th forward pass's text: the first 1-14 characters of HOME_TEXT and k.
const forwardText = (k) => `${HOME_TEXT.slice(0, 1 + (k % HOME_TEXT.length))} ${k}`;

// In the page: each text set in the textarea with an input event, as typing
// does, then its matrix awaited (its columns are the expected labels, every
// request answered), frame by frame. {done: texts shown, hung: the text whose
// matrix did not come within timeoutMs, or null}.
async function typeTexts({ items, timeoutMs }) {
  const input = document.getElementById('text');
  const columns = () => JSON.stringify([...document.querySelectorAll('#matrix-table thead th')].slice(1).map((th) => th.textContent));
  const frame = () => new Promise((resolve) => requestAnimationFrame(resolve));
  for (const [k, [text, expected]] of items.entries()) {
    input.value = text;
    input.dispatchEvent(new InputEvent('input', { bubbles: true, inputType: 'insertText', data: text.at(-1) }));
    const deadline = performance.now() + timeoutMs;
    while (!(document.body.dataset.pendingRequests === '0' && columns() === expected)) {
      if (performance.now() > deadline) return { done: k, hung: text };
      await frame();
    }
  }
  return { done: items.length, hung: null };
}

// Before the page's scripts: every Worker the page starts (and whether it was
// terminated), and every WebAssembly.Memory an instantiation on the page's
// thread exports or imports.
function installRecorder() {
  const workers = [];
  const memories = [];
  window.__soak = { workers, memories };
  const PageWorker = window.Worker;
  window.Worker = class extends PageWorker {
    constructor(url, options) {
      super(url, options);
      workers.push({ url: String(url), worker: this, live: true });
    }
    terminate() {
      for (const w of workers) if (w.worker === this) w.live = false;
      super.terminate();
    }
  };
  for (const name of ['instantiate', 'instantiateStreaming']) {
    const original = WebAssembly[name];
    WebAssembly[name] = async function (source, imports) {
      const result = await original.call(this, source, imports);
      const instance = result instanceof WebAssembly.Instance ? result : result.instance;
      const candidates = [...Object.values(instance.exports), ...Object.values(imports ?? {}).flatMap((m) => Object.values(m ?? {}))];
      const memory = candidates.find((value) => value instanceof WebAssembly.Memory);
      if (memory && !memories.includes(memory)) memories.push(memory);
      return result;
    };
  }
}

// In the page: each live worker's answer to {type: 'memory', port}, by role.
function askWorkers(timeoutMs) {
  const ask = ({ url, worker }) =>
    new Promise((resolve) => {
      const channel = new MessageChannel();
      const timer = setTimeout(() => resolve({ url, error: 'no answer' }), timeoutMs);
      channel.port1.onmessage = ({ data }) => {
        clearTimeout(timer);
        channel.port1.close();
        resolve({ url, ...data });
      };
      worker.postMessage({ type: 'memory', port: channel.port2 }, [channel.port2]);
    });
  return Promise.all(window.__soak.workers.filter((w) => w.live).map(ask));
}

// In the page: the user-agent memory measure by part, and the page's own Wasm memory.
async function pageMemory() {
  const measured = await performance.measureUserAgentSpecificMemory();
  const parts = { page: 0, computeWorker: 0, trainWorker: 0, other: 0 };
  for (const { bytes, attribution } of measured.breakdown) {
    const where = attribution[0];
    const part = !where
      ? 'other'
      : where.scope === 'Window'
        ? 'page'
        : /train_worker\.js/.test(where.url)
          ? 'trainWorker'
          : /\/worker\.js/.test(where.url)
            ? 'computeWorker'
            : 'other';
    parts[part] += bytes;
  }
  const wasm = window.__soak.memories.reduce((sum, memory) => sum + memory.buffer.byteLength, 0);
  return { bytes: measured.bytes, parts, pageWasm: wasm };
}

function chromiumVersion() {
  try {
    return execFileSync(CHROMIUM, ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return null;
  }
}

// The resident memory (VmRSS, bytes) of every renderer process this process started, or null without /proc.
function rendererRss() {
  try {
    const children = new Map();
    for (const name of readdirSync('/proc')) {
      if (!/^\d+$/.test(name)) continue;
      try {
        const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
        const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
        if (!children.has(ppid)) children.set(ppid, []);
        children.get(ppid).push(Number(name));
      } catch {
        // the process ended meanwhile
      }
    }
    let rss = 0;
    const todo = [process.pid];
    while (todo.length) {
      const pid = todo.pop();
      for (const child of children.get(pid) ?? []) {
        todo.push(child);
        try {
          if (!readFileSync(`/proc/${child}/cmdline`, 'utf8').includes('--type=renderer')) continue;
          rss += 1024 * Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${child}/status`, 'utf8'))?.[1] ?? 0);
        } catch {
          // the process ended meanwhile
        }
      }
    }
    return rss;
  } catch {
    return null;
  }
}

/**
 * Runs the soak: a warm-up (10 forwards, one generation, one training cycle,
 * one round of model switches), then `counts` of each kind. counts:
 * {forwards, generations, trainingCycles, modelSwitches}; modelSwitches a
 * multiple of MODELS.length, so that the page ends on the model it started
 * with. Throws when a step hangs (with its name). Returns {counts, completed,
 * memory: {warm, phases: [{phase, memory}], final}, change, steps, seconds,
 * errors, isolated, header}: `change` is each compared quantity's end
 * against the warm-up, as a fraction.
 */
export async function runSoak({ counts = FULL_COUNTS, log = () => {} } = {}) {
  if (counts.modelSwitches % MODELS.length !== 0)
    throw new RangeError(`modelSwitches must be a multiple of ${MODELS.length} (${MODELS.join(', ')}), got ${counts.modelSwitches}`);
  const started = new Date();
  const loadAtStart = os.loadavg()[0];
  const server = await serve(SITE);
  const browser = await launchBrowser({ args: FLAGS });
  try {
    const { page, errors } = await openPage(browser.context);
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.addInitScript(installRecorder);
    await page.goto(`${server.url}?lang=en`);
    await page.waitForSelector('body[data-ready="true"]', { timeout: STEP_TIMEOUT_MS });
    const isolated = await page.evaluate(() => crossOriginIsolated && typeof performance.measureUserAgentSpecificMemory === 'function');
    if (!isolated) throw new Error('the page is not cross-origin isolated: performance.measureUserAgentSpecificMemory is not there');
    const { tokenizer } = await trainedModel();
    // The labels the page draws: a byte token by the character it completes, else its bytes (js/token_text.mjs).
    const soak = new Soak(page, log, (text) => tokenLabels(tokenizer.display(encodeText(tokenizer, text))).map((token) => token.label));
    await soak.showText(HOME_TEXT);

    log('warm-up: one round of each kind');
    await soak.round(WARM_UP);
    await soak.showText(HOME_TEXT);
    const warm = await soak.measure();
    log(`after the warm-up: ${describe(warm)}`);
    const steps = {};
    const completed = {};
    const seconds = {};
    const phases = [];
    for (const kind of KINDS) {
      const t0 = performance.now();
      steps[kind] = await soak.run(kind, counts[kind]);
      completed[kind] = kind === 'forwards' ? steps[kind].reduce((sum, chunk) => sum + chunk.texts, 0) : steps[kind].length;
      seconds[kind] = (performance.now() - t0) / 1000;
      await soak.showText(HOME_TEXT);
      const memory = await soak.measure();
      phases.push({ phase: kind, memory });
      log(`after ${counts[kind]} ${kind} (${seconds[kind].toFixed(0)} s): ${describe(memory)}`);
    }
    const final = phases.at(-1).memory;
    const change = {
      tab: final.tab / warm.tab - 1,
      computeHeap: final.heap.compute / warm.heap.compute - 1,
      trainHeap: final.heap.train / warm.heap.train - 1,
    };
    await page.close();
    return {
      counts,
      warmUp: WARM_UP,
      completed,
      memory: { warm, phases, final },
      change,
      steps: summariseSteps(steps),
      seconds,
      errors,
      isolated,
      models: MODELS,
      header: runHeader(started, loadAtStart),
      chromium: /Chromium [\d.]+/.exec(chromiumVersion() ?? '')?.[0] ?? null,
    };
  } finally {
    await browser.close();
    await server.close();
  }
}

function summariseSteps(steps) {
  const ends = {};
  for (const g of steps.generations) ends[g.end] = (ends[g.end] ?? 0) + 1;
  return {
    workerForwards: steps.forwards.reduce((sum, f) => sum + f.workerForwards, 0),
    generationTokens: steps.generations.map((g) => g.tokens),
    generationEnds: ends,
    trainingBatches: steps.trainingCycles.map((c) => c.batches),
    switches: steps.modelSwitches.map((s) => s.model),
  };
}

const mib = (bytes) => (bytes / 2 ** 20).toFixed(1);
function describe(m) {
  return (
    `tab ${mib(m.tab)} MiB (JS/DOM/canvas ${mib(m.measured)}, Wasm ${mib(m.wasm.page + m.wasm.compute + m.wasm.train)}), ` +
    `allocators: compute ${mib(m.heap.compute)}, train ${mib(m.heap.train)} MiB; renderer RSS ${m.rss === null ? '?' : mib(m.rss)} MiB`
  );
}

// The page, driven step by step; each step resolves when the page shows it done.
class Soak {
  /** labelsOf(text): the trained model's token labels for `text`, as the worker gives them (the bos first). */
  constructor(page, log, labelsOf) {
    this.page = page;
    this.log = log;
    this.labelsOf = labelsOf;
    this.switchesDone = 0; // the page opens on MODELS.at(-1)
    this.trainingStarted = false;
  }

  async wait(what, predicate, arg) {
    try {
      await this.page.waitForFunction(predicate, arg, { timeout: STEP_TIMEOUT_MS });
    } catch (error) {
      throw new Error(`the page hung: ${what} did not finish within ${STEP_TIMEOUT_MS / 1000} s`, { cause: error });
    }
  }

  async round(counts) {
    for (const kind of KINDS) await this.run(kind, counts[kind]);
  }

  // `count` steps of one kind; what each showed.
  async run(kind, count) {
    if (kind === 'forwards') return this.forwards(count);
    const steps = [];
    for (let k = 0; k < count; k += 1) {
      steps.push(await this[kind](k));
      if ((k + 1) % 5 === 0) this.log(`${kind}: ${k + 1} / ${count}`);
    }
    return steps;
  }

  // The trained model's matrix for `text`: its columns are the text's tokens, every request answered.
  async showText(text) {
    await this.page.fill('#text', text);
    await this.wait(
      `the matrix of "${text}"`,
      (expected) =>
        document.body.dataset.pendingRequests === '0' &&
        JSON.stringify([...document.querySelectorAll('#matrix-table thead th')].slice(1).map((th) => th.textContent)) === expected,
      JSON.stringify(this.labelsOf(text)),
    );
  }

  workerForwardCount() {
    return this.page.evaluate((name) => performance.getEntriesByName(name).length, WORKER_FORWARD);
  }

  // Texts one after another, FORWARD_CHUNK per call into the page (typeTexts);
  // per chunk: {texts: how many were shown, workerForwards: passes the worker ran}.
  async forwards(count) {
    const chunks = [];
    for (let from = 0; from < count; from += FORWARD_CHUNK) {
      const texts = Array.from({ length: Math.min(FORWARD_CHUNK, count - from) }, (_, i) => forwardText(from + i));
      const items = texts.map((text) => [text, JSON.stringify(this.labelsOf(text))]);
      const before = await this.workerForwardCount();
      const { done, hung } = await this.page.evaluate(typeTexts, { items, timeoutMs: STEP_TIMEOUT_MS });
      if (hung !== null) throw new Error(`the page hung: the matrix of "${hung}" did not finish within ${STEP_TIMEOUT_MS / 1000} s`);
      chunks.push({ texts: done, workerForwards: (await this.workerForwardCount()) - before });
      this.log(`forwards: ${from + done} / ${count}`);
    }
    return chunks;
  }

  async generations(k) {
    await this.showText(PROMPTS[k % PROMPTS.length]);
    await this.page.click('#gen-play');
    await this.wait(
      `generation ${k + 1}`,
      () =>
        (document.getElementById('gen-status').dataset.end ?? '') !== '' &&
        document.body.dataset.pendingRequests === '0' &&
        document.getElementById('run-status').hidden,
    );
    const shown = await this.page.evaluate(() => ({
      end: document.getElementById('gen-status').dataset.end,
      rows: document.querySelectorAll('#matrix-table tbody tr').length,
    }));
    await this.page.click('#gen-reset');
    await this.wait('a reset', () => document.getElementById('gen-status').dataset.end === '');
    return { end: shown.end, tokens: shown.rows };
  }

  // Start (after the Train button opens the panel, the first time), pause, resume, stop.
  async trainingCycles(k) {
    const at = ([state, minStep]) => {
      const train = document.getElementById('train');
      return train.dataset.phase === state && Number(train.dataset.step) >= minStep;
    };
    if (!this.trainingStarted) await this.page.click('#open-train');
    await this.page.click('#train [data-train="start"]');
    this.trainingStarted = true;
    await this.wait(`training cycle ${k + 1}: the first batch`, at, ['running', 1]);
    await this.page.click('#train [data-train="pause"]');
    await this.wait(`training cycle ${k + 1}: pause`, at, ['paused', 1]);
    const paused = Number(await this.page.getAttribute('#train', 'data-step'));
    await this.page.click('#train [data-train="pause"]');
    await this.wait(`training cycle ${k + 1}: resume`, at, ['running', paused + 1]);
    await this.page.click('#train [data-train="stop"]');
    await this.wait(`training cycle ${k + 1}: stop`, at, ['done', paused + 1]);
    return { batches: Number(await this.page.getAttribute('#train', 'data-step')) };
  }

  async modelSwitches() {
    const model = MODELS[this.switchesDone % MODELS.length];
    this.switchesDone += 1;
    await this.page.selectOption('#preset', model);
    await this.wait(
      `the switch to ${model}`,
      (name) =>
        document.getElementById('model-status').textContent.startsWith(`${name}:`) &&
        document.body.dataset.pendingRequests === '0' &&
        document.getElementById('run-status').hidden &&
        document.querySelectorAll('#matrix-table thead th').length > 1,
      model,
    );
    return { model };
  }

  // Garbage collected everywhere first: what is left is what the page holds.
  async measure() {
    await this.page.evaluate(() => globalThis.gc());
    for (const worker of this.page.workers()) await worker.evaluate(() => globalThis.gc());
    const answers = await this.page.evaluate(askWorkers, 30_000);
    const failed = answers.find((a) => a.error);
    if (failed) throw new Error(`the worker ${failed.url} did not report its memory: ${failed.error}`);
    const of = (re) => answers.filter((a) => re.test(a.url));
    const sum = (list, key) => list.reduce((total, a) => total + a[key], 0);
    const compute = of(/\/worker\.js/);
    const train = of(/train_worker\.js/);
    const measured = await this.page.evaluate(pageMemory);
    const wasm = { page: measured.pageWasm, compute: sum(compute, 'wasmBytes'), train: sum(train, 'wasmBytes') };
    return {
      tab: measured.bytes + wasm.page + wasm.compute + wasm.train,
      measured: measured.bytes,
      parts: measured.parts,
      wasm,
      heap: { compute: sum(compute, 'heapBytes'), train: sum(train, 'heapBytes') },
      workers: answers.length,
      rss: rendererRss(),
    };
  }
}

// ------------------------------------------------------------------ report

const pct = (x) => `${x >= 0 ? '+' : '−'}${Math.abs(100 * x).toFixed(1)} %`;

/** The "Soak" section of BENCHMARKS.md. */
export function soakSection(r) {
  const h = r.header;
  const rows = [
    ['after the warm-up', r.memory.warm],
    ...r.memory.phases.map((p) => [`after ${r.counts[p.phase]} ${PHASE_NAMES[p.phase]}`, p.memory]),
  ];
  const line = ([name, m]) =>
    `| ${name} | ${mib(m.tab)} | ${mib(m.parts.page)} | ${mib(m.parts.computeWorker)} | ${mib(m.parts.trainWorker)} | ${mib(m.parts.other)} | ` +
    `${mib(m.wasm.page)} | ${mib(m.wasm.compute)} | ${mib(m.wasm.train)} | ${mib(m.heap.compute)} | ${mib(m.heap.train)} | ${m.rss === null ? '–' : mib(m.rss)} |`;
  const s = r.steps;
  const ends = Object.entries(s.generationEnds)
    .map(([end, n]) => `${n} × ${end}`)
    .join(', ');
  const range = (xs) => (Math.min(...xs) === Math.max(...xs) ? String(xs[0] ?? '–') : `${Math.min(...xs)}–${Math.max(...xs)}`);
  const total = Object.values(r.seconds).reduce((a, b) => a + b, 0);
  return `${SOAK_BEGIN} written by node bench/run.mjs --only soak; do not edit by hand -->
## Soak

The playground in headless ${r.chromium ?? 'Chromium'}, served cross-origin isolated, on ${h.cpu}
(${h.cores} cores, ${h.date.slice(0, 10)}, load average ${h.load[0].toFixed(1)}–${h.load[1].toFixed(1)}), used for a long time
(bench/memory/soak.mjs): ${r.counts.forwards} forward passes on text that changes every time (the trained model, the
worker ran ${s.workerForwards}), ${r.counts.generations} greedy generations played to their end (${ends}; the matrix
then had ${range(s.generationTokens)} rows), ${r.counts.trainingCycles} training runs started, paused, resumed and stopped (${range(s.trainingBatches)} batches each) and
${r.counts.modelSwitches} model switches (${r.models.join(' → ')}, in turn), after a warm-up of one round of each
(${r.warmUp.forwards} forwards). Every step finished; the page logged ${r.errors.length} console errors.
The steps took ${total.toFixed(0)} s: ${Object.entries(r.seconds)
    .map(([k, v]) => `${PHASE_NAMES[k]} ${v.toFixed(0)} s`)
    .join(', ')}.

Memory in MiB, each time with the trained model and the same text on screen, after a garbage
collection in the page and in every worker. **Tab** is what \`performance.measureUserAgentSpecificMemory()\`
counts (JavaScript heaps of the page and its workers, DOM, canvases; by part in the next four
columns, "unattributed" being what it shares between them) plus the Wasm memory of every module instance (the page's keystroke twin, the compute
worker's, the training worker's), which it leaves out. **Allocator** is the bytes a worker's
module hands out (\`heapBytesInUse\`): it falls back when memory is freed, where the Wasm memory
keeps its high-water mark. **Renderer RSS** is the resident memory of the renderer processes,
for reference (the OS keeps pages a process freed).

| when | tab | measured: page | compute worker | train worker | unattributed | Wasm: page | compute | train | allocator: compute | train | renderer RSS |
|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|
${rows.map(line).join('\n')}

At the end against after the warm-up: tab ${pct(r.change.tab)}, compute worker's allocator
${pct(r.change.computeHeap)}, training worker's allocator ${pct(r.change.trainHeap)} (the short soak in npm test,
tests/browser/soak.test.mjs, requires each within ±${100 * TOLERANCE} %).
${SOAK_END}
`;
}

const PHASE_NAMES = {
  forwards: 'forwards',
  generations: 'generations',
  trainingCycles: 'training cycles',
  modelSwitches: 'model switches',
};

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const option = (name, fallback) => {
    const i = args.indexOf(name);
    return i >= 0 ? Number(args[i + 1]) : fallback;
  };
  const counts = {
    forwards: option('--forwards', FULL_COUNTS.forwards),
    generations: option('--generations', FULL_COUNTS.generations),
    trainingCycles: option('--training-cycles', FULL_COUNTS.trainingCycles),
    modelSwitches: option('--model-switches', FULL_COUNTS.modelSwitches),
  };
  const result = await runSoak({ counts, log: (m) => console.error(m) });
  console.log(soakSection(result));
}
