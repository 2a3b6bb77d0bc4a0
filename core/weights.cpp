#include "weights.h"

#include <cmath>
#include <set>

#include "half.h"
#include "random.h"
#include "tensor_source.h"

namespace minimind {

namespace {

FfnWeights allocate_ffn(int64_t d, int64_t f) {
  FfnWeights w;
  w.gate_proj = Matrix::Zero(f, d);
  w.up_proj = Matrix::Zero(f, d);
  w.down_proj = Matrix::Zero(d, f);
  return w;
}

void add_ffn_slots(std::vector<WeightSlot>& slots, const std::string& prefix, FfnWeights& w) {
  slots.push_back(
      {prefix + ".gate_proj.weight", {w.gate_proj.rows(), w.gate_proj.cols()}, WeightKind::Linear, w.gate_proj.data()});
  slots.push_back(
      {prefix + ".up_proj.weight", {w.up_proj.rows(), w.up_proj.cols()}, WeightKind::Linear, w.up_proj.data()});
  slots.push_back(
      {prefix + ".down_proj.weight", {w.down_proj.rows(), w.down_proj.cols()}, WeightKind::Linear, w.down_proj.data()});
}

WeightSlot matrix_slot(const std::string& name, Matrix& m, WeightKind kind) {
  return {name, {m.rows(), m.cols()}, kind, m.data()};
}

WeightSlot norm_slot(const std::string& name, Vector& v) { return {name, {v.size()}, WeightKind::Norm, v.data()}; }

bool is_qk_norm(const std::string& name) {
  return name.find(".self_attn.q_norm.") != std::string::npos || name.find(".self_attn.k_norm.") != std::string::npos;
}

}  // namespace

ModelWeights allocate_weights(const ModelConfig& c) {
  const int64_t D = c.hidden_size;
  ModelWeights w;
  w.embed_tokens = Matrix::Zero(c.vocab_size, D);
  w.layers.resize(size_t(c.num_hidden_layers));
  for (LayerWeights& layer : w.layers) {
    layer.input_layernorm = Vector::Zero(D);
    layer.q_proj = Matrix::Zero(c.q_dim(), D);
    layer.k_proj = Matrix::Zero(c.kv_dim(), D);
    layer.v_proj = Matrix::Zero(c.kv_dim(), D);
    layer.o_proj = Matrix::Zero(D, c.q_dim());
    if (c.use_qk_norm) {
      layer.q_norm = Vector::Zero(c.head_dim);
      layer.k_norm = Vector::Zero(c.head_dim);
    }
    layer.post_attention_layernorm = Vector::Zero(D);
    if (c.use_moe) {
      layer.moe.gate = Matrix::Zero(c.num_experts, D);
      for (int64_t e = 0; e < c.num_experts; ++e) {
        layer.moe.experts.push_back(allocate_ffn(D, c.expert_intermediate_size()));
      }
      for (int64_t e = 0; e < c.n_shared_experts; ++e) {
        layer.moe.shared_experts.push_back(allocate_ffn(D, c.intermediate_size));
      }
    } else {
      layer.mlp = allocate_ffn(D, c.intermediate_size);
    }
  }
  w.norm = Vector::Zero(D);
  if (!c.tie_word_embeddings) w.lm_head = Matrix::Zero(c.vocab_size, D);
  return w;
}

std::vector<WeightSlot> weight_slots(const ModelConfig& c, ModelWeights& w) {
  std::vector<WeightSlot> slots;
  slots.push_back(matrix_slot("model.embed_tokens.weight", w.embed_tokens, WeightKind::Embedding));
  for (size_t i = 0; i < w.layers.size(); ++i) {
    LayerWeights& layer = w.layers[i];
    const std::string p = "model.layers." + std::to_string(i);
    slots.push_back(norm_slot(p + ".input_layernorm.weight", layer.input_layernorm));
    slots.push_back(matrix_slot(p + ".self_attn.q_proj.weight", layer.q_proj, WeightKind::Linear));
    slots.push_back(matrix_slot(p + ".self_attn.k_proj.weight", layer.k_proj, WeightKind::Linear));
    slots.push_back(matrix_slot(p + ".self_attn.v_proj.weight", layer.v_proj, WeightKind::Linear));
    slots.push_back(matrix_slot(p + ".self_attn.o_proj.weight", layer.o_proj, WeightKind::Linear));
    if (c.use_qk_norm) {
      slots.push_back(norm_slot(p + ".self_attn.q_norm.weight", layer.q_norm));
      slots.push_back(norm_slot(p + ".self_attn.k_norm.weight", layer.k_norm));
    }
    slots.push_back(norm_slot(p + ".post_attention_layernorm.weight", layer.post_attention_layernorm));
    if (c.use_moe) {
      slots.push_back(matrix_slot(p + ".mlp.gate.weight", layer.moe.gate, WeightKind::Linear));
      for (size_t e = 0; e < layer.moe.experts.size(); ++e) {
        add_ffn_slots(slots, p + ".mlp.experts." + std::to_string(e), layer.moe.experts[e]);
      }
      for (size_t e = 0; e < layer.moe.shared_experts.size(); ++e) {
        add_ffn_slots(slots, p + ".mlp.shared_experts." + std::to_string(e), layer.moe.shared_experts[e]);
      }
    } else {
      add_ffn_slots(slots, p + ".mlp", layer.mlp);
    }
  }
  slots.push_back(norm_slot("model.norm.weight", w.norm));
  if (!c.tie_word_embeddings) slots.push_back(matrix_slot("lm_head.weight", w.lm_head, WeightKind::Linear));
  return slots;
}

ModelWeights random_weights(const ModelConfig& config, uint64_t seed, const std::function<void(double)>& progress) {
  ModelWeights weights = allocate_weights(config);
  const std::vector<WeightSlot> slots = weight_slots(config, weights);
  int64_t total = 0, done = 0;
  for (const WeightSlot& slot : slots) total += shape_numel(slot.shape);
  for (const WeightSlot& slot : slots) {
    const int64_t n = shape_numel(slot.shape);
    if (progress) progress(double(done) / double(total));  // before this tensor
    done += n;
    if (slot.kind == WeightKind::Norm) {
      std::fill(slot.data, slot.data + n, 1.0f);
      continue;
    }
    const float bound = slot.kind == WeightKind::Linear ? 1.0f / std::sqrt(float(slot.shape[1])) : 1.0f;
    SplitMix64 rng(seed ^ fnv1a64(slot.name));
    for (int64_t i = 0; i < n; ++i) slot.data[i] = f16_to_f32(f32_to_f16(rng.uniform_symmetric() * bound));
  }
  if (progress) progress(1.0);
  return weights;
}

void check_finite(const std::vector<WeightSlot>& slots) {
  std::vector<std::string> problems;
  for (const WeightSlot& slot : slots) {
    const int64_t n = shape_numel(slot.shape);
    for (int64_t i = 0; i < n; ++i) {
      if (!std::isfinite(slot.data[i])) {
        problems.push_back("tensor " + slot.name + " holds a non-finite value (" + std::to_string(slot.data[i]) +
                           ") at flat index " + std::to_string(i));
        break;
      }
    }
  }
  if (!problems.empty()) throw ConfigError(problems);
}

LoadedWeights load_weights(ModelConfig config, const TensorSource& file) {
  // q/k norm is decided by the file: generation-2 checkpoints have none.
  const std::vector<std::string> names = file.tensor_names();
  bool any_qk_norm = false;
  for (const std::string& name : names) any_qk_norm = any_qk_norm || is_qk_norm(name);
  config.use_qk_norm = any_qk_norm;

  LoadedWeights out{config, allocate_weights(config)};
  const std::vector<WeightSlot> slots = weight_slots(config, out.weights);
  std::vector<std::string> problems;
  std::set<std::string> expected;
  for (const WeightSlot& slot : slots) {
    expected.insert(slot.name);
    const TensorInfo* entry = file.tensor_info(slot.name);
    if (!entry) {
      problems.push_back("missing tensor " + slot.name + " (expected shape " + shape_to_string(slot.shape) + ")");
    } else if (entry->shape != slot.shape) {
      problems.push_back("tensor " + slot.name + " has shape " + shape_to_string(entry->shape) + ", expected " +
                         shape_to_string(slot.shape));
    } else if (entry->dtype == DType::I32) {
      problems.push_back("tensor " + slot.name + " is I32; weights must be F32, F16 or BF16");
    }
  }
  for (const std::string& name : names) {
    // A tied checkpoint may still carry lm_head.weight (PyTorch's state_dict
    // lists both names of the shared tensor); it is the embedding, ignore it.
    if (name == "lm_head.weight" && config.tie_word_embeddings) continue;
    if (!expected.count(name)) {
      problems.push_back("unexpected tensor " + name + " " + shape_to_string(file.tensor_info(name)->shape) +
                         " (does the config match this checkpoint?)");
    }
  }
  if (problems.size() > 20) {
    const size_t more = problems.size() - 20;
    problems.resize(20);
    problems.push_back("... and " + std::to_string(more) + " more problems");
  }
  if (!problems.empty()) throw ConfigError(problems);
  for (const WeightSlot& slot : slots) file.read_tensor(slot.name, slot.data);
  check_finite(slots);
  return out;
}

}  // namespace minimind
