// Handles the caller forgets: models, tokenizers, generators and trainers
// collected without dispose() free their Wasm memory (FinalizationRegistry),
// and ids come as any array or typed array of integers.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { test } from 'node:test';
import { promisify } from 'node:util';

import { loadMiniMind } from '../../js/minimind.mjs';

const run = promisify(execFile);

test('ids as typed arrays of any integer kind give the same logits as a plain array', async () => {
  const mm = await loadMiniMind();
  const model = mm.createModel({ preset: 'lab-a' });
  const plain = model.forward([1, 5, 9]).logits.data;
  for (const ids of [new Int32Array([1, 5, 9]), new Uint16Array([1, 5, 9]), new Uint8Array([1, 5, 9]), new Float64Array([1, 5, 9])]) {
    assert.deepEqual(model.forward(ids).logits.data, plain, ids.constructor.name);
  }
  assert.deepEqual(model.forward([new Uint16Array([1, 5, 9]), [1, 5, 9]]).logits.shape, [2, 3, 128]);
  assert.throws(() => model.forward(new Float64Array([1.5])), /integer/);
  model.dispose();
});

test('models made and dropped without dispose() do not grow the Wasm memory without bound', async () => {
  // A child process with --expose-gc: 40 lab-b models (0.6 MiB of weights each
  // as float16) dropped without dispose(); with the registry the heap stays
  // near one model's size, without it it would hold all 40.
  const script = `
    import { loadMiniMind } from ${JSON.stringify(new URL('../../js/minimind.mjs', import.meta.url).href)};
    const mm = await loadMiniMind();
    const config = { ...mm.presetConfig('lab-b'), vocab_size: 6400 };
    const sizes = [];
    for (let i = 0; i < 40; i += 1) {
      let model = mm.createModel({ config, seed: i });
      model.forward([1, 2, 3]);
      model = null;
      global.gc();
      await new Promise((resolve) => setTimeout(resolve, 5));
      sizes.push(mm.wasmMemoryBytes());
    }
    console.log(JSON.stringify(sizes));
  `;
  const { stdout } = await run(process.execPath, ['--expose-gc', '--input-type=module', '-e', script]);
  const sizes = JSON.parse(stdout);
  // One such model holds ~1.6 MiB (embedding 6400 × 96 in float16 plus layers); 40 would need > 60 MiB.
  assert.ok(sizes.at(-1) < sizes[0] + 24 * 2 ** 20, `Wasm memory ${sizes[0]} -> ${sizes.at(-1)} bytes`);
});
