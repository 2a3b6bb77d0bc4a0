#include "model/head_scores.h"

#include <cmath>
#include <stdexcept>
#include <string>

#include "tensors/trace.h"
#include "util/error.h"

namespace minimind {

namespace {

// Every layer's attention weights for one sequence: layer l's [H, T, T]
// starts at the returned tensors' [l] data.
std::vector<Tensor> attention_weights(const Model& model, const std::vector<int32_t>& ids,
                                      const ForwardOptions& options) {
  const int64_t L = model.config().num_hidden_layers;
  TraceRequest request;
  for (int64_t l = 0; l < L; ++l) request.layers.push_back(l);
  request.stages = {stage::kAttnWeights};
  Trace trace(request, 1);
  model.forward(ids, nullptr, {}, options, &trace, 0);
  std::vector<Tensor> out;
  for (int64_t l = 0; l < L; ++l) out.push_back(*trace.get(l, stage::kAttnWeights));  // [1, H, T, T]
  return out;
}

}  // namespace

Matrix attention_mass(const Model& model, const std::vector<AttentionProbe>& probes, const ForwardOptions& options) {
  if (probes.empty()) throw Error("probe.none", {}, "attention_mass needs at least one probe");
  const int64_t L = model.config().num_hidden_layers, H = model.config().num_attention_heads;
  Matrix total = Matrix::Zero(L, H);
  std::vector<Tensor> weights;
  const std::vector<int32_t>* current = nullptr;
  for (size_t p = 0; p < probes.size(); ++p) {
    const AttentionProbe& probe = probes[p];
    const int64_t T = int64_t(probe.ids.size());
    const auto where = [&] { return "probe " + std::to_string(p) + ": "; };
    if (probe.query < 0 || probe.query >= T) {
      throw Error(
          "probe.query_out_of_range", {{"probe", int64_t(p)}, {"query", probe.query}, {"tokens", T}},
          where() + "query " + std::to_string(probe.query) + " is outside its " + std::to_string(T) + " tokens");
    }
    for (const int64_t k : probe.keys) {
      if (k < 0 || k >= T) {
        throw Error("probe.key_out_of_range", {{"probe", int64_t(p)}, {"key", k}, {"tokens", T}},
                    where() + "key " + std::to_string(k) + " is outside its " + std::to_string(T) + " tokens");
      }
    }
    if (!current || *current != probe.ids) {
      weights = attention_weights(model, probe.ids, options);
      current = &probe.ids;
    }
    for (int64_t l = 0; l < L; ++l) {
      for (int64_t h = 0; h < H; ++h) {
        const float* row = weights[size_t(l)].data.data() + (h * T + probe.query) * T;  // [T]
        double mass = 0.0;
        for (const int64_t k : probe.keys) mass += row[k];
        total(l, h) += float(mass);
      }
    }
  }
  return total / float(probes.size());
}

Matrix attention_entropy(const Model& model, const std::vector<std::vector<int32_t>>& sequences) {
  const int64_t L = model.config().num_hidden_layers, H = model.config().num_attention_heads;
  Matrix total = Matrix::Zero(L, H);
  int64_t rows = 0;
  for (const std::vector<int32_t>& ids : sequences) {
    const int64_t T = int64_t(ids.size());
    if (T < 2) continue;
    const std::vector<Tensor> weights = attention_weights(model, ids, {});
    for (int64_t l = 0; l < L; ++l) {
      for (int64_t h = 0; h < H; ++h) {
        for (int64_t i = 1; i < T; ++i) {
          const float* row = weights[size_t(l)].data.data() + (h * T + i) * T;  // [T]
          double entropy = 0.0;
          for (int64_t j = 0; j <= i; ++j) {
            if (row[j] > 0.0f) entropy -= double(row[j]) * std::log(double(row[j]));
          }
          total(l, h) += float(entropy);
        }
      }
    }
    rows += T - 1;
  }
  if (rows == 0) throw Error("probe.too_short", {}, "attention_entropy needs a sequence of at least 2 tokens");
  return total / float(rows);
}

}  // namespace minimind
