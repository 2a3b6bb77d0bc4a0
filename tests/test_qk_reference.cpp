// QK attribution against tests/qk_reference.py (MiniMind's PyTorch forward
// written as components by forward hooks, norms frozen at the run's values)
// on every golden case: GQA, q/k norm, MoE, untied, YaRN. Each cell's score,
// weight, mask, component names, table, RoPE pairs (rotated and not), both
// contrasts and block 0's vocabulary ranking, to 1e-5 relative to
// max(1, |score|); and the table sums to the score the forward computed.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <nlohmann/json.hpp>
#include <sstream>

#include "fixtures.h"
#include "interp/qk_attribution.h"

using namespace minimind;
using namespace minimind::testing;
using nlohmann::json;

namespace {

constexpr double kTol = 1e-5;
constexpr int kQkFormat = 1;
constexpr int64_t kRankTop = 10;  // qk_reference.py's RANK_TOP

json load_qk_fixture(const std::string& name) {
  const json doc = json::parse(read_text(fixture_path(name + "/qk.json")));
  if (doc.at("format").get<int>() != kQkFormat) {
    throw std::runtime_error(name + ": qk.json format is not " + std::to_string(kQkFormat) +
                             "; re-run /usr/bin/python3 tests/qk_reference.py");
  }
  return doc;
}

std::vector<float> flat(const json& rows) {
  std::vector<float> out;
  for (const json& row : rows) {
    if (row.is_array()) {
      for (const json& v : row) out.push_back(v.get<float>());
    } else {
      out.push_back(row.get<float>());
    }
  }
  return out;
}

// Empty when |actual - expected| <= kTol * scale everywhere; else the first miss.
std::string mismatch(const std::vector<float>& actual, const std::vector<float>& expected, double scale) {
  if (actual.size() != expected.size()) {
    return "sizes differ: " + std::to_string(actual.size()) + " vs expected " + std::to_string(expected.size());
  }
  for (size_t i = 0; i < actual.size(); ++i) {
    const double diff = std::fabs(double(actual[i]) - double(expected[i]));
    if (!(diff <= kTol * scale)) {
      std::ostringstream out;
      out.precision(9);
      out << "index " << i << ": actual " << actual[i] << ", expected " << expected[i] << " (|diff| " << diff << " > "
          << kTol * scale << ")";
      return out.str();
    }
  }
  return {};
}

double sum(const std::vector<float>& v) {
  double s = 0;
  for (float x : v) s += x;
  return s;
}

double sum_abs(const std::vector<float>& v) {
  double s = 0;
  for (float x : v) s += std::fabs(x);
  return s;
}

}  // namespace

TEST_CASE("qk: QK attribution equals MiniMind's PyTorch reference", "[qk]") {
  size_t cells = 0;
  for (const std::string& name : golden_case_names()) {
    DYNAMIC_SECTION(name) {
      const GoldenCase golden = load_golden_case(name);
      const Model& model = *golden.model;
      const json doc = load_qk_fixture(name);
      const std::vector<int32_t> ids = doc.at("ids").get<std::vector<int32_t>>();
      const Activations run = run_with_hooks(model, ids);
      REQUIRE(doc.at("cases").size() == 12);
      for (const json& cell : doc.at("cases")) {
        QKRequest request;
        request.layer = cell.at("layer").get<int64_t>();
        request.head = cell.at("head").get<int64_t>();
        request.query = cell.at("query").get<int64_t>();
        request.key = cell.at("key").get<int64_t>();
        request.rank_keys = request.layer == 0 ? kRankTop : 0;
        INFO(name << " L" << request.layer << "H" << request.head << " query " << request.query << " key "
                  << request.key);

        // The contrast with the row's mean from ids alone; with a position from the cached run.
        request.versus.kind = QKVersus::Kind::mean;
        const QKAttribution mean = qk_attribution(model, ids, request);
        request.versus = {QKVersus::Kind::position, cell.at("versus_position").at("key").get<int64_t>()};
        const QKAttribution versus = qk_attribution(model, ids, run, request);

        const float score = cell.at("score").get<float>();
        const double scale = std::max(1.0, std::fabs(double(score)));
        for (const QKAttribution* a : {&mean, &versus}) {
          CHECK(a->layer == request.layer);
          CHECK(a->head == request.head);
          CHECK(a->query == request.query);
          CHECK(a->key == request.key);
          CHECK(std::fabs(a->score - score) <= kTol * scale);
          CHECK(a->masked == cell.at("masked").get<bool>());
          CHECK(std::fabs(a->weight - cell.at("weight").get<float>()) <= kTol);
          CHECK(a->components == cell.at("components").get<std::vector<std::string>>());
          CHECK(mismatch(a->table, flat(cell.at("table")), scale) == "");
          CHECK(mismatch(a->rope_pairs, flat(cell.at("rope_pairs")), scale) == "");
          CHECK(mismatch(a->rope_pairs_unrotated, flat(cell.at("rope_pairs_unrotated")), scale) == "");
          // The table sums to the score the forward computed (the run's, and PyTorch's).
          CHECK(std::fabs(sum(a->table) - a->score) <= kTol * std::max(1.0, sum_abs(a->table)));
          CHECK(std::fabs(sum(a->table) - score) <= kTol * std::max(1.0, sum_abs(a->table)));
          CHECK(std::fabs(sum(a->rope_pairs) - score) <= kTol * scale);
        }
        const size_t C = cell.at("components").size();
        CHECK(mean.table.size() == C * C);

        const json& m = cell.at("versus_mean");
        REQUIRE(mean.has_versus);
        CHECK(mean.versus_key == -1);
        const double m_scale = std::max(scale, std::fabs(m.at("score").get<double>()));
        CHECK(std::fabs(mean.versus_score - m.at("score").get<float>()) <= kTol * m_scale);
        CHECK(mismatch(mean.versus_table, flat(m.at("table")), m_scale) == "");

        const json& p = cell.at("versus_position");
        REQUIRE(versus.has_versus);
        CHECK(versus.versus_key == p.at("key").get<int64_t>());
        const double p_scale = std::max(scale, std::fabs(p.at("score").get<double>()));
        CHECK(std::fabs(versus.versus_score - p.at("score").get<float>()) <= kTol * p_scale);
        CHECK(mismatch(versus.versus_table, flat(p.at("table")), p_scale) == "");

        if (request.layer == 0) {
          // The reference's top 11 are more than 1e-4 apart: the order is not float rounding.
          const json& ranked = cell.at("ranked");
          REQUIRE(ranked.size() == size_t(kRankTop));
          for (const QKAttribution* a : {&mean, &versus}) {
            REQUIRE(a->ranked.size() == size_t(kRankTop));
            for (size_t r = 0; r < ranked.size(); ++r) {
              INFO("rank " << r);
              CHECK(a->ranked[r].id == ranked[r].at("id").get<int32_t>());
              const float expected = ranked[r].at("score").get<float>();
              CHECK(std::fabs(a->ranked[r].score - expected) <= kTol * std::max(1.0, std::fabs(double(expected))));
            }
          }
        } else {
          CHECK(mean.ranked.empty());
          CHECK_FALSE(cell.contains("ranked"));
        }
        ++cells;
      }
    }
  }
  CHECK(cells > 0);
}
