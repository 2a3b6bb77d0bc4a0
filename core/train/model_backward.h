// MiniMind's forward for training, with every activation kept, and its
// backward: the gradient of the pretraining loss (train/loss.h) for one
// batch, for every parameter. llm.c's layout: the forward's activations in
// one struct per layer, each backward step beside the forward step it
// undoes, in reverse order.
//
// The forward runs the same ops on the same packed weights as
// Model::forward_into, so its logits are the model's to the bit. MiniMind
// passes no attention mask when pretraining: padding is attended (causal
// mask only) and only ignored by the loss, as here.
#pragma once

#include <cstdint>
#include <vector>

#include "model/model.h"
#include "ops/attention.h"
#include "ops/ffn_block.h"
#include "ops/linear.h"
#include "ops/rope.h"
#include "train/parameter.h"

namespace minimind {

struct BatchLoss {
  double loss = 0.0;   // the mean over labelled positions (MiniMind's loss before ÷ accumulation_steps)
  int64_t tokens = 0;  // labelled positions: labels[:, 1:] != -100
};

// The saved activations of one block, N = B·T rows.
struct LayerActivations {
  std::vector<float> input;          // [N, D] the residual stream entering the block
  std::vector<float> attn_norm;      // [N, D] input_layernorm(input)
  std::vector<float> q_proj;         // [N, H·Dh] before q_norm (generation 3 only)
  std::vector<float> k_proj;         // [N, Hkv·Dh] before k_norm (generation 3 only)
  std::vector<float> q, k;           // [N, H·Dh], [N, Hkv·Dh] after q/k norm and RoPE
  std::vector<float> v;              // [N, Hkv·Dh]
  std::vector<float> probs;          // [B, H, T, T] softmax weights
  std::vector<float> concat;         // [N, H·Dh] heads side by side
  std::vector<float> attn_residual;  // [N, D] input + o_proj(concat)
  std::vector<float> ffn_norm;       // [N, D] post_attention_layernorm(attn_residual)
  std::vector<float> gate, up, act;  // [N, F] gate_proj, up_proj, silu(gate)·up (dense)
  FfnActivations moe;                // MoE: the MoE block's own, on the N rows of ffn_norm
};

class ModelBackward {
 public:
  // MoE configs: the gradient of the language-model loss alone, the routing
  // as the forward chose it (MiniMind's aux_loss is not added: Trainer
  // refuses to train a MoE for that reason).
  ModelBackward(const Model& model, const std::vector<Parameter>& params);

  // After the parameters' values changed (an optimizer step): repacks the
  // transposed weights the backward multiplies by. Allocates nothing.
  void weights_changed(const std::vector<Parameter>& params);

  // ids, labels: [B, T] row-major (labels -100 where ignored). Runs the
  // forward on the model's weights (which must hold params' values), then
  // adds ∂(loss / loss_divisor)/∂θ into every params[i].grad, as
  // `(loss / accumulation_steps).backward()` does. Throws
  // minimind::Error when no label is left to predict.
  BatchLoss run(const Model& model, const int32_t* ids, const int32_t* labels, int64_t B, int64_t T,
                int64_t loss_divisor, std::vector<Parameter>& params);

  // Memory held for activations, their gradients and the transposed
  // weights, in bytes (it grows to the largest batch seen).
  size_t activation_bytes() const;
  size_t transposed_weight_bytes() const;

 private:
  // Indices into the parameter list of one block's tensors.
  struct LayerParams {
    size_t input_layernorm, q_proj, k_proj, v_proj, o_proj, q_norm = 0, k_norm = 0, post_attention_layernorm, gate_proj,
                                                            up_proj, down_proj;  // dense
    size_t router = 0;                                                           // MoE: mlp.gate.weight
    std::vector<size_t> experts, shared;  // MoE: gate_proj, up_proj, down_proj of each routed / shared expert
  };
  // Where the MoE block adds its weight gradients (into params' grads).
  FfnGradients moe_gradients(const LayerParams& p, std::vector<Parameter>& params) const;
  // Wᵀ of a linear weight, packed for dx = dy·W.
  struct TransposedWeight {
    size_t param = 0;
    std::vector<float> storage;
    PanelsView view;
  };
  const PanelsView& transposed(size_t param) const;
  void forward_layer(const ModelConfig& c, const LayerWeights& w, LayerActivations& a, const float* h, int64_t B,
                     int64_t T, float* out);
  void backward_layer(const ModelConfig& c, const LayerWeights& w, const LayerParams& p, LayerActivations& a, int64_t B,
                      int64_t T, std::vector<Parameter>& params);
  double loss_and_head_backward(const Model& model, const int32_t* labels, int64_t B, int64_t T, int64_t tokens,
                                int64_t loss_divisor, std::vector<Parameter>& params);

  RotaryEmbedding rope_;
  size_t embed_ = 0, norm_ = 0, head_ = 0;  // head_ == embed_ when tied
  std::vector<LayerParams> layer_params_;
  std::vector<TransposedWeight> transposed_;
  std::vector<size_t> transposed_of_;  // param index -> index into transposed_ (or SIZE_MAX)

  // Activations (forward) and gradients (backward), grown to the batch.
  std::vector<LayerActivations> layers_;
  std::vector<float> cos_, sin_;    // [T, Dh] RoPE rows of positions 0..T-1
  std::vector<float> final_input_;  // [N, D] the last block's output
  std::vector<float> final_norm_;   // [N, D] norm(final_input)
  std::vector<int32_t> targets_;    // [N] labels[:, 1:] shifted onto the rows that predict them
  std::vector<float> logits_;       // [T, V] one sequence's logits, then their gradient
  std::vector<float> d_hidden_;     // [N, D] ∂loss/∂(residual stream)
  std::vector<float> d_branch_;     // [N, D] a norm's input gradient, then the sum of q/k/v's
  std::vector<float> d_other_;      // [N, D] one more branch gradient
  std::vector<float> d_ffn_;        // [N, F] d act, then d gate
  std::vector<float> d_up_;         // [N, F]
  std::vector<float> d_concat_;     // [N, H·Dh]
  std::vector<float> d_q_;          // [N, H·Dh]
  std::vector<float> d_k_, d_v_;    // [N, Hkv·Dh]
  LinearBackwardScratch linear_;
  FfnBackwardScratch moe_;
  std::vector<AttentionCoreScratch> attention_;  // one per thread's part of the batch

  // task(b, scratch) for every sequence b of B: the batch in one contiguous
  // part per thread, each part with its own scratch.
  template <typename Task>
  void for_sequences(int64_t B, const Task& task);
};

}  // namespace minimind
