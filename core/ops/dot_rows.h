// Dot products of rows of two plain row-major buffers, for operands that are
// not weights (attention scores: queries against the cached keys). Every dot
// product is summed in one fixed order whatever the number of rows, so a
// query's scores do not depend on how many queries run with it.
#pragma once

#include <cstdint>

#include "util/tensor.h"

namespace minimind {

// Σ_i a[i]·b[i] over n floats: 4 interleaved partial sums (lane = i mod 4),
// combined pairwise in a fixed order.
float dot(const float* a, const float* b, int64_t n);

// out[t, r] = dot(x[t, :n], y[r, :n]) for x [T, n] (row stride x_stride) and
// y [R, n] (row stride y_stride); out [T, R] with row stride out_stride.
void dot_rows(const float* x, int64_t T, int64_t n, int64_t x_stride, const float* y, int64_t R, int64_t y_stride,
              float* out, int64_t out_stride);

// a · bᵀ for a [T, n] and b [R, n] -> [T, R].
Matrix dot_rows(const Matrix& a, const Matrix& b);

}  // namespace minimind
