// minimind train --timeline FILE end to end: the file readTimeline accepts,
// its snapshots those the JS API's onSnapshot hands for the same seed, data and
// options (bit for bit, through JSON), the same file from the same run twice,
// and paths or flags that cannot work refused before training.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { loadMiniMind } from '../../js/minimind.mjs';
import { readTimeline, timelineJson } from '../../js/timeline.mjs';
import { runCli } from './helpers.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CONFIG = join(ROOT, 'docs/examples/lab-a-6400.json');
const DATA = join(ROOT, 'docs/examples/pretrain_tiny.jsonl');
const PROBE = '小红把球给了小明，他很开心';
// One epoch of the lessons' small corpus in batches of 50: 5 batches, an entry every 2.
const FLAGS = ['--max-seq-len', '24', '--batch-size', '50', '--accumulation-steps', '1', '--lr', '5e-3', '--seed', '7'];
const OPTIONS = { maxSeqLen: 24, batchSize: 50, accumulationSteps: 1, learningRate: 5e-3, seed: 7, epochs: 1, order: 'shuffle' };

const cli = runCli;

function scratch(t) {
  const dir = mkdtempSync(join(tmpdir(), 'minimind-timeline-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const train = (dir, name, ...extra) =>
  cli(
    'train',
    ...['--build', 'simd', '--config', CONFIG, '--data', DATA, '--out', join(dir, `${name}-out`), ...FLAGS],
    ...['--timeline', join(dir, `${name}.json`), '--snapshot-every', '2', '--probe', PROBE, ...extra],
  );

test('train --timeline writes the API’s onSnapshot entries for the same run, and the same file twice', async (t) => {
  const dir = scratch(t);
  const [a, b] = await Promise.all([train(dir, 'a'), train(dir, 'b')]);
  assert.equal(a.code, 0, a.stderr);
  assert.equal(b.code, 0, b.stderr);
  assert.match(a.stdout, new RegExp(`^saved ${join(dir, 'a.json')}: 4 snapshots, one every 2 batches$`, 'm'));
  assert.match(a.stderr, /^epoch 1\/1 batch 5\/5 loss /m, 'progress on stderr as without --timeline');
  const text = readFileSync(join(dir, 'a.json'), 'utf8');
  assert.equal(text, readFileSync(join(dir, 'b.json'), 'utf8'), 'the same run twice: the same file');
  assert.equal(existsSync(join(dir, 'a.json.partial')), false);
  const file = JSON.parse(text);
  const timeline = readTimeline(file);
  assert.equal(timeline.probe, PROBE);
  assert.equal(timeline.every, 2);
  assert.deepEqual([timeline.layers, timeline.heads], [2, 4]);
  assert.deepEqual(
    timeline.snapshots.map((s) => s.step),
    [0, 2, 4, 5],
  );
  const heads = Object.keys(timeline.snapshots[0].heads);
  assert.deepEqual(heads, ['L0H0', 'L0H1', 'L0H2', 'L0H3', 'L1H0', 'L1H1', 'L1H2', 'L1H3']);
  assert.deepEqual(Object.keys(timeline.snapshots[0].composition), ['L1H0', 'L1H1', 'L1H2', 'L1H3'], 'blocks from 1');
  for (const s of timeline.snapshots) assert.equal(s.attention.length, 2 * 4 * s.T * s.T);

  // The same run through the API, in this process.
  const mm = await loadMiniMind({ variant: 'simd' });
  const tokenizer = mm.loadTokenizer(readFileSync(join(ROOT, 'models/minimind-tokenizer/tokenizer.json'), 'utf8'));
  const model = mm.createModel({ config: readFileSync(CONFIG, 'utf8'), seed: 7, init: 'minimind' });
  const entries = [];
  const trainer = model.trainer({
    data: readFileSync(DATA, 'utf8'),
    tokenizer,
    ...OPTIONS,
    snapshotEvery: 2,
    probe: PROBE,
    onSnapshot: (e) => entries.push(e),
  });
  while (!trainer.done) trainer.step();
  const api = timelineJson({ every: 2, probe: PROBE, layers: 2, heads: 4, entries });
  assert.equal(JSON.stringify(api.snapshots), JSON.stringify(file.snapshots), 'the CLI’s snapshots, bit for bit');
  assert.equal(JSON.stringify(api), JSON.stringify(file));
  // The model the CLI saved is the one the API trained.
  const saved = readFileSync(join(dir, 'a-out/model.safetensors'));
  assert.ok(Buffer.from(model.safetensors({ dtype: 'F32' })).equals(saved));
  trainer.dispose();
  model.dispose();
  tokenizer.dispose();
});

test('train refuses a timeline path it cannot write, and timeline flags without --timeline, before training', async (t) => {
  const dir = scratch(t);
  writeFileSync(join(dir, 'a-file'), 'x');
  const out = join(dir, 'out');
  const base = ['train', '--config', CONFIG, '--data', DATA, '--out', out, ...FLAGS];
  const blocked = await cli(...base, '--timeline', join(dir, 'a-file', 'timeline.json'));
  assert.equal(blocked.code, 1, blocked.stderr);
  assert.match(blocked.stderr, /^minimind: cannot write the timeline to .*a-file\/timeline\.json: /m);
  assert.doesNotMatch(blocked.stderr, /batch 1\//, 'no batch ran');
  const folder = await cli(...base, '--timeline', dir);
  assert.equal(folder.code, 1, folder.stderr);
  assert.match(folder.stderr, /cannot write the timeline to .*: it is a folder/);
  assert.equal(existsSync(out), false, 'nothing saved');
  for (const [flags, message] of [
    [['--timeline', join(dir, 't.json'), '--snapshot-every', '0'], /--snapshot-every must be at least 1, got "0"/],
    [['--snapshot-every', '3'], /--snapshot-every goes with --timeline FILE/],
    [['--probe', PROBE], /--probe goes with --timeline FILE/],
  ]) {
    const r = await cli(...base, ...flags);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, message);
  }
  const help = await cli('help');
  assert.match(help.stdout, /--timeline FILE \[--snapshot-every N\] \[--probe TEXT\]/);
});
