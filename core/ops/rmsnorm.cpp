#include "ops/rmsnorm.h"

#include <cmath>

#include "util/simd_lanes.h"

namespace minimind {

namespace {

using simd::Lanes;

// out = w * (x * inv_rms), elementwise: the order of MiniMind's RMSNorm
// (x * rsqrt(mean + eps), then * weight); the same bits in lanes.
void scale_row(const float* x, const float* w, int64_t n, float inv_rms, float* out) {
  const Lanes inv = simd::fill(inv_rms);
  int64_t i = 0;
  for (; i + simd::kLanes <= n; i += simd::kLanes) {
    simd::store(out + i, simd::mul(simd::load(w + i), simd::mul(simd::load(x + i), inv)));
  }
  for (; i < n; ++i) out[i] = w[i] * (x[i] * inv_rms);
}

float inverse_rms(float sum_squares, int64_t n, float eps) { return 1.0f / std::sqrt(sum_squares / float(n) + eps); }

// Σ x², lanes l and l + 4 summing x[8m + l] and x[8m + 4 + l]; then the
// two vectors, then their 4 lanes pairwise, then the tail in order.
float sum_squares_lanes(const float* x, int64_t n) {
  Lanes low = simd::zero(), high = simd::zero();
  int64_t i = 0;
  for (; i + 2 * simd::kLanes <= n; i += 2 * simd::kLanes) {
    const Lanes a = simd::load(x + i), b = simd::load(x + i + simd::kLanes);
    low = simd::mul_add(low, a, a);
    high = simd::mul_add(high, b, b);
  }
  float lanes[simd::kLanes];
  simd::store(lanes, simd::add(low, high));
  float sum = (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]);
  for (; i < n; ++i) sum += x[i] * x[i];
  return sum;
}

}  // namespace

void rms_norm_rows(const float* x, const float* w, int64_t rows, int64_t n, float eps, float* out) {
  for (int64_t r = 0; r < rows; ++r) {
    scale_row(x + r * n, w, n, inverse_rms(sum_squares_lanes(x + r * n, n), n, eps), out + r * n);
  }
}

void rms_norm_inplace(float* x, const float* w, int64_t rows, int64_t n, float eps) {
  for (int64_t r = 0; r < rows; ++r) {
    float* row = x + r * n;
    float sum_squares = 0.0f;
    for (int64_t i = 0; i < n; ++i) sum_squares += row[i] * row[i];
    scale_row(row, w, n, inverse_rms(sum_squares, n, eps), row);
  }
}

void rms_norm_backward(const float* x, const float* w, const float* dy, int64_t rows, int64_t n, float eps, float* dx,
                       float* dw) {
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * n;    // [n]
    const float* dyr = dy + r * n;  // [n]
    float* dxr = dx + r * n;        // [n]
    // r = 1/sqrt(mean(x²) + eps) again (one sequential sum: the backward
    // needs the value, not the forward's exact bits), and Σ dy·w·x.
    float sum_squares = 0.0f, dot = 0.0f;
    for (int64_t i = 0; i < n; ++i) sum_squares += xr[i] * xr[i];
    const float inv_rms = inverse_rms(sum_squares, n, eps);
    for (int64_t i = 0; i < n; ++i) {
      dot += dyr[i] * w[i] * xr[i];
      dw[i] += dyr[i] * (xr[i] * inv_rms);  // the forward's x·r, times dy
    }
    // d r / d x_i = -r³·x_i/n: every output shares the row's r.
    const float coefficient = inv_rms * inv_rms * inv_rms / float(n) * dot;
    for (int64_t i = 0; i < n; ++i) dxr[i] = inv_rms * (dyr[i] * w[i]) - coefficient * xr[i];
  }
}

}  // namespace minimind
