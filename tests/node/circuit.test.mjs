// Model.circuit and `minimind circuit` on the Wasm module (the SIMD and the
// relaxed build) against tests/circuit_reference.py (MiniMind's PyTorch
// forward written as components and receivers, float64, autograd) on the
// dense and MoE golden cases: every edge's EAP score, per-position split and
// path-patched metric, both metrics and both faithfulness curves, to 1e-5
// relative to max(1, |metric|); `top`, `rank`, kinded errors with the module
// usable after each, and the CLI's JSON shape.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

import { FIXTURES, loadCase } from './helpers.mjs';
import { loadVariants } from './variants.mjs';

const CIRCUIT_FORMAT = 1;
const CASES = ['gen3_dense', 'gen2_dense', 'untied_theta1e4', 'gen3_moe', 'gen2_moe'];
const TOL = 1e-5;
const CLI = fileURLToPath(new URL('../../js/cli.mjs', import.meta.url));
const DEMO = fileURLToPath(new URL('../../models/minimind-demo/', import.meta.url));
const variants = await loadVariants();

function loadFixture(name, file = 'circuit.json') {
  const doc = JSON.parse(readFileSync(new URL(`${name}/${file}`, FIXTURES), 'utf8'));
  if (doc.format !== CIRCUIT_FORMAT)
    throw new Error(`${name}: ${file} format ${doc.format}; re-run /usr/bin/python3 tests/circuit_reference.py`);
  return doc;
}

function near(actual, expected, scale, what) {
  const diff = Math.abs(actual - expected);
  assert.ok(diff <= TOL * scale, `${what}: got ${actual}, expected ${expected} (|diff| ${diff} > ${TOL * scale})`);
}

function checkCurve(curve, expected, scale, what) {
  assert.deepEqual(
    curve.map((p) => p.edges),
    expected.map((p) => p.edges),
    `${what} sizes`,
  );
  curve.forEach((p, i) => {
    near(p.metric, expected[i].metric, scale, `${what} metric of ${p.edges} edges`);
    if (expected[i].share === null) assert.equal(p.share, null);
    else assert.ok(Math.abs(p.share - expected[i].share) <= 1e-4, `${what} share of ${p.edges} edges: ${p.share} vs ${expected[i].share}`);
  });
}

async function cli(...args) {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [CLI, ...args], { maxBuffer: 1 << 26 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    return { code: error.code, stdout: error.stdout, stderr: error.stderr };
  }
}

for (const [variant, mm] of variants) {
  for (const name of CASES) {
    test(`${variant} ${name}: model.circuit equals the PyTorch reference`, () => {
      const c = loadCase(name);
      const doc = loadFixture(name);
      const model = mm.loadModel({ config: c.config, weights: c.weights });
      try {
        const r = model.circuit({ clean: doc.clean, corrupt: doc.corrupt, answer: doc.answer, wrong: doc.wrong, positions: true });
        const scale = Math.max(1, Math.abs(doc.metric.clean), Math.abs(doc.metric.corrupt));
        near(r.metric.clean, doc.metric.clean, scale, 'clean metric');
        near(r.metric.corrupt, doc.metric.corrupt, scale, 'corrupt metric');
        assert.deepEqual(r.senders, doc.senders);
        assert.deepEqual(r.receivers, doc.receivers);
        assert.equal(r.edges.length, doc.edges.length);
        const byName = new Map(r.edges.map((e) => [`${e.from}>${e.to}`, e]));
        assert.equal(byName.size, doc.edges.length, 'every edge once');
        for (const want of doc.edges) {
          const what = `${variant} ${name} ${want.from} -> ${want.to}`;
          const got = byName.get(`${want.from}>${want.to}`);
          assert.ok(got, `${what} missing`);
          near(got.score, want.score, scale, `${what} score`);
          near(got.patched, want.patched, scale, `${what} patched`);
          assert.equal(got.positions.length, doc.clean.length);
          got.positions.forEach((v, t) => near(v, want.positions[t], scale, `${what} position ${t}`));
        }
        // Strongest first by |score|.
        for (let i = 1; i < r.edges.length; i += 1) assert.ok(Math.abs(r.edges[i - 1].score) >= Math.abs(r.edges[i].score));
        checkCurve(r.faithfulness, doc.faithfulness, scale, `${variant} ${name} faithfulness`);
        checkCurve(r.curves.eap, doc.faithfulness, scale, `${variant} ${name} curves.eap`);
        checkCurve(r.curves.patched, doc.faithfulness_patched, scale, `${variant} ${name} curves.patched`);
        assert.ok(r.faithfulness[0].share === 0, `share of the empty circuit: ${r.faithfulness[0].share}`);
        assert.ok(Math.abs(r.faithfulness.at(-1).share - 1) <= 1e-5);
      } finally {
        model.dispose();
      }
    });
  }
}

for (const [variant, mm] of variants) {
  test(`${variant} gen3_dense with a head switched off: model.circuit equals the PyTorch reference`, () => {
    const c = loadCase('gen3_dense');
    const doc = loadFixture('gen3_dense', 'circuit_ablate.json');
    const plain = loadFixture('gen3_dense');
    const model = mm.loadModel({ config: c.config, weights: c.weights });
    try {
      const request = { clean: doc.clean, corrupt: doc.corrupt, answer: doc.answer, wrong: doc.wrong, positions: true };
      const r = model.circuit({ ...request, ablate: doc.ablate });
      const scale = Math.max(1, Math.abs(doc.metric.clean), Math.abs(doc.metric.corrupt));
      near(r.metric.clean, doc.metric.clean, scale, 'clean metric');
      near(r.metric.corrupt, doc.metric.corrupt, scale, 'corrupt metric');
      assert.ok(Math.abs(r.metric.clean - plain.metric.clean) > 1e-3, 'the switched-off head changes the clean metric');
      const byName = new Map(r.edges.map((e) => [`${e.from}>${e.to}`, e]));
      const off = doc.ablate.map(([l, h]) => `L${l}H${h}`);
      let zeroed = 0;
      for (const want of doc.edges) {
        const what = `${variant} ablated ${want.from} -> ${want.to}`;
        const got = byName.get(`${want.from}>${want.to}`);
        near(got.score, want.score, scale, `${what} score`);
        near(got.patched, want.patched, scale, `${what} patched`);
        got.positions.forEach((v, t) => near(v, want.positions[t], scale, `${what} position ${t}`));
        if (off.some((head) => want.from === head || want.to.startsWith(`${head}.`))) {
          assert.equal(got.score, 0, `${what}: a switched-off head's edge scores 0`);
          assert.equal(got.patched, r.metric.clean, `${what}: patched = clean`);
          zeroed += 1;
        }
      }
      assert.ok(zeroed > 0);
      checkCurve(r.curves.eap, doc.faithfulness, scale, `${variant} ablated curves.eap`);
      checkCurve(r.curves.patched, doc.faithfulness_patched, scale, `${variant} ablated curves.patched`);
      assert.throws(
        () => model.circuit({ ...request, ablate: [[9, 0]] }),
        (e) => e.kind === 'ablate.head_out_of_range',
      );
      assert.throws(() => model.circuit({ ...request, ablate: [{ layer: 0, head: 1 }] }), TypeError);
      near(model.circuit(request).metric.clean, plain.metric.clean, scale, 'usable after the error, every head on');
    } finally {
      model.dispose();
    }
  });
}

test('minimind circuit --ablate switches heads off in every run', async () => {
  const doc = loadFixture('gen3_dense', 'circuit_ablate.json');
  const folder = fileURLToPath(new URL('gen3_dense/', FIXTURES));
  const ids = (list) => list.join(',');
  const ablate = doc.ablate.map(([l, h]) => `${l}:${h}`).join(',');
  const args = ['circuit', '--model', folder, '--clean-ids', ids(doc.clean), '--corrupt-ids', ids(doc.corrupt)];
  const answer = ['--answer', String(doc.answer), '--wrong', String(doc.wrong)];
  const { code, stdout, stderr } = await cli(...args, ...answer, '--ablate', ablate, '--json');
  assert.equal(code, 0, stderr);
  const out = JSON.parse(stdout);
  assert.deepEqual(out.ablate, doc.ablate);
  const scale = Math.max(1, Math.abs(doc.metric.clean), Math.abs(doc.metric.corrupt));
  near(out.metric.clean, doc.metric.clean, scale, 'CLI clean metric with the head off');
  near(out.metric.corrupt, doc.metric.corrupt, scale, 'CLI corrupt metric with the head off');
  const byName = new Map(out.edges.map((e) => [`${e.from}>${e.to}`, e]));
  for (const want of doc.edges) near(byName.get(`${want.from}>${want.to}`).score, want.score, scale, `CLI ${want.from} -> ${want.to}`);
  const readable = await cli(...args, ...answer, '--ablate', ablate);
  assert.equal(readable.code, 0, readable.stderr);
  assert.match(readable.stdout, new RegExp(`heads switched off in every run: L${doc.ablate[0][0]}H${doc.ablate[0][1]}`));
  const bad = await cli(...args, ...answer, '--ablate', 'L0H1');
  assert.equal(bad.code, 2, 'a usage error');
  assert.match(bad.stderr, /--ablate takes layer:head pairs/);
});

test('top patches only the strongest edges; rank orders by |patched - clean|', () => {
  const [, mm] = variants[0];
  const c = loadCase('gen3_dense');
  const doc = loadFixture('gen3_dense');
  const model = mm.loadModel({ config: c.config, weights: c.weights });
  try {
    const request = { clean: doc.clean, corrupt: doc.corrupt, answer: doc.answer, wrong: doc.wrong };
    const top = model.circuit({ ...request, top: 7, faithfulness: false });
    assert.equal(top.faithfulness, null);
    assert.equal(top.curves, null);
    assert.equal(top.edges.filter((e) => e.patched !== null).length, 7);
    assert.ok(top.edges.slice(0, 7).every((e) => e.patched !== null));
    assert.ok(top.edges.slice(7).every((e) => e.patched === null && e.positions === undefined));
    const byPatched = model.circuit({ ...request, rank: 'patched' });
    assert.equal(byPatched.rank, 'patched');
    assert.equal(byPatched.faithfulness, byPatched.curves.patched);
    const clean = byPatched.metric.clean;
    for (let i = 1; i < byPatched.edges.length; i += 1)
      assert.ok(Math.abs(byPatched.edges[i - 1].patched - clean) >= Math.abs(byPatched.edges[i].patched - clean));
  } finally {
    model.dispose();
  }
});

test('bad input: kinded errors, and the module stays usable', () => {
  const [, mm] = variants[0];
  const c = loadCase('gen3_dense');
  const doc = loadFixture('gen3_dense');
  const model = mm.loadModel({ config: c.config, weights: c.weights });
  const request = { clean: doc.clean, corrupt: doc.corrupt, answer: doc.answer, wrong: doc.wrong, faithfulness: false };
  try {
    const before = model.circuit(request).metric.clean;
    const kindOf = (f) => {
      try {
        f();
      } catch (error) {
        return { kind: error.kind, values: error.values };
      }
      assert.fail('no error');
    };
    const length = kindOf(() => model.circuit({ ...request, corrupt: doc.corrupt.slice(1) }));
    assert.equal(length.kind, 'circuit.length_mismatch');
    assert.deepEqual([length.values.clean, length.values.corrupt], [doc.clean.length, doc.clean.length - 1]);
    assert.equal(kindOf(() => model.circuit({ ...request, wrong: request.answer })).kind, 'circuit.same_token');
    assert.equal(kindOf(() => model.circuit({ ...request, answer: 64 })).kind, 'circuit.answer_out_of_range');
    const id = kindOf(() => model.circuit({ ...request, clean: doc.clean.map((v, i) => (i === 2 ? 99 : v)) }));
    assert.equal(id.kind, 'token_id.out_of_range');
    assert.equal(id.values.input, 'clean');
    assert.throws(() => model.circuit({ ...request, clean: [] }), RangeError);
    assert.throws(() => model.circuit({ ...request, rank: 'loud' }), RangeError);
    assert.equal(model.circuit(request).metric.clean, before);
  } finally {
    model.dispose();
  }
});

test("minimind circuit prints the issue's JSON shape, and reads texts with the bos", async () => {
  const doc = loadFixture('gen3_dense');
  const folder = fileURLToPath(new URL('gen3_dense/', FIXTURES));
  const ids = (list) => list.join(',');
  const args = ['circuit', '--model', folder, '--clean-ids', ids(doc.clean), '--corrupt-ids', ids(doc.corrupt)];
  const answer = ['--answer', String(doc.answer), '--wrong', String(doc.wrong)];
  const { code, stdout, stderr } = await cli(...args, ...answer, '--top', '5', '--json');
  assert.equal(code, 0, stderr);
  const out = JSON.parse(stdout);
  assert.deepEqual(Object.keys(out), ['metric', 'edges', 'faithfulness']);
  assert.deepEqual(Object.keys(out.metric), ['clean', 'corrupt']);
  assert.equal(out.edges.length, doc.edges.length);
  assert.deepEqual(Object.keys(out.edges[0]), ['from', 'to', 'score', 'patched']);
  assert.equal(out.edges.filter((e) => e.patched !== null).length, 5);
  assert.deepEqual(Object.keys(out.faithfulness[0]), ['edges', 'share']);
  assert.deepEqual(
    out.faithfulness.map((p) => p.edges),
    doc.faithfulness.map((p) => p.edges),
  );
  near(out.metric.clean, doc.metric.clean, Math.max(1, Math.abs(doc.metric.clean)), 'CLI clean metric');
  const strongest = doc.edges.reduce((a, b) => (Math.abs(b.score) > Math.abs(a.score) ? b : a));
  assert.deepEqual([out.edges[0].from, out.edges[0].to], [strongest.from, strongest.to]);

  const positions = JSON.parse((await cli(...args, ...answer, '--top', '0', '--positions', '--json')).stdout);
  assert.ok(positions.edges.every((e) => e.positions.length === doc.clean.length && e.patched === null));
  const readable = await cli(...args, ...answer, '--rank', 'patched');
  assert.equal(readable.code, 0, readable.stderr);
  assert.match(readable.stdout, /faithfulness/);
  assert.match(readable.stdout, /\|patched - clean\|/);

  const mismatch = await cli('circuit', '--model', folder, '--clean-ids', '1,2,3', '--corrupt-ids', '1,2', ...answer);
  assert.equal(mismatch.code, 1);
  assert.match(mismatch.stderr, /same token length/);
  const same = await cli(...args, '--answer', '5', '--wrong', '5');
  assert.equal(same.code, 1);
  assert.match(same.stderr, /answer and wrong are both token 5/);

  // Texts on the demo model: the default pronoun pair, the bos at position 0.
  const demo = await cli('circuit', '--model', DEMO, '--top', '0', '--positions', '--json');
  assert.equal(demo.code, 0, demo.stderr);
  const d = JSON.parse(demo.stdout);
  const text = await cli('run', '--model', DEMO, '--text', '小明把书给了小红，她', '--json');
  const tokens = JSON.parse(text.stdout).ids ?? JSON.parse(text.stdout).tokens;
  assert.equal(d.edges[0].positions.length, tokens.length);
  assert.equal(d.edges.length, 479);
});
