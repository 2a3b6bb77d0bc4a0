// scripts/unused_exports.mjs (the lint step's check that every export has an
// importer) on a planted tree in a temp folder: it lists the export nobody
// imports, and only that one, whichever way the others are imported.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { unusedExports } from '../../scripts/unused_exports.mjs';

const SCRIPT = fileURLToPath(new URL('../../scripts/unused_exports.mjs', import.meta.url));

function plant(files) {
  const root = mkdtempSync(join(tmpdir(), 'unused-exports-'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

const TREE = {
  'js/shapes.mjs': [
    'export function named() {}',
    'export const { destructured, other } = { destructured: 1, other: 2 };',
    'export default 3;',
    'export class Planted {}', // nobody imports it
    'function local() {}',
    'export { local as renamed };',
  ].join('\n'),
  'js/all.mjs': 'export const viaNamespace = 1;\nexport const viaStar = 2;',
  'js/dynamic.mjs': 'export const picked = 1;\nexport const notPicked = 2;',
  'js/minimind.mjs': 'export const publicApi = 1;\nexport const internal = 2;',
  'js/minimind.d.mts': 'export declare const publicApi: number;',
  'web/page.mjs': [
    "import three, { named as n } from '../js/shapes.mjs';",
    "import * as all from '../js/all.mjs';",
    "export { destructured, renamed } from '../js/shapes.mjs';",
    "const { picked } = await import('../js/dynamic.mjs');",
    "// import { notPicked } from '../js/dynamic.mjs';",
    'const text = "import { internal } from \'../js/minimind.mjs\'";',
    'console.log(three, n, all, picked, text);',
  ].join('\n'),
  'tests/page.test.mjs': [
    "import { destructured, renamed } from '../web/page.mjs';",
    "import { other } from '../js/shapes.mjs';",
    'console.log(other, destructured, renamed);',
  ].join('\n'),
  'bench/run.mjs': "import { viaStar } from '../scripts/again.mjs';\nconsole.log(viaStar);",
  'scripts/again.mjs': "export * from '../js/all.mjs';",
};

test('it lists the planted unused exports, and no export that is imported some way', () => {
  const root = plant(TREE);
  try {
    const found = unusedExports(root)
      .map(({ file, line, name }) => `${file}:${line} ${name}`)
      .sort();
    // notPicked: a destructured import() takes only what it names; internal: the
    // d.mts leaves it out of the public API and a string is not an import.
    assert.deepEqual(found, ['js/dynamic.mjs:2 notPicked', 'js/minimind.mjs:2 internal', 'js/shapes.mjs:4 Planted']);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('the command exits 1 naming each unused export, 0 on a tree without one', () => {
  const root = plant({
    'js/a.mjs': 'export const used = 1;\nexport const planted = 2;',
    'web/b.mjs': "import { used } from '../js/a.mjs';\nconsole.log(used);",
  });
  try {
    const run = spawnSync(process.execPath, [SCRIPT, '--root', root], { encoding: 'utf8' });
    assert.equal(run.status, 1);
    assert.equal(run.stdout, 'js/a.mjs:2 planted\n');
    assert.match(run.stderr, /1 exports that no module imports/);
    writeFileSync(join(root, 'web/b.mjs'), "import { used, planted } from '../js/a.mjs';\nconsole.log(used, planted);");
    assert.equal(execFileSync(process.execPath, [SCRIPT, '--root', root], { encoding: 'utf8' }), '');
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
