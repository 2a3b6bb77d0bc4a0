// The GitHub Pages workflow (.github/workflows/pages.yml) publishes what a
// fork needs: its build job sets the toolchain up as `npm start` does and runs
// `npm run build`, then uploads dist/site, which the deploy job publishes.
// Here the workflow is read as YAML, its build job's `run:` steps (not the
// upload or the deployment) run in a fresh clone of the committed HEAD, and
// dist/site is checked: the playground, the gallery, the element (module and
// single file), the Wasm files and the trained model.
//
// A build from nothing compiles the core twice with Emscripten (the SIMD and
// the threads build): over ten minutes on 2 cores. So the clone starts from
// this checkout's build trees (build/wasm, build/wasm-threads, dist/wasm, as
// `npm test` leaves them), with their paths moved to the clone; a file of the
// clone gets this checkout's modification time only where its bytes are the
// same, so make recompiles exactly what the committed sources change and
// reuses the rest. MINIMIND_WERROR is unset for the build steps, so each tree
// keeps the setting it was configured with (scripts/build.sh; -Werror stops a
// build on a warning and changes no output).
// node_modules is linked entry by entry. MINIMIND_PAGES_FULL=1 builds from
// nothing instead; MINIMIND_PAGES_REPO clones another repository than this one.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import {
  copyFileSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';

import YAML from 'yaml';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const ROOT_PATH = ROOT.replace(/\/$/, '');
const WORKFLOW = '.github/workflows/pages.yml';
const FULL = process.env.MINIMIND_PAGES_FULL === '1';
const SOURCE = process.env.MINIMIND_PAGES_REPO || ROOT;
// The build trees `npm run build` reads and writes, reused from this checkout.
const TREES = ['build/wasm', 'build/wasm-threads'];
// What a deployed site must hold.
const SITE_FILES = [
  'index.html',
  'app.js',
  'worker.js',
  'train_worker.js',
  'theme.css',
  'style.css',
  'gallery.html',
  'gallery.js',
  'gallery.css',
  'minimind-attention.js',
  'minimind-attention.single.js',
  'wasm/minimind.mjs',
  'wasm/minimind.wasm',
  'wasm/minimind-threads.mjs',
  'wasm/minimind-threads.wasm',
  'wasm/minimind-threads.worker.js',
  'models/minimind-demo/config.json',
  'models/minimind-demo/model.safetensors',
  'models/minimind-demo/tokenizer.json',
  'models/minimind-demo/heads.json',
  'examples/pretrain_tiny.jsonl',
];

const noGit = await run('git', ['--version']).then(
  () => false,
  () => 'git is missing: cannot clone the repository',
);
let scratch;
let clone;
let workflow;

function readWorkflow(dir) {
  return YAML.parse(readFileSync(join(dir, WORKFLOW), 'utf8'));
}

/** The build job's steps that run commands, in order: [{name, run, env}]. */
function buildSteps(parsed) {
  const job = parsed.jobs.build;
  return job.steps
    .filter((step) => step.run)
    .map((step) => ({ name: step.name ?? step.run, run: step.run, env: { ...job.env, ...step.env } }));
}

function textFiles(dir, visit) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) textFiles(path, visit);
    else if (entry.isFile()) {
      const bytes = readFileSync(path);
      if (!bytes.includes(0)) visit(path, bytes.toString('utf8'));
    }
  }
}

// This checkout's path where it stands alone in a text (not a prefix of another name).
const ROOT_PATTERN = new RegExp(`${ROOT_PATH.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\w.-])`, 'g');

/** Copies a build tree of this checkout into the clone, its paths moved there, its times kept. */
function seedTree(tree) {
  const to = join(clone, tree);
  cpSync(join(ROOT, tree), to, { recursive: true, preserveTimestamps: true, verbatimSymlinks: true });
  textFiles(to, (path, text) => {
    if (!ROOT_PATTERN.test(text)) return;
    ROOT_PATTERN.lastIndex = 0;
    const { atime, mtime } = statSync(path);
    writeFileSync(path, text.replace(ROOT_PATTERN, clone));
    utimesSync(path, atime, mtime);
  });
  ROOT_PATTERN.lastIndex = 0;
}

/** Gives each tracked file of the clone this checkout's time where the bytes are the same: make then rebuilds only what differs. */
async function alignTimes() {
  const { stdout } = await run('git', ['-C', clone, 'ls-files', '-z'], { maxBuffer: 64 << 20 });
  let same = 0;
  let different = 0;
  for (const file of stdout.split('\0').filter(Boolean)) {
    const ours = join(ROOT, file);
    const theirs = join(clone, file);
    if (!existsSync(ours) || !lstatSync(ours).isFile() || !lstatSync(theirs).isFile()) continue;
    const a = statSync(ours);
    if (a.size === statSync(theirs).size && readFileSync(ours).equals(readFileSync(theirs))) {
      utimesSync(theirs, a.atime, a.mtime);
      same += 1;
    } else {
      different += 1;
    }
  }
  return { same, different };
}

/** node_modules of this checkout, linked entry by entry (npm ci in the clone would replace the links, never the packages). */
function linkNodeModules() {
  const from = join(ROOT, 'node_modules');
  const to = join(clone, 'node_modules');
  mkdirSync(to);
  for (const name of readdirSync(from)) {
    if (name === '.package-lock.json') continue;
    symlinkSync(join(from, name), join(to, name));
  }
  copyFileSync(join(from, '.package-lock.json'), join(to, '.package-lock.json'));
  const { atime, mtime } = statSync(join(from, '.package-lock.json'));
  utimesSync(join(to, '.package-lock.json'), atime, mtime);
}

before(async () => {
  if (noGit) return;
  // CMake quotes a path with a '-' (or a space...) in the Wasm tree's response
  // files: a clone path quoted where this checkout's is not (or the reverse)
  // rewrites every includes_CXX.rsp, and every file recompiles.
  const quoted = /[^\w./+:]/.test(ROOT_PATH);
  scratch = mkdtempSync(join(tmpdir(), quoted ? 'minimind-pages-' : 'minimind_pages_'));
  clone = join(scratch, 'site');
  // The CI checkout may belong to another user: trust it for this clone only.
  const env = { ...process.env, GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'safe.directory', GIT_CONFIG_VALUE_0: '*' };
  await run('git', ['clone', '--quiet', SOURCE, clone], { env });
  workflow = readWorkflow(clone);
});

after(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

test('the workflow builds on push to main, uploads dist/site and deploys it to GitHub Pages', { skip: noGit }, () => {
  assert.deepEqual(workflow.on.push.branches, ['main']);
  assert.ok('workflow_dispatch' in workflow.on, 'it can be run by hand');
  assert.equal(workflow.permissions.pages, 'write');
  assert.equal(workflow.permissions['id-token'], 'write');
  const steps = workflow.jobs.build.steps;
  const uses = steps.map((s) => s.uses?.split('@')[0] ?? 'run');
  assert.deepEqual(uses, ['actions/checkout', 'actions/setup-node', 'run', 'run', 'actions/upload-pages-artifact']);
  assert.equal(steps.at(-1).with.path, 'dist/site');
  const deploy = workflow.jobs.deploy;
  assert.equal(deploy.needs, 'build');
  assert.equal(deploy.environment.name, 'github-pages');
  assert.deepEqual(
    deploy.steps.map((s) => s.uses?.split('@')[0]),
    ['actions/deploy-pages'],
  );
});

test(
  'its build steps set the toolchain up as npm start does and run npm run build, which builds what npm start serves',
  { skip: noGit },
  () => {
    const commands = buildSteps(workflow).map((s) => s.run.trim());
    assert.deepEqual(commands, ['bash scripts/setup.sh', 'npm run build']);
    const start = readFileSync(join(clone, 'scripts/start.sh'), 'utf8');
    assert.ok(start.split('\n').includes(commands[0]), 'scripts/start.sh sets up with the same command');
    // Every build command of npm start (without its redirections) is part of the build script.
    const build = JSON.parse(readFileSync(join(clone, 'package.json'), 'utf8'))
      .scripts.build.split('&&')
      .map((c) => c.trim());
    const startBuilds = start
      .split('\n')
      .filter((line) => /^(bash scripts\/build\.sh|node scripts\/build_site\.mjs)/.test(line))
      .map((line) => line.replace(/\s*>\s*\/dev\/null\s*$/, '').trim());
    assert.ok(startBuilds.length >= 2, startBuilds.join('\n'));
    assert.deepEqual(build, startBuilds);
  },
);

test(
  'the build steps, run on a clean clone, write a site with the playground, gallery, element, Wasm and trained model',
  { skip: noGit, timeout: 40 * 60_000 },
  async (t) => {
    const reuse = !FULL && TREES.every((tree) => existsSync(join(ROOT, tree, 'CMakeCache.txt'))) && existsSync(join(ROOT, 'dist/wasm'));
    if (!FULL && !reuse)
      return t.skip('build/wasm and build/wasm-threads are not built here (npm run build); MINIMIND_PAGES_FULL=1 builds from nothing');
    const started = Date.now();
    const env = { ...process.env, CI: 'true' };
    delete env.NODE_TEST_CONTEXT;
    delete env.MINIMIND_WERROR; // each reused tree keeps its own (a new one: off)
    const guarded = ['dist/wasm/minimind.wasm', 'dist/wasm/minimind-threads.wasm', 'dist/site/index.html'].filter((f) =>
      existsSync(join(ROOT, f)),
    );
    const before = guarded.map((f) => statSync(join(ROOT, f)).mtimeMs);
    if (reuse) {
      for (const tree of TREES) seedTree(tree);
      cpSync(join(ROOT, 'dist/wasm'), join(clone, 'dist/wasm'), { recursive: true, preserveTimestamps: true });
      // Nothing copied may still point into this checkout, or the clone's build would write here.
      for (const tree of TREES)
        textFiles(join(clone, tree), (path, text) => assert.ok(!ROOT_PATTERN.test(text), `${path} names this checkout`));
      const { same, different } = await alignTimes();
      console.log(`# reused build trees; ${same} tracked files as here, ${different} that differ from this checkout`);
    }
    linkNodeModules();

    let compiled = 0;
    const firstBuilt = [];
    for (const step of buildSteps(workflow)) {
      const stepStarted = Date.now();
      let output;
      try {
        output = await run('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', step.run], {
          cwd: clone,
          env: { ...env, ...step.env },
          maxBuffer: 256 << 20,
        });
      } catch (error) {
        assert.fail(`the step "${step.name}" failed in the clone:\n${error.stdout}\n${error.stderr}`);
      }
      const built = [...output.stdout.matchAll(/Building CXX object (\S+)/g)].map((m) => m[1]);
      compiled += built.length;
      firstBuilt.push(...built.slice(0, 3 - firstBuilt.length));
      console.log(`# step "${step.name}": ${((Date.now() - stepStarted) / 1000).toFixed(1)} s`);
    }
    console.log(`# ${compiled} C++ files compiled; the build steps took ${((Date.now() - started) / 1000).toFixed(1)} s in all`);
    if (reuse && compiled > 0) {
      // Reused trees should compile only what the clone changes: say why they did not.
      const differ = ['flags.make', 'includes_CXX.rsp'].flatMap((name) => {
        const file = `build/wasm/core/CMakeFiles/minimind_core.dir/${name}`;
        const ours = readFileSync(join(ROOT, file), 'utf8').replace(ROOT_PATTERN, clone).split('\n');
        return readFileSync(join(clone, file), 'utf8')
          .split('\n')
          .filter((line) => !ours.includes(line))
          .map((line) => `${name}: ${line}`);
      });
      console.log(`# first compiled: ${firstBuilt.join(', ')}; core's build lines not as here: ${differ.join(' | ') || 'none'}`);
    }

    const site = join(clone, 'dist/site');
    const missing = SITE_FILES.filter((f) => !existsSync(join(site, f)));
    assert.deepEqual(missing, [], 'dist/site lacks these files');
    for (const wasm of ['wasm/minimind.wasm', 'wasm/minimind-threads.wasm'])
      assert.deepEqual([...readFileSync(join(site, wasm)).subarray(0, 4)], [0x00, 0x61, 0x73, 0x6d], `${wasm} is WebAssembly`);
    // The site's files are the clone's build: its Wasm, its model.
    assert.ok(readFileSync(join(site, 'wasm/minimind.wasm')).equals(readFileSync(join(clone, 'dist/wasm/minimind.wasm'))));
    const config = (dir) => JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'));
    assert.deepEqual(config(join(site, 'models/minimind-demo')), config(join(clone, 'models/minimind-demo')));
    const heads = JSON.parse(readFileSync(join(site, 'models/minimind-demo/heads.json'), 'utf8'));
    assert.ok(heads.pronounHead, 'the trained model comes with its measured heads');
    const index = readFileSync(join(site, 'index.html'), 'utf8');
    assert.match(index, /<script[^>]+src="\.?\/?app\.js"/, 'the page loads its bundle');
    assert.match(readFileSync(join(site, 'gallery.html'), 'utf8'), /gallery\.js/);
    const element = readFileSync(join(site, 'minimind-attention.js'), 'utf8');
    assert.ok(
      element.includes("'minimind-attention'") || element.includes('"minimind-attention"'),
      'the element defines <minimind-attention>',
    );
    // This checkout's own files were not written by the clone's build.
    assert.deepEqual(
      guarded.map((f) => statSync(join(ROOT, f)).mtimeMs),
      before,
    );
  },
);
