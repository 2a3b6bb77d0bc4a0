#include "exp_approx.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "simd_lanes.h"

namespace minimind {

namespace {

constexpr float kLowest = -87.33654f;  // below: e^x < FLT_MIN, flushed to 0
constexpr float kHighest = 88.37626f;  // above: 2^n would leave float32's exponents
constexpr float kLog2e = 1.44269504088896341f;
constexpr float kLn2High = 0.693359375f;  // ln 2 = kLn2High + kLn2Low, kLn2High exact in 9 bits
constexpr float kLn2Low = -2.12194440e-4f;
// Cephes expf: e^r ≈ 1 + r + r²·P(r).
constexpr float kP0 = 1.9875691500e-4f, kP1 = 1.3981999507e-3f, kP2 = 8.3334519073e-3f, kP3 = 4.1665795894e-2f,
                kP4 = 1.6666665459e-1f, kP5 = 5.0000001201e-1f;

float bits_to_float(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

}  // namespace

float exp_approx(float x) {
  if (std::isnan(x)) return x;
  if (x < kLowest) return 0.0f;
  if (x > kHighest) return std::numeric_limits<float>::infinity();
  const float n = std::nearbyint(x * kLog2e);  // round half to even, as the vector forms
  float r = x - n * kLn2High;
  r = r - n * kLn2Low;
  float p = kP0 * r + kP1;
  p = p * r + kP2;
  p = p * r + kP3;
  p = p * r + kP4;
  p = p * r + kP5;
  p = p * (r * r) + r;
  p = p + 1.0f;
  return p * bits_to_float(uint32_t(int32_t(n) + 127) << 23);
}

void exp_approx_inplace(float* x, int64_t n) {
  int64_t i = 0;
#if defined(__wasm_simd128__)
  const v128_t lowest = wasm_f32x4_splat(kLowest), highest = wasm_f32x4_splat(kHighest);
  const v128_t infinity = wasm_f32x4_splat(std::numeric_limits<float>::infinity());
  for (; i + 4 <= n; i += 4) {
    const v128_t v = wasm_v128_load(x + i);
    const v128_t clamped = wasm_f32x4_min(wasm_f32x4_max(v, lowest), highest);  // keeps 2^n finite
    const v128_t k = wasm_f32x4_nearest(wasm_f32x4_mul(clamped, wasm_f32x4_splat(kLog2e)));
    v128_t r = wasm_f32x4_sub(clamped, wasm_f32x4_mul(k, wasm_f32x4_splat(kLn2High)));
    r = wasm_f32x4_sub(r, wasm_f32x4_mul(k, wasm_f32x4_splat(kLn2Low)));
    v128_t p = wasm_f32x4_add(wasm_f32x4_mul(wasm_f32x4_splat(kP0), r), wasm_f32x4_splat(kP1));
    p = wasm_f32x4_add(wasm_f32x4_mul(p, r), wasm_f32x4_splat(kP2));
    p = wasm_f32x4_add(wasm_f32x4_mul(p, r), wasm_f32x4_splat(kP3));
    p = wasm_f32x4_add(wasm_f32x4_mul(p, r), wasm_f32x4_splat(kP4));
    p = wasm_f32x4_add(wasm_f32x4_mul(p, r), wasm_f32x4_splat(kP5));
    p = wasm_f32x4_add(wasm_f32x4_mul(p, wasm_f32x4_mul(r, r)), r);
    p = wasm_f32x4_add(p, wasm_f32x4_splat(1.0f));
    const v128_t scale = wasm_i32x4_shl(wasm_i32x4_add(wasm_i32x4_trunc_sat_f32x4(k), wasm_i32x4_splat(127)), 23);
    v128_t y = wasm_f32x4_mul(p, scale);
    y = wasm_v128_bitselect(wasm_f32x4_splat(0.0f), y, wasm_f32x4_lt(v, lowest));
    y = wasm_v128_bitselect(infinity, y, wasm_f32x4_gt(v, highest));
    y = wasm_v128_bitselect(v, y, wasm_f32x4_ne(v, v));  // NaN stays NaN
    wasm_v128_store(x + i, y);
  }
#elif defined(__SSE2__)
  const __m128 lowest = _mm_set1_ps(kLowest), highest = _mm_set1_ps(kHighest);
  const __m128 infinity = _mm_set1_ps(std::numeric_limits<float>::infinity());
  for (; i + 4 <= n; i += 4) {
    const __m128 v = _mm_loadu_ps(x + i);
    const __m128 clamped = _mm_min_ps(_mm_max_ps(v, lowest), highest);
    // cvtps2dq rounds half to even under the default rounding mode.
    const __m128i ki = _mm_cvtps_epi32(_mm_mul_ps(clamped, _mm_set1_ps(kLog2e)));
    const __m128 k = _mm_cvtepi32_ps(ki);
    __m128 r = _mm_sub_ps(clamped, _mm_mul_ps(k, _mm_set1_ps(kLn2High)));
    r = _mm_sub_ps(r, _mm_mul_ps(k, _mm_set1_ps(kLn2Low)));
    __m128 p = _mm_add_ps(_mm_mul_ps(_mm_set1_ps(kP0), r), _mm_set1_ps(kP1));
    p = _mm_add_ps(_mm_mul_ps(p, r), _mm_set1_ps(kP2));
    p = _mm_add_ps(_mm_mul_ps(p, r), _mm_set1_ps(kP3));
    p = _mm_add_ps(_mm_mul_ps(p, r), _mm_set1_ps(kP4));
    p = _mm_add_ps(_mm_mul_ps(p, r), _mm_set1_ps(kP5));
    p = _mm_add_ps(_mm_mul_ps(p, _mm_mul_ps(r, r)), r);
    p = _mm_add_ps(p, _mm_set1_ps(1.0f));
    const __m128 scale = _mm_castsi128_ps(_mm_slli_epi32(_mm_add_epi32(ki, _mm_set1_epi32(127)), 23));
    __m128 y = _mm_mul_ps(p, scale);
    y = _mm_andnot_ps(_mm_cmplt_ps(v, lowest), y);
    const __m128 high = _mm_cmpgt_ps(v, highest);
    y = _mm_or_ps(_mm_andnot_ps(high, y), _mm_and_ps(high, infinity));
    const __m128 nan = _mm_cmpunord_ps(v, v);
    y = _mm_or_ps(_mm_andnot_ps(nan, y), _mm_and_ps(nan, v));
    _mm_storeu_ps(x + i, y);
  }
#endif
  for (; i < n; ++i) x[i] = exp_approx(x[i]);
}

}  // namespace minimind
