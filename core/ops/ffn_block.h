// The feed-forward half of a MiniMindBlock, dense (FeedForward) or MoE
// (MOEFeedForward), with its activations kept, and its backward: the
// gradient to its input and, optionally, to its weights. Used by the
// training backward and by the tools that need ∂metric/∂(FFN input) outside
// training.
//
// The block here is the FFN alone: its input b is
// post_attention_layernorm's output and its output is what the block adds
// to the residual stream (the norm and the residual add stay with the
// caller). For MoE the routing (top-k choice) is the forward's and held
// fixed: the gradient flows through the router softmax and the chosen
// experts' weights (and their renormalisation w / (Σw + 1e-20)), as
// autograd's does through torch.topk's values.
#pragma once

#include <cstdint>
#include <vector>

#include "ops/linear.h"
#include "tensors/model_config.h"
#include "tensors/weights.h"

namespace minimind {

// One SwiGLU's activations on n rows.
struct SwigluActivations {
  std::vector<float> gate, up, act;  // [n, F] gate_proj, up_proj, silu(gate)·up
};

// What ffn_block_forward keeps for ffn_block_backward, T rows.
struct FfnActivations {
  int64_t T = 0;
  std::vector<float> input;  // [T, D] b
  SwigluActivations dense;   // dense: [T, F]
  // MoE only. The R = T·k routed rows (token t's j-th choice) grouped by
  // expert, in ascending expert id, tokens in order within an expert (the
  // order of MiniMind's expert loop).
  std::vector<float> probs;               // [T, E] router softmax
  std::vector<float> chosen;              // [T, k] expert ids (as floats: moe_route's format)
  std::vector<float> chosen_weight;       // [T, k] their weights
  std::vector<int64_t> expert_rows;       // [E + 1] expert e owns routed rows expert_rows[e] .. [e + 1] - 1
  std::vector<int64_t> row_slot;          // [R] routed row -> its slot t·k + j in chosen / chosen_weight
  SwigluActivations routed;               // [R, Fe] the experts' activations on their rows
  std::vector<float> routed_out;          // [R, D] each routed row's expert output, before weighting
  std::vector<float> routed_in;           // [R, D] each routed row's input (its token's b)
  std::vector<SwigluActivations> shared;  // generation 2: one per shared expert, [T, F]
  std::vector<float> shared_out;          // [T, D] scratch: one shared expert's output
  std::vector<int64_t> order;             // [E] scratch of the routing

  size_t bytes() const;  // memory held, in bytes
};

// Where the backward adds ∂/∂W for one SwiGLU (row-major, W's shape:
// gate_proj / up_proj [F, D], down_proj [D, F]); nullptr skips that weight.
struct SwigluGradients {
  float* gate_proj = nullptr;
  float* up_proj = nullptr;
  float* down_proj = nullptr;
};

struct FfnGradients {
  SwigluGradients mlp;                          // dense
  float* router = nullptr;                      // MoE: mlp.gate.weight [E, D]
  std::vector<SwigluGradients> experts;         // MoE: E entries, or empty (no expert gradients)
  std::vector<SwigluGradients> shared_experts;  // generation 2: one per shared expert, or empty
};

// Scratch memory of the backward (buffers only grow).
struct FfnBackwardScratch {
  std::vector<float> w_rows, w_t;  // one weight unpacked [out, in], then Wᵀ packed
  std::vector<float> d_act, d_up;  // [n, F]
  std::vector<float> dy_rows;      // [n, D] some rows' output gradient (an expert's, weighted)
  std::vector<float> dx_rows;      // [n, D] their input gradient
  std::vector<float> d_other;      // [n, D] up_proj's part of a SwiGLU's input gradient
  std::vector<float> d_weight;     // [T, k] ∂/∂chosen_weight
  std::vector<float> d_probs;      // [T, E] ∂/∂probs, then ∂/∂(router logits)
  LinearBackwardScratch linear;

  size_t bytes() const;  // memory held, in bytes
};

// b [T, D] -> out [T, D], the same bits as swiglu_ffn / moe_ffn, keeping
// what the backward needs in `saved`.
void ffn_block_forward(const ModelConfig& config, const LayerWeights& w, const float* b, int64_t T, float* out,
                       FfnActivations& saved);

// d_out [T, D] (∂metric/∂out) -> d_in [T, D] (∂metric/∂b, overwritten), for
// the forward that filled `saved` (same weights, same T). grads: nullptr for
// the input gradient only, else every non-null target gets ∂metric/∂W added
// (as autograd accumulates .grad). d_in must not alias d_out.
void ffn_block_backward(const ModelConfig& config, const LayerWeights& w, const FfnActivations& saved,
                        const float* d_out, float* d_in, const FfnGradients* grads, FfnBackwardScratch& scratch);

// ---- pieces shared by the dense and the MoE block ----------------------

// One SwiGLU on n rows x [n, D] -> out [n, D], the same bits as swiglu_ffn,
// keeping gate, up, act [n, F].
void swiglu_forward_rows(const FfnWeights& w, const float* x, int64_t n, float* gate, float* up, float* act,
                         float* out);

// Its backward: dy [n, D] -> dx [n, D] (overwritten), weight gradients into
// g's non-null targets; x, gate, up, act: the forward's.
void swiglu_backward_rows(const FfnWeights& w, const float* x, int64_t n, const float* gate, const float* up,
                          const float* act, const float* dy, float* dx, const SwigluGradients& g,
                          FfnBackwardScratch& scratch);

// dx [n, in] = dy [n, out] · W (and dW += dyᵀ·x when dw is not null), for
// W [out, in] in any storage (packed transposed into scratch each call).
void linear_backward_of(const WeightMatrix& W, const float* x, int64_t n, const float* dy, float* dx, float* dw,
                        FfnBackwardScratch& scratch);

}  // namespace minimind
