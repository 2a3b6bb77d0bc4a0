// Mixture-of-experts feed-forward: MiniMind's MOEFeedForward (generation 3)
// and MiniMind2's MoEGate + MOEFeedForward with shared experts (generation 2).
#pragma once

#include "attention.h"
#include "model_config.h"
#include "tensor.h"
#include "weights.h"

namespace minimind {

// b: [T, D] -> [T, D]. Traces router_probs [T, E], router_experts [T, k],
// router_weights [T, k] when asked.
Matrix moe_ffn(const ModelConfig& config, const MoeWeights& w, const Matrix& b, const TraceTarget& target = {});

}  // namespace minimind
