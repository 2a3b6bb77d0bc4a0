// ModelConfig: MiniMind's config with the Hugging Face config.json key names.
// Mirrors MiniMindConfig in model/model_minimind.py (generation 3) and
// LMConfig of MiniMind2 (generation 2).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "util/error.h"

namespace minimind {

// Thrown when a config (or a weight file's tensors against it) cannot be used.
// what() lists every problem found, one per line. Kind "config.invalid" with
// the value `count`; each problem has its own kind and values
// (util/error_kinds.h lists them all).
class ConfigError : public Error {
 public:
  explicit ConfigError(std::vector<Problem> problems);
  // The sentences, one per problem.
  const std::vector<std::string>& problems() const { return messages_; }
  const std::vector<Problem>& kinded_problems() const { return problems_; }

 private:
  std::vector<Problem> problems_;
  std::vector<std::string> messages_;
};

// YaRN parameters MiniMind uses when inference_rope_scaling is on.
struct RopeScaling {
  double beta_fast = 32.0;
  double beta_slow = 1.0;
  double factor = 16.0;
  int64_t original_max_position_embeddings = 2048;
  double attention_factor = 1.0;
};

struct ModelConfig {
  // Generation 3 (minimind-3) has q/k norm and eps 1e-6; generation 2
  // (minimind2) has neither. Only the defaults and the MoE flavour differ.
  int generation = 3;

  int64_t hidden_size = 768;        // D
  int64_t num_hidden_layers = 8;    // L
  int64_t num_attention_heads = 8;  // H
  int64_t num_key_value_heads = 4;  // Hkv
  int64_t head_dim = 96;            // Dh
  // False when head_dim was derived as hidden_size / num_attention_heads,
  // which then must divide exactly (MiniMind's default).
  bool explicit_head_dim = false;
  int64_t intermediate_size = 2432;  // F
  int64_t vocab_size = 6400;         // V
  int64_t max_position_embeddings = 32768;
  double rms_norm_eps = 1e-6;
  double rope_theta = 1e6;
  bool tie_word_embeddings = true;
  bool use_qk_norm = true;
  std::string hidden_act = "silu";
  int64_t bos_token_id = 1;
  int64_t eos_token_id = 2;

  bool inference_rope_scaling = false;
  RopeScaling rope_scaling;

  bool use_moe = false;
  int64_t num_experts = 4;               // E routed experts (gen 2: n_routed_experts)
  int64_t num_experts_per_tok = 1;       // top-k
  int64_t moe_intermediate_size = 2432;  // gen 2 experts use intermediate_size
  bool norm_topk_prob = true;
  int64_t n_shared_experts = 0;  // gen 2 only: always-on experts

  // Derived sizes.
  int64_t n_rep() const { return num_attention_heads / num_key_value_heads; }  // R
  int64_t q_dim() const { return num_attention_heads * head_dim; }             // H·Dh
  int64_t kv_dim() const { return num_key_value_heads * head_dim; }            // Hkv·Dh
  int64_t expert_intermediate_size() const { return generation == 2 ? intermediate_size : moe_intermediate_size; }
  int64_t parameter_count() const;                                // every stored weight (tied head counted once)
  int64_t weight_bytes() const { return parameter_count() * 4; }  // as float32 in memory
};

// The defaults MiniMind computes when config.json leaves a size out.
int64_t default_intermediate_size(int generation, int64_t hidden_size);

// Default cap on weight memory: Wasm32 can address 4 GiB in all, and the
// page needs room for activations and the trace besides the weights.
constexpr int64_t kDefaultMaxWeightBytes = int64_t{2} << 30;

// Every problem of the config, one clear sentence each; empty when usable.
std::vector<std::string> validate_config(const ModelConfig& config, int64_t max_weight_bytes = kDefaultMaxWeightBytes);
// The same problems with their kinds and values ("config.not_positive": key, value).
std::vector<Problem> validate_config_problems(const ModelConfig& config,
                                              int64_t max_weight_bytes = kDefaultMaxWeightBytes);

// Parses config.json text (Hugging Face key names) and validates it.
// Throws ConfigError naming every bad or missing value. `unknown_keys`
// (optional) receives the keys that are neither read nor known to be
// harmless to ignore (see kIgnoredConfigKeys): typos like
// "num_attention_head" would otherwise leave a default in place silently.
ModelConfig parse_config_json(const std::string& text, int64_t max_weight_bytes = kDefaultMaxWeightBytes,
                              std::vector<std::string>* unknown_keys = nullptr);

// Keys MiniMind's, Hugging Face's and this project's config.json files carry
// that do not change the forward pass (model_type, torch_dtype, dropout,
// flash_attn, Qwen3's attention_bias, ...): ignored without a warning.
extern const std::vector<std::string> kIgnoredConfigKeys;

// One sentence per unknown key, for a warning list.
std::string unknown_config_key_warning(const std::string& key);

// The config as config.json text, with the key names MiniMind writes.
std::string config_to_json(const ModelConfig& config);

}  // namespace minimind
