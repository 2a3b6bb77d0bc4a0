// A Model from the bytes of a weight file. The container is parsed by
// formats/ (safetensors, or a PyTorch .pth state dict read as data) and
// checked against the weight table by Model::from_source; these two only
// pick the parser, so the model layer knows no file format.
#pragma once

#include <cstddef>
#include <cstdint>

#include "model/model.h"
#include "tensors/model_config.h"

namespace minimind {

// A model from a config and safetensors bytes (F32/F16/BF16).
Model model_from_safetensors(const ModelConfig& config, const uint8_t* bytes, size_t size);

// A model from a config and the bytes of a torch.save(state_dict) .pth
// file (F32/F16/BF16; read as data, nothing in it is executed).
Model model_from_pth(const ModelConfig& config, const uint8_t* bytes, size_t size);

}  // namespace minimind
