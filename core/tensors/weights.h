// The model's weights, with MiniMind's tensor names, and the one table of
// expected names and shapes that random initialisation and loading share.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "tensors/model_config.h"
#include "tensors/weight_matrix.h"
#include "util/error.h"
#include "util/tensor.h"

namespace minimind {

class TensorSource;

struct FfnWeights {        // one SwiGLU feed-forward (FeedForward)
  WeightMatrix gate_proj;  // [F, D]
  WeightMatrix up_proj;    // [F, D]
  WeightMatrix down_proj;  // [D, F]
};

struct MoeWeights {                        // MOEFeedForward
  WeightMatrix gate;                       // router: [E, D]
  std::vector<FfnWeights> experts;         // E experts
  std::vector<FfnWeights> shared_experts;  // generation 2 only
};

struct LayerWeights {               // MiniMindBlock
  Vector input_layernorm;           // [D]
  WeightMatrix q_proj;              // [H·Dh, D]
  WeightMatrix k_proj;              // [Hkv·Dh, D]
  WeightMatrix v_proj;              // [Hkv·Dh, D]
  WeightMatrix o_proj;              // [D, H·Dh]
  Vector q_norm;                    // [Dh], empty without q/k norm
  Vector k_norm;                    // [Dh], empty without q/k norm
  Vector post_attention_layernorm;  // [D]
  FfnWeights mlp;                   // dense models
  MoeWeights moe;                   // use_moe models
};

struct ModelWeights {
  WeightMatrix embed_tokens;         // [V, D]
  std::vector<LayerWeights> layers;  // L
  Vector norm;                       // [D]
  WeightMatrix lm_head;              // [V, D]; empty when tied to embed_tokens

  const WeightMatrix& output_head() const { return lm_head.size() ? lm_head : embed_tokens; }
};

enum class WeightKind { Embedding, Linear, Norm };

// One row of the expected-tensor table, bound to its storage.
struct WeightSlot {
  std::string name;  // MiniMind's state-dict name
  Shape shape;       // what the config calls for
  WeightKind kind;
  WeightMatrix* matrix;  // Embedding and Linear storage inside ModelWeights
  Vector* vector;        // Norm storage inside ModelWeights
  Shape actual;          // the shape that storage has (differs from `shape` only for mismatched weights)

  // Stores row-major values of the expected shape (packing a matrix).
  void assign(const float* values, WeightPacking packing = WeightPacking::Narrowest) const;
  // The stored values, row-major.
  std::vector<float> values() const;
};

// The expected-tensor table for `config`, pointing into `weights`: each slot
// has the shape the config expects and the shape the storage actually has
// (empty until assigned). Sizes the layer and expert lists to the config.
// Throws ConfigError when the weights already hold another number of layers
// or experts than the config. Order: embedding, layers, norm, head.
std::vector<WeightSlot> weight_slots(const ModelConfig& config, ModelWeights& weights);

// The problems of a tensor that is missing or has another shape than the
// config calls for (kinds weights.missing_tensor, weights.shape_mismatch).
Problem missing_tensor_problem(const std::string& name, const Shape& expected);
Problem shape_problem(const std::string& name, const Shape& shape, const Shape& expected);

// The likely cause of a config that does not fit its weights, in one line:
// the first config key the tensors contradict (hidden_size from the
// embedding [V, D], vocab_size, the layer count, heads from layer 0's q_proj
// and k_proj rows / head_dim, use_moe, intermediate_size), as a problem of
// kind weights.misfit {key, config, weights}; kind "" when none differs.
// shape_of returns a tensor's shape by name, or nullptr when there is none.
Problem config_misfit(const ModelConfig& config, const std::function<const Shape*(const std::string&)>& shape_of);

// Which scale the seeded embedding gets.
//   Playground: U(-1, 1), the presets' recipe (the page's random models).
//   MiniMind: what MiniMind's own model starts from when it trains from
//     scratch with PyTorch's default initialisation: the tied embedding is
//     lm_head's nn.Linear weight, U(±1/sqrt(D)) (an untied nn.Embedding is
//     N(0, 1): here U(±sqrt(3)), the same variance), so the first loss is
//     near ln(V) instead of far above it.
enum class RandomInit { Playground, MiniMind };

// Seeded random weights, identical on every platform. Recipe (documented in
// docs/api.md, "Seeded random weights", and re-implemented in tests/make_fixtures.py as the check):
//   stream per tensor: SplitMix64(seed XOR fnv1a64(name));
//   one draw u in [-1, 1) per element, row-major;
//   Linear [out, in]: u * (1 / sqrt(in)) in float32; Embedding: u (times
//   the RandomInit scale above);
//   both rounded to the nearest float16 value (so F16 storage is exact);
//   norms: 1.0, as PyTorch initialises RMSNorm.
// `progress` (optional) is called after each tensor with the fraction of
// elements done, so a page can show progress while a large preset builds.
ModelWeights random_weights(const ModelConfig& config, uint64_t seed, const std::function<void(double)>& progress = {},
                            WeightPacking packing = WeightPacking::Narrowest, RandomInit init = RandomInit::Playground);

// Loads weights from a weight file (safetensors or .pth, see
// tensor_source.h) against the table. Returns the config
// actually used: a file without q_norm/k_norm tensors is a generation-2 model
// and turns q/k norm off. Throws ConfigError listing every missing,
// misshapen or unexpected tensor (name, expected and found shape), and what
// the file is when it says (a training checkpoint).
//
// Tied embeddings with both names in the file (as every state_dict() has
// them): when lm_head.weight holds other values than model.embed_tokens.weight,
// the one shared tensor takes lm_head.weight, as MiniMind's load_state_dict
// leaves it (it copies the module tree's parameters in order, model.* before
// lm_head, whatever the file's order), and `warnings` says so.
struct LoadedWeights {
  ModelConfig config;
  ModelWeights weights;
  std::vector<std::string> warnings;  // one sentence each
};
LoadedWeights load_weights(ModelConfig config, const TensorSource& file,
                           WeightPacking packing = WeightPacking::Narrowest);

// What the weights take in memory as stored: bytes, and how many tensors
// have each storage ("F32", "F16", "BF16"; norms count as F32).
struct StoredWeights {
  size_t bytes = 0;
  std::map<std::string, int64_t> tensors_by_storage;
};
StoredWeights stored_weights(const ModelConfig& config, const ModelWeights& weights);

// Values with a NaN or infinity are refused with the tensor's name.
void check_finite(const std::string& name, const float* values, int64_t n);

}  // namespace minimind
