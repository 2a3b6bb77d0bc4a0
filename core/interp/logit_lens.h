// The logit lens: every residual of the stream read out as if it were the
// last one (final norm + lm_head + softmax), so one sees at which layer the
// prediction forms. Shapes as in hooks.h.
#pragma once

#include <cstdint>
#include <vector>

#include "interp/hooks.h"

namespace minimind {

struct LensEntry {
  int32_t id = 0;
  float p = 0.0f;
};

struct LogitLens {
  int64_t layers = 0, T = 0, top_k = 0;  // layers = L + 1: the embedding, then after each block
  std::vector<LensEntry> top;            // [L + 1, T, top_k]: most probable first (ties: lower id first)
  std::vector<float> token_p;            // [L + 1, T]: p of the chosen token; empty without one

  const LensEntry* top_at(int64_t layer, int64_t position) const { return top.data() + (layer * T + position) * top_k; }
};

// softmax(lm_head(norm(residual[l][t]))) for every layer l and position t of
// `a`; top_k in 1..V; token -1 (none) or a vocabulary id. The last layer's
// rows are the model's own prediction (a.logits, through the same kernels).
LogitLens logit_lens(const Model& model, const Activations& a, int64_t top_k, int32_t token = -1);

}  // namespace minimind
