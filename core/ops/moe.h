// Mixture-of-experts feed-forward: MiniMind's MOEFeedForward (generation 3)
// and MiniMind2's MoEGate + MOEFeedForward with shared experts (generation 2).
#pragma once

#include <vector>

#include "ops/attention.h"
#include "ops/ffn.h"
#include "tensors/model_config.h"
#include "tensors/weights.h"
#include "util/tensor.h"

namespace minimind {

// Scratch memory of moe_ffn, kept by the caller between calls.
struct MoeScratch {
  std::vector<float> probs;                  // [T, E] router softmax
  std::vector<int64_t> order;                // [E] experts by probability
  std::vector<float> chosen, chosen_weight;  // [T, k] expert ids (as floats, for the trace) and weights
  std::vector<int64_t> tokens;               // [≤ T·k] the tokens routed to one expert
  std::vector<float> token_weights;          // [≤ T·k] their weights
  std::vector<float> routed, expert_out;     // [≤ T·k, D] their rows, the expert's output
  FfnScratch ffn;

  // Grows every buffer to what T tokens need.
  void reserve(const ModelConfig& config, int64_t T);
};

// The router of MOEFeedForward / MoEGate on b [T, D]: probs [T, E] =
// softmax(b · gateᵀ); chosen [T, k] the expert ids torch.topk returns (as
// floats, for the trace; ties to the lower id); chosen_weight [T, k] their
// probabilities, divided by (their sum + 1e-20) when moe_renormalises.
// order: [E] scratch.
void moe_route(const ModelConfig& config, const MoeWeights& w, const float* b, int64_t T, float* probs, float* chosen,
               float* chosen_weight, int64_t* order);

// norm_topk_prob as MiniMind applies it: generation 2 only when k > 1.
bool moe_renormalises(const ModelConfig& config);

// b: [T, D] -> out [T, D]. Traces router_probs [T, E], router_experts [T, k],
// router_weights [T, k] when asked.
void moe_ffn(const ModelConfig& config, const MoeWeights& w, const float* b, int64_t T, float* out, MoeScratch& scratch,
             const TraceTarget& target = {});

}  // namespace minimind
