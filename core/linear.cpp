#include "linear.h"

namespace minimind {

namespace {

constexpr int kLanes = 8;

float reduce_lanes(const float* acc) {
  return ((acc[0] + acc[4]) + (acc[1] + acc[5])) + ((acc[2] + acc[6]) + (acc[3] + acc[7]));
}

// The tail (n mod 8 values) lands in the lanes their index selects, so the
// result equals what dot() computes element for element.
void accumulate(float* acc, const float* a, const float* b, int64_t n) {
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (int l = 0; l < kLanes; ++l) acc[l] += a[i + l] * b[i + l];
  }
  for (int l = 0; i + l < n; ++l) acc[l] += a[i + l] * b[i + l];
}

}  // namespace

float dot(const float* a, const float* b, int64_t n) {
  float acc[kLanes] = {};
  accumulate(acc, a, b, n);
  return reduce_lanes(acc);
}

void linear_rows(const float* x, int64_t T, int64_t in, int64_t x_stride, const float* W, int64_t out, int64_t w_stride,
                 float* y, int64_t y_stride) {
  constexpr int64_t kRowTile = 4;  // x rows sharing one pass over a weight row
  int64_t t = 0;
  for (; t + kRowTile <= T; t += kRowTile) {
    for (int64_t o = 0; o < out; ++o) {
      const float* w = W + o * w_stride;
      float acc[kRowTile][kLanes] = {};
      int64_t i = 0;
      for (; i + kLanes <= in; i += kLanes) {
        for (int64_t r = 0; r < kRowTile; ++r) {
          const float* xr = x + (t + r) * x_stride + i;
          for (int l = 0; l < kLanes; ++l) acc[r][l] += xr[l] * w[i + l];
        }
      }
      for (int64_t r = 0; r < kRowTile; ++r) {
        accumulate(acc[r], x + (t + r) * x_stride + i, w + i, in - i);
        y[(t + r) * y_stride + o] = reduce_lanes(acc[r]);
      }
    }
  }
  for (; t < T; ++t) {
    for (int64_t o = 0; o < out; ++o) y[t * y_stride + o] = dot(x + t * x_stride, W + o * w_stride, in);
  }
}

Matrix linear(const Matrix& x, const Matrix& W) {
  Matrix y(x.rows(), W.rows());
  linear_rows(x.data(), x.rows(), x.cols(), x.cols(), W.data(), W.rows(), W.cols(), y.data(), y.cols());
  return y;
}

}  // namespace minimind
