// Whole-model golden tests: the core against tests/make_fixtures.py's PyTorch
// reference, on every case in tests/fixtures/ (dense gen 3 with padding, gen 2
// without q/k norm, both MoE flavours, untied head with theta 1e4, YaRN).
// Logits, every attention weight and the layer-0 trace must agree within
// 1e-5 absolute + 1e-4 relative; greedy tokens must be identical.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>

#include "compare.h"
#include "fixtures.h"
#include "model/generation.h"

using namespace minimind;
using namespace minimind::testing;

namespace {

constexpr double kAtol = 1e-5, kRtol = 1e-4;

// Traces every stage of layer 0 and the attention weights of every layer.
TraceRequest full_trace(const Model& model) {
  TraceRequest request;
  for (int64_t l = 0; l < model.config().num_hidden_layers; ++l) request.layers.push_back(l);
  return request;
}

void report_max_diff(const std::string& what, const std::vector<float>& actual, const std::vector<float>& expected) {
  std::printf("golden %-40s max_abs_diff=%.3g\n", what.c_str(), max_abs_diff(actual, expected));
}

}  // namespace

TEST_CASE("golden: logits, attention weights and trace match the PyTorch reference", "[golden]") {
  for (const std::string& name : golden_case_names()) {
    DYNAMIC_SECTION(name) {
      const GoldenCase c = load_golden_case(name);
      const auto ids = c.rows("input_ids");
      const auto mask = c.has("attention_mask") ? c.rows("attention_mask") : std::vector<std::vector<int32_t>>{};
      Trace trace(full_trace(*c.model), int64_t(ids.size()));
      const Tensor logits = c.model->forward_batch(ids, mask, {}, &trace);

      REQUIRE(logits.shape == c.shape("logits"));
      CHECK_CLOSE(logits.data, c.floats("logits"), kAtol, kRtol);
      report_max_diff(name + " logits", logits.data, c.floats("logits"));

      for (int64_t l = 0; l < c.model->config().num_hidden_layers; ++l) {
        const std::string key = "attn_weights." + std::to_string(l);
        const Tensor* weights = trace.get(l, stage::kAttnWeights);
        REQUIRE(weights);
        REQUIRE(weights->shape == c.shape(key));
        CHECK_CLOSE(weights->data, c.floats(key), kAtol, kRtol);
        report_max_diff(name + " " + key, weights->data, c.floats(key));
      }

      const std::vector<std::pair<std::string, const char*>> stages = {
          {"trace.0.q_proj", stage::kQProj},
          {"trace.0.q_rope", stage::kQRope},
          {"trace.0.k_rope", stage::kKRope},
          {"trace.0.v_proj", stage::kVProj},
          {"trace.0.scores_raw", stage::kScoresRaw},
          {"trace.0.head_outputs", stage::kHeadOutputs},
          {"trace.0.o_proj", stage::kOProj},
          {"trace.0.block_output", stage::kBlockOutput},
          {"trace.0.router_probs", stage::kRouterProbs},
      };
      for (const auto& [key, stage_name] : stages) {
        if (!c.has(key)) continue;  // router_probs: MoE cases only
        INFO(key);
        const Tensor* t = trace.get(0, stage_name);
        REQUIRE(t);
        REQUIRE(t->shape == c.shape(key));
        CHECK_CLOSE(t->data, c.floats(key), kAtol, kRtol);
      }
    }
  }
}

TEST_CASE("golden: greedy generation with the KV cache gives the reference tokens", "[golden]") {
  for (const std::string& name : golden_case_names()) {
    DYNAMIC_SECTION(name) {
      const GoldenCase c = load_golden_case(name);
      const int64_t max_new = std::stoll(c.expected->metadata().at("greedy_max_new_tokens"));
      const float penalty = std::stof(c.expected->metadata().at("repetition_penalty"));
      SamplingParams greedy;
      greedy.greedy = true;
      CHECK(generate(*c.model, c.ints("greedy.prompt"), max_new, greedy) == c.ints("greedy.ids"));
      greedy.repetition_penalty = penalty;
      CHECK(generate(*c.model, c.ints("greedy.prompt"), max_new, greedy) == c.ints("greedy_penalty.ids"));
    }
  }
}
