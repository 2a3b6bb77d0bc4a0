#include "ops/moe.h"

#include <algorithm>
#include <numeric>

#include "ops/linear.h"
#include "tensors/trace.h"

namespace minimind {

void MoeScratch::reserve(const ModelConfig& c, int64_t T) {
  const int64_t E = c.num_experts, K = c.num_experts_per_tok, D = c.hidden_size;
  scratch(probs, T * E);
  scratch(order, E);
  scratch(chosen, T * K);
  scratch(chosen_weight, T * K);
  scratch(tokens, T * K);
  scratch(token_weights, T * K);
  scratch(routed, T * K * D);
  scratch(expert_out, T * K * D);
  ffn.reserve(T * K, std::max(c.expert_intermediate_size(), c.intermediate_size));  // routed and shared experts
}

void moe_route(const ModelConfig& c, const MoeWeights& w, const float* b, int64_t T, float* probs, float* chosen,
               float* chosen_weight, int64_t* order) {
  const int64_t E = c.num_experts, K = c.num_experts_per_tok, D = c.hidden_size;
  linear_rows(b, T, D, w.gate, probs, E);  // router logits, then softmax
  for (int64_t t = 0; t < T; ++t) softmax_inplace(probs + t * E, E);

  // torch.topk per token: the K largest probabilities (ties: lower index).
  const bool renormalise = moe_renormalises(c);
  for (int64_t t = 0; t < T; ++t) {
    const float* p = probs + t * E;  // [E]
    std::iota(order, order + E, 0);
    std::sort(order, order + E, [&](int64_t x, int64_t y) { return p[x] > p[y] || (p[x] == p[y] && x < y); });
    float sum = 0.0f;
    for (int64_t k = 0; k < K; ++k) sum += p[order[k]];
    for (int64_t k = 0; k < K; ++k) {
      chosen[t * K + k] = float(order[k]);
      chosen_weight[t * K + k] = renormalise ? p[order[k]] / (sum + 1e-20f) : p[order[k]];
    }
  }
}

bool moe_renormalises(const ModelConfig& c) {
  return c.norm_topk_prob && (c.generation == 3 || c.num_experts_per_tok > 1);  // gen 2 only when k > 1
}

void moe_ffn(const ModelConfig& c, const MoeWeights& w, const float* b, int64_t T, float* out, MoeScratch& s,
             const TraceTarget& target) {
  const int64_t E = c.num_experts, K = c.num_experts_per_tok, D = c.hidden_size;
  float* probs = scratch(s.probs, T * E);                  // [T, E]
  float* chosen = scratch(s.chosen, T * K);                // [T, k]
  float* chosen_weight = scratch(s.chosen_weight, T * K);  // [T, k]
  moe_route(c, w, b, T, probs, chosen, chosen_weight, scratch(s.order, E));
  if (Trace* trace = target.trace) {
    if (trace->wants(target.layer, stage::kRouterProbs)) {
      trace->put(target.layer, stage::kRouterProbs, target.batch_index, {T, E}, probs);
    }
    if (trace->wants(target.layer, stage::kRouterExperts)) {
      trace->put(target.layer, stage::kRouterExperts, target.batch_index, {T, K}, chosen);
    }
    if (trace->wants(target.layer, stage::kRouterWeights)) {
      trace->put(target.layer, stage::kRouterWeights, target.batch_index, {T, K}, chosen_weight);
    }
  }

  // Expert by expert, as MiniMind's loop does: run the expert on the tokens
  // routed to it and add its weighted output to theirs.
  std::fill(out, out + T * D, 0.0f);  // [T, D]
  int64_t* tokens = scratch(s.tokens, T * K);
  float* token_weights = scratch(s.token_weights, T * K);
  float* routed = scratch(s.routed, T * K * D);          // [n, D]
  float* expert_out = scratch(s.expert_out, T * K * D);  // [n, D]
  for (int64_t e = 0; e < E; ++e) {
    int64_t n = 0;
    for (int64_t t = 0; t < T; ++t) {
      for (int64_t k = 0; k < K; ++k) {
        if (int64_t(chosen[t * K + k]) == e) {
          tokens[n] = t;
          token_weights[n] = chosen_weight[t * K + k];
          ++n;
        }
      }
    }
    if (n == 0) continue;
    for (int64_t i = 0; i < n; ++i) std::copy_n(b + tokens[i] * D, D, routed + i * D);
    swiglu_ffn(w.experts[size_t(e)], routed, n, expert_out, s.ffn);  // [n, D]
    for (int64_t i = 0; i < n; ++i) {
      float* y = out + tokens[i] * D;
      for (int64_t d = 0; d < D; ++d) y[d] += expert_out[i * D + d] * token_weights[i];
    }
  }
  // Generation 2: shared experts see every token and add unweighted.
  for (const FfnWeights& shared : w.shared_experts) {
    swiglu_ffn(shared, b, T, expert_out, s.ffn);  // [T, D]
    for (int64_t i = 0; i < T * D; ++i) out[i] += expert_out[i];
  }
}

}  // namespace minimind
