// A checkpoint is judged against the module's memory before it is loaded
// (js/checkpoint_memory.mjs, called by web/worker.mjs): what it needs (its
// weights as float32, and a .pth's own bytes), what is left beside the model
// in use, and the refusal's words in zh-CN and en naming the file's size, the
// memory needed and the limit.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import {
  WASM_MAX_BYTES,
  checkCheckpointFits,
  checkCheckpointMemory,
  checkpointFileTooLarge,
  checkpointNeeds,
  isPthBytes,
} from '../../js/checkpoint_memory.mjs';
import { loadMiniMind } from '../../js/minimind.mjs';
import { errorText } from '../../web/error_text.mjs';

const MiB = 2 ** 20;
const GiB = 2 ** 30;

test('the limit is the Wasm build’s maximum memory, as wasm/CMakeLists.txt sets it', async () => {
  const { readFile } = await import('node:fs/promises');
  const cmake = await readFile(new URL('../../wasm/CMakeLists.txt', import.meta.url), 'utf8');
  const [, gb] = cmake.match(/-sMAXIMUM_MEMORY=(\d+)GB/);
  assert.equal(WASM_MAX_BYTES, Number(gb) * GiB);
});

test('what a checkpoint needs: its float32 weights, and a .pth its own bytes besides', () => {
  assert.equal(isPthBytes(new Uint8Array([0x50, 0x4b, 0x03, 0x04, 0])), true);
  assert.equal(isPthBytes(new Uint8Array([8, 0, 0, 0, 0, 0, 0, 0])), false);
  assert.equal(isPthBytes(new Uint8Array([0x50, 0x4b])), false);
  assert.equal(checkpointNeeds({ fileBytes: 200 * MiB, pth: false, weightBytes: 400 * MiB }), 400 * MiB);
  assert.equal(checkpointNeeds({ fileBytes: 200 * MiB, pth: true, weightBytes: 200 * MiB }), 400 * MiB);
  // No config: a .pth's tensors are at least 2 bytes an element, so float32 takes at most twice the file.
  assert.equal(checkpointNeeds({ fileBytes: 200 * MiB, pth: true }), 600 * MiB);
});

test('a checkpoint that does not fit beside what is in use is refused with its numbers', () => {
  const fits = { name: 'model.safetensors', fileBytes: 200 * MiB, pth: false, needed: 200 * MiB };
  assert.doesNotThrow(() => checkCheckpointFits({ ...fits, inUse: 100 * MiB }));
  assert.doesNotThrow(() => checkCheckpointFits({ ...fits, inUse: WASM_MAX_BYTES - 200 * MiB })); // exactly what is left
  const error = caught(() => checkCheckpointFits({ ...fits, inUse: WASM_MAX_BYTES - 199 * MiB }));
  assert.equal(error.name, 'MiniMindError');
  assert.equal(error.kind, 'memory.weights_too_large');
  assert.deepEqual(error.values, {
    name: 'model.safetensors',
    file: 200 * MiB,
    needed: 200 * MiB,
    limit: WASM_MAX_BYTES,
    inUse: WASM_MAX_BYTES - 199 * MiB,
    available: 199 * MiB,
  });
  const pth = caught(() => checkCheckpointFits({ name: 'out.pth', fileBytes: GiB, pth: true, needed: 3 * GiB, inUse: 1.5 * GiB }));
  assert.equal(pth.kind, 'memory.pth_too_large');
  assert.equal(pth.values.available, 2.5 * GiB);
  assert.match(
    pth.message,
    /out\.pth is 1\.00 GiB and needs up to 3\.00 GiB .* at most 4\.00 GiB, 1\.50 GiB of it in use, which leaves 2\.50 GiB/,
  );
});

test('the refusal in zh-CN and en names the file size, the memory needed and the limit', () => {
  const values = { name: 'big.pth', file: 200 * MiB, needed: 600 * MiB, limit: 4 * GiB, inUse: 3.5 * GiB, available: 0.5 * GiB };
  const en = errorText('en', { message: 'x', kind: 'memory.pth_too_large', values });
  assert.equal(en.complete, true);
  for (const part of ['big.pth is 200 MiB', 'up to 600 MiB', 'at most 4 GiB', 'take 3.5 GiB', 'leaves 512 MiB'])
    assert.ok(en.text.includes(part), `${part} in ${en.text}`);
  const zh = errorText('zh-CN', { message: 'x', kind: 'memory.weights_too_large', values: { ...values, name: 'model.safetensors' } });
  for (const part of ['model.safetensors 有 200 MiB', '最多需要 600 MiB', '最多 4 GiB', '已占 3.5 GiB', '只剩 512 MiB'])
    assert.ok(zh.text.includes(part), `${part} in ${zh.text}`);
});

test('the check reads the config’s float32 weight bytes from the core, and leaves a bad config to the load', async () => {
  const mm = await loadMiniMind();
  const config = mm.presetConfig('minimind2-small');
  const weightBytes = mm.describeConfig(config).weight_bytes;
  const bytes = new Uint8Array(16); // a safetensors' first bytes: only its length and kind matter here
  const full = { describeConfig: (c) => mm.describeConfig(c), heapBytesInUse: () => WASM_MAX_BYTES - weightBytes + 1 };
  const error = caught(() => checkCheckpointMemory(full, { name: 'model.safetensors', bytes, config: JSON.stringify(config) }));
  assert.equal(error.kind, 'memory.weights_too_large');
  assert.equal(error.values.needed, weightBytes);
  assert.equal(error.values.available, weightBytes - 1);
  const roomy = { ...full, heapBytesInUse: () => WASM_MAX_BYTES - weightBytes };
  assert.doesNotThrow(() => checkCheckpointMemory(roomy, { name: 'model.safetensors', bytes, config }));
  // A config the core rejects is not judged here: the load says what is wrong with it.
  assert.doesNotThrow(() => checkCheckpointMemory(full, { name: 'm', bytes, config: { num_attention_heads: 6, num_key_value_heads: 4 } }));
  // The module itself, as the worker calls it: a small model fits.
  assert.doesNotThrow(() => checkCheckpointMemory(mm, { name: 'lab-a', bytes, config: mm.presetConfig('lab-a') }));
});

test('a file larger than the whole memory is refused before it is read, whatever it holds', () => {
  assert.equal(checkpointFileTooLarge('model.safetensors', WASM_MAX_BYTES), null);
  const error = checkpointFileTooLarge('model.safetensors', WASM_MAX_BYTES + 1);
  assert.equal(error.kind, 'memory.file_too_large');
  assert.deepEqual(error.values, { name: 'model.safetensors', file: WASM_MAX_BYTES + 1, limit: WASM_MAX_BYTES });
  const values = { name: 'model.safetensors', file: 4.5 * GiB, limit: WASM_MAX_BYTES };
  assert.equal(
    errorText('en', { message: error.message, kind: error.kind, values }).text,
    'model.safetensors is 4.5 GiB: its weights take at least that much memory as float32, more than the 4 GiB this page’s WebAssembly memory can hold.',
  );
  assert.match(errorText('zh-CN', { kind: error.kind, values }).text, /^model\.safetensors 有 4\.5 GiB：.*4 GiB。$/);
});

function caught(f) {
  try {
    f();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}
