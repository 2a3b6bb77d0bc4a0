#include "moe.h"

#include <algorithm>
#include <numeric>

#include "ffn.h"
#include "linear.h"
#include "trace.h"

namespace minimind {

Matrix moe_ffn(const ModelConfig& c, const MoeWeights& w, const Matrix& b, const TraceTarget& target) {
  const int64_t T = b.rows(), E = c.num_experts, K = c.num_experts_per_tok;
  Matrix probs = linear(b, w.gate);  // [T, E] router logits, then softmax
  for (int64_t t = 0; t < T; ++t) softmax_inplace(probs.row(t).data(), E);

  // torch.topk per token: the K largest probabilities (ties: lower index).
  Matrix chosen(T, K), chosen_weight(T, K);                                   // [T, k]
  const bool renormalise = c.norm_topk_prob && (c.generation == 3 || K > 1);  // gen 2 only when k > 1
  for (int64_t t = 0; t < T; ++t) {
    std::vector<int64_t> order(static_cast<size_t>(E));
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int64_t x, int64_t y) { return probs(t, x) > probs(t, y); });
    float sum = 0.0f;
    for (int64_t k = 0; k < K; ++k) sum += probs(t, order[size_t(k)]);
    for (int64_t k = 0; k < K; ++k) {
      chosen(t, k) = float(order[size_t(k)]);
      const float p = probs(t, order[size_t(k)]);
      chosen_weight(t, k) = renormalise ? p / (sum + 1e-20f) : p;
    }
  }
  if (Trace* trace = target.trace) {
    if (trace->wants(target.layer, stage::kRouterProbs)) {
      trace->put(target.layer, stage::kRouterProbs, target.batch_index, {T, E}, probs.data());
    }
    if (trace->wants(target.layer, stage::kRouterExperts)) {
      trace->put(target.layer, stage::kRouterExperts, target.batch_index, {T, K}, chosen.data());
    }
    if (trace->wants(target.layer, stage::kRouterWeights)) {
      trace->put(target.layer, stage::kRouterWeights, target.batch_index, {T, K}, chosen_weight.data());
    }
  }

  // Expert by expert, as MiniMind's loop does: run the expert on the tokens
  // routed to it and add its weighted output to theirs.
  Matrix y = Matrix::Zero(T, b.cols());  // [T, D]
  for (int64_t e = 0; e < E; ++e) {
    std::vector<int64_t> tokens;
    std::vector<float> token_weights;
    for (int64_t t = 0; t < T; ++t) {
      for (int64_t k = 0; k < K; ++k) {
        if (int64_t(chosen(t, k)) == e) {
          tokens.push_back(t);
          token_weights.push_back(chosen_weight(t, k));
        }
      }
    }
    if (tokens.empty()) continue;
    Matrix routed(int64_t(tokens.size()), b.cols());  // [n, D]
    for (size_t i = 0; i < tokens.size(); ++i) routed.row(int64_t(i)) = b.row(tokens[i]);
    const Matrix out = swiglu_ffn(w.experts[size_t(e)], routed);  // [n, D]
    for (size_t i = 0; i < tokens.size(); ++i) y.row(tokens[i]) += out.row(int64_t(i)) * token_weights[i];
  }
  // Generation 2: shared experts see every token and add unweighted.
  for (const FfnWeights& shared : w.shared_experts) y += swiglu_ffn(shared, b);
  return y;
}

}  // namespace minimind
