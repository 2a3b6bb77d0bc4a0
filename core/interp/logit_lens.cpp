#include "interp/logit_lens.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>

#include "ops/linear.h"
#include "ops/rmsnorm.h"
#include "util/error.h"

namespace minimind {

namespace {

// torch.softmax of one row of n logits, in place: max-subtracted, float32 exp.
void softmax_row(float* row, int64_t n) {
  const float max = *std::max_element(row, row + n);
  double sum = 0.0;
  for (int64_t i = 0; i < n; ++i) {
    row[i] = std::exp(row[i] - max);
    sum += row[i];
  }
  const float total = float(sum);
  for (int64_t i = 0; i < n; ++i) row[i] /= total;
}

}  // namespace

LogitLens logit_lens(const Model& model, const Activations& a, int64_t top_k, int32_t token) {
  const ModelConfig& c = model.config();
  const int64_t L = c.num_hidden_layers, D = c.hidden_size, V = c.vocab_size, T = a.T;
  if (top_k < 1 || top_k > V) {
    throw Error(
        "interp.top_out_of_range", {{"top", top_k}, {"vocab", V}},
        "top must be between 1 and the vocabulary's " + std::to_string(V) + " tokens, got " + std::to_string(top_k));
  }
  if (token < -1 || token >= V) {
    throw Error("token_id.out_of_range", {{"id", int64_t(token)}, {"last", V - 1}},
                "token id " + std::to_string(token) + " is outside the vocabulary (0.." + std::to_string(V - 1) + ")");
  }
  LogitLens lens;
  lens.layers = L + 1;
  lens.T = T;
  lens.top_k = top_k;
  lens.top.resize(size_t((L + 1) * T * top_k));
  if (token >= 0) lens.token_p.resize(size_t((L + 1) * T));

  std::vector<float> normed(static_cast<size_t>(T * D));  // [T, D]
  std::vector<float> probs(static_cast<size_t>(T * V));   // [T, V]
  std::vector<int32_t> order(static_cast<size_t>(V));     // [V]
  for (int64_t l = 0; l <= L; ++l) {
    // Read residual l as the final one: lm_head(norm(x)), the model's own kernels.
    rms_norm_rows(a.residual_at(l, D), model.weights().norm.data(), T, D, float(c.rms_norm_eps), normed.data());
    linear_rows(normed.data(), T, D, model.weights().output_head(), probs.data(), V);
    for (int64_t t = 0; t < T; ++t) {
      float* p = probs.data() + t * V;  // [V]
      softmax_row(p, V);
      std::iota(order.begin(), order.end(), 0);
      std::partial_sort(order.begin(), order.begin() + top_k, order.end(),
                        [p](int32_t x, int32_t y) { return p[x] > p[y] || (p[x] == p[y] && x < y); });
      LensEntry* out = lens.top.data() + (l * T + t) * top_k;
      for (int64_t k = 0; k < top_k; ++k) out[k] = {order[size_t(k)], p[order[size_t(k)]]};
      if (token >= 0) lens.token_p[size_t(l * T + t)] = p[token];
    }
  }
  return lens;
}

}  // namespace minimind
