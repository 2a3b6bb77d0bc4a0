// QK attribution against the forward itself (its trace of one layer): the
// components sum to the residual stream, the table and RoPE's pairs sum to
// the score the forward computed, the unrotated pairs equal q·k with RoPE
// left out, the contrast splits a difference of two of the forward's
// scores, and block 0's vocabulary ranking gives the token at the key its
// own score. On every golden case: GQA, q/k norm, MoE, untied, YaRN.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <functional>

#include "fixtures.h"
#include "interp/qk_attribution.h"
#include "tensors/trace.h"
#include "util/error.h"

using namespace minimind;
using namespace minimind::testing;

namespace {

const std::vector<int32_t> kIds = {1, 17, 5, 40, 9, 22, 3, 17, 5, 61};  // T = 10, vocabulary 64

// The forward's own tensors of one layer: Model::forward with a trace.
struct ForwardLayer {
  std::unique_ptr<Trace> trace;
  int64_t layer;
  const std::vector<float>& get(const char* stage) const { return trace->get(layer, stage)->data; }
};

ForwardLayer traced(const Model& model, const std::vector<int32_t>& ids, int64_t layer, const InterpOptions& o) {
  ForwardOptions options;
  options.attention.causal_mask = o.causal_mask;
  options.attention.scale_scores = o.scale_scores;
  if (!o.ablate.empty()) options.ablated_heads = head_ablation_flags(model.config(), o.ablate);
  std::vector<std::string> stages = {stage::kScoresRaw, stage::kScoresScaled, stage::kAttnWeights, stage::kQProj,
                                     stage::kKProj};
  if (model.config().use_qk_norm) {
    stages.push_back(stage::kQNorm);
    stages.push_back(stage::kKNorm);
  }
  ForwardLayer f{std::make_unique<Trace>(TraceRequest{{layer}, stages}, 1), layer};
  model.forward(ids, nullptr, {}, options, f.trace.get());
  return f;
}

double sum(const std::vector<float>& v) {
  double s = 0.0;
  for (const float x : v) s += x;
  return s;
}
double sum_abs(const std::vector<float>& v) {
  double s = 0.0;
  for (const float x : v) s += std::fabs(x);
  return s;
}

// A table sums to `expected` to float rounding, relative to its entries' size.
void check_sums_to(const std::vector<float>& table, double expected) {
  INFO("sum " << sum(table) << " expected " << expected << " Σ|entries| " << sum_abs(table));
  CHECK(std::fabs(sum(table) - expected) <= 1e-5 * sum_abs(table) + 1e-6);
}

}  // namespace

TEST_CASE("qk: the components sum to the residual stream entering each block", "[qk]") {
  for (const std::string& name : golden_case_names()) {
    DYNAMIC_SECTION(name) {
      const GoldenCase c = load_golden_case(name);
      const Model& model = *c.model;
      const int64_t L = model.config().num_hidden_layers, D = model.config().hidden_size, T = int64_t(kIds.size());
      const Activations run = run_with_hooks(model, kIds, {});
      for (int64_t l = 0; l <= L; ++l) {
        const std::vector<float> parts = qk_components(model, kIds, run, l, {0, 4, T - 1});  // [3, C, D]
        const int64_t C = int64_t(qk_component_names(model.config(), l).size());
        REQUIRE(int64_t(parts.size()) == 3 * C * D);
        int64_t r = 0;
        for (const int64_t p : {int64_t(0), int64_t(4), T - 1}) {
          for (int64_t i = 0; i < D; ++i) {
            double total = 0.0, size = 0.0;
            for (int64_t a = 0; a < C; ++a) {
              total += parts[size_t((r * C + a) * D + i)];
              size += std::fabs(parts[size_t((r * C + a) * D + i)]);
            }
            const float expected = run.residual_at(l, D)[p * D + i];
            INFO("layer " << l << " position " << p << " dim " << i);
            CHECK(std::fabs(total - expected) <= 1e-5 * size + 1e-6);
          }
          ++r;
        }
      }
    }
  }
}

TEST_CASE("qk: the table and RoPE's pairs sum to the forward's score", "[qk]") {
  const std::vector<InterpOptions> settings = {{true, true, {}}, {false, false, {}}};
  for (const std::string& name : golden_case_names()) {
    for (const InterpOptions& options : settings) {
      DYNAMIC_SECTION(name << (options.causal_mask ? "" : " switches off")) {
        const GoldenCase c = load_golden_case(name);
        const Model& model = *c.model;
        const ModelConfig& config = model.config();
        const int64_t L = config.num_hidden_layers, H = config.num_attention_heads, Dh = config.head_dim;
        const int64_t Hkv = config.num_key_value_heads, T = int64_t(kIds.size()), half = Dh / 2;
        const Activations run = run_with_hooks(model, kIds, options);
        for (int64_t l = 0; l < L; ++l) {
          const ForwardLayer f = traced(model, kIds, l, options);
          const std::vector<float>& scores = f.get(options.scale_scores ? stage::kScoresScaled : stage::kScoresRaw);
          const std::vector<float>& weights = f.get(stage::kAttnWeights);
          // q and k before RoPE, as the forward had them: [T, H, Dh], [T, Hkv, Dh].
          const std::vector<float>& q = f.get(config.use_qk_norm ? stage::kQNorm : stage::kQProj);
          const std::vector<float>& k = f.get(config.use_qk_norm ? stage::kKNorm : stage::kKProj);
          for (int64_t h = 0; h < H; ++h) {
            for (const auto& [i, j] : std::vector<std::pair<int64_t, int64_t>>{{9, 2}, {7, 1}, {3, 3}, {2, 6}}) {
              QKRequest request{l, h, i, j, {}, 0};
              request.versus.kind = QKVersus::Kind::position;
              request.versus.position = 0;
              const QKAttribution r = qk_attribution(model, kIds, run, request, options);
              INFO("layer " << l << " head " << h << " query " << i << " key " << j);
              const int64_t C = 1 + l * (H + 1);
              REQUIRE(int64_t(r.components.size()) == C);
              REQUIRE(int64_t(r.table.size()) == C * C);
              const float score = scores[size_t((h * T + i) * T + j)];
              CHECK(std::fabs(r.score - score) <= 1e-6 * std::fabs(score) + 1e-7);
              CHECK(r.weight == weights[size_t((h * T + i) * T + j)]);
              CHECK(r.masked == (options.causal_mask && j > i));
              check_sums_to(r.table, score);
              REQUIRE(int64_t(r.rope_pairs.size()) == half);
              check_sums_to(r.rope_pairs, score);
              // With RoPE removed: q·k of the vectors before RoPE, pair by pair.
              const float* qi = q.data() + (i * H + h) * Dh;
              const float* kj = k.data() + (j * Hkv + h / (H / Hkv)) * Dh;
              const double s = options.scale_scores ? 1.0 / std::sqrt(double(Dh)) : 1.0;
              for (int64_t p = 0; p < half; ++p) {
                const double expected = (double(qi[p]) * kj[p] + double(qi[p + half]) * kj[p + half]) * s;
                CHECK(std::fabs(r.rope_pairs_unrotated[size_t(p)] - expected) <= 1e-5 * std::fabs(expected) + 1e-6);
              }
              // The contrast with key 0.
              REQUIRE(r.has_versus);
              CHECK(r.versus_key == 0);
              const float other = scores[size_t((h * T + i) * T)];
              CHECK(std::fabs(r.versus_score - (score - other)) <= 1e-5 * (std::fabs(score) + std::fabs(other)));
              check_sums_to(r.versus_table, score - other);
            }
          }
        }
      }
    }
  }
}

TEST_CASE("qk: the contrast with the row's weighted mean", "[qk]") {
  for (const std::string& name : golden_case_names()) {
    DYNAMIC_SECTION(name) {
      const GoldenCase c = load_golden_case(name);
      const Model& model = *c.model;
      const int64_t L = model.config().num_hidden_layers, H = model.config().num_attention_heads;
      const int64_t T = int64_t(kIds.size()), i = 8, j = 3;
      const ForwardLayer f = traced(model, kIds, L - 1, {});
      QKRequest request{L - 1, H - 1, i, j, {}, 0};
      request.versus.kind = QKVersus::Kind::mean;
      const QKAttribution r = qk_attribution(model, kIds, request);
      const float* scores = f.get(stage::kScoresScaled).data() + ((H - 1) * T + i) * T;  // [T]
      const float* weights = f.get(stage::kAttnWeights).data() + ((H - 1) * T + i) * T;  // [T]
      double mean = 0.0, size = 0.0;
      for (int64_t t = 0; t < T; ++t) {
        mean += double(weights[t]) * scores[t];
        size += std::fabs(double(weights[t]) * scores[t]);
      }
      REQUIRE(r.has_versus);
      CHECK(r.versus_key == -1);
      CHECK(std::fabs(r.versus_score - (scores[j] - mean)) <= 1e-5 * (size + std::fabs(scores[j])));
      check_sums_to(r.versus_table, scores[j] - mean);
      // Keys after the query have weight 0: the mean is over keys 0..i only.
      CHECK(weights[i + 1] == 0.0f);
    }
  }
}

TEST_CASE("qk: block 0's vocabulary ranking gives the key's own token its score", "[qk]") {
  for (const std::string& name : golden_case_names()) {
    DYNAMIC_SECTION(name) {
      const GoldenCase c = load_golden_case(name);
      const Model& model = *c.model;
      const int64_t V = model.config().vocab_size, H = model.config().num_attention_heads;
      for (int64_t h = 0; h < H; ++h) {
        for (const auto& [i, j] : std::vector<std::pair<int64_t, int64_t>>{{9, 4}, {5, 5}, {6, 1}}) {
          QKRequest request{0, h, i, j, {}, V};
          const QKAttribution r = qk_attribution(model, kIds, request);
          REQUIRE(int64_t(r.ranked.size()) == V);
          for (size_t n = 1; n < r.ranked.size(); ++n) CHECK(r.ranked[n - 1].score >= r.ranked[n].score);
          const int32_t at_key = kIds[size_t(j)];  // (a lambda may not capture a structured binding in C++17)
          const auto own =
              std::find_if(r.ranked.begin(), r.ranked.end(), [at_key](const RankedKey& k) { return k.id == at_key; });
          REQUIRE(own != r.ranked.end());
          INFO("head " << h << " query " << i << " key " << j << ": ranked " << own->score << ", run " << r.score);
          CHECK(std::fabs(own->score - r.score) <= 1e-5 * std::fabs(r.score) + 1e-5);
          // A shorter ranking is the same list's head.
          request.rank_keys = 3;
          const QKAttribution top = qk_attribution(model, kIds, request);
          REQUIRE(top.ranked.size() == 3);
          for (size_t n = 0; n < 3; ++n) CHECK(top.ranked[n].id == r.ranked[n].id);
        }
      }
    }
  }
}

TEST_CASE("qk: a switched-off head is a zero component", "[qk]") {
  for (const std::string& name : golden_case_names()) {
    DYNAMIC_SECTION(name) {
      const GoldenCase c = load_golden_case(name);
      const Model& model = *c.model;
      const int64_t H = model.config().num_attention_heads, T = int64_t(kIds.size());
      InterpOptions options;
      options.ablate = {{0, 1}};
      const ForwardLayer f = traced(model, kIds, 1, options);
      const QKAttribution r = qk_attribution(model, kIds, {1, 0, 9, 2, {}, 0}, options);
      const int64_t C = 1 + (H + 1), off = 1 + 1;  // L0H1 is component 2
      REQUIRE(r.components[size_t(off)] == "L0H1");
      for (int64_t a = 0; a < C; ++a) {
        CHECK(r.table[size_t(off * C + a)] == 0.0f);
        CHECK(r.table[size_t(a * C + off)] == 0.0f);
      }
      check_sums_to(r.table, f.get(stage::kScoresScaled)[size_t(9 * T + 2)]);
      const QKAttribution on = qk_attribution(model, kIds, {1, 0, 9, 2, {}, 0});
      CHECK(on.score != r.score);
      CHECK(on.table[size_t(off * C + off)] != 0.0f);
    }
  }
}

TEST_CASE("qk: bad requests name their kind and leave the model usable", "[qk]") {
  const GoldenCase c = load_golden_case("gen3_dense");
  const Model& model = *c.model;
  const int64_t L = model.config().num_hidden_layers, H = model.config().num_attention_heads;
  const int64_t T = int64_t(kIds.size());
  const auto kind = [&](QKRequest request, const std::vector<int32_t>& ids = kIds) {
    return error_kind([&] { qk_attribution(model, ids, request); });
  };
  CHECK(kind({L, 0, 1, 0, {}, 0}) == "qk.layer_out_of_range");
  CHECK(kind({-1, 0, 1, 0, {}, 0}) == "qk.layer_out_of_range");
  CHECK(kind({0, H, 1, 0, {}, 0}) == "qk.head_out_of_range");
  CHECK(kind({0, 0, T, 0, {}, 0}) == "qk.position_out_of_range");
  CHECK(kind({0, 0, 1, -1, {}, 0}) == "qk.position_out_of_range");
  CHECK(kind({0, 0, 1, 0, {QKVersus::Kind::position, T}, 0}) == "qk.position_out_of_range");
  CHECK(kind({1, 0, 1, 0, {}, 5}) == "qk.rank_needs_block0");
  CHECK(kind({0, 0, 1, 0, {}, 0}, {1, 64}) == "token_id.out_of_range");
  CHECK(kind({0, 0, 1, 0, {}, 0}, {}) == "input.empty");
  try {
    qk_attribution(model, kIds, {0, 0, T + 2, 0, {}, 0});
  } catch (const Error& e) {
    CHECK(*e.value("position") == ErrorValue(int64_t(T + 2)));
    CHECK(*e.value("tokens") == ErrorValue(T));
    CHECK(*e.value("which") == ErrorValue(std::string("query")));
  }
  // A key after the query is still explained: its score, weight 0 by the mask.
  const QKAttribution r = qk_attribution(model, kIds, {1, 1, 2, 6, {}, 0});
  CHECK(r.masked);
  CHECK(r.weight == 0.0f);
  check_sums_to(r.table, r.score);
}
