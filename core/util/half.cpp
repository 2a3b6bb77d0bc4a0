#include "util/half.h"

#include <cstring>

namespace minimind {

uint32_t float_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

float bits_float(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

float f16_to_f32(uint16_t h) {
  const uint32_t sign = uint32_t(h & 0x8000u) << 16;
  const uint32_t exponent = (h >> 10) & 0x1fu;
  uint32_t mantissa = h & 0x3ffu;
  if (exponent == 0x1f) return bits_float(sign | 0x7f800000u | (mantissa << 13));  // inf / NaN
  if (exponent != 0) return bits_float(sign | ((exponent + 112) << 23) | (mantissa << 13));
  if (mantissa == 0) return bits_float(sign);  // signed zero
  // Subnormal: value = mantissa * 2^-24; normalise it into a float32.
  int shift = 0;
  while ((mantissa & 0x400u) == 0) {
    mantissa <<= 1;
    ++shift;
  }
  mantissa &= 0x3ffu;
  return bits_float(sign | uint32_t(113 - shift) << 23 | (mantissa << 13));
}

float bf16_to_f32(uint16_t b) { return bits_float(uint32_t(b) << 16); }

uint16_t f32_to_f16(float value) {
  const uint32_t u = float_bits(value);
  const uint16_t sign = uint16_t((u >> 16) & 0x8000u);
  const uint32_t abs = u & 0x7fffffffu;
  if (abs > 0x7f800000u) return uint16_t(sign | 0x7e00u);   // NaN
  if (abs >= 0x477ff000u) return uint16_t(sign | 0x7c00u);  // rounds past 65504: inf
  if (abs < 0x38800000u) {
    // Result is subnormal or zero: scale by 2^24 and round to an integer
    // count of 2^-24 units, ties to even.
    if (abs < 0x33000000u) return sign;  // below half the smallest subnormal
    const uint32_t exponent = abs >> 23;
    const uint32_t mantissa = (abs & 0x7fffffu) | 0x800000u;
    const uint32_t shift = 126 - exponent;  // 14..24
    uint32_t result = mantissa >> shift;
    const uint32_t remainder = mantissa & ((1u << shift) - 1);
    const uint32_t half = 1u << (shift - 1);
    if (remainder > half || (remainder == half && (result & 1u))) ++result;
    return uint16_t(sign | result);
  }
  // Normal: rebias the exponent, round the 13 dropped mantissa bits.
  uint32_t result = ((abs >> 13) - (112u << 10));
  const uint32_t remainder = abs & 0x1fffu;
  if (remainder > 0x1000u || (remainder == 0x1000u && (result & 1u))) ++result;
  return uint16_t(sign | result);
}

uint16_t f32_to_bf16(float value) {
  const uint32_t u = float_bits(value);
  if ((u & 0x7fffffffu) > 0x7f800000u) return uint16_t((u >> 16) | 0x40u);  // quiet NaN
  const uint32_t rounding = 0x7fffu + ((u >> 16) & 1u);
  return uint16_t((u + rounding) >> 16);
}

}  // namespace minimind
