// Edge attribution patching (EAP, Syed et al. 2023): for every edge sender
// s -> receiver r,
//   score(s, r) = Σ_t (s's corrupt output - its clean output)[t] · ∂metric/∂(r's input)[t],
// the gradient taken at the clean run: one clean forward, one corrupt
// forward, one backward for every edge. It estimates the path-patched metric
// minus the clean one, to first order.
//
// Each receiver needs its own input gradient: the backward splits the
// gradient before the RMSNorm that receivers share (input_layernorm feeds
// every head's q, k and v), where the training backward sums them first.
// Under GQA a query head's k and v receivers get that head's share of its kv
// head's gradient (the attention backward run for that head alone).
// Shapes: T tokens, D hidden, E edges.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "interp/circuit_forward.h"

namespace minimind {

// ∂metric/∂(receiver r's input) [T, D] at `run` for every receiver r, handed
// to visit(r, g) from the logits back to block 0's.
void receiver_gradients(const CircuitForward& forward, const CircuitRun& run,
                        const std::function<void(int64_t receiver, const float* g)>& visit);

// The FFN receiver's step: d_out [T, D] = ∂metric/∂(block l's FFN output) ->
// g [T, D] = ∂metric/∂(the FFN's input, before post_attention_layernorm),
// through the block's saved activations (ops/ffn_block.h: dense, or MoE
// with the forward's routing held fixed).
void ffn_receiver_gradient(const CircuitForward& forward, int64_t l, const CircuitBlock& block, const float* d_out,
                           float* g);

// Every edge's score [E] (edge order of circuit_graph.h) and, with
// positions, its split by position [E, T] (a score is the sum of its row).
void edge_attribution(const CircuitForward& forward, const CircuitRun& clean, const CircuitRun& corrupt,
                      std::vector<float>& scores, std::vector<float>* positions);

}  // namespace minimind
