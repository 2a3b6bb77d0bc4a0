// The bindings defend themselves: called directly (past the JS API's
// checks) with arrays of the wrong size, each throws the module's one error
// type (MiniMindError with a kind and values) and the module keeps working.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';

import { MiniMindError } from '../../js/minimind.mjs';
import { loadRaw } from './binding_raw.mjs';

const { mm, raw } = await loadRaw('simd');
const config = mm.presetConfig('lab-a');
const model = raw.NativeModel.fromPreset('lab-a', 0, undefined, 'narrowest', 'playground');
const OPTIONS = JSON.stringify({ trace: {} });
after(() => model.delete());

function caught(call) {
  try {
    call();
  } catch (error) {
    return error;
  }
  assert.fail('the call did not throw');
}

function assertSizeMismatch(call, values) {
  const error = caught(call);
  assert.ok(error instanceof MiniMindError, String(error));
  assert.equal(error.kind, 'binding.size_mismatch');
  assert.deepEqual(error.values, values);
  assert.match(error.message, new RegExp(`${values.argument} has ${values.got} entries, expected ${values.expected}`));
}

function stillWorks() {
  const out = model.forward(new Int32Array([5, 6, 7]), 1, new Int32Array(0), OPTIONS);
  assert.deepEqual([...out.logitsShape], [1, 3, config.vocab_size]);
  assert.equal(out.logits.length, 3 * config.vocab_size);
}

test('forward: a mask shorter or longer than the ids throws binding.size_mismatch', () => {
  const ids = new Int32Array([5, 6, 7, 8]);
  assertSizeMismatch(() => model.forward(ids, 2, new Int32Array(3).fill(1), OPTIONS), { argument: 'mask', expected: 4, got: 3 });
  assertSizeMismatch(() => model.forward(ids, 1, new Int32Array(9).fill(1), OPTIONS), { argument: 'mask', expected: 4, got: 9 });
  // The last row's slice would have run past a short mask's end: nothing was read.
  assertSizeMismatch(() => model.forward(ids, 4, new Int32Array(1), OPTIONS), { argument: 'mask', expected: 4, got: 1 });
  stillWorks();
  // The right length is taken: a batch of two with its mask.
  const out = model.forward(ids, 2, new Int32Array([1, 1, 1, 1]), OPTIONS);
  assert.deepEqual([...out.logitsShape], [2, 2, config.vocab_size]);
});

test('forward: an id past the vocabulary throws token_id.out_of_range with its values', () => {
  const error = caught(() => model.forward(new Int32Array([5, config.vocab_size]), 1, new Int32Array(0), OPTIONS));
  assert.ok(error instanceof MiniMindError);
  assert.equal(error.kind, 'token_id.out_of_range');
  assert.deepEqual(error.values, { id: config.vocab_size, position: 1, last: config.vocab_size - 1 });
  stillWorks();
});

test('patch: clean and corrupt ids of different lengths throw interp.length_mismatch', () => {
  const error = caught(() => model.patch(new Int32Array([5, 6, 7]), new Int32Array([5, 6]), JSON.stringify({ answer: 8, wrong: 9 })));
  assert.ok(error instanceof MiniMindError);
  assert.equal(error.kind, 'interp.length_mismatch');
  assert.deepEqual(error.values, { clean: 3, corrupt: 2 });
  stillWorks();
});

test('attribute: a position past the ids throws interp.position_out_of_range', () => {
  const error = caught(() => model.attribute(new Int32Array([5, 6, 7]), JSON.stringify({ position: 3, answer: 8, wrong: 9 })));
  assert.ok(error instanceof MiniMindError);
  assert.equal(error.kind, 'interp.position_out_of_range');
  assert.equal(error.values.position, 3);
  stillWorks();
});
