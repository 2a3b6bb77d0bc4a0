// Writes models/minimind-demo/shape_runs.json: the head roles of the demo
// model's shape alternatives, full retrains with the demo's corpus, seeds and
// recipe that each changed one thing, measured by the same probes as
// heads.json (measureHeads on the recipe's held-out probe seed), so that the
// model card and the gallery compare the shipped shape with them on equal
// terms. A run is listed here only if the repository's history holds its
// weights (git show COMMIT:models/minimind-demo/...).
//
//   node scripts/shape_runs.mjs [--out models/minimind-demo/shape_runs.json]
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

import { measureHeads } from '../js/head_roles.mjs';
import { loadMiniMind } from '../js/minimind.mjs';

const RUNS = [
  {
    name: 'kv2',
    change: '2 kv heads (each shared by 2 of the 4 q heads) instead of 4',
    // The demo model before fd66bdd retrained it with 4 kv heads: the same
    // corpus, seeds and recipe (only scripts/demo_config.json changed).
    commit: '04bf397e0fd7212e88f8b2bce6756badae125491',
  },
];

const { values } = parseArgs({ options: { out: { type: 'string' } } });
const out = values.out ?? 'models/minimind-demo/shape_runs.json';
const recipe = JSON.parse(readFileSync('scripts/demo_recipe.json', 'utf8'));
const seed = recipe.probes.heldOutSeed;

const fromGit = (commit, path) => execFileSync('git', ['show', `${commit}:${path}`], { maxBuffer: 64 * 2 ** 20 });

const mm = await loadMiniMind();
const runs = [];
for (const run of RUNS) {
  const config = fromGit(run.commit, 'models/minimind-demo/config.json').toString('utf8');
  const model = mm.loadModel({ config, weights: new Uint8Array(fromGit(run.commit, 'models/minimind-demo/model.safetensors')) });
  const tokenizer = mm.loadTokenizer(fromGit(run.commit, 'models/minimind-demo/tokenizer.json').toString('utf8'));
  const { num_key_value_heads, head_dim } = JSON.parse(config);
  const batches = fromGit(run.commit, 'models/minimind-demo/train_log.jsonl').toString('utf8').trim().split('\n').length;
  runs.push({ ...run, num_key_value_heads, head_dim, batches, heads: measureHeads(model, tokenizer, { count: 500, seed }) });
  tokenizer.dispose();
  model.dispose();
}
writeFileSync(out, `${JSON.stringify({ probeSeed: seed, runs })}\n`);
console.log(`wrote ${out}: ${runs.map((r) => r.name).join(', ')} on probe seed ${seed}`);
