// GQA self-attention of one block (MiniMind's Attention.forward), for one
// sequence, with optional q/k norm, RoPE, causal and padding masks, KV cache.
#pragma once

#include <cstdint>
#include <vector>

#include "tensors/kv_cache.h"
#include "tensors/model_config.h"
#include "tensors/weights.h"
#include "util/tensor.h"

namespace minimind {

class Trace;

// Switches a learner can flip to see why each piece is there. MiniMind
// itself always runs with both on.
struct AttentionOptions {
  bool causal_mask = true;   // off: the future leaks into every row
  bool scale_scores = true;  // off: no ÷√Dh, softmax turns winner-takes-all
  // Head ablation: [H] flags or nullptr; a flagged head's output is zeroed
  // before o_proj (its attention weights and head_outputs are still traced),
  // so the change in the prediction shows what the head contributes.
  const uint8_t* ablated_heads = nullptr;
  // Activation patching: [H] pointers, each nullptr or [T, Dh] values that
  // replace the head's output before o_proj (as a hook on o_proj's input).
  const float* const* patched_heads = nullptr;
};

// Where the trace of this call goes (nullptr: no trace).
struct TraceTarget {
  Trace* trace = nullptr;
  int64_t layer = 0;
  int64_t batch_index = 0;
};

// Scratch memory of attention_forward, kept by the caller between calls
// (buffers only grow: see scratch() in tensor.h).
struct AttentionScratch {
  std::vector<float> q, k, v;  // [T, H·Dh], [T, Hkv·Dh], [T, Hkv·Dh]
  std::vector<float> scores;   // [T, Tk]: one head's scores, then weights
  std::vector<float> concat;   // [T, H·Dh]: the heads' outputs side by side

  // Grows every buffer to what T tokens against Tk keys need.
  void reserve(const ModelConfig& config, int64_t T, int64_t Tk);
};

// The cos and sin rows of a call's T positions (P .. P+T-1): [T, Dh] each.
struct RopeRows {
  const float* cos = nullptr;
  const float* sin = nullptr;
};

// a: [T, D] normed block input; the layer's cache holds P rows and gets T
// more; key_mask: [P + T] with 1 for real tokens and 0 for padding, or
// nullptr. Writes o_proj's output [T, D] to out.
void attention_forward(const ModelConfig& config, const LayerWeights& w, const float* a, int64_t T, RopeRows rope,
                       LayerKVCache& cache, const int32_t* key_mask, const AttentionOptions& options,
                       const TraceTarget& target, AttentionScratch& scratch, float* out);

// Row-wise softmax in place over n values (float32, max-subtracted as torch
// does); a row of all -inf stays all-zero instead of NaN.
void softmax_inplace(float* row, int64_t n);

// ---- training: one sequence, no cache, causal mask, no padding mask -------
// The core of attention (scores, ÷√Dh, causal mask, softmax, P·v) on plain
// buffers, computing the same bits as attention_forward does for a
// sequence with an empty cache, and keeping the weights for the backward.

// Scratch memory of the two functions below (buffers only grow).
struct AttentionCoreScratch {
  std::vector<float> panels;     // one kv head's keys (forward) or one head's operand, packed
  std::vector<float> row_major;  // [T, T]: one head's Pᵀ or dSᵀ
  std::vector<float> dscores;    // [T, T]: one head's dP, then dS
  std::vector<float> product;    // [T, Dh]: a product before it is added
};

// q [T, H·Dh], k, v [T, Hkv·Dh] (after q/k norm and RoPE) -> probs [H, T, T]
// (the softmax weights, upper triangle exactly 0) and concat [T, H·Dh].
void attention_core_forward(const float* q, const float* k, const float* v, int64_t T, int64_t H, int64_t Hkv,
                            int64_t Dh, bool scale_scores, float* probs, float* concat, AttentionCoreScratch& scratch);

// d concat [T, H·Dh] -> dq [T, H·Dh], dk, dv [T, Hkv·Dh] (overwritten; kv
// head j receives the sum over the R q heads that read it), given the
// forward's q, k, v and probs.
void attention_core_backward(const float* q, const float* k, const float* v, const float* probs, const float* dconcat,
                             int64_t T, int64_t H, int64_t Hkv, int64_t Dh, bool scale_scores, float* dq, float* dk,
                             float* dv, AttentionCoreScratch& scratch);

// Softmax's backward on one row of n: ds = p · (dp - Σ p·dp). ds may be dp.
void softmax_backward(const float* p, const float* dp, int64_t n, float* ds);

}  // namespace minimind
