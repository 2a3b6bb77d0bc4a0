// Head scores (attention mass on chosen keys, entropy) against sums over the
// trace written here, and head ablation against a model whose o_proj never
// sees that head (its input columns zeroed).
#include <catch2/catch.hpp>
#include <cmath>

#include "compare.h"
#include "model/head_scores.h"
#include "model/presets.h"
#include "tensors/trace.h"
#include "util/error.h"

using namespace minimind;
using minimind::testing::message_contains;

namespace {

// attn_weights [1, H, T, T] of every layer.
std::vector<Tensor> traced_weights(const Model& model, const std::vector<int32_t>& ids,
                                   const ForwardOptions& options = {}) {
  TraceRequest request;
  for (int64_t l = 0; l < model.config().num_hidden_layers; ++l) request.layers.push_back(l);
  request.stages = {stage::kAttnWeights, stage::kAttnConcat};
  Trace trace(request, 1);
  model.forward(ids, nullptr, {}, options, &trace, 0);
  std::vector<Tensor> out;
  for (int64_t l = 0; l < model.config().num_hidden_layers; ++l) out.push_back(*trace.get(l, stage::kAttnWeights));
  return out;
}

}  // namespace

TEST_CASE("attention_mass is the mean of the chosen keys' weights, and all keys make 1", "[heads]") {
  const Model model = Model::random(preset_config("lab-b"), 3);
  const std::vector<int32_t> a = {1, 7, 9, 11, 7, 9, 2}, b = {1, 5, 6, 8, 2};
  const std::vector<AttentionProbe> probes = {{a, 4, {3}}, {a, 5, {1, 4}}, {b, 3, {0}}};
  const Matrix mass = attention_mass(model, probes);
  const std::vector<Tensor> wa = traced_weights(model, a), wb = traced_weights(model, b);
  const int64_t H = model.config().num_attention_heads;
  for (int64_t l = 0; l < model.config().num_hidden_layers; ++l) {
    for (int64_t h = 0; h < H; ++h) {
      const auto at = [&](const std::vector<Tensor>& w, int64_t T, int64_t i, int64_t j) {
        return double(w[size_t(l)].data[size_t((h * T + i) * T + j)]);
      };
      const double expected = (at(wa, 7, 4, 3) + at(wa, 7, 5, 1) + at(wa, 7, 5, 4) + at(wb, 5, 3, 0)) / 3.0;
      CHECK(mass(l, h) == Approx(expected).margin(1e-6));
    }
  }
  std::vector<AttentionProbe> whole;
  for (int64_t q = 0; q < 7; ++q) {
    AttentionProbe p{a, q, {}};
    for (int64_t k = 0; k <= q; ++k) p.keys.push_back(k);
    whole.push_back(p);
  }
  const Matrix ones = attention_mass(model, whole);
  CHECK(ones.maxCoeff() == Approx(1.0).margin(1e-5));
  CHECK(ones.minCoeff() == Approx(1.0).margin(1e-5));
  REQUIRE_THROWS_MATCHES(attention_mass(model, {{a, 7, {0}}}), Error, message_contains("query 7"));
  REQUIRE_THROWS_MATCHES(attention_mass(model, {}), Error, message_contains("at least one probe"));
}

TEST_CASE("attention_entropy is the mean row entropy in nats", "[heads]") {
  const Model model = Model::random(preset_config("lab-a"), 5);
  const std::vector<int32_t> ids = {1, 4, 9, 16, 25, 2};
  const Matrix entropy = attention_entropy(model, {ids});
  const std::vector<Tensor> w = traced_weights(model, ids);
  const int64_t T = 6, H = model.config().num_attention_heads;
  for (int64_t l = 0; l < 2; ++l) {
    for (int64_t h = 0; h < H; ++h) {
      double sum = 0.0;
      for (int64_t i = 1; i < T; ++i) {
        for (int64_t j = 0; j <= i; ++j) {
          const double p = w[size_t(l)].data[size_t((h * T + i) * T + j)];
          if (p > 0) sum -= p * std::log(p);
        }
      }
      CHECK(entropy(l, h) == Approx(sum / double(T - 1)).margin(1e-6));
      CHECK(entropy(l, h) <= std::log(double(T)) + 1e-6);  // at most uniform over T keys
    }
  }
}

TEST_CASE("ablating a head equals zeroing the o_proj columns that read it", "[heads]") {
  const ModelConfig c = preset_config("lab-a");
  const Model model = Model::random(c, 9);
  const std::vector<int32_t> ids = {1, 3, 5, 7, 9, 11};
  const int64_t H = c.num_attention_heads, Dh = c.head_dim, L = c.num_hidden_layers;
  ForwardOptions none;
  none.ablated_heads.assign(size_t(L * H), 0);
  CHECK(model.forward(ids, nullptr, {}, none) == model.forward(ids));
  for (const auto& [layer, head] : std::vector<std::pair<int64_t, int64_t>>{{0, 1}, {1, 3}}) {
    ForwardOptions ablate = none;
    ablate.ablated_heads[size_t(layer * H + head)] = 1;
    const Matrix ablated = model.forward(ids, nullptr, {}, ablate);
    CHECK(ablated != model.forward(ids));
    // The same model with o_proj's input columns of that head set to 0.
    ModelWeights weights = model.weights();
    Matrix o = weights.layers[size_t(layer)].o_proj.unpacked();  // [D, H·Dh]
    o.middleCols(head * Dh, Dh).setZero();
    weights.layers[size_t(layer)].o_proj = WeightMatrix(o);
    const Model cut(c, std::move(weights));
    CHECK(cut.forward(ids) == ablated);
  }
  ForwardOptions wrong;
  wrong.ablated_heads.assign(3, 1);
  REQUIRE_THROWS_MATCHES(model.forward(ids, nullptr, {}, wrong), Error, message_contains("8 flags"));
}
