// The model's weights, with MiniMind's tensor names, and the one table of
// expected names and shapes that random initialisation and loading share.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "model_config.h"
#include "tensor.h"

namespace minimind {

class TensorSource;

struct FfnWeights {  // one SwiGLU feed-forward (FeedForward)
  Matrix gate_proj;  // [F, D]
  Matrix up_proj;    // [F, D]
  Matrix down_proj;  // [D, F]
};

struct MoeWeights {                        // MOEFeedForward
  Matrix gate;                             // router: [E, D]
  std::vector<FfnWeights> experts;         // E experts
  std::vector<FfnWeights> shared_experts;  // generation 2 only
};

struct LayerWeights {               // MiniMindBlock
  Vector input_layernorm;           // [D]
  Matrix q_proj;                    // [H·Dh, D]
  Matrix k_proj;                    // [Hkv·Dh, D]
  Matrix v_proj;                    // [Hkv·Dh, D]
  Matrix o_proj;                    // [D, H·Dh]
  Vector q_norm;                    // [Dh], empty without q/k norm
  Vector k_norm;                    // [Dh], empty without q/k norm
  Vector post_attention_layernorm;  // [D]
  FfnWeights mlp;                   // dense models
  MoeWeights moe;                   // use_moe models
};

struct ModelWeights {
  Matrix embed_tokens;               // [V, D]
  std::vector<LayerWeights> layers;  // L
  Vector norm;                       // [D]
  Matrix lm_head;                    // [V, D]; empty when tied to embed_tokens

  const Matrix& output_head() const { return lm_head.size() ? lm_head : embed_tokens; }
};

enum class WeightKind { Embedding, Linear, Norm };

// One row of the expected-tensor table, bound to its storage.
struct WeightSlot {
  std::string name;  // MiniMind's state-dict name
  Shape shape;       // what the config calls for
  WeightKind kind;
  float* data;   // row-major storage inside ModelWeights
  Shape actual;  // the shape that storage has (differs from `shape` only for mismatched weights)
};

// Allocates every tensor the config calls for (zero-filled).
ModelWeights allocate_weights(const ModelConfig& config);

// The expected-tensor table for `config`, pointing into `weights`: each slot
// has the shape the config expects and the shape the storage actually has.
// Throws ConfigError when the weights hold another number of layers or
// experts than the config. Order: embedding, layers, norm, head.
std::vector<WeightSlot> weight_slots(const ModelConfig& config, ModelWeights& weights);

// Seeded random weights, identical on every platform. Recipe (documented in
// the README and re-implemented in tests/make_fixtures.py as the check):
//   stream per tensor: SplitMix64(seed XOR fnv1a64(name));
//   one draw u in [-1, 1) per element, row-major;
//   Linear [out, in]: u * (1 / sqrt(in)) in float32; Embedding: u;
//   both rounded to the nearest float16 value (so F16 storage is exact);
//   norms: 1.0, as PyTorch initialises RMSNorm.
// `progress` (optional) is called after each tensor with the fraction of
// elements done, so a page can show progress while a large preset builds.
ModelWeights random_weights(const ModelConfig& config, uint64_t seed, const std::function<void(double)>& progress = {});

// Loads weights from a weight file (safetensors or .pth, see
// tensor_source.h) against the table. Returns the config
// actually used: a file without q_norm/k_norm tensors is a generation-2 model
// and turns q/k norm off. Throws ConfigError listing every missing,
// misshapen or unexpected tensor (name, expected and found shape).
struct LoadedWeights {
  ModelConfig config;
  ModelWeights weights;
};
LoadedWeights load_weights(ModelConfig config, const TensorSource& file);

// Weights with a NaN or infinite value are refused with the tensor's name.
void check_finite(const std::vector<WeightSlot>& slots);

}  // namespace minimind
