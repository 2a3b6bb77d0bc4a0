// Training speed of the Train panel's runs (js/train_recipes.mjs) on one
// thread, in a build of the module: the run's model, options and data, trained
// by the panel's session code (js/train_session.mjs) for WARMUP + BATCHES
// batches, without snapshots; tokens/s over the last BATCHES (the panel's
// count: batch rows × max_seq_len over training time). Each measurement runs
// in a child process of its own, so that builds never share an instance.
// bench/limits.mjs compares the relaxed build with the SIMD build this way.
//
// Usage: node bench/recipe_speed.mjs default|induction simd|relaxed
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { TRAIN_RECIPES, recipeSamples } from '../js/train_recipes.mjs';
import { TrainSession } from '../js/train_session.mjs';
import { NODE_FLAGS } from './relaxed_simd.mjs';

const WARMUP = 3;
const BATCHES = 24;

/** Tokens/s of `BATCHES` batches of the recipe `id` after `WARMUP`, in this process, on the build `variant`. */
export async function recipeSpeedHere(id, variant) {
  const recipe = TRAIN_RECIPES[id];
  if (!recipe) throw new Error(`no recipe "${id}": ${Object.keys(TRAIN_RECIPES).join(', ')}`);
  const { loadMiniMind } = await import('../js/minimind.mjs');
  const mm = await loadMiniMind({ variant, threads: 1 });
  const tokenizer = mm.loadTokenizer(readFileSync(new URL('../models/minimind-tokenizer/tokenizer.json', import.meta.url), 'utf8'));
  // The run's first batches: its data and options, its schedule cut short (the speed does not depend on it).
  const run = { ...recipe, batches: WARMUP + BATCHES };
  const samples = recipeSamples(run, (text) => tokenizer.encode(text));
  const model = mm.createModel({ config: run.config, seed: run.modelSeed, init: 'minimind' });
  const session = new TrainSession({ model, tokenizer, samples, options: run.options, snapshotEvery: Infinity, roles: false });
  for (let b = 0; b < WARMUP; b += 1) session.runSlice(0);
  const { trainMs: ms0, positions: p0 } = session.info();
  while (!session.done) session.runSlice(0);
  const { trainMs, positions } = session.info();
  session.dispose();
  model.dispose();
  tokenizer.dispose?.();
  return { tokensPerSecond: (positions - p0) / ((trainMs - ms0) / 1000), batches: BATCHES };
}

/** recipeSpeedHere in a child process of its own. */
export function recipeSpeed(id, variant) {
  const r = spawnSync(process.execPath, [...NODE_FLAGS, fileURLToPath(import.meta.url), id, variant], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`bench/recipe_speed.mjs ${id} ${variant} failed: ${r.stderr.slice(-2000)}`);
  return JSON.parse(r.stdout.trim().split('\n').at(-1));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [id, variant] = process.argv.slice(2);
  process.stdout.write(`${JSON.stringify(await recipeSpeedHere(id, variant ?? 'simd'))}\n`);
}
