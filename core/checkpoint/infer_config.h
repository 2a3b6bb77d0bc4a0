// A ModelConfig read off the tensors of a checkpoint that came without its
// config.json (a .pth state dict, usually). The shapes give every size;
// what they cannot give (the number of q heads when there is no q_norm to
// give head_dim, rms_norm_eps, rope_theta, top-k) comes from hints or
// MiniMind's defaults, and the result says which is which so a page can ask
// the user to confirm the assumed values.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "formats/tensor_source.h"
#include "tensors/model_config.h"

namespace minimind {

// Values the user knows and the tensors do not tell; unset ones take
// MiniMind's defaults (8 heads, rope_theta 1e6, eps 1e-6 for generation 3
// and 1e-5 for generation 2, top-1 / top-2 routing).
struct InferHints {
  std::optional<int64_t> num_attention_heads;  // required knowledge for generation 2 (no q_norm)
  // Generation 2: instead of the heads, gives head_dim = k_proj rows / this
  // (and so the heads); generation 3 only checks it against the tensors.
  std::optional<int64_t> num_key_value_heads;
  std::optional<double> rms_norm_eps;
  std::optional<double> rope_theta;
  std::optional<int64_t> max_position_embeddings;
  std::optional<bool> inference_rope_scaling;
  std::optional<int64_t> num_experts_per_tok;  // MoE only
  std::optional<bool> norm_topk_prob;          // MoE only
};

enum class FieldSource { Inferred, Hint, Default };
const char* field_source_name(FieldSource source);  // "inferred", "hint", "default"

struct FieldOrigin {
  std::string key;  // the config.json key name
  FieldSource source;
};

struct InferredConfig {
  ModelConfig config;
  std::vector<FieldOrigin> fields;  // every key set, in config.json order
  // Keys taken from hints or defaults rather than from the tensors.
  std::vector<std::string> assumed() const;
  FieldSource source(const std::string& key) const;  // throws minimind::Error for an unknown key
};

// Infers the config from tensor names and shapes (layer 0 for the per-layer
// sizes; load_weights then checks every layer against it). Throws
// ConfigError naming each tensor that is missing or whose shape does not fit,
// and each problem validate_config finds in the result (and what the file is,
// when it says: a training checkpoint).
InferredConfig infer_config(const TensorSource& source, const InferHints& hints = {});

}  // namespace minimind
