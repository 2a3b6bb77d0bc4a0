#include "linear.h"

// Four-lane vectors: WASM SIMD128 in the Wasm build, SSE natively, plain
// arrays elsewhere. Products and sums are rounded as written (no FMA), so
// every path computes the same bits.
#if defined(__wasm_simd128__)
#include <wasm_simd128.h>
#elif defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace minimind {

namespace {

constexpr int kLanes = 4;

#if defined(__wasm_simd128__)
using Lanes = v128_t;
inline Lanes lanes_zero() { return wasm_f32x4_splat(0.0f); }
inline Lanes lanes_load(const float* p) { return wasm_v128_load(p); }
inline Lanes lanes_mul_add(Lanes acc, Lanes a, Lanes b) { return wasm_f32x4_add(acc, wasm_f32x4_mul(a, b)); }
inline void lanes_store(float* p, Lanes v) { wasm_v128_store(p, v); }
#elif defined(__SSE2__)
using Lanes = __m128;
inline Lanes lanes_zero() { return _mm_setzero_ps(); }
inline Lanes lanes_load(const float* p) { return _mm_loadu_ps(p); }
inline Lanes lanes_mul_add(Lanes acc, Lanes a, Lanes b) { return _mm_add_ps(acc, _mm_mul_ps(a, b)); }
inline void lanes_store(float* p, Lanes v) { _mm_storeu_ps(p, v); }
#else
struct Lanes {
  float v[kLanes];
};
inline Lanes lanes_zero() { return {{0, 0, 0, 0}}; }
inline Lanes lanes_load(const float* p) { return {{p[0], p[1], p[2], p[3]}}; }
inline Lanes lanes_mul_add(Lanes acc, Lanes a, Lanes b) {
  for (int l = 0; l < kLanes; ++l) acc.v[l] = acc.v[l] + a.v[l] * b.v[l];
  return acc;
}
inline void lanes_store(float* p, Lanes v) {
  for (int l = 0; l < kLanes; ++l) p[l] = v.v[l];
}
#endif

// Lane l holds the products of indices i ≡ l (mod 4) in increasing i; the
// tail (n mod 4 values) continues the same lanes; then a fixed pairing.
inline float finish(Lanes acc, const float* a, const float* b, int64_t i, int64_t n) {
  float lane[kLanes];
  lanes_store(lane, acc);
  for (int l = 0; i + l < n; ++l) lane[l] = lane[l] + a[i + l] * b[i + l];
  return (lane[0] + lane[2]) + (lane[1] + lane[3]);
}

// y[r, c] = dot(x[r], W[c]) for R rows of x and C rows of W at once: each
// weight vector is loaded once for R rows. R·C accumulators stay in registers.
template <int R, int C>
void tile(const float* x, int64_t x_stride, const float* W, int64_t w_stride, int64_t n, float* y, int64_t y_stride) {
  Lanes acc[R][C];
  for (int r = 0; r < R; ++r) {
    for (int c = 0; c < C; ++c) acc[r][c] = lanes_zero();
  }
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    Lanes w[C];
    for (int c = 0; c < C; ++c) w[c] = lanes_load(W + c * w_stride + i);
    for (int r = 0; r < R; ++r) {
      const Lanes xr = lanes_load(x + r * x_stride + i);
      for (int c = 0; c < C; ++c) acc[r][c] = lanes_mul_add(acc[r][c], xr, w[c]);
    }
  }
  for (int r = 0; r < R; ++r) {
    for (int c = 0; c < C; ++c) y[r * y_stride + c] = finish(acc[r][c], x + r * x_stride, W + c * w_stride, i, n);
  }
}

template <int R>
void row_block(const float* x, int64_t x_stride, const float* W, int64_t out, int64_t w_stride, int64_t n, float* y,
               int64_t y_stride) {
  constexpr int kCols = 2;  // weight rows per tile
  int64_t o = 0;
  for (; o + kCols <= out; o += kCols) tile<R, kCols>(x, x_stride, W + o * w_stride, w_stride, n, y + o, y_stride);
  for (; o < out; ++o) tile<R, 1>(x, x_stride, W + o * w_stride, w_stride, n, y + o, y_stride);
}

}  // namespace

float dot(const float* a, const float* b, int64_t n) {
  float y;
  tile<1, 1>(a, 0, b, 0, n, &y, 0);
  return y;
}

void linear_rows(const float* x, int64_t T, int64_t in, int64_t x_stride, const float* W, int64_t out, int64_t w_stride,
                 float* y, int64_t y_stride) {
  // Every output element takes the same path through finish(): a row's
  // numbers are the same whether it is computed alone or with others.
  int64_t t = 0;
  for (; t + 4 <= T; t += 4) row_block<4>(x + t * x_stride, x_stride, W, out, w_stride, in, y + t * y_stride, y_stride);
  const int64_t rest = T - t;
  const float* xt = x + t * x_stride;
  float* yt = y + t * y_stride;
  if (rest == 3) row_block<3>(xt, x_stride, W, out, w_stride, in, yt, y_stride);
  if (rest == 2) row_block<2>(xt, x_stride, W, out, w_stride, in, yt, y_stride);
  if (rest == 1) row_block<1>(xt, x_stride, W, out, w_stride, in, yt, y_stride);
}

Matrix linear(const Matrix& x, const Matrix& W) {
  Matrix y(x.rows(), W.rows());
  linear_rows(x.data(), x.rows(), x.cols(), x.cols(), W.data(), W.rows(), W.cols(), y.data(), y.cols());
  return y;
}

}  // namespace minimind
