// The timeline's two new model methods through the JS API, on the trained
// demo model: tokenLosses against a log-softmax of the forward's own logits
// (written here), and keyComposition against QK attribution (model.qk with
// versus each other key, its contrast table's key-side columns averaged):
// the induction head L2H2 on a sequence said twice; the parts sum to the
// gap; bad cells name their kind and the model stays usable.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { loadMiniMind, MiniMindError } from '../../js/minimind.mjs';

const DEMO = fileURLToPath(new URL('../../models/minimind-demo/', import.meta.url));
const mm = await loadMiniMind();
const model = mm.loadModel({
  config: readFileSync(join(DEMO, 'config.json'), 'utf8'),
  weights: new Uint8Array(readFileSync(join(DEMO, 'model.safetensors'))),
});
const tokenizer = mm.loadTokenizer(readFileSync(join(DEMO, 'tokenizer.json'), 'utf8'));
const half = tokenizer.encode('猫吃鱼，狗看书，鸟唱歌');
const ids = [1, ...half, ...half]; // bos, a span said twice

test('tokenLosses: -log softmax of the forward logits at every position, NaN at the first', () => {
  const other = ids.slice(0, 9);
  const [a, b] = model.tokenLosses([ids, other]);
  assert.equal(a.length, ids.length);
  assert.equal(b.length, other.length);
  for (const [sequence, losses] of [
    [ids, a],
    [other, b],
  ]) {
    assert.ok(Number.isNaN(losses[0]));
    const { logits } = model.forward(sequence);
    const V = logits.shape[2];
    for (let t = 1; t < sequence.length; t += 1) {
      const row = logits.data.subarray((t - 1) * V, t * V);
      const max = row.reduce((m, x) => Math.max(m, x), -Infinity);
      const lse = max + Math.log(row.reduce((s, x) => s + Math.exp(x - max), 0));
      const expected = lse - row[sequence[t]];
      assert.ok(Math.abs(losses[t] - expected) <= 1e-5 * (1 + expected), `position ${t}: ${losses[t]} against ${expected}`);
    }
  }
});

test('keyComposition: L2H2 at an induction cell equals the mean of qk contrasts with each other key', () => {
  const n = half.length;
  const query = 1 + n + 2; // the third token's second occurrence
  const key = 1 + 3; // the token after its first occurrence
  assert.equal(ids[query], ids[key - 1]);
  const layers = model.keyComposition({ ids, cells: [[query, key]] });
  assert.deepEqual(
    layers.map((l) => l.layer),
    [1, 2, 3],
  );
  const layer = layers.find((l) => l.layer === 2);
  const head = layer.heads[2];
  const C = layer.components.length;
  const expected = new Array(C).fill(0);
  let gap = 0;
  for (let t = 0; t <= query; t += 1) {
    if (t === key) continue;
    const r = model.qk({ ids, layer: 2, head: 2, query, key, versus: t });
    assert.deepEqual(r.components, layer.components);
    for (const row of r.versus.table) row.forEach((v, b) => (expected[b] += v / query));
    gap += r.versus.score / query;
  }
  const size = expected.reduce((s, x) => s + Math.abs(x), 0);
  head.parts.forEach((p, b) => assert.ok(Math.abs(p - expected[b]) <= 1e-5 * size, `${layer.components[b]}: ${p} against ${expected[b]}`));
  assert.ok(Math.abs(head.parts.reduce((s, x) => s + x, 0) - head.gap) <= 1e-5 * size);
  assert.ok(Math.abs(head.gap - gap) <= 1e-4 * size, `gap ${head.gap} against the forward's ${gap}`);
  // The induction head's key: the previous-token head writes most of it (heads.json names both roles).
  const heads = JSON.parse(readFileSync(join(DEMO, 'heads.json'), 'utf8')).heads;
  const previous = heads.filter((h) => h.layer < 2).reduce((a, b) => (b.previousToken > a.previousToken ? b : a));
  const top = layer.components[head.parts.indexOf(Math.max(...head.parts))];
  assert.equal(top, `L${previous.layer}H${previous.head}`);
});

test('keyComposition: bad cells name their kind, and the model still answers', () => {
  const kind = (f) => {
    try {
      f();
    } catch (error) {
      assert.ok(error instanceof MiniMindError || error instanceof TypeError || error instanceof RangeError, String(error));
      return error.kind;
    }
    return null;
  };
  assert.equal(
    kind(() => model.keyComposition({ ids, cells: [] })),
    'api.not_rows',
  );
  assert.equal(
    kind(() => model.keyComposition({ ids, cells: [[3]] })),
    'api.not_row',
  );
  assert.equal(
    kind(() => model.keyComposition({ ids, cells: [[3, 5]] })),
    'composition.cell_out_of_range',
  );
  assert.equal(
    kind(() => model.keyComposition({ ids, cells: [[ids.length, 0]] })),
    'composition.cell_out_of_range',
  );
  assert.equal(
    kind(() => model.tokenLosses([])),
    'api.no_sequences',
  );
  assert.equal(model.keyComposition({ ids, cells: [[5, 2]] }).length, 3);
});
