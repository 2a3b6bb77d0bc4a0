#include "ops/embedding.h"

namespace minimind {

void embedding_forward(const WeightMatrix& table, const int32_t* ids, int64_t N, float* h) {
  const int64_t D = table.cols();
  for (int64_t n = 0; n < N; ++n) table.row(ids[n], h + n * D);  // h[n] = embed_tokens.weight[ids[n]]
}

void embedding_backward(const int32_t* ids, int64_t N, const float* dh, int64_t D, float* dtable) {
  for (int64_t n = 0; n < N; ++n) {
    float* row = dtable + int64_t(ids[n]) * D;  // [D]
    const float* grad = dh + n * D;             // [D]
    for (int64_t d = 0; d < D; ++d) row[d] += grad[d];
  }
}

}  // namespace minimind
