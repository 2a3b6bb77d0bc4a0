#include "interp/circuit.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>
#include <utility>

#include "interp/circuit_forward.h"
#include "interp/edge_attribution.h"
#include "interp/faithfulness.h"
#include "interp/path_patching.h"
#include "util/error.h"
#include "util/thread_pool.h"

namespace minimind {

namespace {

void check_circuit_ids(const ModelConfig& c, const std::vector<int32_t>& ids, const char* which) {
  for (size_t i = 0; i < ids.size(); ++i) {
    if (ids[i] < 0 || ids[i] >= c.vocab_size) {
      throw Error("token_id.out_of_range",
                  {{"id", int64_t(ids[i])}, {"position", int64_t(i)}, {"last", c.vocab_size - 1}, {"input", which}},
                  std::string("token id ") + std::to_string(ids[i]) + " at position " + std::to_string(i) + " of " +
                      which + " is outside the vocabulary (0.." + std::to_string(c.vocab_size - 1) + ")");
    }
  }
}

void check_request(const ModelConfig& c, const CircuitRequest& r) {
  if (r.clean.empty() || r.corrupt.empty()) {
    throw Error("circuit.empty", {}, "the circuit needs a clean and a corrupt text of at least one token each");
  }
  if (r.clean.size() != r.corrupt.size()) {
    throw Error("circuit.length_mismatch", {{"clean", int64_t(r.clean.size())}, {"corrupt", int64_t(r.corrupt.size())}},
                "clean has " + std::to_string(r.clean.size()) + " tokens and corrupt " +
                    std::to_string(r.corrupt.size()) + ": the circuit needs texts of the same token length");
  }
  check_circuit_ids(c, r.clean, "clean");
  check_circuit_ids(c, r.corrupt, "corrupt");
  if (int64_t(r.clean.size()) > c.max_position_embeddings) {
    throw Error("input.too_long", {{"tokens", int64_t(r.clean.size())}, {"limit", c.max_position_embeddings}},
                std::to_string(r.clean.size()) + " tokens exceed max_position_embeddings " +
                    std::to_string(c.max_position_embeddings));
  }
  for (const auto& [id, which] : {std::pair{r.answer, "answer"}, std::pair{r.wrong, "wrong"}}) {
    if (id < 0 || id >= c.vocab_size) {
      throw Error("circuit.answer_out_of_range", {{"id", int64_t(id)}, {"last", c.vocab_size - 1}, {"which", which}},
                  std::string(which) + " token " + std::to_string(id) + " is outside the vocabulary (0.." +
                      std::to_string(c.vocab_size - 1) + ")");
    }
  }
  if (r.answer == r.wrong) {
    throw Error("circuit.same_token", {{"id", int64_t(r.answer)}},
                "answer and wrong are both token " + std::to_string(r.answer) +
                    ": the metric logit(answer) - logit(wrong) would be 0 everywhere");
  }
}

float faithful_share(float metric, float clean, float corrupt) {
  return clean == corrupt ? std::numeric_limits<float>::quiet_NaN() : (metric - corrupt) / (clean - corrupt);
}

}  // namespace

std::vector<int64_t> circuit_ranking(const CircuitResult& r, bool by_patched) {
  std::vector<int64_t> order(r.edges.size());
  std::iota(order.begin(), order.end(), 0);
  const auto key = [&](int64_t e) {
    const CircuitEdge& edge = r.edges[size_t(e)];
    if (!by_patched) return std::pair{0, std::fabs(edge.score)};
    if (std::isnan(edge.patched)) return std::pair{1, std::fabs(edge.score)};
    return std::pair{0, std::fabs(edge.patched - r.clean)};
  };
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    const auto ka = key(a), kb = key(b);
    return ka.first != kb.first ? ka.first < kb.first : ka.second > kb.second;
  });
  return order;
}

CircuitResult circuit(const Model& model, const CircuitRequest& request) {
  const ModelConfig& c = model.config();
  check_request(c, request);
  const int64_t T = int64_t(request.clean.size());
  std::vector<uint8_t> ablated =
      request.ablate.empty() ? std::vector<uint8_t>{} : head_ablation_flags(c, request.ablate);  // [L·H]
  const CircuitForward forward(model, request.answer, request.wrong, T, std::move(ablated));
  const CircuitGraph& graph = forward.graph();
  CircuitRun clean, corrupt;
  forward.run(request.clean, clean);
  forward.run(request.corrupt, corrupt);

  CircuitResult r;
  r.T = T;
  r.clean = clean.metric;
  r.corrupt = corrupt.metric;
  r.senders = graph.sender_names;
  r.receivers = graph.receiver_names;
  std::vector<float> scores;
  edge_attribution(forward, clean, corrupt, scores, request.positions ? &r.positions : nullptr);
  r.edges.resize(size_t(graph.edges));
  for (int64_t rc = 0; rc < int64_t(graph.receivers.size()); ++rc) {
    const CircuitGraph::Receiver& rec = graph.receivers[size_t(rc)];
    for (int64_t s = 0; s < rec.senders; ++s) {
      CircuitEdge& e = r.edges[size_t(rec.first_edge + s)];
      e.from = int32_t(s);
      e.to = int32_t(rc);
      e.score = scores[size_t(rec.first_edge + s)];
      e.patched = std::numeric_limits<float>::quiet_NaN();
    }
  }

  // Path patching of the top edges by |score|.
  std::vector<int64_t> by_score = circuit_ranking(r, false);
  const int64_t top = request.top < 0 ? graph.edges : std::min(request.top, graph.edges);
  const std::vector<int64_t> chosen(by_score.begin(), by_score.begin() + top);
  std::vector<float> patched;
  path_patching(forward, clean, corrupt, chosen, patched);
  for (size_t i = 0; i < chosen.size(); ++i) r.edges[size_t(chosen[i])].patched = patched[i];

  if (request.faithfulness) {
    // Every point of both curves is its own run: one point per task, each thread on its scratch.
    const std::vector<int64_t> sizes = faithfulness_sizes(graph.edges);
    const std::vector<int64_t> by_patched = circuit_ranking(r, true);
    const int64_t points = 2 * int64_t(sizes.size());
    std::vector<float> metrics(static_cast<size_t>(points));
    const int64_t parts = std::max<int64_t>(1, std::min<int64_t>(thread_count(), points));
    std::vector<CircuitScratch> scratches(static_cast<size_t>(parts));
    parallel_for(parts, [&](int64_t part) {
      const Range range = split_range(points, parts, part);
      for (int64_t i = range.begin; i < range.end; ++i) {
        const std::vector<int64_t>& order = i < int64_t(sizes.size()) ? by_score : by_patched;
        const int64_t n = sizes[size_t(i % int64_t(sizes.size()))];
        std::vector<uint8_t> in_circuit(size_t(graph.edges), 0);
        for (int64_t k = 0; k < n; ++k) in_circuit[size_t(order[size_t(k)])] = 1;
        metrics[size_t(i)] = circuit_metric(forward, clean, corrupt, in_circuit, scratches[size_t(part)]);
      }
    });
    for (size_t i = 0; i < metrics.size(); ++i) {
      const int64_t n = sizes[i % sizes.size()];
      (i < sizes.size() ? r.faithfulness : r.faithfulness_patched)
          .push_back({n, metrics[i], faithful_share(metrics[i], r.clean, r.corrupt)});
    }
  }
  return r;
}

}  // namespace minimind
