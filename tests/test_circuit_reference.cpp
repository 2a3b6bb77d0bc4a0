// The circuit against tests/circuit_reference.py (MiniMind's PyTorch forward
// written as components and receivers, float64, gradients by autograd) on
// the dense golden cases: GQA with q/k norm (gen3_dense, R = 2), generation 2
// (gen2_dense, R = 4, float16 weights), untied embeddings (untied_theta1e4),
// MoE (gen3_moe: top-1; gen2_moe: top-2 renormalised and a shared expert;
// the backward with the routing held fixed, path patching re-routing).
// Every edge's EAP score, its per-position split and its path-patched
// metric, both metrics and both faithfulness curves, to 1e-5 relative to
// max(1, |metric|). gen3_dense/circuit_ablate.json: the same with a head
// switched off in every run.
#include <catch2/catch.hpp>
#include <cmath>
#include <nlohmann/json.hpp>

#include "fixtures.h"
#include "interp/circuit.h"

using namespace minimind;
using namespace minimind::testing;
using nlohmann::json;

namespace {

constexpr double kTol = 1e-5;
constexpr int kCircuitFormat = 1;

// file: circuit.json or circuit_ablate.json of case `name`.
json load_circuit_fixture(const std::string& name, const std::string& file = "circuit.json") {
  const json doc = json::parse(read_text(fixture_path(name + "/" + file)));
  if (doc.at("format").get<int>() != kCircuitFormat) {
    throw std::runtime_error(name + ": circuit.json format is not " + std::to_string(kCircuitFormat) +
                             "; re-run /usr/bin/python3 tests/circuit_reference.py");
  }
  return doc;
}

void check_curve(const std::vector<FaithfulnessPoint>& curve, const json& expected, double scale) {
  REQUIRE(curve.size() == expected.size());
  for (size_t i = 0; i < curve.size(); ++i) {
    INFO("circuit of " << curve[i].edges << " edges");
    CHECK(curve[i].edges == expected[i].at("edges").get<int64_t>());
    CHECK(std::fabs(curve[i].metric - expected[i].at("metric").get<double>()) <= kTol * scale);
    const json& share = expected[i].at("share");
    if (share.is_null()) {
      CHECK(std::isnan(curve[i].share));
    } else {
      CHECK(std::fabs(curve[i].share - share.get<double>()) <= 1e-4);
    }
  }
}

}  // namespace

TEST_CASE("circuit: every edge equals MiniMind's PyTorch reference", "[circuit]") {
  const std::pair<const char*, const char*> fixtures[] = {
      {"gen3_dense", "circuit.json"}, {"gen2_dense", "circuit.json"}, {"untied_theta1e4", "circuit.json"},
      {"gen3_moe", "circuit.json"},   {"gen2_moe", "circuit.json"},   {"gen3_dense", "circuit_ablate.json"}};
  for (const auto& [name, file] : fixtures) {
    DYNAMIC_SECTION(name << "/" << file) {
      const GoldenCase golden = load_golden_case(name);
      const json doc = load_circuit_fixture(name, file);
      CircuitRequest request;
      request.clean = doc.at("clean").get<std::vector<int32_t>>();
      request.corrupt = doc.at("corrupt").get<std::vector<int32_t>>();
      request.answer = doc.at("answer").get<int32_t>();
      request.wrong = doc.at("wrong").get<int32_t>();
      request.positions = true;
      for (const json& head : doc.value("ablate", json::array())) {
        request.ablate.push_back({head.at(0).get<int64_t>(), head.at(1).get<int64_t>()});
      }
      const CircuitResult r = circuit(*golden.model, request);
      const double clean = doc.at("metric").at("clean").get<double>();
      const double corrupt = doc.at("metric").at("corrupt").get<double>();
      const double scale = std::max({1.0, std::fabs(clean), std::fabs(corrupt)});
      CHECK(std::fabs(r.clean - clean) <= kTol * scale);
      CHECK(std::fabs(r.corrupt - corrupt) <= kTol * scale);
      CHECK(r.senders == doc.at("senders").get<std::vector<std::string>>());
      CHECK(r.receivers == doc.at("receivers").get<std::vector<std::string>>());
      const json& edges = doc.at("edges");
      REQUIRE(r.edges.size() == edges.size());
      const int64_t T = r.T;
      REQUIRE(r.positions.size() == edges.size() * size_t(T));
      size_t misses = 0;
      for (size_t e = 0; e < edges.size(); ++e) {
        const CircuitEdge& edge = r.edges[e];
        const json& want = edges[e];
        INFO(name << " edge " << want.at("from").get<std::string>() << " -> " << want.at("to").get<std::string>());
        CHECK(r.senders[size_t(edge.from)] == want.at("from").get<std::string>());
        CHECK(r.receivers[size_t(edge.to)] == want.at("to").get<std::string>());
        const bool ok = std::fabs(edge.score - want.at("score").get<double>()) <= kTol * scale &&
                        std::fabs(edge.patched - want.at("patched").get<double>()) <= kTol * scale;
        CHECK(ok);
        misses += !ok;
        const std::vector<double> positions = want.at("positions").get<std::vector<double>>();
        for (int64_t t = 0; t < T; ++t)
          CHECK(std::fabs(r.positions[e * size_t(T) + size_t(t)] - positions[size_t(t)]) <= kTol * scale);
      }
      CHECK(misses == 0);
      check_curve(r.faithfulness, doc.at("faithfulness"), scale);
      check_curve(r.faithfulness_patched, doc.at("faithfulness_patched"), scale);
    }
  }
}
