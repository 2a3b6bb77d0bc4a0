// The circuit's own properties, on the golden cases' weights: EAP's scores
// are the metric's directional derivatives (central finite differences of
// path patching along a small synthetic corrupt - clean difference), the
// empty circuit keeps none of the answer and the whole graph all of it,
// positions sum to the score, `top` patches exactly the strongest edges, and
// bad input gets a kinded error with the model still usable.
#include <catch2/catch.hpp>
#include <cmath>
#include <random>

#include "fixtures.h"
#include "interp/circuit.h"
#include "interp/edge_attribution.h"
#include "interp/path_patching.h"
#include "util/error.h"
#include "util/thread_pool.h"

using namespace minimind;
using namespace minimind::testing;

namespace {

template <typename F>
Error error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e;
  }
  FAIL("no minimind::Error thrown");
  return Error("", {}, "");
}

CircuitRequest pair_request() {
  CircuitRequest r;
  r.clean = {1, 17, 33, 9, 41, 5, 28};
  r.corrupt = {1, 17, 52, 9, 41, 5, 28};
  r.answer = 12;
  r.wrong = 30;
  return r;
}

}  // namespace

TEST_CASE("circuit: EAP scores are the metric's derivatives along each sender's difference", "[circuit]") {
  for (const std::string name : {"gen3_dense", "gen2_dense", "untied_theta1e4", "gen2_moe"}) {
    DYNAMIC_SECTION(name) {
      const GoldenCase golden = load_golden_case(name);
      const CircuitRequest request = pair_request();
      const CircuitForward forward(*golden.model, request.answer, request.wrong, int64_t(request.clean.size()));
      CircuitRun clean, plus, minus;
      forward.run(request.clean, clean);
      // Synthetic corrupt runs: every sender's output moved by ±eps·u, u random.
      constexpr float kEps = 1e-2f;
      std::mt19937 rng(7);
      std::normal_distribution<float> normal;
      plus = clean;
      minus = clean;
      for (size_t i = 0; i < clean.senders.size(); ++i) {
        const float u = normal(rng);
        plus.senders[i] += kEps * u;
        minus.senders[i] -= kEps * u;
      }
      std::vector<float> scores;
      edge_attribution(forward, clean, plus, scores, nullptr);
      std::vector<int64_t> all(scores.size());
      for (size_t e = 0; e < all.size(); ++e) all[e] = int64_t(e);
      std::vector<float> up, down;
      path_patching(forward, clean, plus, all, up);
      path_patching(forward, clean, minus, all, down);
      double worst = 0.0, largest = 0.0;
      for (size_t e = 0; e < all.size(); ++e) {
        const double central = (double(up[e]) - double(down[e])) / 2.0;  // ≈ eps · derivative
        worst = std::max(worst, std::fabs(central - double(scores[e])));
        largest = std::max(largest, std::fabs(double(scores[e])));
      }
      INFO("largest score " << largest << ", worst |finite difference - score| " << worst);
      CHECK(largest > 1e-3);                  // the check is not vacuous
      CHECK(worst <= 2e-3 * largest + 2e-5);  // O(eps²) terms and float32 rounding
    }
  }
}

TEST_CASE("circuit: the empty circuit keeps nothing, every edge keeps everything", "[circuit]") {
  const GoldenCase golden = load_golden_case("gen3_dense");
  CircuitRequest request = pair_request();
  request.positions = true;
  const CircuitResult r = circuit(*golden.model, request);
  REQUIRE(r.clean != r.corrupt);
  for (const auto* curve : {&r.faithfulness, &r.faithfulness_patched}) {
    REQUIRE(curve->size() >= 3);
    CHECK(curve->front().edges == 0);
    CHECK(curve->front().share == 0.0f);
    CHECK(curve->front().metric == r.corrupt);
    CHECK(curve->back().edges == int64_t(r.edges.size()));
    CHECK(std::fabs(curve->back().share - 1.0f) <= 1e-5f);
    for (size_t i = 1; i < curve->size(); ++i) CHECK((*curve)[i].edges > (*curve)[i - 1].edges);
  }
  for (size_t e = 0; e < r.edges.size(); ++e) {
    double sum = 0.0;
    for (int64_t t = 0; t < r.T; ++t) sum += r.positions[e * size_t(r.T) + size_t(t)];
    CHECK(std::fabs(sum - r.edges[e].score) <= 1e-5 * std::max(1.0, std::fabs(sum)));
  }
}

TEST_CASE("circuit: top patches exactly the strongest edges by |score|", "[circuit]") {
  const GoldenCase golden = load_golden_case("gen2_dense");
  CircuitRequest request = pair_request();
  const CircuitResult all = circuit(*golden.model, request);
  request.top = 5;
  request.faithfulness = false;
  const CircuitResult top = circuit(*golden.model, request);
  CHECK(top.faithfulness.empty());
  const std::vector<int64_t> order = circuit_ranking(all, false);
  size_t patched = 0;
  for (size_t e = 0; e < top.edges.size(); ++e) {
    const bool strongest = std::find(order.begin(), order.begin() + 5, int64_t(e)) != order.begin() + 5;
    CHECK(std::isnan(top.edges[e].patched) == !strongest);
    if (strongest) CHECK(top.edges[e].patched == all.edges[e].patched);
    CHECK(top.edges[e].score == all.edges[e].score);
    patched += !std::isnan(top.edges[e].patched);
  }
  CHECK(patched == 5);
  for (size_t i = 1; i < order.size(); ++i) {
    CHECK(std::fabs(all.edges[size_t(order[i - 1])].score) >= std::fabs(all.edges[size_t(order[i])].score));
  }
}

TEST_CASE("circuit: bad input gets a kinded error and the model stays usable", "[circuit]") {
  const GoldenCase golden = load_golden_case("gen3_dense");
  const Model& model = *golden.model;
  const CircuitRequest good = pair_request();
  const float clean = circuit(model, good).clean;
  CircuitRequest r = good;
  r.corrupt.pop_back();
  Error e = error_of([&] { circuit(model, r); });
  CHECK(e.kind() == "circuit.length_mismatch");
  CHECK(std::get<int64_t>(*e.value("clean")) == 7);
  CHECK(std::get<int64_t>(*e.value("corrupt")) == 6);
  r = good;
  r.wrong = r.answer;
  CHECK(error_of([&] { circuit(model, r); }).kind() == "circuit.same_token");
  r = good;
  r.corrupt[3] = 64;
  e = error_of([&] { circuit(model, r); });
  CHECK(e.kind() == "token_id.out_of_range");
  CHECK(std::get<int64_t>(*e.value("position")) == 3);
  CHECK(std::get<std::string>(*e.value("input")) == "corrupt");
  r = good;
  r.answer = -1;
  CHECK(error_of([&] { circuit(model, r); }).kind() == "circuit.answer_out_of_range");
  r = good;
  r.clean.clear();
  r.corrupt.clear();
  CHECK(error_of([&] { circuit(model, r); }).kind() == "circuit.empty");
  CHECK(circuit(model, good).clean == clean);
}

TEST_CASE("circuit: the same bits on 1 and 2 threads", "[circuit]") {
  const GoldenCase golden = load_golden_case("untied_theta1e4");
  const CircuitRequest request = pair_request();
  const int before = thread_count();
  set_thread_count(1);
  const CircuitResult one = circuit(*golden.model, request);
  set_thread_count(2);
  const CircuitResult two = circuit(*golden.model, request);
  set_thread_count(before);
  REQUIRE(one.edges.size() == two.edges.size());
  for (size_t e = 0; e < one.edges.size(); ++e) {
    CHECK(one.edges[e].score == two.edges[e].score);
    CHECK(one.edges[e].patched == two.edges[e].patched);
  }
  REQUIRE(one.faithfulness.size() == two.faithfulness.size());
  for (size_t i = 0; i < one.faithfulness.size(); ++i) {
    CHECK(one.faithfulness[i].metric == two.faithfulness[i].metric);
    CHECK(one.faithfulness_patched[i].metric == two.faithfulness_patched[i].metric);
  }
}

TEST_CASE("circuit: a switched-off head's edges are 0 and patch to clean, as sender and receiver", "[circuit]") {
  const GoldenCase golden = load_golden_case("gen3_dense");
  const Model& model = *golden.model;
  CircuitRequest request = pair_request();
  request.positions = true;
  const CircuitResult on = circuit(model, request);
  // L0H3 (its write feeds block 1) and L1H2 (it shares its kv head with L1H3 under GQA R = 2).
  request.ablate = {{0, 3}, {1, 2}};
  const CircuitResult off = circuit(model, request);
  REQUIRE(off.edges.size() == on.edges.size());
  CHECK(off.clean != on.clean);
  const auto switched_off = [](const std::string& name) {
    return name.rfind("L0H3", 0) == 0 || name.rfind("L1H2", 0) == 0;
  };
  size_t zeroed = 0, changed = 0, nonzero = 0;
  for (size_t e = 0; e < off.edges.size(); ++e) {
    const CircuitEdge& edge = off.edges[e];
    const std::string& from = off.senders[size_t(edge.from)];
    const std::string& to = off.receivers[size_t(edge.to)];
    INFO(from << " -> " << to);
    if (switched_off(from) || switched_off(to)) {
      CHECK(edge.score == 0.0f);
      CHECK(edge.patched == off.clean);
      for (int64_t t = 0; t < off.T; ++t) CHECK(off.positions[e * size_t(off.T) + size_t(t)] == 0.0f);
      ++zeroed;
    } else {
      changed += edge.score != on.edges[e].score;
      nonzero += edge.score != 0.0f;
    }
  }
  // 2 blocks of 4 heads. As receivers: L0H3's q, k, v read 1 sender each (3), L1H2's 6 each (18).
  // As senders: L0H3 feeds L0ffn, block 1's 12 head receivers (3 of them L1H2's, counted already),
  // L1ffn and logits (15 - 3); L1H2 feeds L1ffn and logits (2). 35 edges.
  CHECK(zeroed == 35);
  CHECK(changed > 0);
  CHECK(nonzero > 0);
  for (const auto* curve : {&off.faithfulness, &off.faithfulness_patched}) {
    CHECK(curve->front().metric == off.corrupt);
    CHECK(std::fabs(curve->back().share - 1.0f) <= 1e-5f);
  }
  request.ablate = {{2, 0}};
  const Error e = error_of([&] { circuit(model, request); });
  CHECK(e.kind() == "ablate.head_out_of_range");
  request.ablate = {};
  CHECK(circuit(model, request).clean == on.clean);
}
