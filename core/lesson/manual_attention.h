// The lesson's attention formula written out as plain loops, independent of
// the path in attention.cpp: softmax(QKᵀ/√Dh + mask)·V, then o_proj (the
// projections through the module's product, ops/linear.h).
// The lab record compares the two ("manual_vs_module_max_abs_diff"), and the
// tests use it as the scalar reference.
#pragma once

#include <vector>

#include "ops/rope.h"
#include "tensors/model_config.h"
#include "tensors/weights.h"
#include "util/tensor.h"

namespace minimind {

struct ManualAttention {
  std::vector<float> weights;  // [H, T, T] softmax weights
  std::vector<float> output;   // [T, D] after o_proj
};

// x: [T, D] row-major (the normed block input), positions 0..T-1, causal.
ManualAttention manual_attention(const ModelConfig& config, const LayerWeights& w, const RotaryEmbedding& rope,
                                 const std::vector<float>& x, int64_t T);

}  // namespace minimind
