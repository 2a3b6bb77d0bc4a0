// Shared helpers of the Node tests: fixture access, float comparison and the CLI.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';

export const FIXTURES = new URL('../fixtures/', import.meta.url);
export const GOLDEN_CASES = ['gen3_dense', 'gen2_dense', 'gen3_moe', 'gen2_moe', 'untied_theta1e4', 'gen3_yarn'];
const FIXTURE_FORMAT_VERSION = '1';

// A minimal safetensors reader for the expected-value files (F32 and I32).
export function readSafetensors(bytes) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const headerLength = Number(view.getBigUint64(0, true));
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + headerLength)));
  const dataStart = bytes.byteOffset + 8 + headerLength;
  const tensors = {};
  for (const [name, entry] of Object.entries(header)) {
    if (name === '__metadata__') continue;
    const [begin, end] = entry.data_offsets;
    const copy = bytes.buffer.slice(dataStart + begin, dataStart + end);
    const data = entry.dtype === 'I32' ? new Int32Array(copy) : new Float32Array(copy);
    tensors[name] = { shape: entry.shape, data };
  }
  return { metadata: header.__metadata__ ?? {}, tensors };
}

export function loadCase(name) {
  const dir = new URL(`${name}/`, FIXTURES);
  const expected = readSafetensors(readFileSync(new URL('expected.safetensors', dir)));
  if (expected.metadata.format_version !== FIXTURE_FORMAT_VERSION) {
    throw new Error(`${name}: fixture format_version ${expected.metadata.format_version}; re-run /usr/bin/python3 tests/make_fixtures.py`);
  }
  return {
    dir,
    config: readFileSync(new URL('config.json', dir), 'utf8'),
    weights: new Uint8Array(readFileSync(new URL('model.safetensors', dir))),
    expected,
  };
}

// Rows of a [B, T] I32 tensor.
export function rows(tensor) {
  const [B, T] = tensor.shape;
  return Array.from({ length: B }, (_, b) => Array.from(tensor.data.subarray(b * T, (b + 1) * T)));
}

// Throws with the first index where |a - e| > atol + rtol·|e|.
export function assertClose(actual, expected, { atol = 1e-5, rtol = 1e-4, what = 'values' } = {}) {
  if (actual.length !== expected.length) throw new Error(`${what}: ${actual.length} values, expected ${expected.length}`);
  let maxDiff = 0;
  for (let i = 0; i < actual.length; i += 1) {
    const a = actual[i];
    const e = expected[i];
    const diff = Math.abs(a - e);
    if (!(diff <= atol + rtol * Math.abs(e))) throw new Error(`${what}: index ${i}: got ${a}, expected ${e} (|diff| ${diff})`);
    maxDiff = Math.max(maxDiff, diff);
  }
  return maxDiff;
}

/**
 * model.trainer() options for a recipe of tests/fixtures/train/ (recipes.json, snake_case as
 * tests/make_fixtures.py writes it) over that case's data.json: the sequences in file order.
 */
export function recipeTrainerOptions(recipe, data) {
  return {
    data: data.sequences,
    maxSeqLen: data.max_seq_len,
    batchSize: recipe.batch_size,
    accumulationSteps: recipe.accumulation_steps,
    epochs: recipe.epochs,
    learningRate: recipe.learning_rate,
    gradClip: recipe.grad_clip,
    order: 'file',
  };
}

const CLI = new URL('../../js/cli.mjs', import.meta.url).pathname;

/** Runs `node js/cli.mjs ...args`: {code, stdout, stderr}, a failure's exit code instead of a throw. */
export async function runCli(...args) {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [CLI, ...args], { maxBuffer: 64 << 20 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    return { code: error.code, stdout: error.stdout, stderr: error.stderr };
  }
}
