// Which folder may import which, read from every static and dynamic import
// (TypeScript's preProcessFile: `import … from`, `export … from`,
// `import('…')` with a literal specifier) of every .mjs/.js file under
// wasm/, js/, web/, bench/ and scripts/ and of the top-level ESLint config.
// The layers point one way, core → wasm → js → web: a folder imports its own
// files and those of the layers below it, never one above.
//   wasm/     the module's build and bindings: its own files only (core/ is C++).
//   js/       the application layer and the package: js/ only, Node's builtins
//             and the packages of `dependencies` (never one listed only in
//             devDependencies: it is not installed with the package).
//   web/      DOM, workers and views: js/ and web/, and the exceptions below.
//   bench/    js/, its own files (in any of its question folders: speed/,
//             training/, memory/, limits/, interp/), and the exceptions below.
//   scripts/  js/, its own files, and the exceptions below; not bench/ (what a
//             script shares with a benchmark lives in js/).
//   tests/    may import anything (not checked here).
// Nothing outside web/ and tests/ imports web/: what the page shares with
// bench/ and scripts/ is application logic, and it lives in js/.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';

import ts from 'typescript';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));

/** The folders checked, each with the repo folders its files may import (its own and the layers below). */
const MAY_IMPORT = Object.freeze({
  wasm: ['wasm'],
  js: ['js'],
  web: ['web', 'js'],
  bench: ['bench', 'js'],
  scripts: ['scripts', 'js'],
});

/**
 * The imports allowed across the layers anyway, each with its reason. `from`:
 * the importing folder; `target`: the repo path imported (a prefix ending in
 * '/' covers a folder), or `package` / `scheme` for a bare specifier.
 */
const EXCEPTIONS = Object.freeze([
  { from: 'web', target: 'dist/wasm/', reason: 'the built module (wasm/ compiled by Emscripten): the single-file element inlines it' },
  {
    from: 'web',
    target: 'models/minimind-demo/',
    ext: '.json',
    reason: "the demo's json (heads, QK stories, shape runs) the gallery words",
  },
  { from: 'web', scheme: 'demo-file:', reason: "the demo's files, which scripts/build_site.mjs inlines into the single-file element" },
  { from: 'web', package: 'd3-scale-chromatic', reason: 'the colour scales (web/colors.mjs), bundled by the site build' },
  { from: 'bench', target: 'scripts/serve.mjs', reason: 'the page benches serve the built site as the tests do' },
  { from: 'bench', target: 'tests/browser/browser.mjs', reason: 'the browser harness: Chromium through playwright-core' },
  { from: 'bench', target: 'tests/browser/demo.mjs', reason: "the browser harness's expected numbers of the trained model" },
  { from: 'bench', target: 'node_modules/', reason: 'the peers it times (ONNX Runtime Web, wllama) as their browser builds' },
  { from: 'scripts', target: 'tests/browser/browser.mjs', reason: 'the README screenshots open the page with the browser harness' },
]);

function sourceFiles(dir) {
  const out = [];
  for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules' && entry.name !== 'models') out.push(...sourceFiles(path));
    } else if (/\.(mjs|js)$/.test(entry.name)) {
      out.push(path);
    }
  }
  return out;
}

/** The module specifiers `source` imports, statically or dynamically (literal specifiers). */
function importsOf(source) {
  return ts.preProcessFile(source, true, true).importedFiles.map((f) => f.fileName);
}

/** {file, spec, target}: target the repo-relative path of a relative import, else null. */
function importOf(file, spec) {
  return { file, spec, target: spec.startsWith('.') ? relative(ROOT, resolve(ROOT, dirname(file), spec)) : null };
}

/** Every import of the checked files. */
function allImports() {
  const files = [...Object.keys(MAY_IMPORT).flatMap(sourceFiles), 'eslint.config.mjs'];
  return files.flatMap((file) => importsOf(readFileSync(join(ROOT, file), 'utf8')).map((spec) => importOf(file, spec)));
}

// The package a bare specifier names ('@scope/name/sub' -> '@scope/name'), null for a Node builtin.
function packageOf(spec) {
  if (spec.startsWith('node:')) return null;
  const parts = spec.split('/');
  return spec.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

const under = (path, dir) => path === dir || path.startsWith(`${dir}/`);
const folderOf = (file) => file.split('/')[0];
const listed = (found) => found.map((i) => `${i.file} imports '${i.spec}'${i.why ? ` (${i.why})` : ''}`).join('\n');

function matches(exception, i) {
  if (exception.scheme) return i.spec.startsWith(exception.scheme);
  if (exception.package) return i.target === null && packageOf(i.spec) === exception.package;
  if (i.target === null) return false;
  const path = i.target.split('?')[0];
  const { target, ext } = exception;
  return (target.endsWith('/') ? path.startsWith(target) : path === target) && (!ext || path.endsWith(ext));
}

const excepted = (i) => EXCEPTIONS.some((e) => e.from === folderOf(i.file) && matches(e, i));

/**
 * The imports that break the one-way order, each with why: a repo path outside the
 * folders the importer may import, web/ imported from outside web/, or a bare
 * specifier (a package) in wasm/ or web/ (served as they are, or bundled: only the
 * listed ones), all unless listed in EXCEPTIONS.
 */
function violations(imports) {
  const out = [];
  for (const i of imports) {
    const from = folderOf(i.file);
    if (excepted(i)) continue;
    // The top-level config files are held to this rule alone.
    if (i.target !== null && under(i.target, 'web') && from !== 'web') {
      out.push({ ...i, why: 'web/ is imported only by web/ and tests/' });
      continue;
    }
    if (!(from in MAY_IMPORT)) continue;
    if (i.target === null) {
      const name = packageOf(i.spec);
      if (name !== null && (from === 'wasm' || from === 'web') && !/^[a-z][a-z0-9+.-]*:/.test(i.spec))
        out.push({ ...i, why: `the package ${name} in ${from}/` });
      else if (/^[a-z][a-z0-9+.-]*:/.test(i.spec) && !i.spec.startsWith('node:')) out.push({ ...i, why: 'an unlisted scheme' });
      continue;
    }
    if (!MAY_IMPORT[from].some((dir) => under(i.target, dir)))
      out.push({ ...i, why: `${from}/ may import ${MAY_IMPORT[from].join('/, ')}/` });
  }
  return out;
}

test('the import parser sees static, re-exported and dynamic imports, not comments or strings', () => {
  const source = [
    "import { a } from '../web/a.mjs';",
    "export { b } from './b.mjs';",
    "import './c.mjs';",
    "const d = await import('../web/d.mjs');",
    "// import { e } from '../web/e.mjs';",
    'const f = "import(\'../web/f.mjs\')";',
  ].join('\n');
  assert.deepEqual(importsOf(source), ['../web/a.mjs', './b.mjs', './c.mjs', '../web/d.mjs']);
});

test('the checked files are found and their imports read, in every layer', () => {
  const imports = allImports();
  // The CLI loads the head scores on demand: a dynamic import the check must see.
  assert.ok(imports.some((i) => i.file === 'js/cli.mjs' && i.target === 'js/head_roles.mjs'));
  for (const from of ['web', 'bench', 'scripts'])
    assert.ok(
      imports.some((i) => i.file.startsWith(`${from}/`) && under(i.target ?? '', 'js')),
      `${from}/ imports js/`,
    );
  assert.ok(imports.some((i) => i.file.startsWith('web/') && under(i.target ?? '', 'web')));
  assert.ok(
    sourceFiles('wasm').some((file) => file.endsWith('.mjs')),
    'wasm/*.mjs is read',
  );
});

test('every listed exception is used by some import (a stale one would allow what nothing needs)', () => {
  const imports = allImports();
  const unused = EXCEPTIONS.filter((e) => !imports.some((i) => folderOf(i.file) === e.from && matches(e, i)));
  assert.deepEqual(
    unused.map((e) => `${e.from} → ${e.target ?? e.package ?? e.scheme}`),
    [],
  );
});

test('the check fails on planted imports against the order, and passes the allowed ones', () => {
  const planted = [
    importOf('js/planted.mjs', '../web/colors.mjs'),
    importOf('wasm/planted.mjs', '../js/minimind.mjs'),
    importOf('web/planted.mjs', '../bench/median.mjs'),
    importOf('web/planted.mjs', '../scripts/serve.mjs'),
    importOf('web/planted.mjs', 'yaml'),
    importOf('bench/planted.mjs', '../web/colors.mjs'),
    importOf('bench/planted.mjs', '../tests/browser/page.test.mjs'),
    importOf('bench/speed/planted.mjs', '../../web/colors.mjs'),
    importOf('scripts/planted.mjs', '../bench/median.mjs'),
    importOf('web/planted.mjs', '../models/minimind-demo/model.safetensors'),
    importOf('eslint.config.mjs', './web/colors.mjs'),
  ];
  assert.deepEqual(
    violations(planted).map((i) => `${i.file} ${i.spec}`),
    planted.map((i) => `${i.file} ${i.spec}`),
  );
  const allowed = [
    importOf('web/planted.mjs', '../js/minimind.mjs'),
    importOf('web/views/planted.mjs', '../panels/x.mjs'),
    importOf('web/planted.mjs', 'd3-scale-chromatic'),
    importOf('web/component/planted.mjs', '../../dist/wasm/minimind-single.mjs'),
    importOf('web/planted.mjs', '../models/minimind-demo/heads.json'),
    importOf('bench/planted.mjs', '../scripts/serve.mjs'),
    importOf('bench/planted.mjs', '../tests/browser/browser.mjs'),
    importOf('bench/memory/planted.mjs', '../../scripts/serve.mjs'),
    importOf('bench/limits/planted.mjs', '../speed/flops.mjs'),
    importOf('bench/training/planted.mjs', '../median.mjs'),
    importOf('scripts/planted.mjs', '../js/corpus.mjs'),
    importOf('wasm/planted.mjs', './relax_fma.mjs'),
    importOf('js/planted.mjs', 'node:fs'),
  ];
  assert.deepEqual(violations(allowed), []);
});

test('every import in wasm/, js/, web/, bench/ and scripts/ follows the one-way order', () => {
  const found = violations(allImports());
  assert.equal(found.length, 0, `imports against core → wasm → js → web:\n${listed(found)}`);
});

test('js/ imports no package listed only in devDependencies', () => {
  const dev = new Set(Object.keys(pkg.devDependencies ?? {}));
  const shipped = new Set(Object.keys(pkg.dependencies ?? {}));
  const found = allImports().filter((i) => {
    if (!i.file.startsWith('js/')) return false;
    // A package reached by a relative path into node_modules/ counts as well.
    const spec = i.target === null ? i.spec : i.target.split('node_modules/')[1];
    const name = spec === undefined ? null : packageOf(spec);
    return name !== null && dev.has(name) && !shipped.has(name);
  });
  assert.equal(found.length, 0, `js/ imports of dev dependencies:\n${listed(found)}`);
});
