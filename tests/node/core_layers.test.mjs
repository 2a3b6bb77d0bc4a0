// The layers of core/, read from the block between the core-layers markers of
// docs/architecture.md: one line per layer, the highest first; folders on one
// line are siblings. A file of core/ includes headers of its own folder and of
// the layers below it, never of a layer above, of a sibling, or of a folder
// the block does not list (wasm/ is not one: the core knows no Emscripten).
// The C++ outside core/ (wasm/, tests/ with tests/fuzz/, bench/) is checked
// for include paths that name no file, such as a folder that has moved: the
// fuzz targets are built only by scripts/fuzz.sh, so a build would not say.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CORE = join(ROOT, 'core');

/** The layers of a Markdown text's core-layers block, lowest first: [[folder, ...], ...]. */
function parseLayers(markdown) {
  const match = /<!-- core-layers:begin -->([\s\S]*?)<!-- core-layers:end -->/u.exec(markdown);
  if (!match) throw new Error('no core-layers block (<!-- core-layers:begin --> ... <!-- core-layers:end -->)');
  const layers = match[1]
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('```'))
    .map((line) => line.split(/\s+/u).map((folder) => folder.replace(/\/$/u, '')));
  const seen = new Set();
  for (const folder of layers.flat()) {
    if (!/^[a-z_]+$/u.test(folder)) throw new Error(`core-layers: '${folder}' is not a folder name`);
    if (seen.has(folder)) throw new Error(`core-layers: ${folder} is listed twice`);
    seen.add(folder);
  }
  if (layers.length === 0) throw new Error('core-layers: the block lists no layer');
  return layers.reverse();
}

/** The #include lines of a C++ source: [{path, angle, line}]. */
function includesOf(source) {
  const out = [];
  source.split('\n').forEach((text, index) => {
    const m = /^\s*#\s*include\s*([<"])([^>"]+)[>"]/u.exec(text);
    if (m) out.push({ path: m[2], angle: m[1] === '<', line: index + 1 });
  });
  return out;
}

const isEmscripten = (path) => path === 'emscripten.h' || path.startsWith('emscripten/');

/**
 * What breaks the layering. files: [{file: 'ops/rope.h' (relative to core/), includes}];
 * exists(path): whether core/<path> is a file. Returns one sentence per problem.
 */
function layerViolations(layers, files, exists) {
  const layerOf = new Map(layers.flatMap((folders, level) => folders.map((f) => [f, level])));
  const problems = [];
  for (const { file, includes } of files) {
    const folder = file.includes('/') ? file.split('/')[0] : '';
    const level = layerOf.get(folder);
    if (level === undefined) {
      problems.push(`${file}: its folder '${folder}' is not in the core-layers block`);
      continue;
    }
    for (const { path, angle, line } of includes) {
      const where = `${file}:${line} includes ${angle ? `<${path}>` : `"${path}"`}`;
      if (angle) {
        if (isEmscripten(path)) problems.push(`${where}: core/ knows no Emscripten (bindings live in wasm/)`);
        continue;
      }
      const target = path.includes('/') ? path.split('/')[0] : '';
      const targetLevel = layerOf.get(target);
      if (targetLevel === undefined) {
        problems.push(`${where}: '${target}' is not a core folder of the core-layers block`);
      } else if (target !== folder && targetLevel >= level) {
        const what = targetLevel === level ? 'a sibling of' : 'a layer above';
        problems.push(`${where}: ${target}/ is ${what} ${folder}/`);
      } else if (!exists(path)) {
        problems.push(`${where}: no such file in core/`);
      }
    }
  }
  return problems;
}

function cxxFiles(dir) {
  const out = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'fixtures' && entry.name !== 'node_modules') out.push(...cxxFiles(path));
    } else if (/\.(h|hpp|cpp|cc)$/u.test(entry.name)) {
      out.push(path);
    }
  }
  return out;
}

const coreFiles = () => cxxFiles(CORE).map((path) => ({ file: relative(CORE, path), includes: includesOf(readFileSync(path, 'utf8')) }));
const docLayers = () => parseLayers(readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8'));
const inCore = (path) => existsSync(join(CORE, path));

test('the block parser reads layers highest first and refuses a folder listed twice', () => {
  const doc = ['text', '<!-- core-layers:begin -->', '```text', 'top', 'left/ right', 'base', '```', '<!-- core-layers:end -->'];
  assert.deepEqual(parseLayers(doc.join('\n')), [['base'], ['left', 'right'], ['top']]);
  assert.throws(() => parseLayers('no block'), /no core-layers block/u);
  assert.throws(() => parseLayers('<!-- core-layers:begin -->\na\nb a\n<!-- core-layers:end -->'), /a is listed twice/u);
});

test('the include reader sees quoted and angle includes with their lines', () => {
  const source = '#include "ops/rope.h"\n// a comment\n#  include <vector>\n#include <emscripten/bind.h>\n';
  assert.deepEqual(includesOf(source), [
    { path: 'ops/rope.h', angle: false, line: 1 },
    { path: 'vector', angle: true, line: 3 },
    { path: 'emscripten/bind.h', angle: true, line: 4 },
  ]);
});

test('an upward, sibling, unlisted, missing or Emscripten include is reported; a downward one is not', () => {
  const layers = [['util'], ['formats', 'tokenizer'], ['ops'], ['model']];
  // '<name>' stands for an angle include.
  const file = (name, ...paths) => ({
    file: name,
    includes: paths.map((p, i) => ({ path: p.replace(/^<(.*)>$/u, '$1'), angle: p.startsWith('<'), line: i + 1 })),
  });
  const exists = (path) => path !== 'util/gone.h';
  const files = [
    file('ops/rope.h', 'util/tensor.h', 'ops/linear.h', '<vector>'), // fine: below and own folder
    file('model/model.h', 'ops/rope.h', 'formats/pth.h', 'util/error.h'), // fine: two layers down
    file('ops/attention.h', 'model/model.h'), // up
    file('formats/pth.h', 'tokenizer/tokenizer.h'), // sibling
    file('util/half.h', 'wasm/js_values.h'), // unlisted folder
    file('util/random.h', 'util/gone.h'), // stale path
    file('tokenizer/x.cpp', '<emscripten/bind.h>'), // Emscripten
    file('wasm/bindings.cpp', 'util/error.h'), // a file in an unlisted folder
  ];
  assert.deepEqual(layerViolations(layers, files, exists), [
    'ops/attention.h:1 includes "model/model.h": model/ is a layer above ops/',
    'formats/pth.h:1 includes "tokenizer/tokenizer.h": tokenizer/ is a sibling of formats/',
    'util/half.h:1 includes "wasm/js_values.h": \'wasm\' is not a core folder of the core-layers block',
    'util/random.h:1 includes "util/gone.h": no such file in core/',
    'tokenizer/x.cpp:1 includes <emscripten/bind.h>: core/ knows no Emscripten (bindings live in wasm/)',
    "wasm/bindings.cpp: its folder 'wasm' is not in the core-layers block",
  ]);
});

test('docs/architecture.md lists every folder of core/ once, and no other', () => {
  const listed = docLayers().flat().sort();
  const folders = readdirSync(CORE, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
  assert.deepEqual(listed, folders);
});

test('no file of core/ includes a header from a layer above its own, a sibling or outside core/', () => {
  const files = coreFiles();
  // The check reads the real tree: the core has well over a hundred files and includes.
  assert.ok(files.length > 100, `${files.length} files`);
  assert.ok(files.flatMap((f) => f.includes).filter((i) => !i.angle).length > 200);
  const problems = layerViolations(docLayers(), files, inCore);
  assert.deepEqual(problems, [], problems.join('\n'));
});

test('nothing in core/ includes wasm/ or an Emscripten header', () => {
  const found = coreFiles().flatMap(({ file, includes }) =>
    includes.filter((i) => (i.angle ? isEmscripten(i.path) : i.path.startsWith('wasm/'))).map((i) => `${file}:${i.line} ${i.path}`),
  );
  assert.deepEqual(found, []);
});

test('every quoted include of wasm/, tests/ and bench/ names a file (beside it or in core/)', () => {
  const stale = [];
  let checked = 0;
  for (const dir of ['wasm', 'tests', 'bench']) {
    for (const path of cxxFiles(join(ROOT, dir))) {
      for (const { path: included, angle, line } of includesOf(readFileSync(path, 'utf8'))) {
        if (angle) continue;
        checked += 1;
        if (!existsSync(join(dirname(path), included)) && !inCore(included)) stale.push(`${relative(ROOT, path)}:${line} "${included}"`);
      }
    }
  }
  assert.ok(checked > 100, `${checked} includes`);
  assert.deepEqual(stale, [], `include paths that name no file:\n${stale.join('\n')}`);
});
