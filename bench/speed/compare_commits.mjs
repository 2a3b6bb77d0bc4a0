#!/usr/bin/env node
// Compare commits: is a speed change the host or our code? Times our
// WebAssembly module as built at other commits beside the current checkout
// and ONNX Runtime Web, interleaved, in one run. A number that moved between
// two bench reports moved because the machine did (another CPU, a busy
// neighbour, a throttled core) or because the code did; run both builds on
// the same host in the same minutes and the question answers itself: when
// the old commit moved with HEAD, it was the host.
//
//   node bench/speed/compare_commits.mjs [--rounds N] [--preset minimind2-small]
//       [--work prefill64,prefill256,decode] [--json FILE] [--write] REV [REV ...]
//
// It prints the report; --write also puts it in BENCHMARKS.md ("Commits side
// by side", between its markers), --json FILE writes the raw samples.
//
// Runtimes, each on one thread:
//   ort-web       onnxruntime-web's wasm backend (SIMD, graphOptimizationLevel
//                 'all') on bench/models/<preset>.{prefill,decode}.onnx
//   HEAD          the current checkout: js/minimind.mjs with dist/wasm/minimind.*
//                 (as built: this script never rebuilds the checkout)
//   HEAD relaxed  the same with the relaxed build (dist/wasm/minimind-relaxed.*),
//                 where it is built (Node 20: with the V8 flag that
//                 bench/relaxed_simd.mjs names)
//   <REV>         each REV's own js/minimind.mjs and SIMD module, built in a
//                 git worktree of that commit: build/commits/<short-sha>/src
//                 (the module in its dist/wasm/), the CMake tree beside it in
//                 build/commits/<short-sha>/wasm, configured as that commit's
//                 scripts/build.sh configures its `wasm` tree; built again only
//                 when the module is older than the commit
//
// Work, as bench/speed/threads.mjs measures it: prefill of 64 and 256 tokens
// (ids 3 + ((i * 131 + 7) % 6000)) and greedy decoding, per step (32 steps
// after a 32-token prompt), on the preset with the seeded weights of
// bench/speed/make_onnx.py (seed 0, init 'minimind'), the weight matrices as float16.
// Each round runs ONNX Runtime Web in a child process of its own and our
// builds side by side in another, every repetition timing each of them back
// to back (this host's speed drifts by tens of percent within seconds, so
// builds timed in separate processes would compare the host's moments); the
// two processes take turns going first. The report gives per runtime and
// work the median of the rounds, their p25-p75 range, × ort-web (ORT-web's
// median ÷ this one's) and × HEAD (the median of the rounds' side-by-side
// ratios, HEAD's time ÷ this one's): above 1 is faster.
//
// The worktrees stay for the next run. To remove one, or all:
//   git worktree remove build/commits/<short-sha>/src && rm -rf build/commits/<short-sha>
//   for w in build/commits/*/src; do git worktree remove --force "$w"; done; rm -rf build/commits
// (`git worktree prune` forgets worktrees whose folders were deleted by hand.)
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { argmax } from '../../js/argmax.mjs';
import { cpuModel } from '../cpu_model.mjs';
import { median } from '../median.mjs';
import { ortTimes, promptIds } from './ort_times.mjs';
import { replaceSection } from '../report.mjs';
import { NODE_FLAGS, RELAXED_AVAILABLE } from '../relaxed_simd.mjs';
import { rotated, timeSideBySide } from './side_by_side.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const SEED = 0;
const INIT = 'minimind';
const CHECK_TOKENS = 32; // the prompt whose next token every runtime must agree on
const WORKS = ['prefill64', 'prefill256', 'decode'];
const DEFAULTS = { rounds: 7, preset: 'minimind2-small', work: WORKS, json: null, write: false };
// --write puts the report in BENCHMARKS.md between these markers.
const COMMITS_BEGIN = '<!-- commits: written by node bench/speed/compare_commits.mjs --write; do not edit by hand -->';
const COMMITS_END = '<!-- /commits -->';
const ORT = 'ort-web';
const HEAD = 'HEAD';
const HEAD_RELAXED = 'HEAD relaxed';
// What the module is built from: HEAD's dist/wasm is stale when one of these is newer.
const SOURCES = ['core', 'wasm', 'cmake', 'CMakeLists.txt'];

const log = (line) => process.stderr.write(`${line}\n`);

const USAGE =
  'usage: node bench/speed/compare_commits.mjs [--rounds N] [--preset NAME] [--work prefill64,prefill256,decode] [--json FILE] [--write] REV [REV ...]';

// ------------------------------------------------------------------ pure parts (tested)

/** The command line: {rounds, preset, work: [names], json: file|null, revs: [REV]}; throws on a mistake. */
export function parseArgs(argv) {
  const out = { ...DEFAULTS, revs: [] };
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i];
    if (arg === '--help' || arg === '-h') return { ...out, help: true };
    if (arg === '--write') {
      out.write = true;
      continue;
    }
    if (!arg.startsWith('--')) {
      out.revs.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const name = eq > 0 ? arg.slice(2, eq) : arg.slice(2);
    if (!['rounds', 'preset', 'work', 'json'].includes(name)) throw new Error(`unknown option ${arg}\n${USAGE}`);
    let value = eq > 0 ? arg.slice(eq + 1) : argv[(i += 1)];
    if (value === undefined || value === '') throw new Error(`--${name} needs a value\n${USAGE}`);
    if (name === 'rounds') {
      if (!/^\d+$/.test(value) || Number(value) < 1) throw new Error(`--rounds must be a whole number of at least 1, got ${value}`);
      out.rounds = Number(value);
    } else if (name === 'work') {
      value = value.split(',').filter(Boolean);
      const bad = value.filter((w) => w !== 'decode' && !/^prefill[1-9]\d*$/.test(w));
      if (bad.length || value.length === 0) throw new Error(`--work takes prefill<N> and decode, comma-separated; got ${bad.join(', ')}`);
      out.work = [...new Set(value)];
    } else {
      out[name] = value;
    }
  }
  if (out.revs.length === 0) throw new Error(`name at least one commit to compare with\n${USAGE}`);
  return out;
}

/** The order of round `round` (0-based): `runtimes` rotated left by one per round. */
export function roundOrder(runtimes, round) {
  return rotated(runtimes, round);
}

/** The q-quantile (0..1) of a list, linearly interpolated between the sorted values. */
export function quantile(values, q) {
  const s = [...values].sort((a, b) => a - b);
  const pos = (s.length - 1) * q;
  const lo = Math.floor(pos);
  return lo + 1 < s.length ? s[lo] + (s[lo + 1] - s[lo]) * (pos - lo) : s[lo];
}

/** The configure command that `scripts/build.sh wasm` of a commit runs, from that script's text: {configure, args}. */
export function wasmConfigure(buildSh) {
  const line = /^\s*wasm\)(.*)$/m.exec(buildSh ?? '')?.[1];
  const words = (name) => {
    const m = line && new RegExp(`\\b${name}=\\(([^)]*)\\)`).exec(line);
    return m ? m[1].trim().split(/\s+/).filter(Boolean) : null;
  };
  return { configure: words('configure') ?? ['emcmake', 'cmake'], args: words('args') ?? ['-DCMAKE_BUILD_TYPE=Release'] };
}

const fmt = (ms) => (ms >= 100 ? ms.toFixed(0) : ms >= 10 ? ms.toFixed(1) : ms.toFixed(2));
const WORK_LABEL = (w) => (w === 'decode' ? 'decode, per step' : `prefill ${w.slice('prefill'.length)}`);

/**
 * The Markdown table of a run: `runtimes` [{key, label?}] in report order,
 * `works` [name], `samples` {key: [{work: ms, ...} per round]}. ORT-web's
 * key is 'ort-web', the checkout's 'HEAD'. `ratios` {key: [{work: HEAD's
 * time ÷ this one's} per round]}, where given, are the builds' side-by-side
 * ratios: × HEAD is then their median, not a ratio of two medians.
 */
export function reportTable({ runtimes, works, samples, ratios = {} }) {
  const stats = (key, work) => {
    const values = (samples[key] ?? []).map((s) => s[work]).filter((v) => typeof v === 'number');
    return values.length ? { median: median(values), p25: quantile(values, 0.25), p75: quantile(values, 0.75) } : null;
  };
  const rows = [];
  for (const work of works) {
    const ort = stats(ORT, work);
    const head = stats(HEAD, work);
    for (const { key, label } of runtimes) {
      const s = stats(key, work);
      if (!s) continue;
      const vsOrt = ort ? `${(ort.median / s.median).toFixed(2)}×` : '—';
      const paired = (ratios[key] ?? []).map((r) => r[work]).filter((v) => typeof v === 'number');
      const vsHead =
        key === HEAD || key === ORT
          ? '—'
          : paired.length
            ? `${median(paired).toFixed(2)}×`
            : head
              ? `${(head.median / s.median).toFixed(2)}×`
              : '—';
      rows.push(`| ${WORK_LABEL(work)} | ${label ?? key} | ${fmt(s.median)} ms | ${fmt(s.p25)}–${fmt(s.p75)} ms | ${vsOrt} | ${vsHead} |`);
    }
  }
  return ['| work | runtime | median | p25–p75 | × ort-web | × HEAD |', '|---|---|---|---|---|---|', ...rows].join('\n');
}

// ------------------------------------------------------------------ child processes

// Repetitions of each work per round, after one warm-up, for our builds taking turns.
const PAIRED_REPS = { prefill: 7, longPrefill: 4, decode: 4 };
const pairedReps = (work) =>
  work === 'decode' ? PAIRED_REPS.decode : Number(work.slice('prefill'.length)) > 64 ? PAIRED_REPS.longPrefill : PAIRED_REPS.prefill;

// One of our builds in this process, ready: {model, mm, out: {storage, init, check}}.
async function loadOurs({ dir, variant, preset }) {
  const file = join(dir, 'js', 'minimind.mjs');
  const api = await import(pathToFileURL(file).href);
  const mm = await api.loadMiniMind({ variant, threads: 1 });
  const source = readFileSync(file, 'utf8');
  // weightStorage ('narrowest': float16, as the seeded weights are float16
  // values) came with the float16 storage itself (ff97bdf): a commit without
  // the option stores every weight as float32, and the report says so (the
  // weights' storage is read back from info().stored_weights, where there is one).
  // init 'minimind' came later (616b8c7); a commit before it builds the
  // 'playground' init's weights: the same shapes and storage, other values.
  const spec = { preset, seed: SEED, init: INIT };
  if (source.includes('weightStorage')) spec.weightStorage = 'narrowest';
  const model = mm.createModel(spec);
  const info = model.info();
  const { data, shape } = model.forward(promptIds(CHECK_TOKENS)).logits;
  const out = {
    storage: info.stored_weights?.tensors_by_storage ?? { F32: 'all' },
    init: /\bspec\.init\b/.test(source) ? INIT : 'playground',
    check: { next: argmax(data, data.length - shape.at(-1), data.length) },
    variant: mm.variant,
    threads: mm.threads,
  };
  return { model, out };
}

// Our builds (`builds` [{key, dir, variant}], HEAD's among them) side by side
// in one process (bench/speed/side_by_side.mjs). Returns {key: {prefill<N>: ms,
// decode: ms, ratio: {work: the median over the repetitions of HEAD's time ÷
// this build's}, check, storage, init, variant, threads}}.
async function childPaired({ builds, preset, works }) {
  const loaded = {};
  for (const build of builds) loaded[build.key] = await loadOurs({ ...build, preset });
  const times = timeSideBySide(Object.fromEntries(Object.entries(loaded).map(([key, b]) => [key, b.model])), works, pairedReps, HEAD);
  for (const b of Object.values(loaded)) b.model.dispose();
  return Object.fromEntries(Object.entries(loaded).map(([key, b]) => [key, { ...b.out, ...times[key] }]));
}

// ONNX Runtime Web's times (bench/speed/ort_times.mjs) and its greedy next token.
async function childOrt({ preset, works }) {
  const prefill = works.filter((w) => w !== 'decode').map((w) => Number(w.slice('prefill'.length)));
  const { next, ...times } = await ortTimes({ preset, prefill, decode: works.includes('decode'), checkTokens: CHECK_TOKENS });
  return { ...times, check: { next } };
}

// ------------------------------------------------------------------ commits and their builds

const git = (args, cwd = root) => execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();

/** A commit as the report names it: {rev, sha, short, date (ISO), subject}. */
function commitOf(rev) {
  let sha;
  try {
    sha = git(['rev-parse', '--verify', '--quiet', `${rev}^{commit}`]);
  } catch {
    throw new Error(`${rev} names no commit of this repository`);
  }
  const [short, date, subject] = git(['log', '-1', '--format=%h%n%cI%n%s', sha]).split('\n');
  return { rev, sha, short, date, subject };
}

/** The worktree of `commit` under build/commits/<short-sha>/src, its SIMD module built: the worktree's path. */
function ensureBuilt(commit) {
  const base = join(root, 'build', 'commits', commit.short);
  const src = join(base, 'src');
  if (!existsSync(join(src, '.git'))) {
    log(`worktree ${commit.short}: git worktree add --detach build/commits/${commit.short}/src ${commit.sha}`);
    mkdirSync(base, { recursive: true });
    execFileSync('git', ['worktree', 'add', '--detach', src, commit.sha], { cwd: root, stdio: ['ignore', 2, 2] });
  }
  const at = git(['rev-parse', 'HEAD'], src);
  if (at !== commit.sha)
    throw new Error(`build/commits/${commit.short}/src is at ${at}, not ${commit.sha}: remove it (git worktree remove)`);
  const outputs = ['minimind.mjs', 'minimind.wasm'].map((f) => join(src, 'dist', 'wasm', f));
  const committed = Number(git(['log', '-1', '--format=%ct', commit.sha])) * 1000;
  if (outputs.every((f) => existsSync(f) && statSync(f).mtimeMs > committed)) {
    log(`${commit.short}: dist/wasm/minimind.* is built (build/commits/${commit.short}/src)`);
    return src;
  }
  // The configure line of that commit's own `scripts/build.sh wasm`, into a
  // tree of ours; only the SIMD module's target (minimind_wasm) is built.
  const buildSh = join(src, 'scripts', 'build.sh');
  const { configure, args } = wasmConfigure(existsSync(buildSh) ? readFileSync(buildSh, 'utf8') : '');
  const tree = join(base, 'wasm');
  log(
    `building ${commit.sha} ... (${[...configure, ...args].join(' ')}, cmake --build --target minimind_wasm in build/commits/${commit.short}/wasm)`,
  );
  const started = performance.now();
  const stdio = ['ignore', 2, 2];
  execFileSync(configure[0], [...configure.slice(1), '-S', src, '-B', tree, ...args], { cwd: src, stdio: ['ignore', 'ignore', 2] });
  execFileSync('cmake', ['--build', tree, '-j', String(os.cpus().length), '--target', 'minimind_wasm'], { cwd: src, stdio });
  for (const f of outputs) if (!existsSync(f)) throw new Error(`the build of ${commit.short} did not write ${f}`);
  log(`built ${commit.short} in ${((performance.now() - started) / 1000).toFixed(0)} s`);
  return src;
}

// bench/speed/make_onnx.py's graphs of the preset, with the seed and init of ours.
function checkOnnx(preset) {
  const files = ['prefill.onnx', 'decode.onnx', 'json'].map((k) => `${root}bench/models/${preset}.${k}`);
  const manifest = files[2];
  const version = Number(/^GENERATOR_VERSION = (\d+)/m.exec(readFileSync(`${root}bench/speed/make_onnx.py`, 'utf8'))?.[1]);
  const m = existsSync(manifest) ? JSON.parse(readFileSync(manifest, 'utf8')) : null;
  if (m && m.seed === SEED && m.init === INIT && m.generator_version === version && files.every((f) => existsSync(f))) return;
  throw new Error(
    `bench/models/${preset}.* are missing or stale. Make them with npm run bench -- --only forward, or:\n` +
      `  /usr/bin/python3 bench/speed/make_onnx.py --preset ${preset} --seed ${SEED} --init ${INIT}   (needs python3-torch and python3-numpy)`,
  );
}

// ------------------------------------------------------------------ the parent

// ORT-web's measurements, or our builds' side by side, in a node process of
// its own. A process that runs the relaxed build gets the V8 flag Node 20 runs
// relaxed SIMD behind (bench/relaxed_simd.mjs); ORT-web's runs with no flags.
function child(spec) {
  const flags = spec.builds?.some((b) => b.variant === 'relaxed') ? NODE_FLAGS : [];
  const r = spawnSync(process.execPath, [...flags, fileURLToPath(import.meta.url), '--child', JSON.stringify(spec)], {
    encoding: 'utf8',
    maxBuffer: 16 << 20,
  });
  if (r.status !== 0) throw new Error(`bench/speed/compare_commits.mjs --child ${spec.kind} failed: ${r.stderr.slice(-2000)}`);
  return JSON.parse(r.stdout.trim().split('\n').at(-1));
}

// {F16: 57, F32: 17} -> '57 F16 + 17 F32 tensors'
const describeStorage = (s) =>
  `${Object.entries(s ?? {})
    .map(([k, v]) => `${v} ${k}`)
    .join(' + ')} tensors`;

async function main(options) {
  const started = new Date();
  const load0 = os.loadavg()[0];
  checkOnnx(options.preset);
  const head = commitOf('HEAD');
  const dirty = git(['status', '--porcelain', '--untracked-files=no', '--', ...SOURCES]) !== '';
  const commits = [...new Map(options.revs.map(commitOf).map((c) => [c.sha, c])).values()];
  const runtimes = [
    { key: ORT, label: ORT, spec: { kind: 'ort' } },
    { key: HEAD, label: HEAD, spec: { kind: 'ours', dir: root, variant: 'simd' } },
  ];
  const notes = [];
  if (!existsSync(join(root, 'dist', 'wasm', 'minimind-relaxed.wasm'))) {
    notes.push('HEAD relaxed skipped: dist/wasm/minimind-relaxed.wasm is not built (npm run build builds it).');
  } else if (!RELAXED_AVAILABLE) {
    notes.push(`HEAD relaxed skipped: Node ${process.version} cannot run relaxed SIMD.`);
  } else {
    runtimes.push({ key: HEAD_RELAXED, label: HEAD_RELAXED, spec: { kind: 'ours', dir: root, variant: 'relaxed' } });
  }
  // HEAD's modules are as built: say so when the code they are built from is newer.
  const headWasm = join(root, 'dist', 'wasm', 'minimind.wasm');
  if (!existsSync(headWasm)) throw new Error('dist/wasm/minimind.wasm is not built: run npm run build:wasm');
  const built = statSync(headWasm).mtimeMs;
  const sourceTime = Number(git(['log', '-1', '--format=%ct', 'HEAD', '--', ...SOURCES])) * 1000;
  for (const name of ['minimind.wasm', ...(runtimes.some((r) => r.key === HEAD_RELAXED) ? ['minimind-relaxed.wasm'] : [])]) {
    if (statSync(join(root, 'dist', 'wasm', name)).mtimeMs < sourceTime)
      notes.push(
        `HEAD: dist/wasm/${name} is older than the last commit to core/, wasm/ or cmake/ and may be stale (npm run build rebuilds it).`,
      );
  }
  for (const commit of commits) {
    const dir = ensureBuilt(commit);
    const label = commit.rev === commit.short || commit.sha.startsWith(commit.rev) ? commit.short : `${commit.rev} (${commit.short})`;
    runtimes.push({ key: commit.sha, label, commit, spec: { kind: 'ours', dir, variant: 'simd' } });
  }

  // Each round: ONNX Runtime Web in a process of its own, and our builds side
  // by side in another (childPaired), the two processes in alternating order.
  const ours = runtimes.filter((r) => r.spec.kind === 'ours');
  const jobs = [
    { name: ORT, spec: { kind: 'ort' } },
    { name: 'ours', spec: { kind: 'paired', builds: ours.map((r) => ({ key: r.key, ...r.spec })) } },
  ];
  const samples = {};
  const ratios = {};
  const checks = {};
  const orders = [];
  for (let round = 0; round < options.rounds; round += 1) {
    const order = roundOrder(jobs, round);
    orders.push(order.map((j) => j.name));
    for (const job of order) {
      const result = child({ ...job.spec, preset: options.preset, works: options.work });
      const byKey = job.spec.kind === 'ort' ? { [ORT]: result } : result;
      for (const runtime of runtimes.filter((r) => byKey[r.key])) {
        const { check, storage, init, ratio, ...times } = byKey[runtime.key];
        (samples[runtime.key] ??= []).push(times);
        if (ratio && runtime.key !== HEAD) (ratios[runtime.key] ??= []).push(ratio);
        checks[runtime.key] ??= { check, storage, init };
        const shown = options.work.map((w) => `${w} ${fmt(times[w])} ms`).join(', ');
        log(`round ${round + 1}/${options.rounds} ${runtime.label}: ${shown}`);
      }
    }
  }
  const load1 = os.loadavg()[0];

  // Same work: every runtime's greedy next token after the check prompt, and our builds' weight storage.
  const nexts = new Set(runtimes.map((r) => checks[r.key].check?.next));
  if (nexts.size !== 1)
    notes.push(
      `The runtimes disagree on the next token after a ${CHECK_TOKENS}-token prompt (not the same model?): ` +
        runtimes.map((r) => `${r.label} ${checks[r.key].check?.next}`).join(', '),
    );
  for (const r of ours) {
    if (describeStorage(checks[r.key].storage) !== describeStorage(checks[HEAD].storage))
      notes.push(
        `${r.label} stores its weights as ${describeStorage(checks[r.key].storage)}, HEAD as ${describeStorage(checks[HEAD].storage)}.`,
      );
    if (checks[r.key].init !== INIT) notes.push(`${r.label} predates init 'minimind': its weights are the 'playground' init's.`);
  }
  const when = (d) => `${d.slice(0, 10)} ${d.slice(11, 16)}`;
  const lines = [
    `## Compare commits: ${options.preset}`,
    '',
    `**${cpuModel()}**, ${os.cpus().length} cores, Node ${process.version}, ${started.toISOString()}, ` +
      `load average ${load0.toFixed(2)} at the start and ${load1.toFixed(2)} at the end.`,
    '',
    `- HEAD: the current checkout, ${head.short} (${when(head.date)})${dirty ? ' with uncommitted changes to core/, wasm/ or cmake/' : ''}, ` +
      `dist/wasm/minimind.* as built ${new Date(built).toISOString().slice(0, 16).replace('T', ' ')}`,
    ...commits.map((c) => `- ${c.short}: ${c.sha} (${when(c.date)}) ${c.subject}`),
    '',
    `${options.rounds} round${options.rounds > 1 ? 's' : ''}; each round ONNX Runtime Web in a process of its own and our builds side by side in another, ` +
      `taking turns repetition by repetition (prefill 64 ${PAIRED_REPS.prefill}, longer ${PAIRED_REPS.longPrefill}, decode ${PAIRED_REPS.decode} times), the two processes in alternating order; ` +
      `one thread each; weights stored as ${describeStorage(checks[HEAD].storage)} (seed ${SEED}, init '${INIT}'); ` +
      `every runtime's greedy next token after ${CHECK_TOKENS} tokens: ${[...nexts].join(', ')}.`,
    '',
    reportTable({ runtimes, works: options.work, samples, ratios }),
    '',
    "× ort-web: ORT-web's median ÷ this one's; × HEAD: the median over the rounds of HEAD's time ÷ this one's, timed side by side (above 1: faster).",
    ...(notes.length ? ['', ...notes.map((n) => `- ${n}`)] : []),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  if (options.write) {
    const report = lines.join('\n').replace(/^## Compare commits: /, '## Commits side by side: ');
    replaceSection(join(root, 'BENCHMARKS.md'), COMMITS_BEGIN, COMMITS_END, `${COMMITS_BEGIN}\n${report}\n${COMMITS_END}\n`);
    log('wrote the "Commits side by side" section of BENCHMARKS.md');
  }
  if (options.json) {
    const raw = {
      cpu: cpuModel(),
      cores: os.cpus().length,
      node: process.version,
      date: started.toISOString(),
      load: [load0, load1],
      preset: options.preset,
      rounds: options.rounds,
      works: options.work,
      head: { ...head, dirty, built: new Date(built).toISOString() },
      commits,
      runtimes: runtimes.map((r) => ({ key: r.key, label: r.label, ...r.spec, ...checks[r.key] })),
      orders,
      samples,
      ratios,
    };
    writeFileSync(options.json, `${JSON.stringify(raw, null, 2)}\n`);
    log(`wrote ${options.json}`);
  }
}

// ------------------------------------------------------------------ main

const argv = process.argv.slice(2);
if (argv[0] === '--child') {
  const spec = JSON.parse(argv[1]);
  const result = spec.kind === 'ort' ? await childOrt(spec) : await childPaired(spec);
  process.stdout.write(`${JSON.stringify(result)}\n`);
  process.exit(0);
} else if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  let options;
  try {
    options = parseArgs(argv);
  } catch (error) {
    log(error.message);
    process.exit(2);
  }
  if (options.help) {
    log(USAGE);
    process.exit(0);
  }
  try {
    await main(options);
  } catch (error) {
    log(`compare_commits: ${error.message}`);
    process.exit(1);
  }
}
