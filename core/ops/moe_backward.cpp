#include "ops/moe_backward.h"

#include <algorithm>

#include "ops/attention.h"
#include "ops/moe.h"

namespace minimind {

void moe_forward_saved(const ModelConfig& c, const MoeWeights& w, const float* b, int64_t T, float* out,
                       FfnActivations& a) {
  const int64_t E = c.num_experts, K = c.num_experts_per_tok, D = c.hidden_size, R = T * K;
  const int64_t Fe = c.expert_intermediate_size();
  float* probs = scratch(a.probs, T * E);                  // [T, E]
  float* chosen = scratch(a.chosen, T * K);                // [T, k]
  float* chosen_weight = scratch(a.chosen_weight, T * K);  // [T, k]
  moe_route(c, w, b, T, probs, chosen, chosen_weight, scratch(a.order, E));

  // The routed rows, expert by expert, tokens in order: MiniMind's loop.
  int64_t* expert_rows = scratch(a.expert_rows, E + 1);
  int64_t* row_slot = scratch(a.row_slot, R);
  float* routed_in = scratch(a.routed_in, R * D);  // [R, D]
  int64_t r = 0;
  for (int64_t e = 0; e < E; ++e) {
    expert_rows[e] = r;
    for (int64_t slot = 0; slot < T * K; ++slot) {
      if (int64_t(chosen[slot]) != e) continue;
      row_slot[r] = slot;
      std::copy_n(b + (slot / K) * D, D, routed_in + r * D);
      ++r;
    }
  }
  expert_rows[E] = r;

  float* gate = scratch(a.routed.gate, R * Fe);  // [R, Fe]
  float* up = scratch(a.routed.up, R * Fe);      // [R, Fe]
  float* act = scratch(a.routed.act, R * Fe);    // [R, Fe]
  float* routed_out = scratch(a.routed_out, R * D);
  std::fill(out, out + T * D, 0.0f);  // [T, D]
  for (int64_t e = 0; e < E; ++e) {
    const int64_t r0 = expert_rows[e], n = expert_rows[e + 1] - r0;
    if (n == 0) continue;
    swiglu_forward_rows(w.experts[size_t(e)], routed_in + r0 * D, n, gate + r0 * Fe, up + r0 * Fe, act + r0 * Fe,
                        routed_out + r0 * D);
    for (int64_t i = r0; i < r0 + n; ++i) {
      float* y = out + (row_slot[i] / K) * D;
      const float weight = chosen_weight[row_slot[i]];
      for (int64_t d = 0; d < D; ++d) y[d] += routed_out[i * D + d] * weight;
    }
  }
  // Generation 2: shared experts see every token and add unweighted.
  a.shared.resize(w.shared_experts.size());
  float* shared_out = scratch(a.shared_out, T * D);
  for (size_t i = 0; i < w.shared_experts.size(); ++i) {
    const FfnWeights& shared = w.shared_experts[i];
    const int64_t F = shared.gate_proj.rows();
    SwigluActivations& s = a.shared[i];
    swiglu_forward_rows(shared, b, T, scratch(s.gate, T * F), scratch(s.up, T * F), scratch(s.act, T * F), shared_out);
    for (int64_t j = 0; j < T * D; ++j) out[j] += shared_out[j];
  }
}

void moe_backward(const ModelConfig& c, const MoeWeights& w, const FfnActivations& a, const float* d_out, float* d_in,
                  const FfnGradients* grads, FfnBackwardScratch& s) {
  const int64_t T = a.T, E = c.num_experts, K = c.num_experts_per_tok, D = c.hidden_size;
  const int64_t Fe = c.expert_intermediate_size();
  const float* b = a.input.data();  // [T, D]
  std::fill(d_in, d_in + T * D, 0.0f);
  const auto expert_grads = [&](const std::vector<SwigluGradients>* list, size_t e) {
    return list && e < list->size() ? (*list)[e] : SwigluGradients{};
  };

  // out[t] = Σ_j weight[t, j] · expert_j(b[t]) (+ shared experts), so
  // ∂/∂weight[t, j] = d_out[t] · expert_j(b[t]), and expert_j's rows get
  // d_out[t] · weight[t, j].
  float* d_weight = scratch(s.d_weight, T * K);  // [T, k]
  for (int64_t e = 0; e < E; ++e) {
    const int64_t r0 = a.expert_rows[size_t(e)], n = a.expert_rows[size_t(e) + 1] - r0;
    if (n == 0) continue;
    float* dy = scratch(s.dy_rows, n * D);  // [n, D]
    for (int64_t i = 0; i < n; ++i) {
      const int64_t slot = a.row_slot[size_t(r0 + i)];
      const float* g = d_out + (slot / K) * D;
      const float* y = a.routed_out.data() + (r0 + i) * D;
      const float weight = a.chosen_weight[size_t(slot)];
      float dw = 0.0f;
      for (int64_t d = 0; d < D; ++d) {
        dw += g[d] * y[d];
        dy[i * D + d] = g[d] * weight;
      }
      d_weight[slot] = dw;
    }
    float* dx = scratch(s.dx_rows, n * D);  // [n, D]
    swiglu_backward_rows(w.experts[size_t(e)], a.routed_in.data() + r0 * D, n, a.routed.gate.data() + r0 * Fe,
                         a.routed.up.data() + r0 * Fe, a.routed.act.data() + r0 * Fe, dy, dx,
                         expert_grads(grads ? &grads->experts : nullptr, size_t(e)), s);
    for (int64_t i = 0; i < n; ++i) {
      float* to = d_in + (a.row_slot[size_t(r0 + i)] / K) * D;
      for (int64_t d = 0; d < D; ++d) to[d] += dx[i * D + d];
    }
  }

  // weight[t, j] = p[t, e_j] / S (S = Σ_k p[t, e_k] + 1e-20) when renormalised,
  // else p[t, e_j]; then p = softmax(logits): ∂/∂p only at the chosen experts.
  const bool renormalise = moe_renormalises(c);
  float* d_probs = scratch(s.d_probs, T * E);  // [T, E]
  std::fill(d_probs, d_probs + T * E, 0.0f);
  for (int64_t t = 0; t < T; ++t) {
    const float* p = a.probs.data() + t * E;
    const float* chosen = a.chosen.data() + t * K;
    const float* dw = d_weight + t * K;
    float* dp = d_probs + t * E;
    if (renormalise) {
      float sum = 0.0f;
      for (int64_t k = 0; k < K; ++k) sum += p[int64_t(chosen[k])];  // moe_route's sum
      const float S = sum + 1e-20f;
      float dw_dot_p = 0.0f;  // Σ_k dw_k p_k
      for (int64_t k = 0; k < K; ++k) dw_dot_p += dw[k] * p[int64_t(chosen[k])];
      for (int64_t k = 0; k < K; ++k) dp[int64_t(chosen[k])] += dw[k] / S - dw_dot_p / (S * S);
    } else {
      for (int64_t k = 0; k < K; ++k) dp[int64_t(chosen[k])] += dw[k];
    }
    softmax_backward(p, dp, E, dp);  // -> ∂/∂(router logits)
  }
  float* dx = scratch(s.dx_rows, T * D);  // [T, D]
  linear_backward_of(w.gate, b, T, d_probs, dx, grads ? grads->router : nullptr, s);
  for (int64_t i = 0; i < T * D; ++i) d_in[i] += dx[i];

  for (size_t i = 0; i < w.shared_experts.size(); ++i) {
    const SwigluActivations& sa = a.shared[i];
    swiglu_backward_rows(w.shared_experts[i], b, T, sa.gate.data(), sa.up.data(), sa.act.data(), d_out, dx,
                         expert_grads(grads ? &grads->shared_experts : nullptr, i), s);
    for (int64_t j = 0; j < T * D; ++j) d_in[j] += dx[j];
  }
}

}  // namespace minimind
