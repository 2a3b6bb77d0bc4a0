// Model.qk on the Wasm module (the SIMD and the relaxed build) against
// tests/qk_reference.py (MiniMind's PyTorch forward written as components by
// forward hooks, norms frozen at the run's values) on every golden case: GQA,
// q/k norm, MoE, untied, YaRN. Each cell's score, weight, mask, components,
// table, RoPE pairs (rotated and not), both contrasts and block 0's
// vocabulary ranking, to 1e-5 relative to max(1, |score|); and the table sums
// to the score the forward computed.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

import { FIXTURES, GOLDEN_CASES, loadCase } from './helpers.mjs';
import { loadVariants } from './variants.mjs';

const QK_FORMAT = 1;
const RANK_TOP = 10; // qk_reference.py's RANK_TOP
const TOL = 1e-5;
const variants = await loadVariants();

function loadQkFixture(name) {
  const doc = JSON.parse(readFileSync(new URL(`${name}/qk.json`, FIXTURES), 'utf8'));
  if (doc.format !== QK_FORMAT) throw new Error(`${name}: qk.json format ${doc.format}; re-run /usr/bin/python3 tests/qk_reference.py`);
  return doc;
}

const sum = (values) => values.reduce((a, b) => a + b, 0);

// Throws at the first index where |actual - expected| > TOL · scale.
function assertNear(actual, expected, scale, what) {
  assert.equal(actual.length, expected.length, `${what}: ${actual.length} values, expected ${expected.length}`);
  actual.forEach((a, i) => {
    const diff = Math.abs(a - expected[i]);
    assert.ok(diff <= TOL * scale, `${what}: index ${i}: got ${a}, expected ${expected[i]} (|diff| ${diff} > ${TOL * scale})`);
  });
}

for (const [variant, mm] of variants) {
  for (const name of GOLDEN_CASES) {
    test(`${variant} ${name}: model.qk equals the PyTorch reference`, () => {
      const c = loadCase(name);
      const doc = loadQkFixture(name);
      assert.equal(doc.cases.length, 12);
      const model = mm.loadModel({ config: c.config, weights: c.weights });
      try {
        for (const cell of doc.cases) {
          const what = `${variant} ${name} L${cell.layer}H${cell.head} query ${cell.query} key ${cell.key}`;
          const request = { ids: doc.ids, layer: cell.layer, head: cell.head, query: cell.query, key: cell.key };
          if (cell.layer === 0) request.rankKeys = RANK_TOP;
          const mean = model.qk({ ...request, versus: 'mean' });
          const versus = model.qk({ ...request, versus: cell.versus_position.key });
          const scale = Math.max(1, Math.abs(cell.score));
          for (const qk of [mean, versus]) {
            assert.deepEqual([qk.layer, qk.head, qk.query, qk.key], [cell.layer, cell.head, cell.query, cell.key]);
            assertNear([qk.score], [cell.score], scale, `${what} score`);
            assert.equal(qk.masked, cell.masked, `${what} masked`);
            assertNear([qk.weight], [cell.weight], 1, `${what} weight`);
            assert.deepEqual(qk.components, cell.components, `${what} components`);
            assert.equal(qk.table.length, cell.components.length, `${what} table rows`);
            assertNear(qk.table.flat(), cell.table.flat(), scale, `${what} table`);
            assertNear(qk.ropePairs, cell.rope_pairs, scale, `${what} rope pairs`);
            assertNear(qk.ropePairsUnrotated, cell.rope_pairs_unrotated, scale, `${what} unrotated pairs`);
            // The table sums to the score the forward computed.
            const table = qk.table.flat();
            const magnitude = Math.max(1, sum(table.map(Math.abs)));
            assertNear([sum(table)], [qk.score], magnitude, `${what} table sum`);
            assertNear([sum(table)], [cell.score], magnitude, `${what} table sum vs PyTorch`);
          }

          const m = cell.versus_mean;
          const mScale = Math.max(scale, Math.abs(m.score));
          assertNear([mean.versus.score], [m.score], mScale, `${what} versus mean score`);
          assertNear(mean.versus.table.flat(), m.table.flat(), mScale, `${what} versus mean table`);
          const p = cell.versus_position;
          assert.equal(mean.versus.key, 'mean', `${what} versus key`);
          const pScale = Math.max(scale, Math.abs(p.score));
          assert.equal(versus.versus.key, p.key, `${what} versus key`);
          assertNear([versus.versus.score], [p.score], pScale, `${what} versus position score`);
          assertNear(versus.versus.table.flat(), p.table.flat(), pScale, `${what} versus position table`);

          if (cell.layer === 0) {
            // The reference's top 11 are more than 1e-4 apart: the order is not float rounding.
            assert.deepEqual(
              mean.ranked.map((r) => r.id),
              cell.ranked.map((r) => r.id),
              `${what} ranked ids`,
            );
            cell.ranked.forEach((r, i) =>
              assertNear([mean.ranked[i].score], [r.score], Math.max(1, Math.abs(r.score)), `${what} rank ${i}`),
            );
          } else {
            assert.equal(cell.ranked, undefined);
            assert.equal(mean.ranked, undefined, `${what}: no ranking above block 0`);
          }
        }
      } finally {
        model.dispose();
      }
    });
  }
}
