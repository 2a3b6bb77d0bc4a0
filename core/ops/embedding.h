// The token embedding (nn.Embedding without padding_idx): a row lookup
// forward, a scatter-add of the rows' gradients backward.
#pragma once

#include <cstdint>

#include "tensors/weight_matrix.h"

namespace minimind {

// h [N, D] = table[ids] for ids [N] (each checked by the caller).
void embedding_forward(const WeightMatrix& table, const int32_t* ids, int64_t N, float* h);

// dtable [V, D] += dh[n] into row ids[n], for n in order (a repeated id
// receives the sum of its rows' gradients, as autograd's index_put_ adds).
void embedding_backward(const int32_t* ids, int64_t N, const float* dh, int64_t D, float* dtable);

}  // namespace minimind
