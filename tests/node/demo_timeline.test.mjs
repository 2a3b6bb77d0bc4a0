// The shipped models/minimind-demo/timeline.json: its shape (an entry at
// batch 0, every ⌊batches / 100⌋ and at the last batch, tokens and the
// training loss as the log says, at most 8 MiB), and its last entry made
// again from the shipped weights with the Train panel's code, bit for bit.
// The entries in between come from the full replay's weights
// (npm run test:replay checks them all; tests/node/demo_replay.test.mjs the
// first two).
import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { loadMiniMind } from '../../js/minimind.mjs';
import { encodeText } from '../../js/text_encoding.mjs';
import { LESSON_PROBE } from '../../js/train_session.mjs';
import { entryJson, probeAttention, readTimeline, timelineEntry, timelineProbes } from '../../js/timeline.mjs';
import { parseTrainLog } from '../../scripts/trajectory.mjs';

const DEMO = fileURLToPath(new URL('../../models/minimind-demo/', import.meta.url));
const file = join(DEMO, 'timeline.json');
const timeline = readTimeline(JSON.parse(readFileSync(file, 'utf8')));
const log = parseTrainLog(readFileSync(join(DEMO, 'train_log.jsonl'), 'utf8'));
const stats = JSON.parse(readFileSync(join(DEMO, 'corpus_stats.json'), 'utf8'));
const recipe = JSON.parse(readFileSync(fileURLToPath(new URL('../../scripts/demo_recipe.json', import.meta.url)), 'utf8'));

test('the shipped timeline: an entry at batch 0, every floor(batches / 100) and at the end, within 8 MiB', () => {
  assert.ok(statSync(file).size <= 8 * 2 ** 20, `${statSync(file).size} bytes`);
  const batches = log.length;
  const every = Math.floor(batches / 100);
  assert.equal(timeline.every, every);
  const steps = [];
  for (let s = 0; s < batches; s += every) steps.push(s);
  steps.push(batches);
  assert.deepEqual(
    timeline.snapshots.map((e) => e.step),
    steps,
  );
  const B = recipe.train['batch-size'];
  const L = recipe.train['max-seq-len'];
  let previous = 0;
  for (const e of timeline.snapshots) {
    let tokens = 0;
    for (let b = 1; b <= e.step; b += 1) tokens += Math.min(B, stats.lines - (b - 1) * B) * L;
    assert.equal(e.tokens, tokens, `tokens at batch ${e.step}`);
    if (e.step === 0) assert.equal(e.trainLoss, null);
    else {
      let sum = 0;
      for (let b = previous + 1; b <= e.step; b += 1) sum += log[b - 1].loss;
      assert.equal(e.trainLoss, sum / (e.step - previous), `trainLoss at batch ${e.step}`);
    }
    previous = e.step;
    assert.ok(e.attention instanceof Uint16Array && e.attention.length === timeline.layers * timeline.heads * e.T * e.T);
  }
});

test('its last entry is the shipped weights measured again with the Train panel code, bit for bit', () => {
  return loadMiniMind({ variant: 'simd' }).then((mm) => {
    const model = mm.loadModel({
      config: readFileSync(join(DEMO, 'config.json'), 'utf8'),
      weights: new Uint8Array(readFileSync(join(DEMO, 'model.safetensors'))),
    });
    const tokenizer = mm.loadTokenizer(readFileSync(join(DEMO, 'tokenizer.json'), 'utf8'));
    try {
      const ids = encodeText(tokenizer, LESSON_PROBE);
      assert.deepEqual(timeline.probe.ids, ids);
      const last = timeline.snapshots.at(-1);
      const info = model.info();
      const probes = timelineProbes(tokenizer, { bos: info.bos_token_id, eos: info.eos_token_id });
      const again = timelineEntry(
        model,
        probes,
        { step: last.step, tokens: last.tokens, trainLoss: last.trainLoss },
        { attention: probeAttention(model, ids), T: ids.length },
      );
      assert.deepEqual(entryJson(again), entryJson(last));
    } finally {
      tokenizer.dispose();
      model.dispose();
    }
  });
});
