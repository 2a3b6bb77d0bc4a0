// Activation patching (TransformerLens's vocabulary): run the corrupt text,
// put one activation of the clean run in, and see how much of the clean
// answer comes back. The metric is logit(answer) - logit(wrong) at the last
// position. Shapes as in hooks.h.
#pragma once

#include <cstdint>
#include <vector>

#include "interp/hooks.h"

namespace minimind {

struct PatchingResult {
  int64_t layers = 0, heads_per_layer = 0, T = 0;
  float clean = 0.0f, corrupt = 0.0f;  // the metric of the two plain runs
  // The corrupt run's metric with one activation from the clean run (empty
  // when that sweep was not asked for):
  std::vector<float> heads;     // [L, H]: head (l, h)'s z, every position (NaN: switched off)
  std::vector<float> residual;  // [L + 1, T]: the residual after layer l at position t
};

// logit(answer) - logit(wrong) of the residual row x [D] leaving the last
// block: the final norm, then the two rows of lm_head (float64 sums).
float logit_difference(const Model& model, const float* x, int32_t answer, int32_t wrong);

// Which sweeps to run (a page may want the heads first, at a fraction of the cost).
struct PatchingSweeps {
  bool heads = true;
  bool residual = true;
};

// The whole sweep: one clean and one corrupt run with hooks, then one patched
// run per head and per (residual layer, position), each resumed at the
// patched layer from the corrupt run's cached residual (earlier layers are not
// recomputed); with the causal mask, also at the first position a patch can
// change (rows before it keep the corrupt run's keys and values), and the
// last block runs o_proj and the FFN on the last row alone. clean and
// corrupt need the same length (minimind::Error). With options.ablate
// both runs and every patched run have those heads switched off, and their
// cells of `heads` are NaN (a zero z patched with a zero z: no run).
PatchingResult activation_patching(const Model& model, const std::vector<int32_t>& clean,
                                   const std::vector<int32_t>& corrupt, int32_t answer, int32_t wrong,
                                   const InterpOptions& options = {}, const PatchingSweeps& sweeps = {});

}  // namespace minimind
