// Writes models/minimind-demo/qk_stories.json: why the demo model's heads
// attend where they do, measured with QK attribution (js/qk_stories.mjs) on
// many probes: the induction heads' key side at the induction key, on the
// `heads` command's induction probes at the development seed (7) and at the
// held-out seed of heads.json, and the pronoun head's query of 他/她 on the
// lesson's four sentences. The model card and the gallery read it.
//
//   node scripts/qk_stories.mjs [--model models/minimind-demo]
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

import { loadMiniMind } from '../js/minimind.mjs';
import { measureQkStories } from '../js/qk_stories.mjs';

const { values } = parseArgs({ options: { model: { type: 'string' } } });
const dir = values.model ?? 'models/minimind-demo';
const recipe = JSON.parse(readFileSync(new URL('demo_recipe.json', import.meta.url), 'utf8'));
const heads = JSON.parse(readFileSync(join(dir, 'heads.json'), 'utf8'));
const seeds = [recipe.probes.developmentSeed, recipe.probes.heldOutSeed];

// The SIMD build: the same bits as native, scalar and threads on any engine
// (the relaxed build, which Node 22 would pick, rounds its products once).
const mm = await loadMiniMind({ variant: 'simd' });
const model = mm.loadModel({
  config: readFileSync(join(dir, 'config.json'), 'utf8'),
  weights: new Uint8Array(readFileSync(join(dir, 'model.safetensors'))),
});
const tokenizer = mm.loadTokenizer(readFileSync(join(dir, 'tokenizer.json'), 'utf8'));
try {
  const stories = measureQkStories(model, tokenizer, heads, { seeds });
  writeFileSync(join(dir, 'qk_stories.json'), `${JSON.stringify(stories)}\n`);
  console.log(
    `wrote ${join(dir, 'qk_stories.json')}: ${stories.induction[0].heads.map((h) => h.name).join(', ')} on seeds ${seeds.join(', ')}; ${stories.pronoun.name}`,
  );
} finally {
  tokenizer.dispose();
  model.dispose();
}
