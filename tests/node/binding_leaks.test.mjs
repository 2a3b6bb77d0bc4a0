// Error paths free what they allocate, in every build that ships (the page's
// one-thread SIMD and relaxed builds, their pthreads twins, the single-file
// component's inlined build) and the scalar one: after a warm-up,
// 10,000 failing calls of each of three kinds (an id past the vocabulary, an
// impossible config, a mask of the wrong length) leave the allocator's bytes
// in use where they were. The pthreads builds throw JS exceptions through
// Wasm frames (-fexceptions), the others Wasm exceptions.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { MiniMindError } from '../../js/minimind.mjs';
import { builtVariant, loadRaw } from './binding_raw.mjs';
import './variants.mjs'; // turns on relaxed SIMD in a Node that has it behind a flag

const CALLS = 10000;
const WARM_UP = 200;

function failingCalls(raw, model, vocab) {
  const badIds = new Int32Array([5, vocab]);
  const ids = new Int32Array([5, 6, 7, 8]);
  const shortMask = new Int32Array(3).fill(1);
  const options = JSON.stringify({ trace: {} });
  const badConfig = JSON.stringify({ hidden_size: 64, num_attention_heads: 6, num_key_value_heads: 4, vocab_size: vocab });
  return {
    'bad ids': () => model.forward(badIds, 1, new Int32Array(0), options),
    'bad config': () => raw.NativeModel.fromConfig(badConfig, 0, undefined, 'narrowest', 'playground'),
    'bad mask': () => model.forward(ids, 1, shortMask, options),
  };
}

function expectThrow(call, name) {
  try {
    call();
  } catch (error) {
    if (!(error instanceof MiniMindError)) throw error;
    return error.kind;
  }
  assert.fail(`${name}: the call did not throw`);
}

for (const variant of ['simd', 'relaxed', 'threads', 'relaxed-threads', 'single', 'scalar']) {
  test(`${variant}: ${CALLS} failing calls of each kind leave the heap where the warm-up left it`, async (t) => {
    if (!builtVariant(variant)) return t.skip(`the ${variant} build is not in dist/wasm (scripts/build.sh)`);
    const { mm, raw } = await loadRaw(variant);
    const vocab = mm.presetConfig('lab-a').vocab_size;
    const model = raw.NativeModel.fromPreset('lab-a', 0, undefined, 'narrowest', 'playground');
    const calls = failingCalls(raw, model, vocab);
    const kinds = {};
    for (const [name, call] of Object.entries(calls)) {
      for (let i = 0; i < WARM_UP; i++) kinds[name] = expectThrow(call, name);
    }
    assert.deepEqual(kinds, { 'bad ids': 'token_id.out_of_range', 'bad config': 'config.invalid', 'bad mask': 'binding.size_mismatch' });
    const before = mm.heapBytesInUse();
    const memoryBefore = mm.wasmMemoryBytes();
    const grown = {};
    for (const [name, call] of Object.entries(calls)) {
      const start = mm.heapBytesInUse();
      for (let i = 0; i < CALLS; i++) expectThrow(call, name);
      grown[name] = mm.heapBytesInUse() - start;
    }
    const afterCalls = mm.heapBytesInUse();
    t.diagnostic(
      `${variant}: heap in use ${before} -> ${afterCalls} bytes (${JSON.stringify(grown)}), Wasm memory ${memoryBefore} -> ${mm.wasmMemoryBytes()}`,
    );
    assert.deepEqual(grown, { 'bad ids': 0, 'bad config': 0, 'bad mask': 0 });
    assert.equal(afterCalls, before);
    model.delete();
  });
}
