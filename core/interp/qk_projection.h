// The pieces of QK attribution that read one head's query or keys through
// its projections, shared by qk_attribution.cpp ("why this weight") and
// key_composition.cpp (which earlier heads write an induction head's keys,
// for the training timeline). Shapes: D hidden, Dh head_dim, C components
// (qk_component_names), n positions.
#pragma once

#include <cstdint>
#include <vector>

#include "model/model.h"
#include "ops/rope.h"
#include "tensors/weights.h"

namespace minimind::qk_detail {

// What the forward computes for one head of block `layer` on the residual
// stream entering it, and the frozen scales the components share.
struct HeadSide {
  std::vector<float> rms;        // [n] input_layernorm's rsqrt(mean(x²) + eps) per position
  std::vector<float> head_norm;  // [n] q_norm's (or k_norm's) scale, 1 without q/k norm
  std::vector<float> rotated;    // [n, Dh] after q/k norm and RoPE: the forward's q or k
  std::vector<float> unrotated;  // [n, Dh] before RoPE
};

// The head's vectors at `positions` from x [T, D] (the residual entering
// the block): normed, projected by W's rows [Dh, D], q/k-normed, rotated.
HeadSide head_side(const Model& model, const LayerWeights& w, const float* x, const std::vector<int64_t>& positions,
                   const PanelsView& W, const Vector& head_norm_weight, const RotaryEmbedding& rope);

// The components comps [n, C, D] at `positions` as the head reads them:
// input_layernorm with each position's frozen scale (side's), W's rows
// [Dh, D], the frozen q_norm (k_norm) scale, then RoPE at the position.
// rotated gets [n, C, Dh]; unrotated (optional) the same before RoPE.
void project_components(const Model& model, const LayerWeights& w, const std::vector<float>& comps, int64_t C,
                        const std::vector<int64_t>& positions, const HeadSide& side, const PanelsView& W,
                        const Vector& head_norm_weight, const RotaryEmbedding& rope, std::vector<float>& rotated,
                        std::vector<float>* unrotated);

// out [A, B] = a [A, Dh] · b [B, Dh]ᵀ, each a sequential sum, then ÷√Dh
// as the forward scales its scores (unless scaling is off).
void score_products(const float* a, int64_t A, const float* b, int64_t B, int64_t Dh, bool scale_scores, float* out);

}  // namespace minimind::qk_detail
