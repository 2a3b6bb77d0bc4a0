// nn.Linear without bias on packed weights (weight_matrix.h):
//   y[t, o] = Σ_i x[t, i] · W[o, i], summed over i in increasing order, one
//   rounding per product and per sum (no FMA).
// Each output element is one sequential sum, whatever the number of rows, the
// storage of W or the instruction set: a token's numbers do not depend on
// how many tokens run with it (cached decoding equals full recomputation to
// the last bit), and the Wasm build computes the native build's bits.
#pragma once

#include "util/tensor.h"
#include "ops/weight_matrix.h"

namespace minimind {

// x [T, W.cols] with row stride x_stride -> y [T, W.rows] with row stride
// y_stride, for W [out, in].
void linear_rows(const float* x, int64_t T, int64_t x_stride, const PanelsView& W, float* y, int64_t y_stride);
inline void linear_rows(const float* x, int64_t T, int64_t x_stride, const WeightMatrix& W, float* y,
                        int64_t y_stride) {
  linear_rows(x, T, x_stride, W.view(), y, y_stride);
}

}  // namespace minimind
