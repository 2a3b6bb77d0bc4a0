// The pure modules behind the page's Train panel: reading and tokenizing the
// training data with progress (js/train_data.mjs), the loss history and
// the snapshot store (js/train_history.mjs), the line chart's scaling
// (web/views/line_chart.mjs), the panel's small helpers and its messages in
// both languages.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { TRAIN_TERMS } from '../../web/messages/train_terms.mjs';
import { jsonlTexts, packIds, plainTexts, sampleStats, textsOf, tokenizeTexts, trainingSamples } from '../../js/train_data.mjs';
import { SnapshotStore, StepHistory, smoothed } from '../../js/train_history.mjs';
import { decimate, extent, linearScale, niceTicks, tickLabel } from '../../web/views/line_chart.mjs';

test('MiniMind pretraining JSONL gives its texts; a bad line is refused by its number', () => {
  assert.deepEqual(jsonlTexts('{"text": "你好"}\n\n{"text":"再见"}\r\n'), ['你好', '再见']);
  assert.throws(() => jsonlTexts('{"text": "a"}\nnot json'), /line 2 is not JSON/);
  assert.throws(() => jsonlTexts('{"text": "a"}\n{"ids": [1, 2]}'), /line 2 has no "text"/);
  assert.deepEqual(plainTexts(' a \n\n b\r\n'), ['a', 'b']);
  assert.deepEqual(textsOf('{"text": "x"}\n{"text": "y"}', 'data.jsonl'), ['x', 'y']);
  assert.deepEqual(textsOf('{"text": "x"}', 'notes.txt'), ['{"text": "x"}'], 'a .txt is text, whatever it looks like');
  assert.deepEqual(textsOf('{"text": "x"}\n{"text": "y"}'), ['x', 'y'], 'pasted JSONL is read as JSONL');
  assert.deepEqual(textsOf('{a}\n{b}'), ['{a}', '{b}'], 'braces that are not JSON stay text');
});

test('tokenizing reports progress in slices and yields between them', async () => {
  const texts = Array.from({ length: 50 }, (_, i) => `t${i}`);
  const reports = [];
  let pauses = 0;
  let clock = 0;
  const realNow = performance.now;
  // Each encode takes 10 "ms": a 25 ms slice holds 3 texts.
  performance.now = () => clock;
  try {
    const ids = await tokenizeTexts(
      texts,
      (text) => {
        clock += 10;
        return [Number(text.slice(1))];
      },
      { onProgress: (done, total) => reports.push([done, total]), pause: async () => (pauses += 1), sliceMs: 25 },
    );
    assert.deepEqual(
      ids,
      texts.map((_, i) => [i]),
    );
  } finally {
    performance.now = realNow;
  }
  assert.deepEqual(reports[0], [0, 50]);
  assert.deepEqual(reports.at(-1), [50, 50]);
  assert.equal(pauses, 16, 'one pause per full slice of 3 texts');
  for (let k = 1; k < reports.length; k += 1) assert.ok(reports[k][0] >= reports[k - 1][0], 'progress never goes back');
  assert.deepEqual(reports[1], [3, 50]);
});

test('tokenizing stops when its signal is aborted', async () => {
  const signal = { aborted: false };
  const run = tokenizeTexts(['a', 'b', 'c'], (text) => [text.length], { sliceMs: -1, pause: async () => (signal.aborted = true), signal });
  await assert.rejects(run, { name: 'AbortError' });
});

test('id arrays are packed first fit, never past the limit, in order within a group', () => {
  const lists = [[1, 2, 3], [4, 5], [6, 7, 8, 9], [10], [11, 12, 13, 14, 15, 16, 17]];
  const packed = packIds(lists, 6);
  assert.deepEqual(
    packed.flat().sort((a, b) => a - b),
    Array.from({ length: 17 }, (_, i) => i + 1),
    'every id once',
  );
  for (const group of packed) if (group.length > 6) assert.equal(group.length, 7, 'only an array too long on its own exceeds');
  assert.deepEqual(packed[0], [1, 2, 3, 4, 5], 'a full group (limit - 1) is closed at once');
  assert.ok(packed.some((g) => g.join() === '6,7,8,9,10'));
  assert.deepEqual(packIds([[1], [], [2]], 4), [[1, 2]], 'empty arrays are skipped');
  assert.throws(() => packIds(lists, 0), RangeError);
});

test('samples are [bos] + ids[:L-2] + [eos], as PretrainDataset builds them', () => {
  const samples = trainingSamples([[5, 6, 7, 8, 9, 10], [11]], { maxSeqLen: 5, bos: 1, eos: 2, pack: false });
  assert.deepEqual(samples, [
    [1, 5, 6, 7, 2],
    [1, 11, 2],
  ]);
  const packed = trainingSamples([[5], [6], [7]], { maxSeqLen: 8, pack: true });
  assert.deepEqual(packed, [[1, 5, 6, 7, 2]]);
  assert.deepEqual(sampleStats(samples, 5), { samples: 2, tokens: 8, padding: 2 });
  assert.throws(() => trainingSamples([[1]], { maxSeqLen: 1 }), RangeError);
});

test('the step history grows, averages and clears', () => {
  const history = new StepHistory();
  const steps = Array.from({ length: 1000 }, (_, i) => ({ loss: 10 - i / 100, lr: 1e-3, positions: 64 }));
  history.push(steps.slice(0, 300));
  history.push(steps.slice(300));
  assert.equal(history.length, 1000);
  assert.equal(history.positions, 64000);
  assert.ok(Math.abs(history.loss[999] - 0.01) < 1e-6);
  assert.ok(Math.abs(history.meanLoss(0, 20) - (10 - 0.095)) < 1e-5);
  assert.ok(Number.isNaN(history.meanLoss(5, 5)));
  history.clear();
  assert.equal(history.loss.length, 0);
});

test('smoothing is a debiased moving average: a constant stays constant, a step is approached', () => {
  assert.deepEqual(Array.from(smoothed([3, 3, 3], 0.9)), [3, 3, 3]);
  const s = smoothed([0, 0, 10, 10, 10, 10], 0.5);
  assert.equal(s[0], 0);
  for (let i = 3; i < s.length; i += 1) assert.ok(s[i] > s[i - 1] && s[i] < 10);
  assert.deepEqual(Array.from(smoothed([1, 2, 3], 0)), [1, 2, 3]);
});

test('the snapshot store finds the snapshot of a step and thins out past its bound', () => {
  const store = new SnapshotStore(10);
  for (let step = 0; step <= 200; step += 10) store.add({ step, scores: { pronoun: [[step / 200]] } });
  assert.ok(store.length <= 10, `at most 10 kept, got ${store.length}`);
  const steps = store.steps();
  assert.equal(steps[0], 0, 'the first stays');
  assert.equal(steps.at(-1), 200, 'the newest stays');
  for (let k = 1; k < steps.length; k += 1) assert.ok(steps[k] > steps[k - 1]);
  assert.equal(store.at(-5).step, 0);
  assert.equal(store.at(1000).step, 200);
  const mid = store.at(115);
  assert.ok(mid.step <= 115 && steps.every((s) => s <= mid.step || s > 115), 'the newest at or before the step');
  store.add({ step: 200, replaced: true });
  assert.equal(store.latest().replaced, true, 'a snapshot of the same step replaces it');
  const series = store.scoreSeries('pronoun', 0, 0);
  assert.deepEqual(
    series.map((p) => p.step),
    store.steps().filter((s) => s !== 200),
    'a snapshot without scores has no point',
  );
  assert.throws(() => new SnapshotStore(1), RangeError);
});

test('nice ticks cover the range with round steps', () => {
  const cases = [
    [0, 8.77, 5],
    [2.31, 2.35, 4],
    [0.0005, 0.005, 5],
    [-3, 17, 4],
    [0, 350, 6],
  ];
  for (const [min, max, count] of cases) {
    const n = niceTicks(min, max, count);
    assert.ok(n.min <= min && n.max >= max, `${min}..${max} covered by ${n.min}..${n.max}`);
    const mantissa = n.step / 10 ** Math.floor(Math.log10(n.step));
    assert.ok(
      [1, 2, 5].some((m) => Math.abs(mantissa - m) < 1e-9),
      `step ${n.step} is 1, 2 or 5 × 10^k`,
    );
    assert.ok(n.ticks.length >= 2 && n.ticks.length <= 2 * count + 2, `${n.ticks.length} ticks for ${count}`);
    for (const tick of n.ticks) assert.equal(tick, Number(tick.toPrecision(12)), `tick ${tick} has no floating-point dust`);
  }
  assert.deepEqual(niceTicks(0, 1, 5).ticks, [0, 0.2, 0.4, 0.6, 0.8, 1]);
  const flat = niceTicks(4, 4);
  assert.ok(flat.min < 4 && flat.max > 4, 'one value is widened around it');
  assert.deepEqual(niceTicks(NaN, 3).ticks.length > 0, true);
});

test('scales map and invert; extent skips non-finite values', () => {
  const y = linearScale([0, 10], [200, 0]);
  assert.equal(y(0), 200);
  assert.equal(y(10), 0);
  assert.equal(y(2.5), 150);
  assert.equal(y.invert(150), 2.5);
  assert.equal(linearScale([3, 3], [0, 100])(3), 50);
  assert.deepEqual(extent([3, NaN, -1, Infinity, 2]), [-1, 3]);
  assert.equal(extent([NaN]), null);
});

test("decimation keeps each column's first, lowest, highest and last point", () => {
  const n = 10000;
  const ys = Float32Array.from({ length: n }, (_, i) => Math.sin(i / 50) + (i === 5000 ? 5 : 0));
  const px = linearScale([0, n], [0, 100]);
  const kept = decimate(null, ys, px, 100);
  assert.ok(kept.length <= 4 * 101, `${kept.length} points for 100 columns`);
  assert.ok(kept.includes(4999), 'the spike survives (point 5000 is index 4999)');
  for (let k = 1; k < kept.length; k += 1) assert.ok(kept[k] > kept[k - 1], 'in x order');
  assert.equal(kept[0], 0);
  assert.equal(kept.at(-1), n - 1);
  assert.deepEqual(decimate(null, [1, NaN, 3], px, 100), [0, 2], 'few points: all finite ones');
});

test('tick labels are short', () => {
  assert.equal(tickLabel(0.2, 0.2), '0.2');
  assert.equal(tickLabel(150, 50), '150');
  assert.equal(tickLabel(0.0005, 0.0005), '5e-4');
  assert.equal(tickLabel(0, 1), '0');
});

test('the Train panel speaks both languages with the same keys and parameters', () => {
  const zh = TRAIN_TERMS['zh-CN'];
  const en = TRAIN_TERMS.en;
  assert.deepEqual(Object.keys(zh).sort(), Object.keys(en).sort());
  const params = (text) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
  for (const key of Object.keys(en)) assert.deepEqual(params(zh[key]), params(en[key]), key);
  assert.equal(zh['train.open'], '训练');
  assert.equal(en['train.open'], 'Train');
});
