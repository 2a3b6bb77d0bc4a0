#include "tensors/trace.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "util/error.h"

namespace minimind {

const std::vector<std::string>& all_stage_names() {
  static const std::vector<std::string> names = {
      stage::kBlockInput,   stage::kAttnNorm,     stage::kQProj,       stage::kKProj,         stage::kVProj,
      stage::kQNorm,        stage::kKNorm,        stage::kQRope,       stage::kKRope,         stage::kScoresRaw,
      stage::kScoresScaled, stage::kScoresMasked, stage::kAttnWeights, stage::kHeadOutputs,   stage::kAttnConcat,
      stage::kOProj,        stage::kAttnResidual, stage::kFfnNorm,     stage::kFfnGate,       stage::kFfnUp,
      stage::kFfnAct,       stage::kFfnDown,      stage::kRouterProbs, stage::kRouterExperts, stage::kRouterWeights,
      stage::kBlockOutput,  stage::kFinalNorm,    stage::kLogits,
  };
  return names;
}

void validate_trace_request(const TraceRequest& request, int64_t num_layers) {
  for (int64_t layer : request.layers) {
    if (layer < 0 || layer >= num_layers) {
      throw Error("trace.layer_out_of_range", {{"layer", layer}, {"layers", num_layers}},
                  "trace layer " + std::to_string(layer) + " is out of range: the model has " +
                      std::to_string(num_layers) + " layers (0.." + std::to_string(num_layers - 1) + ")");
    }
  }
  const auto& known = all_stage_names();
  for (const std::string& s : request.stages) {
    if (std::find(known.begin(), known.end(), s) == known.end()) {
      std::string list;
      for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
      throw Error("trace.unknown_stage", {{"stage", s}, {"stages", list}},
                  "unknown trace stage \"" + s + "\"; stages are: " + list);
    }
  }
}

Trace::Trace(TraceRequest request, int64_t batch_size) : request_(std::move(request)), batch_size_(batch_size) {}

bool Trace::wants(int64_t layer, const char* stage_name) const {
  const bool stage_ok = request_.stages.empty() ||
                        std::find(request_.stages.begin(), request_.stages.end(), stage_name) != request_.stages.end();
  if (!stage_ok) return false;
  if (layer == kModelLevel) return true;
  return std::find(request_.layers.begin(), request_.layers.end(), layer) != request_.layers.end();
}

Tensor& Trace::tensor(int64_t layer, const char* stage_name, const Shape& per_sequence_shape, const float* whole,
                      bool& made) {
  auto key = std::make_pair(layer, std::string(stage_name));
  auto it = tensors_.find(key);
  made = it == tensors_.end();
  if (made) {
    Tensor t;
    t.shape = Shape{batch_size_};
    t.shape.insert(t.shape.end(), per_sequence_shape.begin(), per_sequence_shape.end());
    const int64_t n = shape_numel(t.shape);
    if (floats_ + n > request_.max_floats) {
      throw Error("trace.too_large", {{"limit", request_.max_floats * int64_t(sizeof(float))}},
                  "the trace would hold more than " + std::to_string(request_.max_floats / (1 << 18)) +
                      " MiB; trace fewer layers or stages, or a shorter text");
    }
    floats_ += n;
    // One pass over the values: copied straight in, or zeros to fill.
    if (whole) {
      t.data.assign(whole, whole + n);
    } else {
      t.data.assign(size_t(n), 0.0f);
    }
    it = tensors_.emplace(std::move(key), std::move(t)).first;
  }
  if (it->second.numel() != shape_numel(per_sequence_shape) * batch_size_) {
    throw Error("trace.shape_changed", {{"stage", std::string(stage_name)}},
                std::string("trace stage ") + stage_name + " changed shape within a batch");
  }
  return it->second;
}

void Trace::put(int64_t layer, const char* stage_name, int64_t batch_index, const Shape& per_sequence_shape,
                const float* data) {
  bool made = false;
  Tensor& t = tensor(layer, stage_name, per_sequence_shape, batch_size_ == 1 ? data : nullptr, made);
  if (made && batch_size_ == 1) return;
  const int64_t n = shape_numel(per_sequence_shape);
  std::memcpy(t.data.data() + batch_index * n, data, size_t(n) * sizeof(float));
}

float* Trace::slice(int64_t layer, const char* stage_name, int64_t batch_index, const Shape& per_sequence_shape) {
  bool made = false;
  Tensor& t = tensor(layer, stage_name, per_sequence_shape, nullptr, made);
  return t.data.data() + batch_index * shape_numel(per_sequence_shape);
}

const Tensor* Trace::get(int64_t layer, const std::string& stage_name) const {
  auto it = tensors_.find(std::make_pair(layer, stage_name));
  return it == tensors_.end() ? nullptr : &it->second;
}

}  // namespace minimind
