// float16 / bfloat16 <-> float32 conversions, bit-exact and platform independent
// (no reliance on compiler half types), as safetensors stores them.
#pragma once

#include <cstdint>

namespace minimind {

uint32_t float_bits(float value);  // the IEEE-754 bits of a float32
float bits_float(uint32_t bits);   // the float32 with these bits

float f16_to_f32(uint16_t bits);    // exact (every f16 is a float32), incl. subnormals, inf, NaN
float bf16_to_f32(uint16_t bits);   // exact: the upper half of a float32
uint16_t f32_to_f16(float value);   // round to nearest even, overflow to inf
uint16_t f32_to_bf16(float value);  // round to nearest even, NaN stays NaN

}  // namespace minimind
