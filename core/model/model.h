// The whole MiniMind model (MiniMindForCausalLM): embedding, L blocks, final
// norm, tied or untied lm_head. All math in float32.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/forward_hooks.h"
#include "model/forward_workspace.h"
#include "ops/attention.h"
#include "ops/rope.h"
#include "tensors/kv_cache.h"
#include "tensors/model_config.h"
#include "tensors/trace.h"
#include "tensors/weights.h"

namespace minimind {

struct ForwardOptions {
  AttentionOptions attention;  // its ablated_heads is set per layer from the field below
  // Head ablation: [L·H] flags (layer-major) or empty; see AttentionOptions.
  std::vector<uint8_t> ablated_heads;
};

// One attention head: head `head` of block `layer`.
struct HeadId {
  int64_t layer = 0, head = 0;
};

// The [L·H] flags of ForwardOptions::ablated_heads for the heads switched
// off (a head listed twice is off once). A head outside the model throws
// Error "ablate.head_out_of_range" {layer, head, layers, heads}.
std::vector<uint8_t> head_ablation_flags(const ModelConfig& config, const std::vector<HeadId>& heads);

// One call of the model's block loop (Model::forward_blocks).
struct BlockRun {
  int64_t first_layer = 0;  // the rows enter block first_layer
  // The rows are positions position..position+T-1: the cache of every block
  // from first_layer on holds exactly the keys and values of rows before.
  int64_t position = 0;
  // Only the last row is wanted (a patching metric): the last block runs
  // o_proj and the FFN on it alone (every row's keys and values still).
  bool last_row_only = false;
  const int32_t* key_mask = nullptr;  // [position + T] or nullptr
  Trace* trace = nullptr;             // receives batch slice batch_index
  int64_t batch_index = 0;
  ForwardHooks* hooks = nullptr;  // nullptr: no hook, no extra work
};

class Model {
 public:
  // Validates the config and the weight shapes (throws ConfigError).
  Model(ModelConfig config, ModelWeights weights);

  // A model with seeded random weights (see random_weights for the recipe).
  static Model random(const ModelConfig& config, uint64_t seed, const std::function<void(double)>& progress = {},
                      WeightPacking packing = WeightPacking::Narrowest, RandomInit init = RandomInit::Playground);
  // A model from a config and any weight file (safetensors or .pth, read
  // by formats/; checkpoint/model_loader.h starts from a file's bytes).
  // `warnings` (optional) receives load_weights' warnings.
  static Model from_source(const ModelConfig& config, const TensorSource& source,
                           std::vector<std::string>* warnings = nullptr);

  const ModelConfig& config() const { return config_; }
  const ModelWeights& weights() const { return weights_; }
  // For the trainer, which writes each optimizer step's weights back here, so
  // that forward, trace and generation show the model as trained so far.
  ModelWeights& weights_for_update() { return weights_; }
  KVCache make_cache() const {
    return KVCache(config_.num_hidden_layers, config_.num_key_value_heads, config_.head_dim);
  }

  // One sequence. ids: [T]. With a cache, positions continue after its P
  // tokens and the new k/v are appended. key_mask: [P + T] (1 real, 0
  // padding) or empty. Returns logits [T, V]; row i predicts token i + 1.
  // trace (optional) receives this sequence as batch slice `batch_index`.
  Matrix forward(const std::vector<int32_t>& ids, KVCache* cache = nullptr, const std::vector<int32_t>& key_mask = {},
                 const ForwardOptions& options = {}, Trace* trace = nullptr, int64_t batch_index = 0) const;

  // The same on the caller's memory: ids [T]; key_mask nullptr or [P + T]
  // values. Writes the logits of the last `logit_rows` tokens, [logit_rows,
  // V], to `logits` (generation wants only the last row: the lm_head of the
  // others is skipped). With the cache's and the workspace's room reserved,
  // allocates nothing unless traced or hooked. hooks (optional): the read
  // and write points of forward_hooks.h, in every block.
  void forward_into(const int32_t* ids, int64_t T, KVCache& cache, ForwardWorkspace& workspace, float* logits,
                    int64_t logit_rows, const int32_t* key_mask = nullptr, const ForwardOptions& options = {},
                    Trace* trace = nullptr, int64_t batch_index = 0, ForwardHooks* hooks = nullptr) const;

  // The block loop of forward_into, alone: h [T, D], the residual stream
  // entering block run.first_layer, becomes the last block's output in place
  // (its last row only, with run.last_row_only). Appends T rows to the cache
  // of each block it runs; never advances the cache's length (forward_into
  // does). options.ablated_heads: [L·H] flags or empty.
  void forward_blocks(float* h, int64_t T, KVCache& cache, ForwardWorkspace& workspace, const ForwardOptions& options,
                      const BlockRun& run) const;

  // A batch of equal-length sequences (MiniMind's [B, T] input_ids), with an
  // optional attention_mask [B, T]. Returns logits [B, T, V].
  Tensor forward_batch(const std::vector<std::vector<int32_t>>& ids,
                       const std::vector<std::vector<int32_t>>& attention_mask = {}, const ForwardOptions& options = {},
                       Trace* trace = nullptr) const;

 private:
  void check_ids(const int32_t* ids, int64_t T, int64_t cached) const;
  void check_ablation(const ForwardOptions& options) const;

  ModelConfig config_;
  ModelWeights weights_;
  RotaryEmbedding rope_;
};

}  // namespace minimind
