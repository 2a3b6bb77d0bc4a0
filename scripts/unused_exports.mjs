#!/usr/bin/env node
// Exports that no module imports. ESLint's no-unused-vars sees one file at a
// time, so an `export` that lost its last importer stays unseen: this reads
// every .mjs/.js file in js/ web/ bench/ scripts/ tests/ wasm/ (TypeScript's
// parser, as tests/node/layers.test.mjs), collects what each exports and what
// each imports, and lists the exports nobody imports.
//
// An import counts for the module it names (a relative path, or a path from
// the site's root such as '/js/minimind.mjs' in a browser test):
//   import { a as b } from './m.mjs'      uses a
//   import m from './m.mjs'               uses default
//   import * as m from './m.mjs'          uses every export of m
//   export { a } from './m.mjs'           uses a (and exports it again)
//   export * from './m.mjs'               uses every export of m
//   const { a } = await import('./m.mjs') uses a; any other import() uses all
// The package's public API is used by its readers outside the repo: the
// exports of js/minimind.mjs and js/chat_template.mjs that their .d.mts
// declare (package.json "exports").
//
// usage: node scripts/unused_exports.mjs [--root DIR]
// Prints one line per unused export (file:line name) and exits 1 if any.
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

import ts from 'typescript';

const FOLDERS = Object.freeze(['js', 'web', 'bench', 'scripts', 'tests', 'wasm']);
/** The package's entry points: module -> the declaration file that lists its public exports. */
const PUBLIC_API = Object.freeze({
  'js/minimind.mjs': 'js/minimind.d.mts',
  'js/chat_template.mjs': 'js/chat_template.d.mts',
});
/**
 * Modules the site's build puts in place of others (scripts/build_site.mjs, the
 * single-file element): stand-in -> the module it replaces, whose importers it serves.
 */
const STAND_INS = Object.freeze({
  'web/component/module_source_single.mjs': 'web/component/module_source.mjs',
  'web/component/demo_source_single.mjs': 'web/demo_source.mjs',
});
/** Exports the site's build reads without an import: esbuild's `inject` puts scriptUrl where the bundle says import.meta.url. */
const BUILD_USES = Object.freeze({ 'web/component/script_url.mjs': ['scriptUrl'] });
const ALL = '*';

function sourceFiles(root, dir) {
  if (!existsSync(join(root, dir))) return [];
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sourceFiles(root, path);
    return /\.(mjs|js)$/.test(entry.name) ? [path] : [];
  });
}

const parse = (path, text) => ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
const hasExport = (node) => ts.getModifiers?.(node)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword) ?? false;
const hasDefault = (node) => ts.getModifiers?.(node)?.some((m) => m.kind === ts.SyntaxKind.DefaultKeyword) ?? false;

function bindingNames(name, out = []) {
  if (ts.isIdentifier(name)) out.push(name.text);
  else for (const element of name.elements) if (!ts.isOmittedExpression(element)) bindingNames(element.name, out);
  return out;
}

/** The names `source` exports: [{name, line}] ('default' for a default export). */
function exportsOf(source) {
  const out = [];
  const line = (node) => source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
  for (const node of source.statements) {
    if (ts.isExportAssignment(node)) out.push({ name: 'default', line: line(node) });
    else if (ts.isExportDeclaration(node)) {
      if (node.exportClause && ts.isNamedExports(node.exportClause))
        for (const element of node.exportClause.elements) out.push({ name: element.name.text, line: line(element) });
    } else if (hasExport(node)) {
      if (hasDefault(node)) out.push({ name: 'default', line: line(node) });
      else if (ts.isVariableStatement(node))
        for (const declaration of node.declarationList.declarations)
          for (const name of bindingNames(declaration.name)) out.push({ name, line: line(declaration) });
      else if (node.name) out.push({ name: node.name.text, line: line(node) });
    }
  }
  return out;
}

// The module path a specifier names, repo-relative, or null (a package or a builtin).
function target(root, file, spec) {
  const path = spec.replace(/[?#].*$/u, '');
  if (path.startsWith('/')) return path.slice(1);
  if (!path.startsWith('.')) return null;
  return relative(root, resolve(root, dirname(file), path))
    .split('\\')
    .join('/');
}

// The literal start of an import()'s argument: 'x', `x`, or the head of `x${y}`.
function literalSpecifier(argument) {
  if (!argument) return null;
  if (ts.isStringLiteral(argument) || ts.isNoSubstitutionTemplateLiteral(argument)) return argument.text;
  if (ts.isTemplateExpression(argument) && /\.m?js(\?|$)/u.test(argument.head.text)) return argument.head.text;
  return null;
}

// The names a dynamic import() is destructured into (`const { a } = await import(…)`), or ALL.
function dynamicNames(call) {
  let node = call.parent;
  while (node && (ts.isAwaitExpression(node) || ts.isParenthesizedExpression(node))) node = node.parent;
  if (node && ts.isVariableDeclaration(node) && ts.isObjectBindingPattern(node.name) && node.initializer !== undefined) {
    const names = node.name.elements.map((e) => (e.propertyName ?? e.name).getText());
    if (!node.name.elements.some((e) => e.dotDotDotToken)) return names;
  }
  return [ALL];
}

/** What `source` (at repo-relative `file`) imports: [{module, names}], names ['*'] for all of it. */
function importsOf(root, file, source) {
  const out = [];
  const add = (spec, names) => {
    const module = target(root, file, spec);
    if (module !== null) out.push({ module, names });
  };
  for (const node of source.statements) {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const names = [];
      if (clause?.name) names.push('default');
      const bindings = clause?.namedBindings;
      if (bindings && ts.isNamespaceImport(bindings)) names.push(ALL);
      if (bindings && ts.isNamedImports(bindings)) for (const e of bindings.elements) names.push((e.propertyName ?? e.name).text);
      add(node.moduleSpecifier.text, names);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.exportClause;
      const names = !clause || ts.isNamespaceExport(clause) ? [ALL] : clause.elements.map((e) => (e.propertyName ?? e.name).text);
      add(node.moduleSpecifier.text, names);
    }
  }
  const visit = (node) => {
    if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const spec = literalSpecifier(node.arguments[0]);
      if (spec !== null) add(spec, dynamicNames(node));
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

/** The names a declaration file exports (the public API it describes). */
function declaredNames(root, path) {
  const file = join(root, path);
  if (!existsSync(file)) return [];
  return exportsOf(parse(path, readFileSync(file, 'utf8'))).map((e) => e.name);
}

/** The unused exports under `root`: [{file, line, name}], in file order. */
export function unusedExports(root) {
  const files = FOLDERS.flatMap((dir) => sourceFiles(root, dir));
  const used = new Map(); // module -> Set of names ('*' = all)
  const use = (module, names) => {
    if (!used.has(module)) used.set(module, new Set());
    for (const name of names) used.get(module).add(name);
  };
  for (const [module, declarations] of Object.entries(PUBLIC_API)) use(module, declaredNames(root, declarations));
  for (const [module, names] of Object.entries(BUILD_USES)) use(module, names);
  const exported = [];
  for (const file of files) {
    const source = parse(file, readFileSync(join(root, file), 'utf8'));
    for (const { module, names } of importsOf(root, file, source)) use(module, names);
    for (const e of exportsOf(source)) exported.push({ file, ...e });
  }
  return exported.filter(({ file, name }) => {
    const names = used.get(STAND_INS[file] ?? file);
    return !names || !(names.has(ALL) || names.has(name));
  });
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values } = parseArgs({ options: { root: { type: 'string' } } });
  const root = resolve(values.root ?? fileURLToPath(new URL('..', import.meta.url)));
  const unused = unusedExports(root);
  for (const { file, line, name } of unused) console.log(`${file}:${line} ${name}`);
  if (unused.length > 0) {
    console.error(`${unused.length} exports that no module imports: drop the export (or the code, if nothing uses it)`);
    process.exitCode = 1;
  }
}
