// Matrix products of the forward pass, written so that every output element
// is summed in the same fixed order whatever the number of rows: a token's
// numbers do not depend on how many tokens run with it. That makes cached
// decoding (one row at a time) agree with full recomputation, and the Wasm
// build agree with the native one, to the last bit of each dot product.
#pragma once

#include "tensor.h"

namespace minimind {

// Σ_i a[i]·b[i] over n floats: 4 interleaved partial sums (lane = i mod 4),
// combined pairwise in a fixed order.
float dot(const float* a, const float* b, int64_t n);

// nn.Linear without bias: y[t, o] = dot(x[t, :], W[o, :]).
// x: [T, in], W: [out, in] -> [T, out].
Matrix linear(const Matrix& x, const Matrix& W);

// The same on raw row-major buffers: x [T, in] with row stride x_stride,
// W [out, in] with row stride w_stride, y [T, out] with row stride y_stride.
void linear_rows(const float* x, int64_t T, int64_t in, int64_t x_stride, const float* W, int64_t out, int64_t w_stride,
                 float* y, int64_t y_stride);

}  // namespace minimind
