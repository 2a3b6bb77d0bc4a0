#include "train/parameter.h"

#include <stdexcept>

#include "model/model.h"
#include "util/error.h"

namespace minimind {

std::vector<Parameter> model_parameters(const Model& model) {
  // weight_slots needs writable weights to point into; nothing is written.
  ModelWeights& weights = const_cast<Model&>(model).weights_for_update();
  std::vector<Parameter> params;
  for (const WeightSlot& slot : weight_slots(model.config(), weights)) {
    std::vector<float> value = slot.values();
    std::vector<float> grad(value.size(), 0.0f);
    params.push_back({slot.name, slot.shape, std::move(value), std::move(grad)});
  }
  return params;
}

size_t parameter_index(const std::vector<Parameter>& params, const std::string& name) {
  for (size_t i = 0; i < params.size(); ++i) {
    if (params[i].name == name) return i;
  }
  throw Error("train.unknown_parameter", {{"name", name}}, "no parameter named " + name);
}

}  // namespace minimind
