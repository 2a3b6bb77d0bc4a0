// Nothing leaks, nothing hangs, in a short soak of the playground in headless
// Chromium (bench/memory/soak.mjs; npm run bench -- --only soak runs the long one):
// 100 forward passes on changing text, 3 generations to their end, 2
// training runs started, paused, resumed and stopped, and 4 model switches,
// after a warm-up of one round of each. Every step finishes, and the tab's
// memory (JavaScript heaps, DOM and canvases as the browser measures them,
// plus every Wasm module's memory) and the bytes each worker's allocator
// hands out end within 10 % of where the warm-up left them, with the same
// model and text on screen. No time is asserted.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { TOLERANCE, runSoak } from '../../bench/memory/soak.mjs';

const COUNTS = { forwards: 100, generations: 3, trainingCycles: 2, modelSwitches: 4 };
const MiB = 2 ** 20;

test('a short soak: every step finishes and memory returns to its level after the warm-up', async (t) => {
  const result = await runSoak({ counts: COUNTS, log: (message) => t.diagnostic(message) });
  assert.deepEqual(result.completed, COUNTS);
  assert.equal(result.isolated, true);
  const { steps, memory, change } = result;
  // One forward pass in the worker per text (the trained model has no main-thread twin).
  assert.equal(steps.workerForwards, COUNTS.forwards);
  assert.equal(steps.generationTokens.length, COUNTS.generations);
  for (const rows of steps.generationTokens) assert.ok(rows > 0);
  assert.deepEqual(Object.keys(steps.generationEnds), ['eos'], 'the trained model ends these prompts itself');
  for (const batches of steps.trainingBatches) assert.ok(batches >= 2, `${batches} batches: the run went on after its resume`);
  assert.deepEqual(steps.switches, ['lab-b', 'minimind2-small', 'lab-a', 'minimind-demo']);
  // Both workers answered: the compute worker and the training worker.
  assert.equal(memory.final.workers, 2);
  assert.ok(memory.final.heap.compute > 0 && memory.final.heap.train > 0);
  const { warm, final } = memory;
  t.diagnostic(
    `tab ${(warm.tab / MiB).toFixed(1)} -> ${(final.tab / MiB).toFixed(1)} MiB; allocators: compute ${(warm.heap.compute / MiB).toFixed(1)} -> ` +
      `${(final.heap.compute / MiB).toFixed(1)}, train ${(warm.heap.train / MiB).toFixed(1)} -> ${(final.heap.train / MiB).toFixed(1)} MiB`,
  );
  for (const [what, fraction] of Object.entries(change))
    assert.ok(Math.abs(fraction) <= TOLERANCE, `${what} changed by ${(100 * fraction).toFixed(1)} % from the warm-up to the end`);
  assert.deepEqual(result.errors, []);
});
