// Which folder may import which, read from every static and dynamic import
// (TypeScript's preProcessFile: `import … from`, `export … from`,
// `import('…')` with a literal specifier) of every .mjs/.js file under js/,
// bench/ and scripts/ and of the top-level ESLint config:
//   js/       the application layer and the package: imports js/ only, Node's
//             builtins and the packages of `dependencies` (never one listed
//             only in devDependencies: it is not installed with the package).
//   web/      DOM, workers and views: may import js/.
//   bench/    may import js/, its own files, scripts/serve.mjs and the test
//             harness tests/browser/browser.mjs.
//   scripts/  may import js/ and tests/browser/browser.mjs; not bench/ (what a
//             script shares with a benchmark lives in js/).
//   tests/    may import anything.
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

/** Every import of the checked files: {file, spec, target}, target the repo-relative path of a relative import, else null. */
function allImports() {
  const files = [...['js', 'bench', 'scripts'].flatMap(sourceFiles), 'eslint.config.mjs'];
  return files.flatMap((file) =>
    importsOf(readFileSync(join(ROOT, file), 'utf8')).map((spec) => ({
      file,
      spec,
      target: spec.startsWith('.') ? relative(ROOT, resolve(ROOT, dirname(file), spec)) : null,
    })),
  );
}

// The package a bare specifier names ('@scope/name/sub' -> '@scope/name'), null for a Node builtin.
function packageOf(spec) {
  if (spec.startsWith('node:')) return null;
  const parts = spec.split('/');
  return spec.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

const under = (path, dir) => path === dir || path.startsWith(`${dir}/`);
const listed = (found) => found.map((i) => `${i.file} imports '${i.spec}'`).join('\n');

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

test('the checked files are found and their imports read', () => {
  const imports = allImports();
  // The CLI loads the head scores on demand: a dynamic import the check must see.
  assert.ok(imports.some((i) => i.file === 'js/cli.mjs' && i.target === 'js/head_roles.mjs'));
  assert.ok(imports.some((i) => i.file.startsWith('bench/') && under(i.target ?? '', 'js')));
  assert.ok(imports.some((i) => i.file.startsWith('scripts/') && under(i.target ?? '', 'js')));
});

test('nothing outside web/ and tests/ imports from web/', () => {
  const found = allImports().filter((i) => i.target !== null && under(i.target, 'web'));
  assert.equal(found.length, 0, `imports of web/ (move what they share into js/):\n${listed(found)}`);
});

test('js/ imports only js/: the package ships js/ alone', () => {
  const found = allImports().filter((i) => i.file.startsWith('js/') && i.target !== null && !under(i.target, 'js'));
  assert.equal(found.length, 0, `imports from js/ of files outside it:\n${listed(found)}`);
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

test('scripts/ imports nothing from bench/', () => {
  const found = allImports().filter((i) => i.file.startsWith('scripts/') && i.target !== null && under(i.target, 'bench'));
  assert.equal(found.length, 0, `imports of bench/ from scripts/ (move what they share into js/):\n${listed(found)}`);
});
