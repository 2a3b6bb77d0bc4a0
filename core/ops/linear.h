// nn.Linear without bias on packed weights (weight_matrix.h):
//   y[t, o] = Σ_i x[t, i] · W[o, i], summed over i in increasing order, one
//   rounding per product and per sum (no FMA), except in the relaxed Wasm
//   build, where linear_rows rounds each multiply-add once.
// Each output element is one sequential sum, whatever the number of rows, the
// storage of W or the instruction set: a token's numbers do not depend on
// how many tokens run with it (cached decoding equals full recomputation to
// the last bit), and the Wasm build computes the native build's bits.
#pragma once

#include "tensors/weight_matrix.h"
#include "util/tensor.h"

namespace minimind {

// x [T, W.cols] with row stride x_stride -> y [T, W.rows] with row stride
// y_stride, for W [out, in].
void linear_rows(const float* x, int64_t T, int64_t x_stride, const PanelsView& W, float* y, int64_t y_stride);
inline void linear_rows(const float* x, int64_t T, int64_t x_stride, const WeightMatrix& W, float* y,
                        int64_t y_stride) {
  linear_rows(x, T, x_stride, W.view(), y, y_stride);
}
// The same product with every product and sum rounded in every build: the
// attention's own products (QKᵀ and its backward), which lesson 11's
// hand-written loops must equal to the bit. linear_rows is this function
// everywhere but in the relaxed build, whose weight products are fused.
void linear_rows_unfused(const float* x, int64_t T, int64_t x_stride, const PanelsView& W, float* y, int64_t y_stride);

// ---- backward (training) ------------------------------------------------
// y = x·Wᵀ has dx = dy·W and dW = dyᵀ·x. Both run through linear_rows on
// operands packed as panels, so each output is one sequential sum (the
// training step's numbers are the same on every build and thread count).

// Panels of Aᵀ for A [rows, cols] (row stride a_stride): a view of shape
// [cols, rows] over `storage` (float32, grown if needed). Column c of panel p
// is A[c, 8p .. 8p+7]: a copy of 8 consecutive values, so packing is cheap.
PanelsView pack_transposed(const float* a, int64_t rows, int64_t cols, int64_t a_stride, std::vector<float>& storage);

// out [cols, rows] = Aᵀ for A [rows, cols] (row stride a_stride).
void transpose(const float* a, int64_t rows, int64_t cols, int64_t a_stride, float* out);

// Scratch memory of linear_backward, kept by the caller (buffers only grow).
struct LinearBackwardScratch {
  std::vector<float> dy_t;      // [out, N]: dyᵀ
  std::vector<float> x_panels;  // xᵀ as panels [in, N]
  std::vector<float> dw;        // [out, in]: this call's dW before it is added
};

// x [N, in] (row stride x_stride), dy [N, out] (row stride dy_stride):
//   dx [N, in] = dy · W, given W_t = Wᵀ packed ([in, out] view, e.g. from
//                pack_transposed of the float32 W); skipped when dx is nullptr;
//   dw [out, in] += dyᵀ · x (accumulated, as autograd accumulates .grad).
void linear_backward(const float* x, int64_t N, int64_t in, int64_t x_stride, const float* dy, int64_t out,
                     int64_t dy_stride, const PanelsView& W_t, float* dx, float* dw, LinearBackwardScratch& scratch);

}  // namespace minimind
