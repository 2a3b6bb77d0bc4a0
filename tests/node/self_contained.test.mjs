// The project is self-contained: a fresh clone of the committed HEAD, alone in
// an empty folder, refers to nothing beside the repository and passes the
// tokenizer tests with the tokenizer it ships (models/minimind-tokenizer/).
//
// The clone gets the build output it lacks (dist/wasm/, not in git) copied in
// and node_modules linked; everything else it reads is its own. For Catch2 the
// clone is configured with CMake (about a second), its tokenizer path is
// checked to lie inside it, and the suite's built binary runs the [tokenizer]
// cases on the clone's file. Building the clone's own minimind_tests would
// compile the whole core and every test file: about 2.5 minutes on 2 cores, too
// slow for one test.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TOKENIZER = join('models', 'minimind-tokenizer', 'tokenizer.json');
// The Node tests that read MiniMind's tokenizer, and the names of their tokenizer tests.
const TOKENIZER_TESTS = ['tests/node/files.test.mjs', 'tests/node/cli.test.mjs'];
const TOKENIZER_TEST_NAMES = 'tokenizer|token display';
// The native suite as scripts/build.sh native builds it (npm test does so before these tests).
const NATIVE_TESTS = join(ROOT, 'build', 'native', 'tests', 'minimind_tests');
// A path to the shared folder beside the repository, written as a path or as join() parts.
const OUTSIDE = /\.\.[/\\]shared\b|['"]\.\.['"]\s*,\s*['"]shared['"]/;

async function has(command) {
  try {
    await run(command, ['--version']);
    return true;
  } catch {
    return false;
  }
}

const noGit = !(await has('git')) && 'git is missing: cannot clone the repository to check it is self-contained';
let scratch;
let clone;

before(async () => {
  if (noGit) return;
  scratch = mkdtempSync(join(tmpdir(), 'minimind-clone-'));
  clone = join(scratch, 'p');
  // The CI checkout may belong to another user: trust it for this clone only.
  const env = { ...process.env, GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'safe.directory', GIT_CONFIG_VALUE_0: '*' };
  await run('git', ['clone', '--quiet', ROOT, clone], { env });
  assert.deepEqual(readdirSync(scratch), ['p'], 'the clone is alone in its folder');
});

after(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

test('no tracked file refers to the shared folder beside the repository', { skip: noGit }, async () => {
  const { stdout } = await run('git', ['-C', clone, 'ls-files', '-z'], { maxBuffer: 64 << 20 });
  const files = stdout.split('\0').filter((f) => f && !f.split('/').includes('node_modules'));
  assert.ok(files.length > 100, `${files.length} tracked files`);
  const offenders = files.filter((f) => OUTSIDE.test(readFileSync(join(clone, f), 'latin1')));
  assert.deepEqual(offenders, [], 'these files read outside the repository');
});

test('the clone ships MiniMind’s tokenizer, unchanged from the one the corpus was made with', { skip: noGit }, () => {
  for (const file of ['tokenizer.json', 'tokenizer_config.json', 'LICENSE', 'README.md']) {
    assert.ok(existsSync(join(clone, 'models', 'minimind-tokenizer', file)), `models/minimind-tokenizer/${file} is not committed`);
  }
  const corpus = JSON.parse(readFileSync(join(clone, 'tests', 'fixtures', 'tokenizer_corpus.json'), 'utf8'));
  const sha256 = createHash('sha256')
    .update(readFileSync(join(clone, TOKENIZER)))
    .digest('hex');
  assert.equal(sha256, corpus.tokenizer_sha256);
});

test('the Node tokenizer tests pass in the clone', { skip: noGit }, async () => {
  const wasm = join(ROOT, 'dist', 'wasm');
  assert.ok(existsSync(join(wasm, 'minimind.mjs')), 'dist/wasm/ is not built: run bash scripts/build.sh wasm');
  cpSync(wasm, join(clone, 'dist', 'wasm'), { recursive: true });
  symlinkSync(join(ROOT, 'node_modules'), join(clone, 'node_modules'), 'dir');
  const env = { ...process.env };
  delete env.NODE_TEST_CONTEXT; // else the nested runner reports to this one in its binary format
  let stdout;
  try {
    ({ stdout } = await run(
      process.execPath,
      ['--test', '--test-reporter=tap', `--test-name-pattern=${TOKENIZER_TEST_NAMES}`, ...TOKENIZER_TESTS],
      { cwd: clone, env, maxBuffer: 64 << 20 },
    ));
  } catch (error) {
    assert.fail(`node --test failed in the clone:\n${error.stdout}\n${error.stderr}`);
  }
  const count = (name) => Number(stdout.match(new RegExp(`^# ${name} (\\d+)$`, 'm'))?.[1]);
  console.log(`# in the clone: ${count('pass')} tokenizer tests passed, ${count('skipped')} others skipped`);
  assert.equal(count('fail'), 0, stdout);
  assert.ok(count('pass') >= 3, `${count('pass')} tokenizer tests passed:\n${stdout}`);
});

test('the Catch2 tokenizer tests pass on what the clone’s CMake build reads', { skip: noGit }, async (t) => {
  if (!(await has('cmake'))) return t.skip('cmake is missing');
  if (!existsSync(NATIVE_TESTS)) return t.skip('build/native is not built: run bash scripts/build.sh native');
  const build = join(clone, 'build', 'configure');
  await run('cmake', ['-S', clone, '-B', build, '-DCMAKE_BUILD_TYPE=Release'], { maxBuffer: 64 << 20 });
  const cache = readFileSync(join(build, 'CMakeCache.txt'), 'utf8');
  const tokenizer = cache.match(/^MINIMIND_TOKENIZER_JSON:FILEPATH=(.*)$/m)?.[1];
  assert.ok(tokenizer, 'MINIMIND_TOKENIZER_JSON is not in the CMake cache');
  assert.ok(!relative(clone, tokenizer).startsWith(`..${sep}`), `the tests would read ${tokenizer}, outside the clone`);
  assert.ok(existsSync(tokenizer), `${tokenizer} does not exist`);
  let stdout;
  try {
    ({ stdout } = await run(NATIVE_TESTS, ['[tokenizer]'], {
      env: { ...process.env, MINIMIND_TOKENIZER_JSON: tokenizer },
      maxBuffer: 64 << 20,
    }));
  } catch (error) {
    assert.fail(`minimind_tests [tokenizer] failed on the clone's tokenizer:\n${error.stdout}\n${error.stderr}`);
  }
  const cases = Number(stdout.match(/All tests passed \(\d+ assertions? in (\d+) test cases?\)/)?.[1]);
  console.log(`# Catch2 [tokenizer] on the clone's tokenizer: ${cases} test cases passed`);
  assert.ok(cases > 0, stdout);
});
