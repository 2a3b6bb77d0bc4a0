#include "checkpoint/infer_config.h"

#include <cstring>
#include <set>
#include <stdexcept>

#include "util/error.h"

namespace minimind {

namespace {

// "7" from "model.layers.7.self_attn..." after `prefix`; -1 when the name
// does not continue with a plain decimal index and a dot.
int64_t index_after(const std::string& name, const std::string& prefix) {
  if (name.compare(0, prefix.size(), prefix) != 0) return -1;
  int64_t index = 0;
  size_t i = prefix.size();
  for (; i < name.size() && name[i] >= '0' && name[i] <= '9'; ++i) {
    if (i - prefix.size() >= 9) return -1;
    index = index * 10 + (name[i] - '0');
  }
  const size_t digits = i - prefix.size();
  if (digits == 0 || (digits > 1 && name[prefix.size()] == '0') || i >= name.size() || name[i] != '.') return -1;
  return index;
}

// The distinct indices found after `prefix`, with their suffix being `suffix`
// (empty suffix: any).
std::set<int64_t> indices(const std::vector<std::string>& names, const std::string& prefix,
                          const std::string& suffix = "") {
  std::set<int64_t> out;
  for (const std::string& name : names) {
    const int64_t i = index_after(name, prefix);
    if (i < 0) continue;
    const std::string rest = name.substr(prefix.size() + std::to_string(i).size());
    if (suffix.empty() || rest == suffix) out.insert(i);
  }
  return out;
}

class Inference {
 public:
  Inference(const TensorSource& source) : source_(source) {}

  std::vector<Problem> problems;
  std::vector<FieldOrigin> fields;

  // The shape of `name` if it has `dims` dimensions; otherwise nullptr and a
  // problem naming it (when `required`).
  const Shape* shape(const std::string& name, size_t dims, bool required = true) {
    const TensorInfo* info = source_.tensor_info(name);
    if (!info) {
      if (required)
        problems.push_back(
            {"infer.missing_tensor", {{"tensor", name}}, "missing tensor " + name + ", needed to infer the config"});
      return nullptr;
    }
    if (info->shape.size() != dims) {
      problems.push_back({"infer.tensor_dims",
                          {{"tensor", name}, {"shape", shape_to_string(info->shape)}, {"dims", int64_t(dims)}},
                          "tensor " + name + " has shape " + shape_to_string(info->shape) + ", expected " +
                              std::to_string(dims) + " dimensions"});
      return nullptr;
    }
    return &info->shape;
  }

  template <typename T>
  void set(const char* key, T& field, T value, FieldSource source) {
    field = value;
    fields.push_back({key, source});
  }
  template <typename T>
  void set_or(const char* key, T& field, const std::optional<T>& hint, T fallback) {
    set(key, field, hint ? *hint : fallback, hint ? FieldSource::Hint : FieldSource::Default);
  }

  // rows / divisor, or a problem when it does not divide.
  int64_t divide(int64_t rows, int64_t divisor, const std::string& what) {
    if (divisor <= 0 || rows % divisor != 0) {
      problems.push_back(
          {"infer.not_multiple",
           {{"tensor", what}, {"rows", rows}, {"divisor", divisor}},
           what + ": " + std::to_string(rows) + " rows are not a multiple of " + std::to_string(divisor)});
      return 0;
    }
    return rows / divisor;
  }

  // Tied when lm_head.weight is absent or holds exactly the embedding (a
  // state_dict lists both names of the shared tensor; .half() copies it).
  bool head_is_embedding(const Shape& embed) {
    const TensorInfo* head = source_.tensor_info("lm_head.weight");
    if (!head) return true;
    if (head->shape != embed) return false;
    std::vector<float> a(size_t(shape_numel(embed))), b(a.size());
    source_.read_tensor("model.embed_tokens.weight", a.data());
    source_.read_tensor("lm_head.weight", b.data());
    return a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
  }

 private:
  const TensorSource& source_;
};

}  // namespace

const char* field_source_name(FieldSource source) {
  switch (source) {
    case FieldSource::Inferred:
      return "inferred";
    case FieldSource::Hint:
      return "hint";
    case FieldSource::Default:
      return "default";
  }
  return "?";
}

std::vector<std::string> InferredConfig::assumed() const {
  std::vector<std::string> keys;
  for (const FieldOrigin& f : fields) {
    if (f.source != FieldSource::Inferred) keys.push_back(f.key);
  }
  return keys;
}

FieldSource InferredConfig::source(const std::string& key) const {
  for (const FieldOrigin& f : fields) {
    if (f.key == key) return f.source;
  }
  throw Error("infer.no_field", {{"key", key}}, "infer_config set no field " + key);
}

namespace {

InferredConfig infer_from_tensors(const TensorSource& source, const InferHints& hints) {
  const auto inferred = FieldSource::Inferred;
  const std::vector<std::string> names = source.tensor_names();
  Inference in(source);
  ModelConfig c;

  const Shape* embed = in.shape("model.embed_tokens.weight", 2);
  if (!embed) {
    in.problems.push_back(
        {"infer.no_embedding", {}, "without model.embed_tokens.weight this does not look like a MiniMind checkpoint"});
    throw ConfigError(in.problems);
  }
  in.set("hidden_size", c.hidden_size, (*embed)[1], inferred);

  const std::set<int64_t> layers = indices(names, "model.layers.");
  if (layers.empty()) {
    in.problems.push_back(
        {"infer.no_layers", {}, "no model.layers.{i} tensors: the checkpoint has no transformer blocks"});
    throw ConfigError(in.problems);
  }
  in.set("num_hidden_layers", c.num_hidden_layers, *layers.rbegin() + 1, inferred);
  for (int64_t i = 0; i < c.num_hidden_layers && in.problems.size() < 20; ++i) {
    if (!layers.count(i))
      in.problems.push_back({"infer.layer_missing",
                             {{"layer", i}},
                             "layer " + std::to_string(i) + " is missing (model.layers." + std::to_string(i) +
                                 ".*), yet later layers are present"});
  }

  // Attention. q_norm [Dh] marks generation 3 and gives head_dim; without
  // it (generation 2) head_dim = hidden_size / heads, and heads is a hint.
  const std::string attn = "model.layers.0.self_attn.";
  const Shape* q = in.shape(attn + "q_proj.weight", 2);
  const Shape* k = in.shape(attn + "k_proj.weight", 2);
  const Shape* q_norm = in.shape(attn + "q_norm.weight", 1, false);
  c.generation = q_norm ? 3 : 2;
  in.set("use_qk_norm", c.use_qk_norm, q_norm != nullptr, inferred);
  if (q && k) {
    const auto kv_hint_contradicts = [&](int64_t kv_heads) {
      if (hints.num_key_value_heads && *hints.num_key_value_heads != kv_heads) {
        in.problems.push_back({"infer.hint_contradicts",
                               {{"key", std::string("num_key_value_heads")},
                                {"hint", *hints.num_key_value_heads},
                                {"tensor", std::string("k_proj")},
                                {"rows", (*k)[0]},
                                {"head_dim", c.head_dim},
                                {"inferred", kv_heads}},
                               "the hint num_key_value_heads " + std::to_string(*hints.num_key_value_heads) +
                                   " contradicts the tensors: k_proj has " + std::to_string((*k)[0]) +
                                   " rows and head_dim is " + std::to_string(c.head_dim) + ", so " +
                                   std::to_string(kv_heads) + " kv heads"});
      }
    };
    FieldSource kv_source = inferred;
    if (q_norm) {
      in.set("head_dim", c.head_dim, (*q_norm)[0], inferred);
      c.explicit_head_dim = true;
      const int64_t heads = in.divide((*q)[0], c.head_dim, attn + "q_proj.weight [H·Dh, D] with Dh from q_norm");
      if (hints.num_attention_heads && *hints.num_attention_heads != heads) {
        in.problems.push_back({"infer.hint_contradicts",
                               {{"key", std::string("num_attention_heads")},
                                {"hint", *hints.num_attention_heads},
                                {"tensor", std::string("q_proj")},
                                {"rows", (*q)[0]},
                                {"head_dim", c.head_dim},
                                {"inferred", heads}},
                               "the hint num_attention_heads " + std::to_string(*hints.num_attention_heads) +
                                   " contradicts the tensors: q_proj has " + std::to_string((*q)[0]) +
                                   " rows and head_dim (from q_norm) is " + std::to_string(c.head_dim) + ", so " +
                                   std::to_string(heads) + " heads"});
      }
      in.set("num_attention_heads", c.num_attention_heads, heads, inferred);
    } else if (hints.num_key_value_heads && !hints.num_attention_heads) {
      // The kv heads give head_dim from k_proj, and head_dim the q heads.
      const int64_t head_dim = in.divide((*k)[0], *hints.num_key_value_heads,
                                         attn + "k_proj.weight [Hkv·Dh, D] with Hkv = num_key_value_heads");
      const int64_t heads =
          head_dim > 0 ? in.divide((*q)[0], head_dim, attn + "q_proj.weight [H·Dh, D] with Dh from k_proj") : 0;
      in.set("num_attention_heads", c.num_attention_heads, heads, inferred);
      c.explicit_head_dim = head_dim * heads != c.hidden_size;
      in.set("head_dim", c.head_dim, head_dim, inferred);
      kv_source = FieldSource::Hint;
    } else {
      in.set_or("num_attention_heads", c.num_attention_heads, hints.num_attention_heads, int64_t{8});
      const int64_t head_dim =
          in.divide((*q)[0], c.num_attention_heads, attn + "q_proj.weight [H·Dh, D] with H = num_attention_heads");
      c.explicit_head_dim = head_dim * c.num_attention_heads != c.hidden_size;  // else D / H, as MiniMind2 derives it
      in.set("head_dim", c.head_dim, head_dim, inferred);
    }
    const int64_t kv_heads = c.head_dim > 0 ? in.divide((*k)[0], c.head_dim, attn + "k_proj.weight [Hkv·Dh, D]") : 0;
    kv_hint_contradicts(kv_heads);
    in.set("num_key_value_heads", c.num_key_value_heads, kv_heads, kv_source);
  }

  // Feed-forward: dense SwiGLU, or a router [E, D] and E experts.
  const std::string mlp = "model.layers.0.mlp.";
  const Shape* router = in.shape(mlp + "gate.weight", 2, false);
  in.set("use_moe", c.use_moe, router != nullptr, inferred);
  if (router) {
    in.set("num_experts", c.num_experts, (*router)[0], inferred);
    const size_t experts = indices(names, mlp + "experts.", ".gate_proj.weight").size();
    if (int64_t(experts) != c.num_experts) {
      in.problems.push_back({"infer.router_experts",
                             {{"rows", c.num_experts}, {"experts", int64_t(experts)}},
                             "the router " + mlp + "gate.weight has " + std::to_string(c.num_experts) +
                                 " rows but layer 0 has " + std::to_string(experts) + " experts"});
    }
    const int64_t shared = int64_t(indices(names, mlp + "shared_experts.", ".gate_proj.weight").size());
    const Shape* expert = in.shape(mlp + "experts.0.gate_proj.weight", 2);
    const int64_t expert_size = expert ? (*expert)[0] : 0;
    if (c.generation == 3) {
      if (shared)
        in.problems.push_back(
            {"infer.shared_experts_gen3", {}, "shared experts are a generation-2 feature, but layer 0 has q_norm"});
      // Generation 3 experts use moe_intermediate_size; intermediate_size is unused.
      in.set("intermediate_size", c.intermediate_size, default_intermediate_size(3, c.hidden_size),
             FieldSource::Default);
      in.set("moe_intermediate_size", c.moe_intermediate_size, expert_size, inferred);
    } else {
      // Generation 2 routed and shared experts all use intermediate_size.
      in.set("intermediate_size", c.intermediate_size, expert_size, inferred);
      c.moe_intermediate_size = expert_size;
      in.set("n_shared_experts", c.n_shared_experts, shared, inferred);
      const Shape* shared0 = shared ? in.shape(mlp + "shared_experts.0.gate_proj.weight", 2) : nullptr;
      if (shared0 && (*shared0)[0] != expert_size) {
        in.problems.push_back({"infer.shared_expert_size",
                               {{"shared", (*shared0)[0]}, {"routed", expert_size}},
                               "generation-2 shared and routed experts share intermediate_size, but " + mlp +
                                   "shared_experts.0.gate_proj.weight has " + std::to_string((*shared0)[0]) +
                                   " rows and experts.0 has " + std::to_string(expert_size)});
      }
    }
    in.set_or("num_experts_per_tok", c.num_experts_per_tok, hints.num_experts_per_tok,
              int64_t{c.generation == 3 ? 1 : 2});
    in.set_or("norm_topk_prob", c.norm_topk_prob, hints.norm_topk_prob, true);
  } else if (const Shape* gate = in.shape(mlp + "gate_proj.weight", 2)) {
    in.set("intermediate_size", c.intermediate_size, (*gate)[0], inferred);
  }

  in.set("vocab_size", c.vocab_size, (*embed)[0], inferred);
  in.set("tie_word_embeddings", c.tie_word_embeddings, in.head_is_embedding(*embed), inferred);
  in.set_or("rms_norm_eps", c.rms_norm_eps, hints.rms_norm_eps, c.generation == 3 ? 1e-6 : 1e-5);
  in.set_or("rope_theta", c.rope_theta, hints.rope_theta, 1e6);
  in.set_or("max_position_embeddings", c.max_position_embeddings, hints.max_position_embeddings, int64_t{32768});
  in.set_or("inference_rope_scaling", c.inference_rope_scaling, hints.inference_rope_scaling, false);

  if (in.problems.empty()) in.problems = validate_config_problems(c);
  if (in.problems.empty()) {
    // Every weight the config calls for must be in the file: an empty tensor
    // declaring huge sizes must not make the loader allocate them.
    int64_t available = 0;
    for (const std::string& name : names) available += shape_numel(source.tensor_info(name)->shape);
    if (c.parameter_count() > available) {
      in.problems.push_back({"infer.too_few_values",
                             {{"weights", c.parameter_count()}, {"values", available}},
                             "these shapes describe a model of " + std::to_string(c.parameter_count()) +
                                 " weights, but the file holds only " + std::to_string(available) +
                                 " values: tensors are missing or empty"});
    }
  }
  if (!in.problems.empty()) throw ConfigError(in.problems);
  return {c, in.fields};
}

}  // namespace

InferredConfig infer_config(const TensorSource& source, const InferHints& hints) {
  try {
    return infer_from_tensors(source, hints);
  } catch (const ConfigError& e) {
    // Say what the file is when it is not what a config is usually inferred from.
    const Problem described = source.description_problem();
    if (described.kind.empty()) throw;
    std::vector<Problem> problems = e.kinded_problems();
    problems.push_back(described);
    throw ConfigError(problems);
  }
}

}  // namespace minimind
