#include "ops/dot_rows.h"

#include "util/simd_lanes.h"

namespace minimind {

namespace {

using simd::kLanes;
using simd::Lanes;

// Lane l holds the products of indices i ≡ l (mod 4) in increasing i; the
// tail (n mod 4 values) continues the same lanes; then a fixed pairing.
inline float finish(Lanes acc, const float* a, const float* b, int64_t i, int64_t n) {
  float lane[kLanes];
  simd::store(lane, acc);
  for (int l = 0; i + l < n; ++l) lane[l] = lane[l] + a[i + l] * b[i + l];
  return (lane[0] + lane[2]) + (lane[1] + lane[3]);
}

// out[r, c] = dot(x[r], y[c]) for R rows of x and C rows of y at once: each
// row of y is loaded once for R rows of x. R·C accumulators stay in registers.
template <int R, int C>
void tile(const float* x, int64_t x_stride, const float* y, int64_t y_stride, int64_t n, float* out,
          int64_t out_stride) {
  Lanes acc[R][C];
  for (int r = 0; r < R; ++r) {
    for (int c = 0; c < C; ++c) acc[r][c] = simd::zero();
  }
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    Lanes w[C];
    for (int c = 0; c < C; ++c) w[c] = simd::load(y + c * y_stride + i);
    for (int r = 0; r < R; ++r) {
      const Lanes xr = simd::load(x + r * x_stride + i);
      for (int c = 0; c < C; ++c) acc[r][c] = simd::mul_add(acc[r][c], xr, w[c]);
    }
  }
  for (int r = 0; r < R; ++r) {
    for (int c = 0; c < C; ++c) out[r * out_stride + c] = finish(acc[r][c], x + r * x_stride, y + c * y_stride, i, n);
  }
}

template <int R>
void row_block(const float* x, int64_t x_stride, const float* y, int64_t rows_y, int64_t y_stride, int64_t n,
               float* out, int64_t out_stride) {
  constexpr int kCols = 2;  // rows of y per tile
  int64_t c = 0;
  for (; c + kCols <= rows_y; c += kCols)
    tile<R, kCols>(x, x_stride, y + c * y_stride, y_stride, n, out + c, out_stride);
  for (; c < rows_y; ++c) tile<R, 1>(x, x_stride, y + c * y_stride, y_stride, n, out + c, out_stride);
}

}  // namespace

float dot(const float* a, const float* b, int64_t n) {
  float out;
  tile<1, 1>(a, 0, b, 0, n, &out, 0);
  return out;
}

void dot_rows(const float* x, int64_t T, int64_t n, int64_t x_stride, const float* y, int64_t R, int64_t y_stride,
              float* out, int64_t out_stride) {
  // Every output element takes the same path through finish(): a row's
  // numbers are the same whether it is computed alone or with others.
  int64_t t = 0;
  for (; t + 4 <= T; t += 4)
    row_block<4>(x + t * x_stride, x_stride, y, R, y_stride, n, out + t * out_stride, out_stride);
  const int64_t rest = T - t;
  const float* xt = x + t * x_stride;
  float* ot = out + t * out_stride;
  if (rest == 3) row_block<3>(xt, x_stride, y, R, y_stride, n, ot, out_stride);
  if (rest == 2) row_block<2>(xt, x_stride, y, R, y_stride, n, ot, out_stride);
  if (rest == 1) row_block<1>(xt, x_stride, y, R, y_stride, n, ot, out_stride);
}

Matrix dot_rows(const Matrix& a, const Matrix& b) {
  Matrix out(a.rows(), b.rows());
  dot_rows(a.data(), a.rows(), a.cols(), a.cols(), b.data(), b.rows(), b.cols(), out.data(), out.cols());
  return out;
}

}  // namespace minimind
