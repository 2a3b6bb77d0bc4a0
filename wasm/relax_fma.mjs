// The relaxed build's post-link pass. clang 14 compiles
// __builtin_wasm_fma_f32x4 to the withdrawn prototype opcode 0xfd 0xaf
// (f32x4.qfma), which no browser accepts; binaryen 108 passes it through but
// refuses the standard f32x4.relaxed_madd (0xfd 0x105). So the build emits the
// prototype and this pass renames each one, after every binaryen step, to
// relaxed_madd. The operands stay where they are: the C++ (core/util/
// simd_lanes.h) orders them for relaxed_madd's a·b + c.
//
// The code section is decoded instruction by instruction, so only opcodes are
// rewritten, never bytes that merely look like one (a v128.const, an
// i32.const's LEB128, a data segment). Both opcodes take two LEB128 bytes, so
// nothing moves and every offset (DWARF, the name section) stays true.
//
// Usage: node wasm/relax_fma.mjs module.wasm [out.wasm]   (in place without out)

import { readFileSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

export const PROTOTYPE_FMA = 0xaf; // f32x4.qfma (prototype), as clang 14 emits it
export const RELAXED_MADD = 0x105; // f32x4.relaxed_madd
// The other prototype opcodes of that proposal: none may be left behind.
const PROTOTYPE_OTHERS = new Map([
  [0xb0, 'f32x4.qfms'],
  [0xcf, 'f64x2.qfma'],
  [0xd0, 'f64x2.qfms'],
]);

const CODE_SECTION = 10;

export class WasmDecodeError extends Error {
  constructor(message, offset) {
    super(`${message} at byte ${offset}`);
    this.name = 'WasmDecodeError';
    this.offset = offset;
  }
}

// A cursor over the module's bytes.
class Reader {
  constructor(bytes, offset = 0, end = bytes.length) {
    this.bytes = bytes;
    this.offset = offset;
    this.end = end;
  }

  byte() {
    if (this.offset >= this.end) throw new WasmDecodeError('unexpected end', this.offset);
    return this.bytes[this.offset++];
  }

  // An unsigned or signed LEB128 of any width up to 64 bits: its value when unsigned and small.
  leb() {
    let value = 0;
    let scale = 1;
    for (let i = 0; i < 10; i += 1) {
      const b = this.byte();
      value += (b & 0x7f) * scale;
      scale *= 128;
      if ((b & 0x80) === 0) return value;
    }
    throw new WasmDecodeError('LEB128 longer than 10 bytes', this.offset);
  }

  skip(n) {
    if (this.offset + n > this.end) throw new WasmDecodeError('unexpected end', this.offset);
    this.offset += n;
  }

  memarg() {
    const align = this.leb();
    if (align & 0x40) this.leb(); // multi-memory: a memory index follows
    this.leb(); // offset
  }
}

// The immediates after a 0xfd (SIMD) opcode.
function skipSimdImmediates(reader, op, at) {
  if (op <= 0x0b || op === 0x5c || op === 0x5d) return reader.memarg(); // loads, stores, load32/64_zero
  if (op === 0x0c || op === 0x0d) return reader.skip(16); // v128.const, i8x16.shuffle
  if (op >= 0x15 && op <= 0x22) return reader.skip(1); // extract_lane, replace_lane
  if (op >= 0x54 && op <= 0x5b) {
    reader.memarg(); // load_lane, store_lane
    return reader.skip(1);
  }
  if (op <= 0xff || (op >= 0x100 && op <= 0x113)) return undefined; // no immediates
  throw new WasmDecodeError(`unknown SIMD opcode 0xfd 0x${op.toString(16)}`, at);
}

// The immediates after a 0xfc (bulk memory, saturating truncation, tables) opcode.
function skipMiscImmediates(reader, op, at) {
  if (op <= 7) return;
  const counts = { 8: 2, 9: 1, 10: 2, 11: 1, 12: 2, 13: 1, 14: 2, 15: 1, 16: 1, 17: 1 };
  if (!(op in counts)) throw new WasmDecodeError(`unknown opcode 0xfc 0x${op.toString(16)}`, at);
  for (let i = 0; i < counts[op]; i += 1) reader.leb();
}

// The immediates after a 0xfe (threads) opcode.
function skipAtomicImmediates(reader, op, at) {
  if (op === 0x03) return reader.skip(1); // atomic.fence
  if (op <= 0x02 || (op >= 0x10 && op <= 0x4e)) return reader.memarg();
  throw new WasmDecodeError(`unknown opcode 0xfe 0x${op.toString(16)}`, at);
}

// Opcodes whose immediates are a fixed number of LEB128 values.
const LEB_IMMEDIATES = new Map([
  [0x02, 1], // block: block type (a value type byte or a type index, both LEB128-shaped)
  [0x03, 1], // loop
  [0x04, 1], // if
  [0x06, 1], // try
  [0x07, 1], // catch: tag
  [0x08, 1], // throw: tag
  [0x09, 1], // rethrow: label
  [0x0c, 1], // br
  [0x0d, 1], // br_if
  [0x10, 1], // call
  [0x11, 2], // call_indirect: type, table
  [0x12, 1], // return_call
  [0x13, 2], // return_call_indirect
  [0x18, 1], // delegate: label
  [0x20, 1], // local.get
  [0x21, 1], // local.set
  [0x22, 1], // local.tee
  [0x23, 1], // global.get
  [0x24, 1], // global.set
  [0x25, 1], // table.get
  [0x26, 1], // table.set
  [0x3f, 1], // memory.size: memory
  [0x40, 1], // memory.grow
  [0x41, 1], // i32.const
  [0x42, 1], // i64.const
  [0xd0, 1], // ref.null: heap type
  [0xd2, 1], // ref.func
]);

// Opcodes without immediates: control, parametric and every numeric operator.
function hasNoImmediates(op) {
  return (
    op === 0x00 ||
    op === 0x01 ||
    op === 0x05 ||
    op === 0x0b ||
    op === 0x0f ||
    op === 0x19 ||
    op === 0x1a ||
    op === 0x1b ||
    op === 0xd1 ||
    (op >= 0x45 && op <= 0xc4)
  );
}

/**
 * Calls visit(op, at, reader) for each SIMD instruction of one function body
 * [offset, end): `at` is where its opcode's LEB128 starts; then skips its immediates.
 */
function decodeBody(bytes, offset, end, visit) {
  const reader = new Reader(bytes, offset, end);
  const groups = reader.leb(); // locals: count, then (n, value type) each
  for (let i = 0; i < groups; i += 1) {
    reader.leb();
    reader.leb();
  }
  let last = -1;
  while (reader.offset < end) {
    const start = reader.offset;
    const op = reader.byte();
    last = op;
    if (hasNoImmediates(op)) continue;
    if (LEB_IMMEDIATES.has(op)) {
      for (let i = 0; i < LEB_IMMEDIATES.get(op); i += 1) reader.leb();
    } else if (op === 0x0e) {
      const targets = reader.leb(); // br_table: the labels and the default
      for (let i = 0; i <= targets; i += 1) reader.leb();
    } else if (op === 0x1c) {
      const types = reader.leb(); // select with value types
      for (let i = 0; i < types; i += 1) reader.leb();
    } else if (op >= 0x28 && op <= 0x3e) {
      reader.memarg();
    } else if (op === 0x43) {
      reader.skip(4);
    } else if (op === 0x44) {
      reader.skip(8);
    } else if (op === 0xfc) {
      skipMiscImmediates(reader, reader.leb(), start);
    } else if (op === 0xfd) {
      const at = reader.offset;
      const simd = reader.leb();
      visit(simd, at, reader.offset);
      skipSimdImmediates(reader, simd, start);
    } else if (op === 0xfe) {
      skipAtomicImmediates(reader, reader.leb(), start);
    } else {
      throw new WasmDecodeError(`unknown opcode 0x${op.toString(16)}`, start);
    }
  }
  if (reader.offset !== end || last !== 0x0b) throw new WasmDecodeError('a function body does not end with end', offset);
}

/** Each function body of the code section: [{offset, end}] into bytes. */
function functionBodies(bytes) {
  const reader = new Reader(bytes);
  const magic = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00];
  if (bytes.length < 8 || magic.some((b, i) => bytes[i] !== b)) throw new WasmDecodeError('not a WebAssembly 1.0 module', 0);
  reader.skip(8);
  const bodies = [];
  while (reader.offset < bytes.length) {
    const id = reader.byte();
    const size = reader.leb();
    const sectionEnd = reader.offset + size;
    if (sectionEnd > bytes.length) throw new WasmDecodeError(`section ${id} runs past the end`, reader.offset);
    if (id === CODE_SECTION) {
      const section = new Reader(bytes, reader.offset, sectionEnd);
      const count = section.leb();
      for (let i = 0; i < count; i += 1) {
        const bodySize = section.leb();
        bodies.push({ offset: section.offset, end: section.offset + bodySize });
        section.skip(bodySize);
      }
      if (section.offset !== sectionEnd) throw new WasmDecodeError('the code section has bytes after its bodies', section.offset);
    }
    reader.offset = sectionEnd; // every section is walked, so a cut module is refused
  }
  return bodies;
}

// value as an unsigned LEB128 of exactly `width` bytes (padded with 0x80 continuation bytes).
function lebOfWidth(value, width) {
  const out = [];
  for (let i = 0; i < width; i += 1) {
    const low = value & 0x7f;
    value >>>= 7;
    out.push(i < width - 1 ? low | 0x80 : low);
  }
  if (value !== 0) throw new Error(`0x${value.toString(16)} does not fit ${width} LEB128 bytes`);
  return out;
}

/**
 * Renames every SIMD opcode `from` to `to` in a copy of the module: {bytes, count}.
 * An opcode whose LEB128 width would change is an error (nothing may move);
 * so is any opcode of `refused` (Map: opcode -> name).
 */
export function renameSimdOpcode(module, from, to, refused = new Map()) {
  const bytes = Uint8Array.from(module);
  let count = 0;
  for (const { offset, end } of functionBodies(bytes)) {
    decodeBody(bytes, offset, end, (op, at, after) => {
      if (refused.has(op)) {
        throw new Error(`the module uses the prototype ${refused.get(op)} (0xfd 0x${op.toString(16)}), which has no relaxed twin here`);
      }
      if (op !== from) return;
      bytes.set(lebOfWidth(to, after - at), at);
      count += 1;
    });
  }
  return { bytes, count };
}

/** The SIMD opcodes of a module and how often each occurs: Map(opcode -> count). */
export function simdOpcodeCounts(module) {
  const counts = new Map();
  for (const { offset, end } of functionBodies(module)) {
    decodeBody(module, offset, end, (op) => counts.set(op, (counts.get(op) ?? 0) + 1));
  }
  return counts;
}

/** The relaxed build's pass: every prototype fma becomes relaxed_madd, in one decoding. {bytes, count}. */
export function relaxFma(module) {
  return renameSimdOpcode(module, PROTOTYPE_FMA, RELAXED_MADD, PROTOTYPE_OTHERS);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const [input, output = input] = process.argv.slice(2);
  if (!input) {
    console.error('usage: node wasm/relax_fma.mjs module.wasm [out.wasm]');
    process.exit(2);
  }
  try {
    const { bytes, count } = relaxFma(readFileSync(input));
    if (count === 0) throw new Error('no prototype fma found: was the module built with MINIMIND_RELAXED_FMA?');
    writeFileSync(output, bytes);
    console.log(`relax_fma: ${count} f32x4.relaxed_madd in ${output}`);
  } catch (error) {
    console.error(`relax_fma: ${input}: ${error.message}`);
    process.exit(1);
  }
}
