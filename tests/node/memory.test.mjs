// Loading a float16 checkpoint needs the weights as stored plus a bounded
// working set, not a copy of the file inside Wasm memory (issue target:
// weights + 64 MiB). Wasm memory never shrinks: its size after loading is
// the peak. Measured by bench/memory/load_memory.mjs, which BENCHMARKS.md reports.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { measureLoadMemory } from '../../bench/memory/load_memory.mjs';

const MiB = 2 ** 20;

test('an F16 minimind2-small checkpoint loads within its stored weights + 64 MiB of Wasm memory', async () => {
  const r = await measureLoadMemory('minimind2-small');
  // The weights stay float16: about half the float32 size.
  assert.equal(r.storage.F32, 17); // norms only
  assert.ok(r.storedBytes < 0.55 * r.fileBytes * 2, `${r.storedBytes} bytes stored`);
  assert.ok(r.streamed.peak <= r.limit, `peak ${(r.streamed.peak / MiB).toFixed(1)} MiB > ${(r.limit / MiB).toFixed(1)} MiB`);
  // Copying the whole file in first would cost at least the file's size more.
  assert.ok(r.whole.peak - r.streamed.peak > 0.8 * r.fileBytes, JSON.stringify(r));
  console.log(
    `# streamed peak ${(r.streamed.peak / MiB).toFixed(1)} MiB, whole-file peak ${(r.whole.peak / MiB).toFixed(1)} MiB, stored weights ${(r.storedBytes / MiB).toFixed(1)} MiB`,
  );
});
