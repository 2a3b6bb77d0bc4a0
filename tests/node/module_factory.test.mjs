// loadMiniMind({moduleFactory}): an Emscripten module the caller imported
// itself, here the single-file build (the .wasm inlined) that the
// embeddable component bundles, computes what the default module computes.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import createMiniMindModule from '../../dist/wasm/minimind-single.mjs';
import { loadMiniMind } from '../../js/minimind.mjs';

test('the single-file module through moduleFactory: loaded once, the same numbers as the default module', async () => {
  const single = await loadMiniMind({ moduleFactory: createMiniMindModule });
  assert.equal(await loadMiniMind({ moduleFactory: createMiniMindModule }), single);
  const usual = await loadMiniMind();
  assert.notEqual(single, usual);
  const run = (mm) => {
    const model = mm.createModel({ preset: 'lab-b', seed: 5 });
    const { logits, trace } = model.forward([3, 14, 15, 92, 65], { trace: { layers: [1], stages: ['attn_weights'] } });
    model.dispose();
    return { logits: Array.from(logits.data), attention: Array.from(trace.get(1, 'attn_weights').data) };
  };
  assert.deepEqual(run(single), run(usual));
});

test('moduleFactory must be a function', () => {
  assert.throws(() => loadMiniMind({ moduleFactory: 'minimind.mjs' }), {
    name: 'TypeError',
    message: 'moduleFactory must be a function, got "minimind.mjs"',
  });
});
