#include "tensors/model_config.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

namespace minimind {

using nlohmann::json;

namespace {

std::vector<std::string> messages_of(const std::vector<Problem>& problems) {
  std::vector<std::string> out;
  for (const Problem& p : problems) out.push_back(p.message);
  return out;
}

std::string join_lines(const std::vector<std::string>& lines) {
  std::string s;
  for (size_t i = 0; i < lines.size(); ++i) s += (i ? "\n" : "") + lines[i];
  return s;
}

std::string format_bytes(double bytes) {
  std::ostringstream out;
  out.precision(3);
  if (bytes >= double(int64_t{1} << 30))
    out << bytes / double(int64_t{1} << 30) << " GiB";
  else
    out << bytes / double(1 << 20) << " MiB";
  return out.str();
}

// 1e-50, 1e+06, inf: a double as a message shows it (std::to_string would
// print 1e-50 as 0.000000).
std::string format_number(double v) {
  std::ostringstream out;
  out << v;
  return out.str();
}

// The key whose value is the number `token` in the JSON `text` ("rope_theta"
// for {"rope_theta": 1e999}), or "" when the number is no object's value.
std::string key_of_number(const std::string& text, const std::string& token) {
  const auto space = [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; };
  for (size_t at = text.find(token); !token.empty() && at != std::string::npos; at = text.find(token, at + 1)) {
    size_t i = at;
    while (i > 0 && space(text[i - 1])) --i;
    if (i == 0 || text[i - 1] != ':') continue;
    --i;
    while (i > 0 && space(text[i - 1])) --i;
    if (i < 2 || text[i - 1] != '"') continue;
    const size_t close = i - 1, open = text.rfind('"', close - 1);
    if (open == std::string::npos) continue;
    return text.substr(open + 1, close - open - 1);
  }
  return "";
}

// A sentence for nlohmann's "number overflow parsing '1e999'" (error 406):
// JSON allows numbers beyond a double's range, which would read as infinity.
Problem overflow_problem(const std::string& text, const std::string& what) {
  const size_t open = what.find('\''), close = what.rfind('\'');
  const std::string token = open != std::string::npos && close > open ? what.substr(open + 1, close - open - 1) : "";
  const std::string key = key_of_number(text, token);
  return {"config.number_overflow",
          {{"key", key}, {"value", token}},
          (key.empty() ? "config.json has the number " + token : key + " is " + token) +
              ", beyond the range of a float64 (JSON numbers past about 1.8e308 would read as infinity): give a "
              "finite number"};
}

// Keys parse_config_json reads, for every generation (some only mark generation 2).
const std::set<std::string>& read_config_keys() {
  static const std::set<std::string> keys = {"hidden_size",
                                             "num_hidden_layers",
                                             "num_attention_heads",
                                             "num_key_value_heads",
                                             "head_dim",
                                             "intermediate_size",
                                             "vocab_size",
                                             "max_position_embeddings",
                                             "rms_norm_eps",
                                             "rope_theta",
                                             "tie_word_embeddings",
                                             "use_qk_norm",
                                             "hidden_act",
                                             "bos_token_id",
                                             "eos_token_id",
                                             "inference_rope_scaling",
                                             "use_moe",
                                             "num_experts_per_tok",
                                             "moe_intermediate_size",
                                             "norm_topk_prob",
                                             "scoring_func",
                                             "aux_loss_alpha",
                                             "seq_aux"};
  return keys;
}

// Parameter count in double: an absurd config must not overflow int64 before
// the memory cap rejects it.
double parameter_count_estimate(const ModelConfig& c) {
  const double D = double(c.hidden_size), Dh = double(c.head_dim);
  const double attention = D * Dh * double(c.num_attention_heads) * 2 +  // q_proj, o_proj
                           D * Dh * double(c.num_key_value_heads) * 2 +  // k_proj, v_proj
                           (c.use_qk_norm ? 2 * Dh : 0) + 2 * D;         // q/k norm, two block norms
  double ffn = 3 * D * double(c.intermediate_size);
  if (c.use_moe) {
    ffn = double(c.num_experts) * D +  // router
          double(c.num_experts) * 3 * D * double(c.expert_intermediate_size()) +
          double(c.n_shared_experts) * 3 * D * double(c.intermediate_size);
  }
  const double embed = double(c.vocab_size) * D;
  return embed + double(c.num_hidden_layers) * (attention + ffn) + D + (c.tie_word_embeddings ? 0 : embed);
}

// Readers for one config.json key each: absent keeps the default, a wrong
// type or value adds a problem naming the key.
class JsonReader {
 public:
  JsonReader(const json& j, std::vector<Problem>& problems) : j_(j), problems_(problems) {}

  bool has(const char* key) const { return j_.contains(key) && !j_.at(key).is_null(); }

  void integer(const char* key, int64_t& out) {
    if (!has(key)) return;
    const json& v = j_.at(key);
    if (v.is_number_integer()) {
      out = v.get<int64_t>();
    } else if (v.is_number_float() && std::isfinite(v.get<double>()) &&
               v.get<double>() == std::floor(v.get<double>()) && std::fabs(v.get<double>()) < 1e15) {
      out = int64_t(v.get<double>());
    } else {
      wrong_type(key, "integer", std::string(key) + " must be an integer, got " + v.dump());
    }
  }

  void number(const char* key, double& out) {
    if (!has(key)) return;
    const json& v = j_.at(key);
    if (v.is_number())
      out = v.get<double>();
    else
      wrong_type(key, "number", std::string(key) + " must be a number, got " + v.dump());
  }

  void boolean(const char* key, bool& out) {
    if (!has(key)) return;
    const json& v = j_.at(key);
    if (v.is_boolean())
      out = v.get<bool>();
    else
      wrong_type(key, "boolean", std::string(key) + " must be true or false, got " + v.dump());
  }

  void string(const char* key, std::string& out) {
    if (!has(key)) return;
    const json& v = j_.at(key);
    if (v.is_string())
      out = v.get<std::string>();
    else
      wrong_type(key, "string", std::string(key) + " must be a string, got " + v.dump());
  }

 private:
  // "config.wrong_type": key, expected ("integer", "number", "boolean", "string"), got (the JSON text).
  void wrong_type(const char* key, const char* expected, const std::string& message) {
    problems_.push_back(
        {"config.wrong_type", {{"key", key}, {"expected", expected}, {"got", j_.at(key).dump()}}, message});
  }

  const json& j_;
  std::vector<Problem>& problems_;
};

}  // namespace

const std::vector<std::string> kIgnoredConfigKeys = {
    // Hugging Face's bookkeeping (save_pretrained, convert_model.py's Qwen3 export).
    "model_type", "architectures", "auto_map", "transformers_version", "torch_dtype", "dtype", "_name_or_path",
    "tokenizer_class", "use_cache", "pad_token_id", "initializer_range", "return_dict", "output_attentions",
    "output_hidden_states",
    // Training-only knobs of MiniMindConfig: no effect on the forward pass.
    "dropout", "flash_attn", "router_aux_loss_coef",
    // Fixed by inference_rope_scaling: MiniMindConfig overwrites it.
    "rope_scaling",
    // Qwen3 / Qwen3-MoE keys whose value MiniMind's export writes as the one this model has.
    "attention_bias", "attention_dropout", "max_window_layers", "sliding_window", "use_sliding_window", "layer_types",
    "decoder_sparse_step", "mlp_only_layers", "output_router_logits"};

std::string unknown_config_key_warning(const std::string& key) {
  return "config.json key \"" + key + "\" is not a MiniMind config key and was ignored (a typo?)";
}

ConfigError::ConfigError(std::vector<Problem> problems)
    : Error("config.invalid", {{"count", int64_t(problems.size())}}, join_lines(messages_of(problems))),
      problems_(std::move(problems)),
      messages_(messages_of(problems_)) {}

int64_t ModelConfig::parameter_count() const { return int64_t(parameter_count_estimate(*this)); }

int64_t default_intermediate_size(int generation, int64_t hidden_size) {
  const double d = double(hidden_size);
  const double size = generation == 2 ? 64 * std::ceil(d * 8.0 / 3.0 / 64.0)  // MiniMind2 FeedForward
                                      : std::ceil(d * M_PI / 64.0) * 64;      // MiniMindConfig
  // In double, then clamped: a hidden_size far past what validation allows
  // (say -2^63 in a config.json) must not overflow int64 on the way.
  return int64_t(std::clamp(size, -9.0e18, 9.0e18));
}

std::vector<std::string> validate_config(const ModelConfig& c, int64_t max_weight_bytes) {
  return messages_of(validate_config_problems(c, max_weight_bytes));
}

std::vector<Problem> validate_config_problems(const ModelConfig& c, int64_t max_weight_bytes) {
  std::vector<Problem> problems;
  const auto add = [&](const char* kind, ErrorValues values, std::string message) {
    problems.push_back({kind, std::move(values), std::move(message)});
  };
  // Sizes a browser could still hold; larger values are typos, not models.
  const struct {
    const char* key;
    int64_t value;
    int64_t max;
  } sizes[] = {
      {"hidden_size", c.hidden_size, 1 << 16},
      {"num_hidden_layers", c.num_hidden_layers, 1 << 10},
      {"num_attention_heads", c.num_attention_heads, 1 << 10},
      {"num_key_value_heads", c.num_key_value_heads, 1 << 10},
      {"head_dim", c.head_dim, 1 << 12},
      {"intermediate_size", c.intermediate_size, 1 << 18},
      {"vocab_size", c.vocab_size, 1 << 22},
      {"max_position_embeddings", c.max_position_embeddings, int64_t{1} << 24},
  };
  bool sizes_ok = true;
  for (const auto& s : sizes) {
    if (s.value <= 0) {
      problems.push_back({"config.not_positive",
                          {{"key", s.key}, {"value", s.value}},
                          std::string(s.key) + " must be a positive integer, got " + std::to_string(s.value)});
      sizes_ok = false;
    } else if (s.value > s.max) {
      problems.push_back({"config.too_large",
                          {{"key", s.key}, {"value", s.value}, {"max", s.max}},
                          std::string(s.key) + " " + std::to_string(s.value) + " is larger than the supported " +
                              std::to_string(s.max)});
      sizes_ok = false;
    }
  }
  if (c.num_attention_heads > 0 && c.num_key_value_heads > 0 && c.num_attention_heads % c.num_key_value_heads != 0) {
    problems.push_back({"config.heads_not_multiple",
                        {{"heads", c.num_attention_heads}, {"kv_heads", c.num_key_value_heads}},
                        "num_attention_heads " + std::to_string(c.num_attention_heads) +
                            " is not a multiple of num_key_value_heads " + std::to_string(c.num_key_value_heads) +
                            " (each kv head must serve the same number of q heads)"});
  }
  if (!c.explicit_head_dim && c.num_attention_heads > 0 && c.hidden_size > 0 &&
      c.hidden_size % c.num_attention_heads != 0) {
    problems.push_back({"config.hidden_not_divisible",
                        {{"hidden_size", c.hidden_size}, {"heads", c.num_attention_heads}},
                        "hidden_size " + std::to_string(c.hidden_size) + " is not divisible by num_attention_heads " +
                            std::to_string(c.num_attention_heads) + " (head_dim = hidden_size / num_attention_heads)"});
  } else if (c.head_dim > 0 && c.head_dim % 2 != 0) {
    problems.push_back({"config.head_dim_odd",
                        {{"head_dim", c.head_dim}},
                        "head_dim " + std::to_string(c.head_dim) +
                            " is odd; RoPE rotates the two halves of each head and needs an even head_dim"});
  }
  // Both are used as float32 (RMSNorm's eps, RoPE's base): a value that is
  // positive as a double may still round to 0 or overflow there.
  if (!(c.rms_norm_eps > 0) || !std::isfinite(c.rms_norm_eps)) {
    add("config.not_positive_number", {{"key", "rms_norm_eps"}, {"value", format_number(c.rms_norm_eps)}},
        "rms_norm_eps must be a positive number, got " + format_number(c.rms_norm_eps));
  } else if (!(float(c.rms_norm_eps) > 0)) {
    add("config.eps_rounds_to_zero", {{"value", format_number(c.rms_norm_eps)}},
        "rms_norm_eps " + format_number(c.rms_norm_eps) +
            " rounds to 0 in float32, where the norms compute (the smallest positive float32 is about "
            "1.4e-45); MiniMind uses 1e-5 or 1e-6");
  } else if (!std::isfinite(float(c.rms_norm_eps))) {
    add("config.float32_overflow", {{"key", "rms_norm_eps"}, {"value", format_number(c.rms_norm_eps)}},
        "rms_norm_eps " + format_number(c.rms_norm_eps) + " overflows float32");
  }
  if (!(c.rope_theta > 0) || !std::isfinite(c.rope_theta)) {
    add("config.not_positive_number", {{"key", "rope_theta"}, {"value", format_number(c.rope_theta)}},
        "rope_theta must be a positive number, got " + format_number(c.rope_theta));
  } else if (!std::isfinite(float(c.rope_theta)) || !(float(c.rope_theta) > 0)) {
    add("config.float32_overflow", {{"key", "rope_theta"}, {"value", format_number(c.rope_theta)}},
        "rope_theta " + format_number(c.rope_theta) +
            " is outside float32's range, where RoPE's frequencies are computed (MiniMind uses 1e6)");
  } else if (c.inference_rope_scaling && !(c.rope_theta > 1)) {
    add("config.rope_theta_yarn", {{"value", format_number(c.rope_theta)}},
        "rope_theta " + format_number(c.rope_theta) +
            " must be greater than 1 with inference_rope_scaling (YaRN divides by log(rope_theta))");
  }
  if (c.hidden_act != "silu") {
    problems.push_back({"config.hidden_act",
                        {{"value", c.hidden_act}},
                        "hidden_act \"" + c.hidden_act + "\" is not supported (MiniMind uses \"silu\")"});
  }
  if (c.inference_rope_scaling) {
    const RopeScaling& r = c.rope_scaling;
    if (!(r.factor > 0) || r.original_max_position_embeddings <= 0 || !(r.beta_fast > 0) || !(r.beta_slow > 0)) {
      add("config.rope_scaling", {},
          "rope_scaling needs a positive factor, beta_fast, beta_slow and original_max_position_embeddings");
    }
  }
  if (c.use_moe) {
    if (c.num_experts <= 0 || c.num_experts > 256) {
      add("config.out_of_range",
          {{"key", "num_experts"}, {"value", c.num_experts}, {"min", int64_t{1}}, {"max", int64_t{256}}},
          "num_experts must be between 1 and 256, got " + std::to_string(c.num_experts));
      sizes_ok = false;
    }
    if (c.num_experts_per_tok <= 0 || c.num_experts_per_tok > c.num_experts) {
      add("config.out_of_range",
          {{"key", "num_experts_per_tok"},
           {"value", c.num_experts_per_tok},
           {"min", int64_t{1}},
           {"max", c.num_experts}},
          "num_experts_per_tok must be between 1 and num_experts (" + std::to_string(c.num_experts) + "), got " +
              std::to_string(c.num_experts_per_tok));
    }
    if (c.expert_intermediate_size() <= 0 || c.expert_intermediate_size() > (1 << 18)) {
      add("config.out_of_range",
          {{"key", "moe_intermediate_size"},
           {"value", c.expert_intermediate_size()},
           {"min", int64_t{1}},
           {"max", int64_t{1} << 18}},
          "moe_intermediate_size must be a positive integer up to 262144, got " +
              std::to_string(c.expert_intermediate_size()));
      sizes_ok = false;
    }
    if (c.n_shared_experts < 0 || c.n_shared_experts > 64) {
      add("config.out_of_range",
          {{"key", "n_shared_experts"}, {"value", c.n_shared_experts}, {"min", int64_t{0}}, {"max", int64_t{64}}},
          "n_shared_experts must be between 0 and 64, got " + std::to_string(c.n_shared_experts));
      sizes_ok = false;
    }
  }
  if (sizes_ok) {
    const double bytes = parameter_count_estimate(c) * 4;
    if (bytes > double(max_weight_bytes)) {
      problems.push_back({"config.weights_too_large",
                          {{"bytes", bytes}, {"limit", max_weight_bytes}},
                          "the weights would take " + format_bytes(bytes) + " as float32, over the " +
                              format_bytes(double(max_weight_bytes)) + " limit"});
    }
  }
  return problems;
}

ModelConfig parse_config_json(const std::string& text, int64_t max_weight_bytes,
                              std::vector<std::string>* unknown_keys) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::out_of_range& e) {
    throw ConfigError(std::vector<Problem>{overflow_problem(text, e.what())});
  } catch (const json::exception& e) {
    throw ConfigError(
        std::vector<Problem>{{"config.not_json", {}, std::string("config.json is not valid JSON: ") + e.what()}});
  }
  if (!j.is_object()) {
    throw ConfigError(std::vector<Problem>{{"config.not_object",
                                            {{"type", std::string(j.type_name())}},
                                            "config.json must hold a JSON object, got " + std::string(j.type_name())}});
  }

  std::vector<Problem> problems;
  JsonReader read(j, problems);
  ModelConfig c;
  // Keys only MiniMind2's LMConfig writes mark a generation-2 config.
  const bool gen2 =
      read.has("n_routed_experts") || read.has("scoring_func") || read.has("aux_loss_alpha") || read.has("seq_aux");
  if (gen2) {
    c.generation = 2;
    c.hidden_size = 512;
    c.num_key_value_heads = 2;
    c.rms_norm_eps = 1e-5;
    c.use_qk_norm = false;
    c.num_experts_per_tok = 2;  // MiniMind2's MoE defaults: top-2 of 4, one shared expert
    c.n_shared_experts = 1;
  }
  read.integer("hidden_size", c.hidden_size);
  read.integer("num_hidden_layers", c.num_hidden_layers);
  read.integer("num_attention_heads", c.num_attention_heads);
  c.num_key_value_heads = read.has("num_key_value_heads") || !j.contains("num_key_value_heads")
                              ? c.num_key_value_heads
                              : c.num_attention_heads;  // null means one kv head per q head
  read.integer("num_key_value_heads", c.num_key_value_heads);
  c.explicit_head_dim = read.has("head_dim");
  if (c.explicit_head_dim)
    read.integer("head_dim", c.head_dim);
  else if (c.num_attention_heads > 0)
    c.head_dim = c.hidden_size / c.num_attention_heads;
  c.intermediate_size = default_intermediate_size(c.generation, c.hidden_size);
  read.integer("intermediate_size", c.intermediate_size);
  read.integer("vocab_size", c.vocab_size);
  read.integer("max_position_embeddings", c.max_position_embeddings);
  read.number("rms_norm_eps", c.rms_norm_eps);
  read.number("rope_theta", c.rope_theta);
  read.boolean("tie_word_embeddings", c.tie_word_embeddings);
  read.boolean("use_qk_norm", c.use_qk_norm);  // our extension; weights override it
  read.string("hidden_act", c.hidden_act);
  read.integer("bos_token_id", c.bos_token_id);
  read.integer("eos_token_id", c.eos_token_id);

  read.boolean("inference_rope_scaling", c.inference_rope_scaling);
  // MiniMind fixes the YaRN parameters (RopeScaling's defaults) and turns
  // them on with inference_rope_scaling alone; a rope_scaling block in the
  // file is ignored, as MiniMindConfig overwrites it.

  read.boolean("use_moe", c.use_moe);
  read.integer(gen2 ? "n_routed_experts" : "num_experts", c.num_experts);
  read.integer("num_experts_per_tok", c.num_experts_per_tok);
  c.moe_intermediate_size = c.intermediate_size;
  read.integer("moe_intermediate_size", c.moe_intermediate_size);
  read.boolean("norm_topk_prob", c.norm_topk_prob);
  if (gen2) read.integer("n_shared_experts", c.n_shared_experts);
  if (read.has("scoring_func")) {
    std::string scoring = "softmax";
    read.string("scoring_func", scoring);
    if (scoring != "softmax")
      problems.push_back({"config.scoring_func",
                          {{"value", scoring}},
                          "scoring_func \"" + scoring + "\" is not supported (only softmax)"});
  }

  if (problems.empty()) problems = validate_config_problems(c, max_weight_bytes);
  if (!problems.empty()) throw ConfigError(problems);
  if (unknown_keys) {
    unknown_keys->clear();
    for (const auto& item : j.items()) {
      const std::string& key = item.key();
      const bool read_here = read_config_keys().count(key) || key == (gen2 ? "n_routed_experts" : "num_experts") ||
                             (gen2 && key == "n_shared_experts");
      if (!read_here &&
          std::find(kIgnoredConfigKeys.begin(), kIgnoredConfigKeys.end(), key) == kIgnoredConfigKeys.end())
        unknown_keys->push_back(key);
    }
  }
  return c;
}

std::string config_to_json(const ModelConfig& c) {
  json j = {
      {"model_type", "minimind"},
      {"hidden_size", c.hidden_size},
      {"num_hidden_layers", c.num_hidden_layers},
      {"num_attention_heads", c.num_attention_heads},
      {"num_key_value_heads", c.num_key_value_heads},
      {"head_dim", c.head_dim},
      {"intermediate_size", c.intermediate_size},
      {"vocab_size", c.vocab_size},
      {"max_position_embeddings", c.max_position_embeddings},
      {"rms_norm_eps", c.rms_norm_eps},
      {"rope_theta", c.rope_theta},
      {"tie_word_embeddings", c.tie_word_embeddings},
      {"use_qk_norm", c.use_qk_norm},
      {"hidden_act", c.hidden_act},
      {"bos_token_id", c.bos_token_id},
      {"eos_token_id", c.eos_token_id},
      {"inference_rope_scaling", c.inference_rope_scaling},
      {"use_moe", c.use_moe},
  };
  if (c.inference_rope_scaling) {
    j["rope_scaling"] = {{"beta_fast", c.rope_scaling.beta_fast},
                         {"beta_slow", c.rope_scaling.beta_slow},
                         {"factor", c.rope_scaling.factor},
                         {"original_max_position_embeddings", c.rope_scaling.original_max_position_embeddings},
                         {"attention_factor", c.rope_scaling.attention_factor},
                         {"type", "yarn"}};
  }
  // MoE keys even for dense models, as save_pretrained writes every config
  // attribute: for generation 2 they are what marks the generation.
  j["num_experts_per_tok"] = c.num_experts_per_tok;
  j["norm_topk_prob"] = c.norm_topk_prob;
  if (c.generation == 2) {
    j["n_routed_experts"] = c.num_experts;
    j["n_shared_experts"] = c.n_shared_experts;
    j["scoring_func"] = "softmax";
  } else {
    j["num_experts"] = c.num_experts;
    j["moe_intermediate_size"] = c.moe_intermediate_size;
  }
  return j.dump(2);
}

}  // namespace minimind
