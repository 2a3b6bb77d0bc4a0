// RMSNorm (MiniMind's RMSNorm.forward): w * x / sqrt(mean(x²) + eps) over the
// last dimension, in float32.
#pragma once

#include "util/tensor.h"

namespace minimind {

// x: [rows, n] -> out [rows, n] (out may be x), each row normalised on its
// own; w: [n]. The sum of squares runs in 8 interleaved partial sums (SIMD
// lanes), as a vectorised torch.mean does too; the order is fixed, so a row
// gives the same bits alone or among others, natively and in Wasm.
void rms_norm_rows(const float* x, const float* w, int64_t rows, int64_t n, float eps, float* out);

// q/k norm, in place on `rows` consecutive vectors of length n (one per
// token and head). The sum of squares is one sequential sum, as lesson 11's
// hand-written attention adds it, so the two agree to the bit.
void rms_norm_inplace(float* x, const float* w, int64_t rows, int64_t n, float eps);

// ---- backward (training) ------------------------------------------------
// y = w · x · r with r = 1/sqrt(mean(x²) + eps), per row of n values:
//   dx = r · (dy·w) - r³/n · x · Σ(dy·w·x),   dw += Σ_rows dy · x · r.
// x, dy: [rows, n]; w: [n]; dx [rows, n] (may be dy: each row is read
// before it is written); dw [n] accumulated.
void rms_norm_backward(const float* x, const float* w, const float* dy, int64_t rows, int64_t n, float eps, float* dx,
                       float* dw);

}  // namespace minimind
