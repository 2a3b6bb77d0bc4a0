// The search for the Train panel's "watch an induction head form" run: the
// shape, data mix and schedule that grow a previous-token head (≥ 0.8) and an
// induction head (≥ 0.5) in the fewest tokens. Each candidate trains with the
// native trainer (build/native/core/minimind-train: the same Trainer the page
// runs in Wasm, at native speed) on the generated corpus as a stream of fresh
// lines (js/corpus_stream.mjs, written once as {"ids"} samples, read in file
// order), for exactly its number of batches, so that MiniMind's get_lr spans
// the run; then the trained model's heads are scored in Node with the
// panel's probes (js/head_roles.mjs lightHeadProbes) on a probe seed, with at
// least 200 induction queries.
//
// The trainer also saves the model every --save-every batches (default about
// every 100k tokens), and each saved model is scored too: a run's
// tokens-to-formation is the first save at which both heads pass their goals
// (the schedule is the whole run's, as the panel trains it).
// bench/training/head_formation.mjs then reads the winner's scores during its run,
// in Wasm.
//
//   node bench/training/induction_search.mjs [--only NAME[@TOKENS][,...]] [--seeds 1[,2,3]] [--probe-seed 7] [--threads 2] [--save-every BATCHES]
//   node bench/training/induction_search.mjs --table [--write]
// Appends one JSON line per run to build/induction-search/runs.jsonl and prints
// a table of every run recorded there (--write: into BENCHMARKS.md, after "Head formation").
import { execFileSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

import { CorpusStream } from '../../js/corpus_stream.mjs';
import { lightHeadProbes, scoreHeadRoles } from '../../js/head_roles.mjs';
import { loadMiniMind } from '../../js/minimind.mjs';
import { FORMATION_GOALS, formationProbeOptions } from '../../js/train_recipes.mjs';
import { cpuModel } from '../cpu_model.mjs';
import { HEADS_END, SEARCH_BEGIN, SEARCH_END } from './head_formation.mjs';
import { replaceSection } from '../report.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const work = `${root}build/induction-search/`;
// MINIMIND_TRAIN: another trainer binary (a copy keeps a long search on one build while build/native is rebuilt).
const trainer = process.env.MINIMIND_TRAIN ?? `${root}build/native/core/minimind-train`;

const COPY_HEAVY = { pronoun: 0.15, induction: 0.8, mood: 0.025, habit: 0.025 };
const COPY_ONLY = { pronoun: 0.05, induction: 0.95 };
const DEMO_SHAPE = { hidden_size: 128, num_hidden_layers: 4, num_attention_heads: 4, num_key_value_heads: 4, vocab_size: 6400 };
const H128_L2_H2 = { hidden_size: 128, num_hidden_layers: 2, num_attention_heads: 2, num_key_value_heads: 2, vocab_size: 6400 };

/**
 * The candidates: {name, what, config, mix, batchSize, maxSeqLen, learningRate, tokens}
 * (tokens: the run's length, batch rows × max_seq_len, rounded down to whole batches).
 */
const CANDIDATES = Object.freeze([
  {
    name: 'l2-hd64-copy',
    what: 'hidden 128, 2 layers, 2 heads of 64, copy-heavy mix, lr 5e-3',
    config: H128_L2_H2,
    mix: COPY_HEAVY,
    batchSize: 16,
    maxSeqLen: 64,
    learningRate: 5e-3,
    tokens: 1e6,
  },
  {
    name: 'l2-hd64-copy-lr1e-2',
    what: 'hidden 128, 2 layers, 2 heads of 64, copy-heavy mix, lr 1e-2',
    config: H128_L2_H2,
    mix: COPY_HEAVY,
    batchSize: 16,
    maxSeqLen: 64,
    learningRate: 1e-2,
    tokens: 1e6,
  },
  {
    name: 'l4-hd64-copy',
    what: 'hidden 128, 4 layers, 2 heads of 64, copy-heavy mix, lr 5e-3',
    config: { ...H128_L2_H2, num_hidden_layers: 4 },
    mix: COPY_HEAVY,
    batchSize: 16,
    maxSeqLen: 64,
    learningRate: 5e-3,
    tokens: 1e6,
  },
  {
    name: 'l4-hd64-copy-lr2e-3',
    what: 'hidden 128, 4 layers, 2 heads of 64, copy-heavy mix, lr 2e-3',
    config: { ...H128_L2_H2, num_hidden_layers: 4 },
    mix: COPY_HEAVY,
    batchSize: 16,
    maxSeqLen: 64,
    learningRate: 2e-3,
    tokens: 2e6,
  },
  {
    name: 'l4-hd64-copy-b8',
    what: 'hidden 128, 4 layers, 2 heads of 64, copy-heavy mix, batch 8, lr 5e-3',
    config: { ...H128_L2_H2, num_hidden_layers: 4 },
    mix: COPY_HEAVY,
    batchSize: 8,
    maxSeqLen: 64,
    learningRate: 5e-3,
    tokens: 1e6,
  },
  {
    name: 'l4-hd64-copy-lr1e-2',
    what: 'hidden 128, 4 layers, 2 heads of 64, copy-heavy mix, lr 1e-2',
    config: { ...H128_L2_H2, num_hidden_layers: 4 },
    mix: COPY_HEAVY,
    batchSize: 16,
    maxSeqLen: 64,
    learningRate: 1e-2,
    tokens: 1.5e6,
  },
  {
    name: 'demo-shape-copy',
    what: 'the demo shape (hidden 128, 4 layers, 4 heads of 32), copy-heavy mix, lr 5e-3',
    config: { hidden_size: 128, num_hidden_layers: 4, num_attention_heads: 4, num_key_value_heads: 4, vocab_size: 6400 },
    mix: COPY_HEAVY,
    batchSize: 16,
    maxSeqLen: 64,
    learningRate: 5e-3,
    tokens: 2e6,
  },
  {
    name: 'demo-shape-copy-lr1e-2',
    what: 'the demo shape (hidden 128, 4 layers, 4 heads of 32), copy-heavy mix, lr 1e-2',
    config: DEMO_SHAPE,
    mix: COPY_HEAVY,
    batchSize: 16,
    maxSeqLen: 64,
    learningRate: 1e-2,
    tokens: 2e6,
  },
  {
    name: 'l4-h8-copy',
    what: 'hidden 128, 4 layers, 8 heads of 16, copy-heavy mix, lr 5e-3',
    config: { ...DEMO_SHAPE, num_attention_heads: 8, num_key_value_heads: 8 },
    mix: COPY_HEAVY,
    batchSize: 16,
    maxSeqLen: 64,
    learningRate: 5e-3,
    tokens: 2e6,
  },
  {
    name: 'demo-shape-copy-b8',
    what: 'the demo shape, copy-heavy mix, batch 8 (twice the optimizer steps), lr 5e-3',
    config: DEMO_SHAPE,
    mix: COPY_HEAVY,
    batchSize: 8,
    maxSeqLen: 64,
    learningRate: 5e-3,
    tokens: 2e6,
  },
  {
    name: 'demo-shape-copy95',
    what: 'the demo shape, copying lines 19 in 20, lr 5e-3',
    config: DEMO_SHAPE,
    mix: COPY_ONLY,
    batchSize: 16,
    maxSeqLen: 64,
    learningRate: 5e-3,
    tokens: 2e6,
  },
]);

/** The candidate named `name`, with `tokens` in place of its own run length when given (NAME@TOKENS). */
function candidate(spec) {
  const [name, tokens] = spec.split('@');
  const found = CANDIDATES.find((c) => c.name === name);
  if (!found) throw new Error(`no candidate "${name}" (known: ${CANDIDATES.map((c) => c.name).join(', ')})`);
  return tokens ? { ...found, name: spec, tokens: Number(tokens) } : found;
}

// The run's samples as {"ids"} lines (bos and eos included), cached by what decides them.
function dataFile(tokenizer, c, seed, samples) {
  const mixKey =
    c.mix === null
      ? 'default'
      : Object.entries(c.mix)
          .map(([k, v]) => `${k}${v}`)
          .join('-');
  const path = `${work}data-${mixKey}-seq${c.maxSeqLen}-seed${seed}-${samples}.jsonl`;
  if (existsSync(path)) return path;
  const stream = new CorpusStream({ seed, mix: c.mix, maxSeqLen: c.maxSeqLen, encode: (text) => tokenizer.encode(text) });
  const lines = stream.take(samples).map((ids) => JSON.stringify({ ids }));
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

// Every batch's loss of a run's training log.
function logLosses(dir) {
  return readFileSync(`${dir}/log.jsonl`, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line).loss);
}

// The mean loss of each tenth of a run: where copying begins, its loss falls.
function tenths(losses) {
  return Array.from({ length: 10 }, (_, k) => {
    const part = losses.slice(Math.floor((k * losses.length) / 10), Math.floor(((k + 1) * losses.length) / 10));
    return part.reduce((a, b) => a + b, 0) / part.length;
  });
}

function bestOf(matrix) {
  let best = { value: -1, layer: -1, head: -1 };
  matrix.forEach((row, layer) => row.forEach((value, head) => value > best.value && (best = { value, layer, head })));
  return best;
}

async function main() {
  const { values } = parseArgs({
    options: {
      only: { type: 'string' },
      seeds: { type: 'string', default: '1' },
      'probe-seed': { type: 'string', default: '7' },
      threads: { type: 'string', default: '2' },
      'save-every': { type: 'string', default: '' },
      table: { type: 'boolean', default: false },
      write: { type: 'boolean', default: false },
    },
  });
  mkdirSync(work, { recursive: true });
  const log = `${work}runs.jsonl`;
  if (!values.table) {
    const mm = await loadMiniMind({ variant: 'simd' });
    const tokenizer = mm.loadTokenizer(readFileSync(`${root}models/minimind-tokenizer/tokenizer.json`, 'utf8'));
    const probeSeed = Number(values['probe-seed']);
    const probes = lightHeadProbes(tokenizer, formationProbeOptions(probeSeed));
    const seeds = values.seeds.split(',').map(Number);
    const list = values.only ? values.only.split(',').map(candidate) : CANDIDATES;
    for (const c of list)
      for (const seed of seeds) {
        const batches = Math.floor(c.tokens / (c.batchSize * c.maxSeqLen));
        const saveEvery = Number(values['save-every'] || Math.max(1, Math.round(1e5 / (c.batchSize * c.maxSeqLen))));
        const data = dataFile(tokenizer, c, seed, batches * c.batchSize);
        const dir = `${work}model-${c.name}-seed${seed}`;
        mkdirSync(dir, { recursive: true });
        writeFileSync(`${dir}/config.in.json`, JSON.stringify(c.config));
        const load0 = os.loadavg()[0];
        const started = performance.now();
        execFileSync(
          'nice',
          [
            '-n',
            '10',
            trainer,
            ...['--config', `${dir}/config.in.json`, '--data', data, '--out', dir, '--log', `${dir}/log.jsonl`],
            ...['--max-seq-len', String(c.maxSeqLen), '--batch-size', String(c.batchSize), '--accumulation-steps', '1'],
            ...['--lr', String(c.learningRate), '--grad-clip', '1', '--epochs', '1', '--seed', String(seed), '--order', 'file'],
            ...['--threads', values.threads, '--save-every', String(saveEvery)],
          ],
          { stdio: ['ignore', 'ignore', 'ignore'] },
        );
        const seconds = (performance.now() - started) / 1000;
        const scoreOf = (from) => {
          const model = mm.loadModel({
            config: readFileSync(`${from}/config.json`, 'utf8'),
            weights: new Uint8Array(readFileSync(`${from}/model.safetensors`)),
          });
          const scores = scoreHeadRoles(model, probes);
          model.dispose();
          return scores;
        };
        const scores = scoreOf(dir);
        // The saved models in batch order, then the final one: each role's best head at each save.
        const saves = readdirSync(dir)
          .filter((f) => /^batch-\d+$/.test(f))
          .map((f) => Number(f.slice(6)))
          .sort((a, b) => a - b);
        const trajectory = saves.map((batch) => {
          const s = scoreOf(`${dir}/batch-${batch}`);
          rmSync(`${dir}/batch-${batch}`, { recursive: true });
          return { batch, previousToken: bestOf(s.previousToken).value, induction: bestOf(s.induction).value };
        });
        trajectory.push({ batch: batches, previousToken: bestOf(scores.previousToken).value, induction: bestOf(scores.induction).value });
        const firstAt = (pass) => {
          const at = trajectory.find(pass);
          return at ? at.batch * c.batchSize * c.maxSeqLen : null;
        };
        const formation = {
          previousToken: firstAt((p) => p.previousToken >= FORMATION_GOALS.previousToken),
          induction: firstAt((p) => p.induction >= FORMATION_GOALS.induction),
          both: firstAt((p) => p.previousToken >= FORMATION_GOALS.previousToken && p.induction >= FORMATION_GOALS.induction),
        };
        const losses = logLosses(dir);
        const tail = losses.slice(-50);
        const run = {
          name: c.name,
          what: c.what,
          seed,
          probeSeed,
          inductionQueries: probes.induction.length,
          batches,
          tokens: batches * c.batchSize * c.maxSeqLen,
          seconds,
          threads: Number(values.threads),
          load: [load0, os.loadavg()[0]],
          loss: tail.reduce((a, b) => a + b, 0) / tail.length,
          lossByTenth: tenths(losses),
          previousToken: bestOf(scores.previousToken),
          induction: bestOf(scores.induction),
          pronoun: bestOf(scores.pronoun),
          formation,
          trajectory,
          recipe: { config: c.config, mix: c.mix, batchSize: c.batchSize, maxSeqLen: c.maxSeqLen, learningRate: c.learningRate },
        };
        appendFileSync(log, `${JSON.stringify(run)}\n`);
        console.log(
          `${c.name} seed ${seed}: ${run.tokens} tokens in ${seconds.toFixed(0)} s; loss ${run.loss.toFixed(3)}, previous-token ${run.previousToken.value.toFixed(2)}, ` +
            `induction ${run.induction.value.toFixed(2)}, pronoun ${run.pronoun.value.toFixed(2)}; both formed at ${formation.both ?? 'never'} tokens`,
        );
      }
    tokenizer.dispose();
  }
  if (!existsSync(log)) return;
  const runs = readFileSync(log, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line))
    .map((r) => {
      // Runs recorded before lossByTenth was: from their own training log, when it is still there.
      const dir = `${work}model-${r.name}-seed${r.seed}`;
      return r.lossByTenth || !existsSync(`${dir}/log.jsonl`) ? r : { ...r, lossByTenth: tenths(logLosses(dir)) };
    });
  const section = searchSection(runs);
  console.log(section);
  if (values.write) {
    const path = `${root}BENCHMARKS.md`;
    if (readFileSync(path, 'utf8').includes(SEARCH_BEGIN)) replaceSection(path, SEARCH_BEGIN, SEARCH_END, section);
    else insertAfter(path, HEADS_END, section);
    console.log('wrote "Searching the induction run" in BENCHMARKS.md');
  }
}

function insertAfter(path, marker, section) {
  const text = readFileSync(path, 'utf8');
  const at = text.indexOf(marker);
  const cut = at >= 0 ? at + marker.length : text.length;
  writeFileSync(path, `${text.slice(0, cut)}\n\n${section}${text.slice(cut)}`);
}

/** The search's runs (runs.jsonl) as a BENCHMARKS.md section. */
function searchSection(runs) {
  // Tokens at the first save where both heads were at their goals (runs before saves were kept: not known).
  const formedAt = (r) =>
    !r.formation ? 'not saved' : r.formation.both === null ? 'not within the run' : `${(r.formation.both / 1000).toFixed(0)}k`;
  const score = (s) => `${s.value.toFixed(2)} (L${s.layer} H${s.head})`;
  const bold = (s, goal) => (s.value >= goal ? `**${score(s)}**` : score(s));
  const rows = runs.map(
    (r) =>
      `| ${r.name} | ${r.what} | ${r.seed} | ${(r.tokens / 1000).toFixed(0)}k | ${r.loss.toFixed(3)} | ` +
      `${r.lossByTenth ? r.lossByTenth.map((v) => v.toFixed(2)).join(' ') : '–'} | ` +
      `${bold(r.previousToken, FORMATION_GOALS.previousToken)} | ${bold(r.induction, FORMATION_GOALS.induction)} | ${r.pronoun.value.toFixed(2)} | ` +
      `${formedAt(r)} | ` +
      `${r.seconds.toFixed(0)} s, ${r.threads} thread${r.threads > 1 ? 's' : ''}, load ${r.load[0].toFixed(1)} |`,
  );
  const seeds = [...new Set(runs.map((r) => r.probeSeed))].join(', ');
  return `${SEARCH_BEGIN}
### Searching the induction run

How the "watch an induction head form" recipe (\`js/train_recipes.mjs\`) was chosen (\`bench/training/induction_search.mjs\`, every run
it made, in order): each candidate trained natively (\`minimind-train\`, the same Trainer as the page's, on 2 threads at
low priority (\`nice\`) on **${cpuModel()}**, shared with other work: the seconds are not comparable) on its corpus stream
(\`js/corpus_stream.mjs\`, written as {"ids"} samples, read in order) for exactly its tokens, MiniMind's get_lr spanning
them; the final model's heads, and (later runs) the model saved about every 100k tokens, scored on the development probes (seed ${seeds}, ${runs[0]?.inductionQueries ?? 0} induction queries). Bold: at the
goal (previous-token ≥ ${FORMATION_GOALS.previousToken}, induction ≥ ${FORMATION_GOALS.induction}). Loss: the mean of the last 50 batches; by tenth: the mean of
each tenth of the run's batches (where copying starts to pay, the loss falls steeply). Both formed: the tokens at the
first save where both heads were at the goal.

| candidate | what | seed | tokens | loss | loss by tenth of the run | previous-token | induction | pronoun | both formed | run |
|---|---|---|---|---|---|---|---|---|---|---|
${rows.join('\n')}
${SEARCH_END}`;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
