#include "checkpoint/model_export.h"

#include <cmath>
#include <stdexcept>

#include "util/error.h"

namespace minimind {

std::vector<uint8_t> model_safetensors(const Model& model, DType dtype) {
  if (dtype != DType::F32 && dtype != DType::F16) {
    throw Error("export.dtype", {{"dtype", std::string(dtype_name(dtype))}},
                std::string("model weights are written as F32 or F16, not ") + dtype_name(dtype));
  }
  // weight_slots needs writable weights to point into; nothing is written.
  ModelWeights& weights = const_cast<Model&>(model).weights_for_update();
  std::vector<NamedTensor> tensors;
  for (const WeightSlot& slot : weight_slots(model.config(), weights)) {
    std::vector<float> values = slot.values();
    if (dtype == DType::F16) {
      for (const float v : values) {
        if (!(std::fabs(v) <= 65504.0f)) {
          throw Error(
              "export.float16_range", {{"tensor", slot.name}, {"value", double(v)}},
              "tensor " + slot.name + " holds " + std::to_string(v) + ", outside float16's range: write it as F32");
        }
      }
    }
    tensors.push_back({slot.name, dtype, slot.shape, std::move(values)});
  }
  if (model.config().tie_word_embeddings) {
    NamedTensor head = tensors.front();  // model.embed_tokens.weight
    head.name = "lm_head.weight";
    tensors.push_back(std::move(head));
  }
  return write_safetensors(tensors, {{"format", "pt"}});
}

}  // namespace minimind
