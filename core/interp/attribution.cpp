#include "interp/attribution.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "ops/linear.h"
#include "util/error.h"

namespace minimind {

Attribution direct_logit_attribution(const Model& model, const std::vector<int32_t>& ids, int64_t position,
                                     int32_t answer, int32_t wrong, const InterpOptions& options) {
  const ModelConfig& c = model.config();
  const int64_t L = c.num_hidden_layers, D = c.hidden_size, H = c.num_attention_heads, Dh = c.head_dim;
  const int64_t V = c.vocab_size;
  for (const int32_t id : {answer, wrong}) {
    if (id < 0 || id >= V) {
      throw Error("token_id.out_of_range", {{"id", int64_t(id)}, {"last", V - 1}},
                  "token id " + std::to_string(id) + " is outside the vocabulary (0.." + std::to_string(V - 1) + ")");
    }
  }
  const Activations a = run_with_hooks(model, ids, options);
  const int64_t T = a.T, p = position;
  if (p < 0 || p >= T) {
    throw Error("interp.position_out_of_range", {{"position", p}, {"tokens", T}},
                "position " + std::to_string(p) + " is outside the " + std::to_string(T) + " tokens (0.." +
                    std::to_string(T - 1) + ")");
  }

  // direction [D] = scale · norm.weight ⊙ (W_U[answer] - W_U[wrong]).
  std::vector<float> row_a(static_cast<size_t>(D)), row_w(static_cast<size_t>(D)), direction(static_cast<size_t>(D));
  model.weights().output_head().row(answer, row_a.data());
  model.weights().output_head().row(wrong, row_w.data());
  const float scale = a.final_scale[size_t(p)];
  for (int64_t i = 0; i < D; ++i) {
    direction[size_t(i)] = scale * model.weights().norm[i] * (row_a[size_t(i)] - row_w[size_t(i)]);
  }
  const auto along = [&](const float* x) {  // x [D] · direction
    double sum = 0.0;
    for (int64_t i = 0; i < D; ++i) sum += double(x[i]) * direction[size_t(i)];
    return float(sum);
  };

  Attribution r;
  r.position = p;
  r.total = a.logits[size_t(p * V + answer)] - a.logits[size_t(p * V + wrong)];
  r.embedding = along(a.residual_at(0, D) + p * D);
  r.heads.assign(size_t(L * H), 0.0f);
  r.ffn.resize(size_t(L));
  std::vector<float> concat(size_t(H * Dh), 0.0f);     // [H·Dh]: one head's z, the others 0
  std::vector<float> written(static_cast<size_t>(D));  // [D]: o_proj of it
  const std::vector<uint8_t> ablated =
      options.ablate.empty() ? std::vector<uint8_t>{} : head_ablation_flags(c, options.ablate);  // [L, H]
  for (int64_t l = 0; l < L; ++l) {
    for (int64_t h = 0; h < H; ++h) {
      if (!ablated.empty() && ablated[size_t(l * H + h)]) continue;  // wrote nothing: its part stays 0
      const float* z = a.head_at(l, h, H, Dh) + p * Dh;              // [Dh]
      std::fill(concat.begin(), concat.end(), 0.0f);
      std::copy(z, z + Dh, concat.begin() + h * Dh);
      linear_rows(concat.data(), 1, H * Dh, model.weights().layers[size_t(l)].o_proj, written.data(), D);
      r.heads[size_t(l * H + h)] = along(written.data());
    }
    r.ffn[size_t(l)] = along(a.ffn_outputs.data() + (l * T + p) * D);
  }
  return r;
}

}  // namespace minimind
