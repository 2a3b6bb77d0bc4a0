// A trainable tensor: MiniMind's state-dict name, its float32 master value
// and the gradient accumulated into it, both row-major and of one shape.
// Tied embeddings are one Parameter (model.embed_tokens.weight), as they
// are one nn.Parameter in MiniMind.
#pragma once

#include <string>
#include <vector>

#include "util/tensor.h"

namespace minimind {

class Model;

struct Parameter {
  std::string name;          // e.g. "model.layers.0.self_attn.q_proj.weight"
  Shape shape;               // e.g. [H·Dh, D]
  std::vector<float> value;  // [numel] float32 master weights
  std::vector<float> grad;   // [numel] Σ over the batches since the last zero_grad

  int64_t numel() const { return int64_t(value.size()); }
};

// The model's parameters in model.parameters() order (embedding; per layer
// input_layernorm, q/k/v/o_proj, q_norm/k_norm, post_attention_layernorm,
// gate/up/down_proj; norm; lm_head when untied), with their exact float32
// values (float16 weights widen exactly) and zero gradients.
std::vector<Parameter> model_parameters(const Model& model);

// Index of the parameter named `name`; throws minimind::Error if none is.
size_t parameter_index(const std::vector<Parameter>& params, const std::string& name);

}  // namespace minimind
