#include "tensors/weights.h"

#include <cmath>
#include <cstring>
#include <set>

#include "formats/tensor_source.h"
#include "util/half.h"
#include "util/random.h"

namespace minimind {

namespace {

// Builds the expected-tensor table from the config, pointing at the storage
// in `w`, and records each tensor's actual shape next to the expected one.
class SlotTable {
 public:
  void matrix(const std::string& name, WeightMatrix& m, int64_t rows, int64_t cols, WeightKind kind) {
    slots_.push_back({name, {rows, cols}, kind, &m, nullptr, {m.rows(), m.cols()}});
  }
  void norm(const std::string& name, Vector& v, int64_t n) {
    slots_.push_back({name, {n}, WeightKind::Norm, nullptr, &v, {v.size()}});
  }
  void ffn(const std::string& prefix, FfnWeights& w, int64_t d, int64_t f) {
    matrix(prefix + ".gate_proj.weight", w.gate_proj, f, d, WeightKind::Linear);
    matrix(prefix + ".up_proj.weight", w.up_proj, f, d, WeightKind::Linear);
    matrix(prefix + ".down_proj.weight", w.down_proj, d, f, WeightKind::Linear);
  }
  // An empty list is sized to the config; a filled one must match it.
  template <typename T>
  void count(const char* what, std::vector<T>& items, int64_t expected) {
    if (items.empty()) items.resize(size_t(expected));
    if (int64_t(items.size()) != expected) {
      throw ConfigError(
          std::vector<Problem>{{"weights.count_mismatch",
                                {{"what", std::string(what)}, {"weights", int64_t(items.size())}, {"config", expected}},
                                std::string("the weights hold ") + std::to_string(items.size()) + " " + what +
                                    ", the config calls for " + std::to_string(expected)}});
    }
  }
  std::vector<WeightSlot> take() { return std::move(slots_); }

 private:
  std::vector<WeightSlot> slots_;
};

// Size `dim` of a shape, or -1 when there is no such tensor or dimension.
int64_t rows_of(const Shape* shape, size_t dim) { return shape && shape->size() > dim ? (*shape)[dim] : -1; }

bool is_qk_norm(const std::string& name) {
  return name.find(".self_attn.q_norm.") != std::string::npos || name.find(".self_attn.k_norm.") != std::string::npos;
}

}  // namespace

Problem missing_tensor_problem(const std::string& name, const Shape& expected) {
  return {"weights.missing_tensor",
          {{"tensor", name}, {"expected", shape_to_string(expected)}},
          "missing tensor " + name + " (expected shape " + shape_to_string(expected) + ")"};
}

Problem shape_problem(const std::string& name, const Shape& shape, const Shape& expected) {
  return {"weights.shape_mismatch",
          {{"tensor", name}, {"shape", shape_to_string(shape)}, {"expected", shape_to_string(expected)}},
          "tensor " + name + " has shape " + shape_to_string(shape) + ", expected " + shape_to_string(expected)};
}

Problem config_misfit(const ModelConfig& c, const std::function<const Shape*(const std::string&)>& shape_of) {
  const auto misfit = [](const char* key, int64_t config, int64_t weights) {
    return Problem{"weights.misfit",
                   {{"key", std::string(key)}, {"config", config}, {"weights", weights}},
                   std::string("config.json says ") + key + " " + std::to_string(config) + ", the weights have " +
                       std::to_string(weights) + ": this config is not for these weights"};
  };
  // The embedding [V, D] names D and V; layer 0's projections [rows, D]
  // name the heads (rows / head_dim) and the FFN's width.
  const Shape* embed = shape_of("model.embed_tokens.weight");
  const int64_t D = rows_of(embed, 1), V = rows_of(embed, 0);
  if (D > 0 && D != c.hidden_size) return misfit("hidden_size", c.hidden_size, D);
  if (V > 0 && V != c.vocab_size) return misfit("vocab_size", c.vocab_size, V);
  int64_t layers = 0;
  while (shape_of("model.layers." + std::to_string(layers) + ".input_layernorm.weight")) ++layers;
  if (layers > 0 && layers != c.num_hidden_layers) return misfit("num_hidden_layers", c.num_hidden_layers, layers);
  const std::string p = "model.layers.0.";
  const int64_t Dh = c.head_dim, q = rows_of(shape_of(p + "self_attn.q_proj.weight"), 0),
                kv = rows_of(shape_of(p + "self_attn.k_proj.weight"), 0);
  if (Dh > 0 && q > 0 && q != c.q_dim() && q % Dh == 0)
    return misfit("num_attention_heads", c.num_attention_heads, q / Dh);
  if (Dh > 0 && kv > 0 && kv != c.kv_dim() && kv % Dh == 0)
    return misfit("num_key_value_heads", c.num_key_value_heads, kv / Dh);
  const bool moe = shape_of(p + "mlp.gate.weight") != nullptr;
  if (layers > 0 && moe != c.use_moe) return misfit("use_moe", c.use_moe ? 1 : 0, moe ? 1 : 0);
  const int64_t f = rows_of(shape_of(p + "mlp.gate_proj.weight"), 0);
  if (!c.use_moe && f > 0 && f != c.intermediate_size) return misfit("intermediate_size", c.intermediate_size, f);
  return {};
}

std::vector<WeightSlot> weight_slots(const ModelConfig& c, ModelWeights& w) {
  const int64_t D = c.hidden_size, V = c.vocab_size;
  SlotTable t;
  t.matrix("model.embed_tokens.weight", w.embed_tokens, V, D, WeightKind::Embedding);
  t.count("layers", w.layers, c.num_hidden_layers);
  for (size_t i = 0; i < w.layers.size(); ++i) {
    LayerWeights& layer = w.layers[i];
    const std::string p = "model.layers." + std::to_string(i);
    t.norm(p + ".input_layernorm.weight", layer.input_layernorm, D);
    t.matrix(p + ".self_attn.q_proj.weight", layer.q_proj, c.q_dim(), D, WeightKind::Linear);
    t.matrix(p + ".self_attn.k_proj.weight", layer.k_proj, c.kv_dim(), D, WeightKind::Linear);
    t.matrix(p + ".self_attn.v_proj.weight", layer.v_proj, c.kv_dim(), D, WeightKind::Linear);
    t.matrix(p + ".self_attn.o_proj.weight", layer.o_proj, D, c.q_dim(), WeightKind::Linear);
    if (c.use_qk_norm) {
      t.norm(p + ".self_attn.q_norm.weight", layer.q_norm, c.head_dim);
      t.norm(p + ".self_attn.k_norm.weight", layer.k_norm, c.head_dim);
    }
    t.norm(p + ".post_attention_layernorm.weight", layer.post_attention_layernorm, D);
    if (c.use_moe) {
      t.matrix(p + ".mlp.gate.weight", layer.moe.gate, c.num_experts, D, WeightKind::Linear);
      t.count("experts per layer", layer.moe.experts, c.num_experts);
      for (size_t e = 0; e < layer.moe.experts.size(); ++e) {
        t.ffn(p + ".mlp.experts." + std::to_string(e), layer.moe.experts[e], D, c.expert_intermediate_size());
      }
      t.count("shared experts per layer", layer.moe.shared_experts, c.n_shared_experts);
      for (size_t e = 0; e < layer.moe.shared_experts.size(); ++e) {
        t.ffn(p + ".mlp.shared_experts." + std::to_string(e), layer.moe.shared_experts[e], D, c.intermediate_size);
      }
    } else {
      t.ffn(p + ".mlp", layer.mlp, D, c.intermediate_size);
    }
  }
  t.norm("model.norm.weight", w.norm, D);
  if (!c.tie_word_embeddings) t.matrix("lm_head.weight", w.lm_head, V, D, WeightKind::Linear);
  return t.take();
}

void WeightSlot::assign(const float* values, WeightPacking packing) const {
  if (matrix) {
    *matrix = WeightMatrix(values, shape[0], shape[1], packing);
  } else {
    *vector = Eigen::Map<const Vector>(values, shape[0]);
  }
}

std::vector<float> WeightSlot::values() const {
  if (vector) return std::vector<float>(vector->data(), vector->data() + vector->size());
  const Matrix m = matrix->unpacked();
  return std::vector<float>(m.data(), m.data() + m.size());
}

ModelWeights random_weights(const ModelConfig& config, uint64_t seed, const std::function<void(double)>& progress,
                            WeightPacking packing, RandomInit init) {
  const float embedding_bound = init == RandomInit::Playground ? 1.0f
                                : config.tie_word_embeddings   ? 1.0f / std::sqrt(float(config.hidden_size))
                                                               : std::sqrt(3.0f);
  ModelWeights weights;
  const std::vector<WeightSlot> slots = weight_slots(config, weights);
  int64_t total = 0, done = 0;
  for (const WeightSlot& slot : slots) total += shape_numel(slot.shape);
  std::vector<float> values;  // one tensor at a time, row-major
  for (const WeightSlot& slot : slots) {
    const int64_t n = shape_numel(slot.shape);
    if (progress) progress(double(done) / double(total));  // before this tensor
    done += n;
    values.resize(size_t(n));
    if (slot.kind == WeightKind::Norm) {
      std::fill(values.begin(), values.end(), 1.0f);
    } else {
      const float bound = slot.kind == WeightKind::Linear ? 1.0f / std::sqrt(float(slot.shape[1])) : embedding_bound;
      SplitMix64 rng(seed ^ fnv1a64(slot.name));
      for (float& v : values) v = f16_to_f32(f32_to_f16(rng.uniform_symmetric() * bound));
    }
    slot.assign(values.data(), packing);
  }
  if (progress) progress(1.0);
  return weights;
}

StoredWeights stored_weights(const ModelConfig& config, const ModelWeights& weights) {
  // The table only takes the tensors' addresses; nothing is changed.
  StoredWeights out;
  for (const WeightSlot& slot : weight_slots(config, const_cast<ModelWeights&>(weights))) {
    if (slot.matrix) {
      out.bytes += slot.matrix->bytes();
      ++out.tensors_by_storage[weight_storage_name(slot.matrix->storage())];
    } else {
      out.bytes += size_t(slot.vector->size()) * sizeof(float);
      ++out.tensors_by_storage["F32"];
    }
  }
  return out;
}

void check_finite(const std::string& name, const float* values, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    if (!std::isfinite(values[i])) {
      throw ConfigError(std::vector<Problem>{{"weights.non_finite",
                                              {{"tensor", name}, {"value", std::to_string(values[i])}, {"index", i}},
                                              "tensor " + name + " holds a non-finite value (" +
                                                  std::to_string(values[i]) + ") at flat index " + std::to_string(i)}});
    }
  }
}

LoadedWeights load_weights(ModelConfig config, const TensorSource& file, WeightPacking packing) {
  // q/k norm is decided by the file: generation-2 checkpoints have none.
  const std::vector<std::string> names = file.tensor_names();
  bool any_qk_norm = false;
  for (const std::string& name : names) any_qk_norm = any_qk_norm || is_qk_norm(name);
  config.use_qk_norm = any_qk_norm;

  LoadedWeights out{config, ModelWeights{}, {}};
  const std::vector<WeightSlot> slots = weight_slots(config, out.weights);
  std::vector<Problem> problems;
  std::set<std::string> expected;
  for (const WeightSlot& slot : slots) {
    expected.insert(slot.name);
    const TensorInfo* entry = file.tensor_info(slot.name);
    if (!entry) {
      problems.push_back(missing_tensor_problem(slot.name, slot.shape));
    } else if (entry->shape != slot.shape) {
      problems.push_back(shape_problem(slot.name, entry->shape, slot.shape));
    } else if (entry->dtype == DType::I32) {
      problems.push_back({"weights.integer_tensor",
                          {{"tensor", slot.name}},
                          "tensor " + slot.name + " is I32; weights must be F32, F16 or BF16"});
    }
  }
  // A tied checkpoint may still carry lm_head.weight (PyTorch's state_dict
  // lists both names of the shared tensor): it must fit the embedding.
  const TensorInfo* tied_head = config.tie_word_embeddings ? file.tensor_info("lm_head.weight") : nullptr;
  const Shape embedding_shape = {config.vocab_size, config.hidden_size};
  if (tied_head && tied_head->shape != embedding_shape) {
    problems.push_back({"weights.tied_head_shape",
                        {{"shape", shape_to_string(tied_head->shape)}, {"expected", shape_to_string(embedding_shape)}},
                        "tensor lm_head.weight has shape " + shape_to_string(tied_head->shape) + ", expected " +
                            shape_to_string(embedding_shape) +
                            " (tie_word_embeddings: it is model.embed_tokens.weight)"});
  } else if (tied_head && tied_head->dtype == DType::I32) {
    problems.push_back({"weights.integer_tensor",
                        {{"tensor", std::string("lm_head.weight")}},
                        "tensor lm_head.weight is I32; weights must be F32, F16 or BF16"});
  }
  for (const std::string& name : names) {
    if (name == "lm_head.weight" && config.tie_word_embeddings) continue;
    if (!expected.count(name)) {
      const std::string shape = shape_to_string(file.tensor_info(name)->shape);
      problems.push_back({"weights.unexpected_tensor",
                          {{"tensor", name}, {"shape", shape}},
                          "unexpected tensor " + name + " " + shape + " (does the config match this checkpoint?)"});
    }
  }
  if (problems.size() > 20) {
    const size_t more = problems.size() - 20;
    problems.resize(20);
    problems.push_back(
        {"weights.more_problems", {{"count", int64_t(more)}}, "... and " + std::to_string(more) + " more problems"});
  }
  if (!problems.empty()) {
    // The likely cause first: a config key the tensors contradict.
    const Problem misfit = config_misfit(config, [&](const std::string& name) {
      const TensorInfo* info = file.tensor_info(name);
      return info ? &info->shape : nullptr;
    });
    if (!misfit.kind.empty()) problems.insert(problems.begin(), misfit);
    const Problem described = file.description_problem();
    if (!described.kind.empty()) problems.push_back(described);
    throw ConfigError(problems);
  }
  // One tensor at a time through a float32 buffer, so that loading needs
  // the packed weights plus one tensor, not a float32 copy of the model.
  std::vector<float> values;
  for (const WeightSlot& slot : slots) {
    values.resize(size_t(shape_numel(slot.shape)));
    file.read_tensor(slot.name, values.data());
    std::string read_from = slot.name;
    if (tied_head && slot.name == "model.embed_tokens.weight") {
      // The embedding is the first slot: nothing is packed yet, so this
      // second buffer does not raise the peak of the load.
      std::vector<float> head(values.size());
      file.read_tensor("lm_head.weight", head.data());
      if (std::memcmp(head.data(), values.data(), values.size() * sizeof(float)) != 0) {
        values.swap(head);
        read_from = "lm_head.weight";
        out.warnings.push_back(
            "tie_word_embeddings is true, but this file's lm_head.weight differs from its model.embed_tokens.weight: "
            "as MiniMind's load_state_dict does (it copies model.embed_tokens.weight, then lm_head.weight, into the "
            "one shared tensor), the model uses lm_head.weight for both and model.embed_tokens.weight is ignored; "
            "set tie_word_embeddings to false in config.json to use each as saved");
      }
    }
    check_finite(read_from, values.data(), int64_t(values.size()));
    slot.assign(values.data(), packing);
  }
  return out;
}

}  // namespace minimind
