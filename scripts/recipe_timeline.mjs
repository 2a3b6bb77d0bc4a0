// The training timeline of a Train-panel recipe's run (js/train_recipes.mjs),
// made as the panel makes it: a TrainSession over the recipe's samples, its
// model from the recipe's seed, a timeline entry at batch 0 and every
// ⌊batches / 100⌋ batches (js/timeline.mjs defaultSnapshotEvery), on the
// lesson probe. The SIMD build, so that the same bits come on every engine.
// models/timelines/induction.json is the induction recipe's ("watch an
// induction head form"): the Train panel opens it beside the demo model's.
//
//   node scripts/recipe_timeline.mjs [--recipe induction] (--write | --check) [--to K] [--out FILE]
//
// --check makes the entries again (up to batch K with --to) and compares
// them with the file's, bit for bit (exit 1 on a difference).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { parseArgs } from 'node:util';

import { loadMiniMind } from '../js/minimind.mjs';
import { TRAIN_RECIPES, recipeSamples } from '../js/train_recipes.mjs';
import { LESSON_PROBE, TrainSession } from '../js/train_session.mjs';
import { defaultSnapshotEvery, timelineJson } from '../js/timeline.mjs';

const { values } = parseArgs({
  options: {
    recipe: { type: 'string', default: 'induction' },
    write: { type: 'boolean' },
    check: { type: 'boolean' },
    to: { type: 'string' },
    out: { type: 'string' },
  },
});
const recipe = TRAIN_RECIPES[values.recipe];
if (!recipe || values.write === values.check) {
  console.error(`recipe_timeline: give one of --write or --check, and --recipe one of ${Object.keys(TRAIN_RECIPES).join(', ')}`);
  process.exit(2);
}
const to = values.to === undefined ? Infinity : Number(values.to);
const out = values.out ?? `models/timelines/${recipe.id}.json`;

const mm = await loadMiniMind({ variant: 'simd' });
const tokenizer = mm.loadTokenizer(readFileSync('models/minimind-tokenizer/tokenizer.json', 'utf8'));
const samples = recipeSamples(recipe, (text) => tokenizer.encode(text));
const model = mm.createModel({ config: recipe.config, seed: recipe.modelSeed, init: 'minimind' });
const every = defaultSnapshotEvery(recipe.batches);
const session = new TrainSession({ model, tokenizer, samples, options: recipe.options, probe: LESSON_PROBE, snapshotEvery: every });
const first = session.snapshot();
const entries = [first.entry];
const started = performance.now();
while (!session.done && entries.at(-1).step < to) {
  const { snapshot } = session.runSlice(1000);
  if (!snapshot) continue;
  entries.push(snapshot.entry);
  if (entries.length % 10 === 0) {
    const minutes = (performance.now() - started) / 60000;
    console.error(`recipe_timeline: batch ${snapshot.step} of ${recipe.batches} (${minutes.toFixed(1)} min)`);
  }
}
const probe = { text: first.text, ids: first.ids, tokens: first.tokens };
const timeline = timelineJson({ every, probe, layers: first.layers, heads: first.heads, entries });
timeline.recipe = recipe.id;
if (values.write) {
  mkdirSync(dirname(out), { recursive: true });
  const text = `${JSON.stringify(timeline)}\n`;
  writeFileSync(out, text);
  console.log(`wrote ${out}: ${entries.length} entries, every ${every} batches, ${(text.length / 2 ** 20).toFixed(2)} MiB`);
} else {
  const shipped = JSON.parse(readFileSync(out, 'utf8'));
  const made = timeline.snapshots;
  const differing = made.filter((e, k) => JSON.stringify(e) !== JSON.stringify(shipped.snapshots[k]));
  if (differing.length > 0 || (to === Infinity && made.length !== shipped.snapshots.length)) {
    console.error(`recipe_timeline: ${differing.length} of ${made.length} entries differ from ${out}`);
    process.exit(1);
  }
  console.log(`the timeline's ${made.length} entries made again equal ${out}, bit for bit`);
}
session.dispose();
model.dispose();
tokenizer.dispose();
