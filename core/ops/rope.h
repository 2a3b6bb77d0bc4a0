// Rotary position embedding, rotate-half style (MiniMind's precompute_freqs_cis
// and apply_rotary_pos_emb), with the optional YaRN rescaling of inv_freq.
#pragma once

#include <vector>

#include "tensors/model_config.h"
#include "util/tensor.h"

namespace minimind {

class RotaryEmbedding {
 public:
  explicit RotaryEmbedding(const ModelConfig& config);

  int64_t head_dim() const { return head_dim_; }
  const std::vector<float>& inv_freq() const { return inv_freq_; }  // [Dh/2]

  // cos and sin rows for one position: [Dh] each, both halves equal.
  void cos_sin(int64_t position, float* cos_out, float* sin_out) const;

 private:
  int64_t head_dim_;
  float attention_factor_;
  std::vector<float> inv_freq_;
};

// x' = x·cos + rotate_half(x)·sin on `heads` vectors x: [heads, Dh], in
// place, with one position's cos and sin rows ([Dh] each, from cos_sin),
// which a forward computes once per token for every head and layer.
void apply_rotary(float* x, int64_t heads, int64_t Dh, const float* cos, const float* sin);

// ---- backward (training) ------------------------------------------------
// The transpose of apply_rotary (a rotation, so its inverse angle), in place
// on the gradient dx: [heads, Dh], with the same position's cos and sin rows:
//   dx1 = dy1·cos1 + dy2·sin2,   dx2 = dy2·cos2 - dy1·sin1  (halves 1, 2).
void apply_rotary_backward(float* dx, int64_t heads, int64_t Dh, const float* cos, const float* sin);

}  // namespace minimind
