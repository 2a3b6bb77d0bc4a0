// Direct logit attribution: how much each part writing into the residual
// stream adds to logit(answer) - logit(wrong) at one position, read through
// the final norm with its scale held fixed at the run's value (as
// TransformerLens does), so the parts add up to the logit difference.
// Shapes as in hooks.h.
#pragma once

#include <cstdint>
#include <vector>

#include "interp/hooks.h"

namespace minimind {

struct Attribution {
  int64_t position = 0;
  float total = 0.0f;        // logit(answer) - logit(wrong) of the model's logits
  float embedding = 0.0f;    // embed_tokens[ids[position]]
  std::vector<float> heads;  // [L, H]: o_proj's slice of head h times its z (0: switched off)
  std::vector<float> ffn;    // [L]: each block's FFN (an MoE layer's as a whole)
};

// Each part x [D] counts x · (scale · norm.weight ⊙ (W_U[answer] - W_U[wrong])),
// scale the final norm's rsqrt(mean(x_final²) + eps) at `position` (0..T-1).
Attribution direct_logit_attribution(const Model& model, const std::vector<int32_t>& ids, int64_t position,
                                     int32_t answer, int32_t wrong, const InterpOptions& options = {});

}  // namespace minimind
