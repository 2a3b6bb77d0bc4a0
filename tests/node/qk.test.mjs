// QK attribution through the JS API and the CLI, on the trained demo model:
// the pronoun head L0H3 from 她 to 小 in 小明把书给了小红，她, checked against
// the forward's own trace (the score, the weight, the row's mean) and, for
// the vocabulary ranking, against forwards with another token at the key
// (a block-0 key depends on its token alone); the cached run follows the
// weights when a trainer steps; bad requests name their kind.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

import { loadMiniMind, MiniMindError } from '../../js/minimind.mjs';

const CLI = fileURLToPath(new URL('../../js/cli.mjs', import.meta.url));
const DEMO = fileURLToPath(new URL('../../models/minimind-demo/', import.meta.url));
const TEXT = '小明把书给了小红，她';

const mm = await loadMiniMind();
const loadDemo = () =>
  mm.loadModel({
    config: readFileSync(join(DEMO, 'config.json'), 'utf8'),
    weights: new Uint8Array(readFileSync(join(DEMO, 'model.safetensors'))),
  });
const tokenizer = mm.loadTokenizer(readFileSync(join(DEMO, 'tokenizer.json'), 'utf8'));

async function cli(...args) {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [CLI, ...args], { maxBuffer: 1 << 26 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    return { code: error.code, stdout: error.stdout, stderr: error.stderr };
  }
}

// The forward's own [H, T, T] tensor of one layer and stage, as a lookup.
function traced(model, ids, layer, stage, options = {}) {
  const { trace } = model.forward(ids, { trace: { layers: [layer], stages: [stage] }, ...options });
  const t = trace.get(layer, stage);
  const T = ids.length;
  return (head, i, j) => t.data[(head * T + i) * T + j];
}

const sum = (rows) => rows.flat().reduce((a, b) => a + b, 0);
const sumAbs = (rows) => rows.flat().reduce((a, b) => a + Math.abs(b), 0);
const close = (actual, expected, tol, what) => assert.ok(Math.abs(actual - expected) <= tol, `${what}: ${actual} against ${expected}`);

const ids = [1, ...tokenizer.encode(TEXT)]; // bos at 0, as `run` feeds a text
const she = ids.length - 1;
const small = ids.lastIndexOf(tokenizer.encode('小')[0]); // 小 of 小红

test('demo L0H3 from 她 to 小: the score, its split and the ranking', () => {
  const model = loadDemo();
  try {
    assert.deepEqual(
      ids.map((id) => tokenizer.decode([id])),
      ['<|im_start|>', '小明', '把', '书', '给', '了', '小', '红', '，', '她'],
    );
    const r = model.qk({ ids, layer: 0, head: 3, query: she, key: small, versus: 'mean', rankKeys: 12 });
    const scores = traced(model, ids, 0, 'scores_scaled');
    const weights = traced(model, ids, 0, 'attn_weights');
    assert.equal(r.score, scores(3, she, small));
    assert.equal(r.weight, weights(3, she, small));
    assert.equal(r.masked, false);
    close(r.score, 8.248, 5e-4, 'the issue says 8.25');
    assert.deepEqual(r.components, ['embed']); // block 0 reads the embedding alone
    close(sum(r.table), r.score, 1e-5 * sumAbs(r.table), 'table');
    assert.equal(r.ropePairs.length, 16); // Dh 32
    close(sum(r.ropePairs), r.score, 1e-5 * sumAbs(r.ropePairs), 'RoPE pairs');
    close(r.ropePairs[3], 4.573, 5e-4, 'pair 3');
    const largest = r.ropePairs.indexOf(Math.max(...r.ropePairs));
    assert.equal(largest, 3);

    // Against the row's weighted mean of the forward's own scores.
    let mean = 0;
    for (let j = 0; j <= she; j++) mean += weights(3, she, j) * scores(3, she, j);
    close(r.versus.score, r.score - mean, 1e-5, 'versus mean');
    assert.equal(r.versus.key, 'mean');
    close(sum(r.versus.table), r.versus.score, 1e-5 * sumAbs(r.versus.table) + 1e-6, 'versus table');

    // The ranking: 叶 first, 小 11th, first characters of female names between.
    const names = r.ranked.map((k) => tokenizer.decode([k.id]));
    assert.deepEqual(names.slice(0, 8), ['叶', '丽', '方', '顾', '毛', '爱', '石', '苏']);
    assert.equal(names.indexOf('小'), 10);
    close(r.ranked[0].score, 8.97, 5e-3, '叶');
    for (let n = 1; n < r.ranked.length; n++) assert.ok(r.ranked[n - 1].score >= r.ranked[n].score);
    // Each ranked score is the forward's with that token put at the key.
    for (const k of [...r.ranked.slice(0, 4), r.ranked[10]]) {
      const swapped = ids.with(small, k.id);
      close(k.score, traced(model, swapped, 0, 'scores_scaled')(3, she, small), 2e-5, `ranked ${k.id}`);
    }
  } finally {
    model.dispose();
  }
});

test('a later block: the table over every earlier head and FFN sums to the traced score', () => {
  const model = loadDemo();
  try {
    const { num_hidden_layers: L, num_attention_heads: H } = model.info();
    for (let layer = 1; layer < L; layer++) {
      const scores = traced(model, ids, layer, 'scores_scaled');
      for (const [head, i, j, versus] of [
        [1, she, 7, 2],
        [2, 7, 6, 'mean'],
        [0, 4, 8, 0],
      ]) {
        const r = model.qk({ ids, layer, head, query: i, key: j, versus });
        assert.equal(r.components.length, 1 + layer * (H + 1));
        assert.equal(r.components[1 + H], 'L0ffn');
        assert.equal(r.masked, j > i);
        if (r.masked) assert.equal(r.weight, 0);
        close(r.score, scores(head, i, j), 1e-5 * Math.abs(r.score) + 1e-6, `L${layer}H${head} ${i}->${j}`);
        close(sum(r.table), r.score, 1e-5 * sumAbs(r.table) + 1e-6, `table L${layer}H${head}`);
        close(sum(r.ropePairs), r.score, 1e-5 * sumAbs(r.ropePairs) + 1e-6, `pairs L${layer}H${head}`);
        if (typeof versus === 'number') close(r.versus.score, r.score - scores(head, i, versus), 1e-5 * Math.abs(r.score) + 1e-5, 'versus');
        close(sum(r.versus.table), r.versus.score, 1e-5 * sumAbs(r.versus.table) + 1e-6, 'versus table');
      }
    }
    // Switches and heads off follow the forward's.
    const off = { causalMask: false, scaleScores: false, ablate: [[0, 3]] };
    const r = model.qk({ ids, layer: 2, head: 1, query: 3, key: 8, ...off });
    close(r.score, traced(model, ids, 2, 'scores_raw', off)(1, 3, 8), 1e-5 * Math.abs(r.score), 'switches off');
    assert.equal(r.masked, false);
    assert.ok(r.weight > 0);
    const L0H3 = r.components.indexOf('L0H3');
    assert.ok(r.table[L0H3].every((v) => v === 0));
  } finally {
    model.dispose();
  }
});

test('the kept run follows the weights: a trainer step changes the next answer', () => {
  const model = loadDemo();
  try {
    const request = { ids, layer: 1, head: 0, query: she, key: 6 };
    const before = model.qk(request);
    assert.deepEqual(model.qk(request), before); // from the kept run: the same numbers
    const trainer = model.trainer({ data: [ids], maxSeqLen: 16, batchSize: 1, accumulationSteps: 1, learningRate: 1e-2 });
    trainer.step();
    trainer.dispose();
    const after = model.qk(request);
    assert.notEqual(after.score, before.score);
    assert.equal(after.score, traced(model, ids, 1, 'scores_scaled')(0, she, 6));
  } finally {
    model.dispose();
  }
});

test('bad requests: a kind and values, and the model stays usable', () => {
  const model = loadDemo();
  try {
    const base = { ids, layer: 0, head: 3, query: she, key: small };
    const kind = (request) => {
      try {
        model.qk(request);
      } catch (error) {
        assert.ok(error instanceof MiniMindError, String(error));
        return [error.kind, error.values];
      }
      return null;
    };
    assert.deepEqual(kind({ ...base, layer: 4 }), ['qk.layer_out_of_range', { layer: 4, layers: 4 }]);
    assert.deepEqual(kind({ ...base, head: 4 }), ['qk.head_out_of_range', { head: 4, heads: 4 }]);
    assert.equal(kind({ ...base, key: 10 })[0], 'qk.position_out_of_range');
    assert.deepEqual(kind({ ...base, versus: -1 })[1], { which: 'versus', position: -1, tokens: 10 });
    assert.deepEqual(kind({ ...base, layer: 1, rankKeys: 5 }), ['qk.rank_needs_block0', { layer: 1 }]);
    assert.equal(kind({ ...base, ids: [1, 6400] })[0], 'token_id.out_of_range');
    assert.throws(() => model.qk({ ...base, versus: 'max' }), TypeError);
    assert.throws(() => model.qk({ ...base, layer: 0.5 }), TypeError);
    assert.throws(() => model.qk({ ids, head: 3, query: 1, key: 0 }), /layer is required/);
    assert.throws(() => model.qk({ ...base, rankKeys: 6401 }), RangeError);
    close(model.qk(base).score, 8.248, 5e-4, 'after the errors');
  } finally {
    model.dispose();
  }
});

test('minimind qk prints the split as JSON, and refuses a ranking above block 0', async () => {
  const args = ['qk', '--model', DEMO, '--text', TEXT, '--layer', '0', '--head', '3', '--query', String(she)];
  const { code, stdout, stderr } = await cli(...args, '--key', String(small), '--versus', '2', '--rank-keys', '3', '--json');
  assert.equal(code, 0, stderr);
  const out = JSON.parse(stdout);
  assert.deepEqual(Object.keys(out).sort(), [
    'components',
    'masked',
    'ranked',
    'rope_pairs',
    'rope_pairs_unrotated',
    'score',
    'table',
    'versus',
    'weight',
  ]);
  close(out.score, 8.248, 5e-4, 'CLI score');
  assert.equal(out.table.length, 1); // one cell: embed × embed, the score to float rounding
  close(out.table[0][0], out.score, 1e-5 * Math.abs(out.score), 'CLI table');
  assert.equal(out.versus.key, 2);
  assert.deepEqual(
    out.ranked.map((k) => tokenizer.decode([k.id])),
    ['叶', '丽', '方'],
  );

  const above = await cli(...args.map((a) => (a === '0' ? '1' : a)), '--key', '6', '--rank-keys', '5', '--json');
  assert.notEqual(above.code, 0);
  assert.match(above.stderr, /block 0.*depends on more than its token/);
  const late = await cli(...args, '--key', '12');
  assert.notEqual(late.code, 0);
  assert.match(late.stderr, /key position 12 is outside the 10 tokens/);
  const readable = await cli(...args, '--key', String(small), '--rank-keys', '2');
  assert.equal(readable.code, 0, readable.stderr);
  assert.match(readable.stdout, /score 8\.248/);
  assert.match(readable.stdout, /叶 3039 +8\.970/);
});
