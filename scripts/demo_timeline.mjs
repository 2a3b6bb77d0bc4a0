// The demo model's training timeline (js/timeline.mjs), from the weights the
// full replay saves (node scripts/replay_demo.mjs --all --save-every N writes
// WORK/model/batch-N/ in float32, and WORK/model/model.safetensors, the
// shipped file): one entry at batch 0 and every N batches, and the last at
// the shipped weights themselves, with the same code the Train panel runs at
// each snapshot. trainLoss comes from models/minimind-demo/train_log.jsonl,
// tokens as the page counts them (batch rows × max_seq_len).
//
//   node scripts/demo_timeline.mjs --checkpoints WORK/model (--write | --check) [--to K] [--out FILE]
//
// --write writes models/minimind-demo/timeline.json (or --out FILE); --check compares the
// entries made with the shipped file's, bit for bit (exit 1 on a
// difference); --to K stops after the entries of batches up to K (the fast
// replay's check: tests/node/demo_replay.test.mjs).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

import { loadMiniMind } from '../js/minimind.mjs';
import { encodeText } from '../js/text_encoding.mjs';
import { LESSON_PROBE } from '../js/train_session.mjs';
import { tokenLabels } from '../js/token_text.mjs';
import { defaultSnapshotEvery, probeAttention, timelineEntry, timelineJson, timelineProbes } from '../js/timeline.mjs';
import { parseTrainLog } from './trajectory.mjs';

const MODEL = 'models/minimind-demo';
const { values } = parseArgs({
  options: {
    checkpoints: { type: 'string' },
    write: { type: 'boolean' },
    check: { type: 'boolean' },
    to: { type: 'string' },
    out: { type: 'string' },
  },
});
if (!values.checkpoints || values.write === values.check) {
  console.error('demo_timeline: give --checkpoints DIR and one of --write or --check');
  process.exit(2);
}
const to = values.to === undefined ? Infinity : Number(values.to);
const recipe = JSON.parse(readFileSync('scripts/demo_recipe.json', 'utf8'));
const stats = JSON.parse(readFileSync(join(MODEL, 'corpus_stats.json'), 'utf8'));
const log = parseTrainLog(readFileSync(join(MODEL, 'train_log.jsonl'), 'utf8'));
const batchSize = recipe.train['batch-size'];
const maxSeqLen = recipe.train['max-seq-len'];
const batches = log.length;
// The page's default spacing (js/timeline.mjs defaultSnapshotEvery), from the checkpoints the replay saved.
const every = defaultSnapshotEvery(batches);

// The SIMD build: the same bits on every engine (the relaxed build rounds its products once).
const mm = await loadMiniMind({ variant: 'simd' });
const tokenizer = mm.loadTokenizer(readFileSync(join(MODEL, 'tokenizer.json'), 'utf8'));
const config = readFileSync(join(MODEL, 'config.json'), 'utf8');
const info = JSON.parse(config);
const probes = timelineProbes(tokenizer, { bos: info.bos_token_id ?? 1, eos: info.eos_token_id ?? 2 });
const ids = encodeText(tokenizer, LESSON_PROBE).slice(0, 64);
const probe = { text: LESSON_PROBE, ids, tokens: tokenLabels(tokenizer.display(ids)).map((t) => t.label) };

// Rows × max_seq_len of batches 1..step: every batch is full but the last.
const tokensAt = (step) => {
  let tokens = 0;
  for (let b = 1; b <= step; b += 1) tokens += Math.min(batchSize, stats.lines - (b - 1) * batchSize) * maxSeqLen;
  return tokens;
};
const meanLoss = (from, step) => {
  if (step === 0) return null;
  let sum = 0;
  for (let b = from + 1; b <= step; b += 1) sum += log[b - 1].loss;
  return sum / (step - from);
};

const steps = [];
for (let step = 0; step < batches; step += every) steps.push(step);
steps.push(batches);
const entries = [];
let previous = 0;
for (const step of steps.filter((s) => s <= to)) {
  const dir = step === batches ? values.checkpoints : join(values.checkpoints, `batch-${step}`);
  const file = join(dir, 'model.safetensors');
  if (!existsSync(file)) {
    console.error(`demo_timeline: ${file} is missing: run node scripts/replay_demo.mjs --all --save-every ${every}`);
    process.exit(1);
  }
  const model = mm.loadModel({ config, weights: new Uint8Array(readFileSync(file)) });
  try {
    const attention = probeAttention(model, ids);
    entries.push(
      timelineEntry(model, probes, { step, tokens: tokensAt(step), trainLoss: meanLoss(previous, step) }, { attention, T: ids.length }),
    );
  } finally {
    model.dispose();
  }
  previous = step;
  if (entries.length % 10 === 0) console.error(`demo_timeline: ${entries.length} of ${steps.length} entries (batch ${step})`);
}
const timeline = timelineJson({ every, probe, layers: info.num_hidden_layers, heads: info.num_attention_heads, entries });
const text = `${JSON.stringify(timeline)}\n`;
const out = values.out ?? join(MODEL, 'timeline.json');
if (values.write) {
  writeFileSync(out, text);
  console.log(`wrote ${out}: ${entries.length} entries, every ${every} batches, ${(text.length / 2 ** 20).toFixed(2)} MiB`);
} else {
  const shipped = JSON.parse(readFileSync(out, 'utf8'));
  const differing = timeline.snapshots.filter((e, k) => JSON.stringify(e) !== JSON.stringify(shipped.snapshots[k]));
  const { snapshots: a, ...headA } = timeline;
  const { snapshots: b, ...headB } = shipped;
  if (differing.length > 0 || (to === Infinity && (a.length !== b.length || JSON.stringify(headA) !== JSON.stringify(headB)))) {
    console.error(
      `demo_timeline: ${differing.length} of ${entries.length} entries differ from ${out}` +
        (differing.length ? ` (first at batch ${differing[0].step})` : ` (the file's header or length differs)`),
    );
    process.exit(1);
  }
  console.log(`the timeline's ${entries.length} entries made again equal ${out}, bit for bit`);
}
tokenizer.dispose();
