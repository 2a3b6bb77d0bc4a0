// K-composition against QK attribution, which its own tests hold to the
// forward and the PyTorch reference: for each head of each block ≥ 1, a
// component's part of the gap equals the mean, over the row's other keys
// t, of that component's column of qk_attribution's contrast table
// (versus position t) summed over the query side; the parts sum to the
// score on the key minus the mean score of the other keys (the forward's
// own scores, from qk_attribution); means over several cells are the
// means of the cells' values; and bad cells are refused with their kind,
// the model still usable. On every golden case: GQA, q/k norm, MoE,
// untied, YaRN.
#include <catch2/catch.hpp>
#include <cmath>
#include <functional>

#include "fixtures.h"
#include "interp/key_composition.h"
#include "interp/qk_attribution.h"
#include "util/error.h"

using namespace minimind;
using namespace minimind::testing;

namespace {

const std::vector<int32_t> kIds = {1, 17, 5, 40, 9, 22, 3, 17, 5, 61};  // T = 10, vocabulary 64

// A token's second occurrence (17 at 7) and the token after its first (5 at 2): an induction cell.
const CompositionCell kInduction{7, 2};

// The parts [C] and gap of one head at one cell, from QK attribution alone.
struct Expected {
  std::vector<double> parts;
  double gap = 0.0;
};

Expected from_qk(const Model& model, int64_t layer, int64_t head, CompositionCell cell) {
  const int64_t C = 1 + layer * (model.config().num_attention_heads + 1);
  Expected e;
  e.parts.assign(size_t(C), 0.0);
  const double others = double(cell.query);  // keys 0 .. query but the cell's own
  for (int64_t t = 0; t <= cell.query; ++t) {
    if (t == cell.key) continue;
    QKRequest request{layer, head, cell.query, cell.key, {QKVersus::Kind::position, t}, 0};
    const QKAttribution r = qk_attribution(model, kIds, request);
    for (int64_t a = 0; a < C; ++a)
      for (int64_t b = 0; b < C; ++b) e.parts[size_t(b)] += r.versus_table[size_t(a * C + b)] / others;
    e.gap += r.versus_score / others;  // the forward's own scores
  }
  return e;
}

}  // namespace

TEST_CASE("key composition: each part is QK attribution's key-side column, averaged over the other keys",
          "[composition]") {
  for (const std::string& name : golden_case_names()) {
    DYNAMIC_SECTION(name) {
      const GoldenCase c = load_golden_case(name);
      const Model& model = *c.model;
      const int64_t L = model.config().num_hidden_layers, H = model.config().num_attention_heads;
      const std::vector<LayerKeyComposition> layers = key_composition(model, kIds, {kInduction});
      REQUIRE(int64_t(layers.size()) == L - 1);
      for (const LayerKeyComposition& layer : layers) {
        const int64_t C = 1 + layer.layer * (H + 1);
        CHECK(layer.components == qk_component_names(model.config(), layer.layer));
        REQUIRE(int64_t(layer.heads.size()) == H);
        for (const HeadKeyComposition& head : layer.heads) {
          INFO("layer " << layer.layer << " head " << head.head);
          const Expected e = from_qk(model, layer.layer, head.head, kInduction);
          REQUIRE(int64_t(head.parts.size()) == C);
          double size = 0.0, sum = 0.0;
          for (int64_t b = 0; b < C; ++b) {
            size += std::fabs(e.parts[size_t(b)]);
            sum += head.parts[size_t(b)];
          }
          for (int64_t b = 0; b < C; ++b)
            CHECK(std::fabs(head.parts[size_t(b)] - e.parts[size_t(b)]) <= 1e-5 * size + 1e-6);
          CHECK(std::fabs(head.gap - sum) <= 1e-5 * size + 1e-6);
          // The linearisation at frozen norms is exact: the parts sum to the forward's gap.
          CHECK(std::fabs(head.gap - e.gap) <= 1e-4 * size + 1e-5);
        }
      }
    }
  }
}

TEST_CASE("key composition: several cells give the mean of each cell's parts", "[composition]") {
  const GoldenCase c = load_golden_case(golden_case_names().front());
  const Model& model = *c.model;
  const CompositionCell other{9, 4};
  const auto both = key_composition(model, kIds, {kInduction, other});
  const auto first = key_composition(model, kIds, {kInduction});
  const auto second = key_composition(model, kIds, {other});
  for (size_t l = 0; l < both.size(); ++l)
    for (size_t h = 0; h < both[l].heads.size(); ++h) {
      const HeadKeyComposition& m = both[l].heads[h];
      for (size_t b = 0; b < m.parts.size(); ++b) {
        const float mean = first[l].heads[h].parts[b] / 2 + second[l].heads[h].parts[b] / 2;
        CHECK(std::fabs(m.parts[b] - mean) <= 1e-5f * (std::fabs(mean) + 1.0f));
      }
    }
}

TEST_CASE("key composition: bad cells are refused by kind and the model stays usable", "[composition]") {
  const GoldenCase c = load_golden_case(golden_case_names().front());
  const Model& model = *c.model;
  const int64_t T = int64_t(kIds.size());
  CHECK(error_kind([&] { key_composition(model, kIds, {}); }) == "composition.no_cells");
  CHECK(error_kind([&] { key_composition(model, kIds, {{T, 0}}); }) == "composition.cell_out_of_range");
  CHECK(error_kind([&] { key_composition(model, kIds, {{3, 4}}); }) == "composition.cell_out_of_range");
  CHECK(error_kind([&] { key_composition(model, kIds, {{0, 0}}); }) == "composition.cell_out_of_range");
  CHECK(error_kind([&] { key_composition(model, kIds, {{-1, 0}}); }) == "composition.cell_out_of_range");
  CHECK_FALSE(key_composition(model, kIds, {kInduction}).empty());
}
