// RMSNorm (MiniMind's RMSNorm.forward): w * x / sqrt(mean(x²) + eps) over the
// last dimension, in float32.
#pragma once

#include "tensor.h"

namespace minimind {

// x: [N, n] -> [N, n], each row normalised on its own; w: [n].
Matrix rms_norm(const Matrix& x, const Vector& w, float eps);

// In place on `rows` consecutive vectors of length n (q/k norm per head).
void rms_norm_inplace(float* x, const float* w, int64_t rows, int64_t n, float eps);

}  // namespace minimind
