#include "rmsnorm.h"

#include <cmath>

namespace minimind {

void rms_norm_inplace(float* x, const float* w, int64_t rows, int64_t n, float eps) {
  for (int64_t r = 0; r < rows; ++r) {
    float* row = x + r * n;
    float sum_squares = 0.0f;
    for (int64_t i = 0; i < n; ++i) sum_squares += row[i] * row[i];
    // x * rsqrt(mean + eps), then * weight: the order of MiniMind's RMSNorm.
    const float inv_rms = 1.0f / std::sqrt(sum_squares / float(n) + eps);
    for (int64_t i = 0; i < n; ++i) row[i] = w[i] * (row[i] * inv_rms);
  }
}

Matrix rms_norm(const Matrix& x, const Vector& w, float eps) {
  Matrix out = x;
  rms_norm_inplace(out.data(), w.data(), out.rows(), out.cols(), eps);
  return out;
}

}  // namespace minimind
