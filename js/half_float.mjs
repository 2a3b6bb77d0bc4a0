// IEEE 754 half floats (binary16) as Uint16 bits: the training timeline
// keeps each snapshot's probe attention in half the bytes of float32
// (weights in [0, 1]: about 3 significant digits, enough to redraw a matrix).
// Rounding is to nearest, ties to even, as Float32Array → float16 casts do.

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** The half-float bits of one number. */
export function toHalf(value) {
  f32[0] = value;
  const x = u32[0];
  const sign = (x >>> 16) & 0x8000;
  const exponent = (x >>> 23) & 0xff;
  let mantissa = x & 0x7fffff;
  if (exponent === 0xff) return sign | 0x7c00 | (mantissa ? 0x200 : 0); // inf, NaN
  let e = exponent - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00; // overflow: inf
  if (e <= 0) {
    // A subnormal half (or zero): shift the implicit 1 in, round to nearest even.
    if (e < -10) return sign;
    mantissa |= 0x800000;
    const shift = 14 - e;
    const half = 1 << (shift - 1);
    const rest = mantissa & ((1 << shift) - 1);
    let m = mantissa >>> shift;
    if (rest > half || (rest === half && m & 1)) m += 1;
    return sign | m;
  }
  const rest = mantissa & 0x1fff;
  let bits = (e << 10) | (mantissa >>> 13);
  if (rest > 0x1000 || (rest === 0x1000 && bits & 1)) bits += 1; // a carry into the exponent is right
  return sign | bits;
}

/** The number a half float's bits hold. */
export function fromHalf(bits) {
  const sign = bits & 0x8000 ? -1 : 1;
  const exponent = (bits >>> 10) & 0x1f;
  const mantissa = bits & 0x3ff;
  if (exponent === 0) return sign * mantissa * 2 ** -24;
  if (exponent === 0x1f) return mantissa ? NaN : sign * Infinity;
  return sign * (1 + mantissa / 1024) * 2 ** (exponent - 15);
}

/** Uint16Array of the half-float bits of every value. */
export function halfFromFloats(values) {
  const out = new Uint16Array(values.length);
  for (let i = 0; i < values.length; i += 1) out[i] = toHalf(values[i]);
  return out;
}

/** Float32Array of the values half-float bits hold. */
export function floatsFromHalf(bits) {
  const out = new Float32Array(bits.length);
  for (let i = 0; i < bits.length; i += 1) out[i] = fromHalf(bits[i]);
  return out;
}
