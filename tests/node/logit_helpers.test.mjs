// argmax, softmax and topK each have one home in js/ (js/argmax.mjs,
// js/softmax.mjs, js/top_k.mjs), and the page's make() one in
// web/panels/make_element.mjs: their values, and that no other source file in
// the repo writes its own copy.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { argmax } from '../../js/argmax.mjs';
import { softmax } from '../../js/softmax.mjs';
import { topK } from '../../js/top_k.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const HOMES = { argmax: 'js/argmax.mjs', softmax: 'js/softmax.mjs', topK: 'js/top_k.mjs', make: 'web/panels/make_element.mjs' };

// A seeded row of logits [V], V = 257, with a repeated largest value.
function logits() {
  let s = 12345;
  const row = Float32Array.from({ length: 257 }, () => {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    return (s / 2 ** 32) * 20 - 10;
  });
  row[40] = row[200] = 11;
  return row;
}

test('argmax is the first index of the largest entry, in a whole row or a range of one', () => {
  const row = logits();
  assert.equal(argmax(row), 40, 'ties keep the lower index');
  assert.equal(argmax(row, 41, 257), 200 - 41, 'counted from `from`');
  assert.equal(argmax(row, 0, 40), [...row.subarray(0, 40)].indexOf(Math.max(...row.subarray(0, 40))));
  assert.equal(argmax([-Infinity, -1, -2]), 1);
});

test('softmax sums to 1 and keeps the ratios exp(a - b)', () => {
  const row = logits();
  const p = softmax(row);
  assert.equal(p.length, row.length);
  assert.ok(Math.abs(p.reduce((a, b) => a + b, 0) - 1) < 1e-12);
  assert.ok(Math.abs(p[3] / p[7] - Math.exp(row[3] - row[7])) < 1e-9 * Math.exp(row[3] - row[7]));
  assert.deepEqual([...softmax([1000, 1000])], [0.5, 0.5], 'no overflow on large logits');
  assert.equal(argmax(p), argmax(row));
});

test('topK lists the k largest, largest first, ties by lower id', () => {
  const row = logits();
  const sorted = [...row.keys()].sort((a, b) => row[b] - row[a] || a - b);
  assert.deepEqual(
    topK(row, 5).map((e) => e.id),
    sorted.slice(0, 5),
  );
  assert.deepEqual(topK(row, 5)[0], { id: 40, value: 11 });
});

function sources(dir) {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sources(path);
    return /\.(mjs|js)$/.test(entry.name) ? [path] : [];
  });
}

/** The helpers `source` defines itself, or writes out inline (a running "best" index, a max-subtracting exp). */
function copiesIn(source) {
  const found = [];
  for (const name of ['argmax', 'softmax', 'topK'])
    if (new RegExp(`function ${name}\\b|\\b${name} = \\(`, 'u').test(source)) found.push(name);
  if (/if \([^)]*\[[^\]]*\] > [^)]*\[[^\]]*best[^\]]*\]\) best = /u.test(source)) found.push('argmax (inline)');
  if (/\.indexOf\(Math\.max\(\.\.\./u.test(source)) found.push('argmax (inline)');
  // The page's element helper (web/panels/make_element.mjs), written again as a local function.
  if (/function make\(tag, className\b/u.test(source)) found.push('make');
  if (/Math\.exp\([^)]*- max\)/u.test(source)) found.push('softmax (inline)');
  if (/\.sort\(\(a, b\) => (\w+)\[b\] - \1\[a\]\)\.slice\(0,/u.test(source)) found.push('topK (inline)');
  return found;
}

test('the copy finder sees a defined and an inline copy', () => {
  assert.deepEqual(copiesIn('function argmax(row) {}'), ['argmax']);
  assert.deepEqual(copiesIn('for (let v = 1; v < V; v += 1) if (row[v] > row[best]) best = v;'), ['argmax (inline)']);
  assert.deepEqual(copiesIn('return p.indexOf(Math.max(...p));'), ['argmax (inline)']);
  assert.deepEqual(copiesIn('sum += Math.exp(logits[i] - max);'), ['softmax (inline)']);
  assert.deepEqual(copiesIn('[...p.keys()].sort((a, b) => p[b] - p[a]).slice(0, 5)'), ['topK (inline)']);
  assert.deepEqual(copiesIn('function make(tag, className, parent) {'), ['make']);
  assert.deepEqual(copiesIn('const best = argmax(row);'), []);
});

test('no source outside their homes writes argmax, softmax, topK or make again', () => {
  const homes = new Set(Object.values(HOMES));
  const files = ['js', 'web', 'bench', 'scripts', 'wasm'].flatMap(sources).filter((f) => !homes.has(f));
  assert.ok(files.includes('web/worker.mjs') && files.includes('bench/run.mjs'));
  const found = files.flatMap((file) => copiesIn(readFileSync(join(ROOT, file), 'utf8')).map((name) => `${file}: ${name}`));
  assert.deepEqual(found, [], `import them from ${Object.values(HOMES).join(', ')}`);
});
