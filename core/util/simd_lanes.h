// Four float lanes: WASM SIMD128 in the Wasm build, SSE natively, a plain
// array elsewhere. Products and sums round as written (no FMA), and the
// half-float widenings are exact, so every path computes the same bits.
// One exception: fused_mul_add, defined only where MINIMIND_RELAXED_FMA is
// (ops/linear.cpp's second compilation, for the relaxed Wasm build), is
// f32x4.relaxed_madd, which rounds once where the hardware has FMA.
#pragma once

#include <cstdint>
#include <cstring>

#if defined(__wasm_simd128__)
#include <wasm_simd128.h>
#elif defined(__SSE2__)
#include <emmintrin.h>
#else
#include <cmath>
#include <utility>

#include "util/half.h"
#endif

namespace minimind::simd {

constexpr int kLanes = 4;

// 8 16-bit values (float16 or bfloat16) widen from one 128-bit load kept in
// "lane pairs": 32-bit lane l holds value l in its upper half and value l + 4
// in its lower half, so both halves become float32 lanes with shifts and
// masks in 32-bit lanes, no shuffle. In memory (little-endian) that is
// [v4, v0, v5, v1, v6, v2, v7, v3]; value j sits at half_slot(j).
constexpr int half_slot(int j) { return j < 4 ? 2 * j + 1 : 2 * (j - 4); }

#if defined(__wasm_simd128__)
using Lanes = v128_t;
inline Lanes zero() { return wasm_f32x4_splat(0.0f); }
inline Lanes load(const float* p) { return wasm_v128_load(p); }
inline Lanes splat(const float* p) { return wasm_v128_load32_splat(p); }
inline Lanes mul_add(Lanes acc, Lanes a, Lanes b) { return wasm_f32x4_add(acc, wasm_f32x4_mul(a, b)); }
#if defined(MINIMIND_RELAXED_FMA)
// acc + a·b in one instruction. clang 14 has only the withdrawn prototype
// fma (0xfd 0xaf, a + b·c); the build renames it to f32x4.relaxed_madd
// (a·b + c) after linking (wasm/relax_fma.mjs), so the operands are ordered
// for relaxed_madd.
inline Lanes fused_mul_add(Lanes acc, Lanes a, Lanes b) {
  return Lanes(__builtin_wasm_fma_f32x4(__f32x4(a), __f32x4(b), __f32x4(acc)));
}
#endif
inline void store(float* p, Lanes v) { wasm_v128_store(p, v); }
inline Lanes fill(float v) { return wasm_f32x4_splat(v); }
inline Lanes add(Lanes a, Lanes b) { return wasm_f32x4_add(a, b); }
inline Lanes sub(Lanes a, Lanes b) { return wasm_f32x4_sub(a, b); }
inline Lanes mul(Lanes a, Lanes b) { return wasm_f32x4_mul(a, b); }
inline Lanes div(Lanes a, Lanes b) { return wasm_f32x4_div(a, b); }
// acc < v ? v : acc per lane, as std::max(acc, v) (a NaN v leaves acc).
inline Lanes max(Lanes acc, Lanes v) { return wasm_f32x4_pmax(acc, v); }
// Whether every lane is in [lo, hi] (a NaN lane is not).
inline bool all_within(Lanes v, float lo, float hi) {
  return wasm_i32x4_all_true(wasm_v128_and(wasm_f32x4_ge(v, fill(lo)), wasm_f32x4_le(v, fill(hi))));
}
// Round to the nearest integer, ties to even.
inline Lanes nearest(Lanes v) { return wasm_f32x4_nearest(v); }
// 2^k for integral k in [-126, 127].
inline Lanes pow2(Lanes k) {
  return wasm_i32x4_shl(wasm_i32x4_add(wasm_i32x4_trunc_sat_f32x4(k), wasm_i32x4_splat(127)), 23);
}

// Rows a, b, c, d of a 4x4 block become its columns: a = (a0, b0, c0, d0), ...
inline void transpose4(Lanes& a, Lanes& b, Lanes& c, Lanes& d) {
  const v128_t ab_low = wasm_i32x4_shuffle(a, b, 0, 4, 1, 5), ab_high = wasm_i32x4_shuffle(a, b, 2, 6, 3, 7);
  const v128_t cd_low = wasm_i32x4_shuffle(c, d, 0, 4, 1, 5), cd_high = wasm_i32x4_shuffle(c, d, 2, 6, 3, 7);
  a = wasm_i32x4_shuffle(ab_low, cd_low, 0, 1, 4, 5);
  b = wasm_i32x4_shuffle(ab_low, cd_low, 2, 3, 6, 7);
  c = wasm_i32x4_shuffle(ab_high, cd_high, 0, 1, 4, 5);
  d = wasm_i32x4_shuffle(ab_high, cd_high, 2, 3, 6, 7);
}

// 8 float16 values in lane pairs, without the final ×2^112: the values come
// out 2^-112 times too small (normal or subnormal float32, so still exact),
// for a caller that scales the other factor of each product by 2^112 instead.
//
// A float16 h in a lane's upper half becomes sign << 31 | (h & 0x7fff) << 13
// by an arithmetic shift right by 3 (the sign's copies in bits 28-30 and the
// lower half's bits in 0-12 masked off); the lower half is first moved up by
// 16. 5 operations for 8 values, none of them a shuffle: the 1-row product
// with float16 weights is bound by these, not by memory.
inline void widen_f16_unscaled(const uint16_t* p, Lanes& low, Lanes& high) {
  const v128_t h = wasm_v128_load(p);
  const v128_t keep = wasm_i32x4_splat(int32_t(0x8fffe000u));
  low = wasm_v128_and(wasm_i32x4_shr(h, 3), keep);
  high = wasm_v128_and(wasm_i32x4_shr(wasm_i32x4_shl(h, 16), 3), keep);
}
// 8 float16 values -> two float32 vectors (values 0-3 and 4-7): the
// unscaled ones times 2^112, which rebiases the exponent (15 -> 127),
// subnormals included. Finite values only.
inline void widen_f16(const uint16_t* p, Lanes& low, Lanes& high) {
  widen_f16_unscaled(p, low, high);
  low = wasm_f32x4_mul(low, wasm_f32x4_splat(0x1p112f));
  high = wasm_f32x4_mul(high, wasm_f32x4_splat(0x1p112f));
}
// 8 bfloat16 values in lane pairs -> two float32 vectors: bfloat16 is a float32's upper half.
inline void widen_bf16(const uint16_t* p, Lanes& low, Lanes& high) {
  const v128_t h = wasm_v128_load(p);
  low = wasm_v128_and(h, wasm_i32x4_splat(int32_t(0xffff0000u)));
  high = wasm_i32x4_shl(h, 16);
}
#elif defined(__SSE2__)
using Lanes = __m128;
inline Lanes zero() { return _mm_setzero_ps(); }
inline Lanes load(const float* p) { return _mm_loadu_ps(p); }
inline Lanes splat(const float* p) { return _mm_load1_ps(p); }
inline Lanes mul_add(Lanes acc, Lanes a, Lanes b) { return _mm_add_ps(acc, _mm_mul_ps(a, b)); }
inline void store(float* p, Lanes v) { _mm_storeu_ps(p, v); }
inline Lanes fill(float v) { return _mm_set1_ps(v); }
inline Lanes add(Lanes a, Lanes b) { return _mm_add_ps(a, b); }
inline Lanes sub(Lanes a, Lanes b) { return _mm_sub_ps(a, b); }
inline Lanes mul(Lanes a, Lanes b) { return _mm_mul_ps(a, b); }
inline Lanes div(Lanes a, Lanes b) { return _mm_div_ps(a, b); }
inline Lanes max(Lanes acc, Lanes v) { return _mm_max_ps(v, acc); }  // v > acc ? v : acc
inline bool all_within(Lanes v, float lo, float hi) {
  return _mm_movemask_ps(_mm_and_ps(_mm_cmpge_ps(v, fill(lo)), _mm_cmple_ps(v, fill(hi)))) == 0xf;
}
// cvtps2dq rounds ties to even under the default rounding mode.
inline Lanes nearest(Lanes v) { return _mm_cvtepi32_ps(_mm_cvtps_epi32(v)); }
inline Lanes pow2(Lanes k) {
  return _mm_castsi128_ps(_mm_slli_epi32(_mm_add_epi32(_mm_cvtps_epi32(k), _mm_set1_epi32(127)), 23));
}

inline void transpose4(Lanes& a, Lanes& b, Lanes& c, Lanes& d) { _MM_TRANSPOSE4_PS(a, b, c, d); }

// As the Wasm version.
inline void widen_f16_unscaled(const uint16_t* p, Lanes& low, Lanes& high) {
  const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  const __m128i keep = _mm_set1_epi32(int32_t(0x8fffe000u));
  low = _mm_castsi128_ps(_mm_and_si128(_mm_srai_epi32(h, 3), keep));
  high = _mm_castsi128_ps(_mm_and_si128(_mm_srai_epi32(_mm_slli_epi32(h, 16), 3), keep));
}
inline void widen_f16(const uint16_t* p, Lanes& low, Lanes& high) {
  widen_f16_unscaled(p, low, high);
  low = _mm_mul_ps(low, _mm_set1_ps(0x1p112f));
  high = _mm_mul_ps(high, _mm_set1_ps(0x1p112f));
}
inline void widen_bf16(const uint16_t* p, Lanes& low, Lanes& high) {
  const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  low = _mm_castsi128_ps(_mm_and_si128(h, _mm_set1_epi32(int32_t(0xffff0000u))));
  high = _mm_castsi128_ps(_mm_slli_epi32(h, 16));
}
#else
struct Lanes {
  float v[kLanes];
};
inline Lanes zero() { return {{0, 0, 0, 0}}; }
inline Lanes load(const float* p) { return {{p[0], p[1], p[2], p[3]}}; }
inline Lanes splat(const float* p) { return {{*p, *p, *p, *p}}; }
inline Lanes mul_add(Lanes acc, Lanes a, Lanes b) {
  for (int l = 0; l < kLanes; ++l) acc.v[l] = acc.v[l] + a.v[l] * b.v[l];
  return acc;
}
inline void store(float* p, Lanes v) { std::memcpy(p, v.v, sizeof v.v); }
template <typename F>
inline Lanes each(Lanes a, F f) {
  for (float& x : a.v) x = f(x);
  return a;
}
inline Lanes fill(float v) { return {{v, v, v, v}}; }
inline Lanes add(Lanes a, Lanes b) {
  for (int l = 0; l < kLanes; ++l) a.v[l] = a.v[l] + b.v[l];
  return a;
}
inline Lanes sub(Lanes a, Lanes b) {
  for (int l = 0; l < kLanes; ++l) a.v[l] = a.v[l] - b.v[l];
  return a;
}
inline Lanes mul(Lanes a, Lanes b) {
  for (int l = 0; l < kLanes; ++l) a.v[l] = a.v[l] * b.v[l];
  return a;
}
inline Lanes div(Lanes a, Lanes b) {
  for (int l = 0; l < kLanes; ++l) a.v[l] = a.v[l] / b.v[l];
  return a;
}
inline Lanes max(Lanes acc, Lanes v) {
  for (int l = 0; l < kLanes; ++l) acc.v[l] = acc.v[l] < v.v[l] ? v.v[l] : acc.v[l];
  return acc;
}
inline bool all_within(Lanes v, float lo, float hi) {
  for (const float x : v.v)
    if (!(x >= lo && x <= hi)) return false;
  return true;
}
inline Lanes nearest(Lanes v) {
  return each(v, [](float x) { return std::nearbyint(x); });
}
inline Lanes pow2(Lanes k) {
  return each(k, [](float x) { return bits_float(uint32_t(int32_t(x) + 127) << 23); });
}
inline void transpose4(Lanes& a, Lanes& b, Lanes& c, Lanes& d) {
  Lanes* rows[4] = {&a, &b, &c, &d};
  for (int i = 0; i < kLanes; ++i) {
    for (int j = i + 1; j < kLanes; ++j) std::swap(rows[i]->v[j], rows[j]->v[i]);
  }
}
inline void widen_f16(const uint16_t* p, Lanes& low, Lanes& high) {
  for (int l = 0; l < kLanes; ++l) {
    low.v[l] = f16_to_f32(p[half_slot(l)]);
    high.v[l] = f16_to_f32(p[half_slot(kLanes + l)]);
  }
}
inline void widen_f16_unscaled(const uint16_t* p, Lanes& low, Lanes& high) {
  widen_f16(p, low, high);
  for (int l = 0; l < kLanes; ++l) {
    low.v[l] = low.v[l] * 0x1p-112f;
    high.v[l] = high.v[l] * 0x1p-112f;
  }
}
inline void widen_bf16(const uint16_t* p, Lanes& low, Lanes& high) {
  for (int l = 0; l < kLanes; ++l) {
    low.v[l] = bf16_to_f32(p[half_slot(l)]);
    high.v[l] = bf16_to_f32(p[half_slot(kLanes + l)]);
  }
}
#endif

}  // namespace minimind::simd
