#include "checkpoint/model_loader.h"

#include "formats/pth.h"
#include "formats/safetensors.h"

namespace minimind {

Model model_from_safetensors(const ModelConfig& config, const uint8_t* bytes, size_t size) {
  return Model::from_source(config, SafetensorsFile(bytes, size));
}

Model model_from_pth(const ModelConfig& config, const uint8_t* bytes, size_t size) {
  return Model::from_source(config, PthFile(bytes, size));
}

}  // namespace minimind
