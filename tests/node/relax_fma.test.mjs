// The relaxed build's post-link pass (wasm/relax_fma.mjs): it renames the
// prototype fma opcode clang 14 emits to f32x4.relaxed_madd by decoding the
// code section, so bytes that only look like the opcode (a v128.const, an
// i32.const's LEB128, a data segment) stay as they are.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import createWabt from 'wabt';

import { PROTOTYPE_FMA, RELAXED_MADD, WasmDecodeError, relaxFma, renameSimdOpcode, simdOpcodeCounts } from '../../wasm/relax_fma.mjs';

const wabt = await createWabt();
const FEATURES = { relaxed_simd: true, threads: true, exceptions: true, bulk_memory: true, simd: true };

function assemble(wat) {
  const module = wabt.parseWat('test.wat', wat, FEATURES);
  try {
    return Uint8Array.from(module.toBinary({}).buffer);
  } finally {
    module.destroy();
  }
}

function validates(bytes) {
  try {
    const module = wabt.readWasm(bytes, { readDebugNames: false, ...FEATURES });
    module.validate();
    module.destroy();
    return true;
  } catch {
    return false;
  }
}

function countOf(bytes, op) {
  return simdOpcodeCounts(bytes).get(op) ?? 0;
}

// Two relaxed_madd among instructions whose immediates hold the opcodes' bytes:
// 0xfd 0xaf 0x01 is the prototype's encoding, 0xfd 0x85 0x02 relaxed_madd's;
// i32.const 22525 and 33533 are those same three bytes as LEB128.
const WAT = `(module
  (memory 1 1)
  (data (i32.const 64) "\\fd\\af\\01\\fd\\85\\02")
  (tag $oops)
  (func $madd (export "madd") (param $a i32) (result f32)
    (local $v v128)
    (local.set $v (v128.const i8x16 0xfd 0xaf 0x01 0xfd 0x85 0x02 0 0 0 0 0 0 0 0 0 0))
    (local.set $v
      (f32x4.relaxed_madd (v128.load offset=16 (local.get $a)) (local.get $v) (f32x4.splat (f32.const 2))))
    (drop (i32.const 22525))
    (drop (i32.const 33533))
    (drop (i8x16.shuffle 31 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 (local.get $v) (local.get $v)))
    (block $out
      (br_table $out $out (i32.const 1)))
    (try
      (do (throw $oops))
      (catch_all))
    (memory.fill (i32.const 0) (i32.const 0) (i32.const 4))
    (drop (i32.atomic.rmw.add offset=8 (local.get $a) (i32.const 1)))
    (local.set $v (f32x4.relaxed_madd (local.get $v) (local.get $v) (local.get $v)))
    (f32x4.extract_lane 2 (local.get $v))))`;

test('prototype fma opcodes become relaxed_madd and nothing else changes', () => {
  const relaxed = assemble(WAT);
  assert.equal(countOf(relaxed, RELAXED_MADD), 2);

  // The module as clang 14 writes it: the prototype opcode, which no current engine accepts.
  const prototype = renameSimdOpcode(relaxed, RELAXED_MADD, PROTOTYPE_FMA);
  assert.equal(prototype.count, 2);
  assert.equal(countOf(prototype.bytes, PROTOTYPE_FMA), 2);
  assert.equal(validates(prototype.bytes), false);
  const changed = [...relaxed.keys()].filter((i) => relaxed[i] !== prototype.bytes[i]);
  assert.equal(changed.length, 4, 'two bytes per opcode, no others');

  const back = relaxFma(prototype.bytes);
  assert.equal(back.count, 2);
  assert.deepEqual(back.bytes, relaxed, 'the constants, the shuffle and the data segment keep their bytes');
  assert.equal(validates(back.bytes), true);
});

test('a module without the prototype opcode comes back unchanged', () => {
  const plain = assemble('(module (func (param v128) (result v128) (f32x4.add (local.get 0) (local.get 0))))');
  const { bytes, count } = relaxFma(plain);
  assert.equal(count, 0);
  assert.deepEqual(bytes, plain);
});

test('the other prototype opcodes, unknown opcodes and truncated modules are refused by name', () => {
  const relaxed = assemble(WAT);
  const qfms = renameSimdOpcode(relaxed, RELAXED_MADD, 0xb0).bytes;
  assert.throws(() => relaxFma(qfms), /prototype f32x4\.qfms \(0xfd 0xb0\)/);

  const unknown = assemble('(module (func (drop (i32.const 7))))');
  const at = unknown.lastIndexOf(0x41); // i32.const -> 0xc5, not an opcode
  unknown[at] = 0xc5;
  assert.throws(
    () => relaxFma(unknown),
    (error) => error instanceof WasmDecodeError && /unknown opcode 0xc5 at byte \d+/.test(error.message),
  );

  assert.throws(() => relaxFma(relaxed.subarray(0, relaxed.length - 3)), WasmDecodeError);
  assert.throws(() => relaxFma(new Uint8Array([1, 2, 3])), /not a WebAssembly 1\.0 module/);
});
