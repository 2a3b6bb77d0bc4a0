// Training speed of the Train panel's runs (js/train_recipes.mjs) on one
// thread, in the SIMD build and the relaxed build side by side: the run's
// model, options and data, trained by the panel's session code
// (js/train_session.mjs) for WARMUP + BATCHES batches without snapshots, the
// two builds in one process taking turns batch by batch (on a host whose
// speed drifts, both see the same moments); tokens/s over the last BATCHES
// (the panel's count: batch rows × max_seq_len over training time).
// bench/limits/limits.mjs runs it in a child process of its own per round.
//
// Usage: node bench/training/recipe_speed.mjs default|induction
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { TRAIN_RECIPES, recipeSamples } from '../../js/train_recipes.mjs';
import { TrainSession } from '../../js/train_session.mjs';
import { NODE_FLAGS } from '../relaxed_simd.mjs';

const WARMUP = 3;
const BATCHES = 24;
const BUILDS = ['simd', 'relaxed'];

/** {simd, relaxed}: tokens/s of `BATCHES` batches of the recipe `id` after `WARMUP`, in this process. */
async function recipeSpeedHere(id) {
  const recipe = TRAIN_RECIPES[id];
  if (!recipe) throw new Error(`no recipe "${id}": ${Object.keys(TRAIN_RECIPES).join(', ')}`);
  const { loadMiniMind } = await import('../../js/minimind.mjs');
  const tokenizerJson = readFileSync(new URL('../../models/minimind-tokenizer/tokenizer.json', import.meta.url), 'utf8');
  // The run's first batches: its data and options, its schedule cut short (the speed does not depend on it).
  const run = { ...recipe, batches: WARMUP + BATCHES };
  const sessions = {};
  const tokenizers = [];
  let samples = null; // id arrays: made once, by the first build's tokenizer (every build encodes alike)
  for (const variant of BUILDS) {
    const mm = await loadMiniMind({ variant });
    const tokenizer = mm.loadTokenizer(tokenizerJson);
    tokenizers.push(tokenizer);
    samples ??= recipeSamples(run, (text) => tokenizer.encode(text));
    const model = mm.createModel({ config: run.config, seed: run.modelSeed, init: 'minimind' });
    sessions[variant] = new TrainSession({ model, tokenizer, samples, options: run.options, snapshotEvery: Infinity, roles: false });
  }
  const start = {};
  for (let b = 0; b < WARMUP + BATCHES; b += 1) {
    if (b === WARMUP) for (const v of BUILDS) start[v] = sessions[v].info();
    // Alternating order, so that neither build always runs right after the other.
    for (const v of b % 2 ? [...BUILDS].reverse() : BUILDS) sessions[v].runSlice(0);
  }
  const out = {};
  for (const v of BUILDS) {
    const { trainMs, positions } = sessions[v].info();
    out[v] = (positions - start[v].positions) / ((trainMs - start[v].trainMs) / 1000);
    sessions[v].model.dispose();
    sessions[v].dispose();
  }
  for (const tokenizer of tokenizers) tokenizer.dispose();
  return out;
}

/** recipeSpeedHere in a child process of its own. */
export function recipeSpeed(id) {
  const r = spawnSync(process.execPath, [...NODE_FLAGS, fileURLToPath(import.meta.url), id], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`bench/training/recipe_speed.mjs ${id} failed: ${r.stderr.slice(-2000)}`);
  return JSON.parse(r.stdout.trim().split('\n').at(-1));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  process.stdout.write(`${JSON.stringify(await recipeSpeedHere(process.argv[2] ?? 'default'))}\n`);
}
