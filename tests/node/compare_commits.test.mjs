// bench/speed/compare_commits.mjs's pure parts: its command line, the rotated order
// of the rounds, the configure line read from a commit's scripts/build.sh and
// the report table from given samples. Nothing is built or timed here.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { parseArgs, quantile, reportTable, roundOrder, wasmConfigure } from '../../bench/speed/compare_commits.mjs';

test('the command line: defaults, options in both spellings, commits in order', () => {
  assert.deepEqual(parseArgs(['df938d3']), {
    rounds: 7,
    preset: 'minimind2-small',
    work: ['prefill64', 'prefill256', 'decode'],
    json: null,
    write: false,
    revs: ['df938d3'],
  });
  assert.deepEqual(parseArgs(['--rounds', '3', 'a1', '--work=prefill64,decode', '--preset', 'minimind-3', '--json', 'out.json', 'b2']), {
    rounds: 3,
    preset: 'minimind-3',
    work: ['prefill64', 'decode'],
    json: 'out.json',
    write: false,
    revs: ['a1', 'b2'],
  });
  assert.equal(parseArgs(['--write', 'a1']).write, true);
  assert.equal(parseArgs(['--help']).help, true);
});

test('the command line: its mistakes are errors', () => {
  assert.throws(() => parseArgs([]), /at least one commit/);
  assert.throws(() => parseArgs(['--rounds', '0', 'x']), /--rounds/);
  assert.throws(() => parseArgs(['--rounds', '2.5', 'x']), /--rounds/);
  assert.throws(() => parseArgs(['x', '--rounds']), /needs a value/);
  assert.throws(() => parseArgs(['--work', 'prefill64,train', 'x']), /train/);
  assert.throws(() => parseArgs(['--threads', '2', 'x']), /unknown option --threads/);
});

test('each round runs every runtime once, rotated by one per round', () => {
  const runtimes = ['ort-web', 'HEAD', 'HEAD relaxed', 'old'];
  const rounds = Array.from({ length: 5 }, (_, r) => roundOrder(runtimes, r));
  assert.deepEqual(rounds, [
    ['ort-web', 'HEAD', 'HEAD relaxed', 'old'],
    ['HEAD', 'HEAD relaxed', 'old', 'ort-web'],
    ['HEAD relaxed', 'old', 'ort-web', 'HEAD'],
    ['old', 'ort-web', 'HEAD', 'HEAD relaxed'],
    ['ort-web', 'HEAD', 'HEAD relaxed', 'old'],
  ]);
  // Over n rounds, every runtime takes every position once.
  for (const name of runtimes)
    assert.deepEqual(
      rounds
        .slice(0, 4)
        .map((o) => o.indexOf(name))
        .sort(),
      [0, 1, 2, 3],
    );
  assert.deepEqual(roundOrder(runtimes, 0), runtimes);
  assert.notEqual(roundOrder(runtimes, 0), runtimes, 'a copy, not the list itself');
});

test('quantiles interpolate between the sorted values', () => {
  assert.equal(quantile([4, 1, 3, 2, 5], 0.5), 3);
  assert.equal(quantile([4, 1, 3, 2, 5], 0.25), 2);
  assert.equal(quantile([1, 2, 3, 4], 0.25), 1.75);
  assert.equal(quantile([7], 0.75), 7);
});

test("a commit's configure line comes from its scripts/build.sh", () => {
  const old = '  wasm) configure=(emcmake cmake); args=(-DCMAKE_BUILD_TYPE=Release) ;;\n  wasm-scalar) args=(-DX=1) ;;';
  assert.deepEqual(wasmConfigure(old), { configure: ['emcmake', 'cmake'], args: ['-DCMAKE_BUILD_TYPE=Release'] });
  const now = '  wasm) configure=(emcmake cmake); args=(-DCMAKE_BUILD_TYPE=Release -DMINIMIND_UNITY=ON) ;;';
  assert.deepEqual(wasmConfigure(now).args, ['-DCMAKE_BUILD_TYPE=Release', '-DMINIMIND_UNITY=ON']);
  assert.deepEqual(wasmConfigure(''), { configure: ['emcmake', 'cmake'], args: ['-DCMAKE_BUILD_TYPE=Release'] });
});

test('the report table: medians, p25–p75, × ort-web and × HEAD', () => {
  const rounds = (list) => list.map(([prefill64, decode]) => ({ prefill64, decode, threads: 1 }));
  const samples = {
    'ort-web': rounds([
      [30, 12],
      [20, 10],
      [40, 14],
    ]),
    HEAD: rounds([
      [10, 5],
      [12, 6],
      [11, 4],
    ]),
    abc: rounds([
      [22, 5],
      [20, 5],
      [24, 5],
    ]),
  };
  const runtimes = [{ key: 'ort-web' }, { key: 'HEAD' }, { key: 'HEAD relaxed' }, { key: 'abc', label: 'v1 (abc)' }];
  const table = reportTable({ runtimes, works: ['prefill64', 'decode'], samples });
  assert.equal(
    table,
    [
      '| work | runtime | median | p25–p75 | × ort-web | × HEAD |',
      '|---|---|---|---|---|---|',
      '| prefill 64 | ort-web | 30.0 ms | 25.0–35.0 ms | 1.00× | — |',
      '| prefill 64 | HEAD | 11.0 ms | 10.5–11.5 ms | 2.73× | — |',
      '| prefill 64 | v1 (abc) | 22.0 ms | 21.0–23.0 ms | 1.36× | 0.50× |',
      '| decode, per step | ort-web | 12.0 ms | 11.0–13.0 ms | 1.00× | — |',
      '| decode, per step | HEAD | 5.00 ms | 4.50–5.50 ms | 2.40× | — |',
      '| decode, per step | v1 (abc) | 5.00 ms | 5.00–5.00 ms | 2.40× | 1.00× |',
    ].join('\n'),
  );
});

test('with side-by-side ratios, × HEAD is their median, not a ratio of the two medians', () => {
  // The host slowed down in round 2 for both builds alike: the medians of the times say 0.55×, the pairs 1.10×.
  const samples = {
    HEAD: [{ prefill64: 10 }, { prefill64: 30 }, { prefill64: 11 }],
    abc: [{ prefill64: 9 }, { prefill64: 27 }, { prefill64: 20 }],
  };
  const ratios = { abc: [{ prefill64: 10 / 9 }, { prefill64: 30 / 27 }, { prefill64: 11 / 20 }] };
  const runtimes = [{ key: 'HEAD' }, { key: 'abc' }];
  const plain = reportTable({ runtimes, works: ['prefill64'], samples });
  assert.match(plain, /\| prefill 64 \| abc \| 20\.0 ms \| .* \| 0\.55× \|$/m);
  const paired = reportTable({ runtimes, works: ['prefill64'], samples, ratios });
  assert.match(paired, /\| prefill 64 \| abc \| 20\.0 ms \| .* \| 1\.11× \|$/m);
});
