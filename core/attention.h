// GQA self-attention of one block (MiniMind's Attention.forward), for one
// sequence, with optional q/k norm, RoPE, causal and padding masks, KV cache.
#pragma once

#include <cstdint>
#include <vector>

#include "kv_cache.h"
#include "model_config.h"
#include "rope.h"
#include "tensor.h"
#include "weights.h"

namespace minimind {

class Trace;

// Switches a learner can flip to see why each piece is there. MiniMind
// itself always runs with both on.
struct AttentionOptions {
  bool causal_mask = true;   // off: the future leaks into every row
  bool scale_scores = true;  // off: no ÷√Dh, softmax turns winner-takes-all
};

// Where the trace of this call goes (nullptr: no trace).
struct TraceTarget {
  Trace* trace = nullptr;
  int64_t layer = 0;
  int64_t batch_index = 0;
};

// a: [T, D] normed block input; the layer's cache holds P rows and gets T
// more; key_mask: [P + T] with 1 for real tokens and 0 for padding, or empty.
// Returns o_proj output: [T, D].
Matrix attention_forward(const ModelConfig& config, const LayerWeights& w, const RotaryEmbedding& rope, const Matrix& a,
                         int64_t start_position, LayerKVCache& cache, const std::vector<int32_t>& key_mask,
                         const AttentionOptions& options, const TraceTarget& target);

// Row-wise softmax in place over n values (float32, max-subtracted as torch
// does); a row of all -inf stays all-zero instead of NaN.
void softmax_inplace(float* row, int64_t n);

}  // namespace minimind
