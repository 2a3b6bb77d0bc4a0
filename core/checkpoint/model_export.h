// The model's weights as the model.safetensors MiniMind's own code loads:
// every tensor under its state-dict name, and with tied embeddings both
// model.embed_tokens.weight and lm_head.weight (MiniMindForCausalLM's
// state_dict holds both, so load_state_dict(strict=True) expects both; this
// project and Hugging Face tools take either).
#pragma once

#include <cstdint>
#include <vector>

#include "formats/safetensors.h"
#include "model/model.h"

namespace minimind {

// dtype: DType::F32 or DType::F16 (rounded to nearest even). Throws
// minimind::Error for another dtype, or for F16 when a weight is
// outside float16's range.
std::vector<uint8_t> model_safetensors(const Model& model, DType dtype);

}  // namespace minimind
