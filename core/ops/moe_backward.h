// MOEFeedForward with its activations kept, and its backward with the
// routing fixed (the MoE half of ffn_block.h; callers use ffn_block_*).
#pragma once

#include "ops/ffn_block.h"

namespace minimind {

// b [T, D] -> out [T, D], moe_ffn's bits; fills saved's MoE members
// (saved.input is not touched: b may be saved.input).
void moe_forward_saved(const ModelConfig& config, const MoeWeights& w, const float* b, int64_t T, float* out,
                       FfnActivations& saved);

// d_out [T, D] -> d_in [T, D] (overwritten) through the chosen experts, their
// weights, the renormalisation and the router softmax; weight gradients into
// grads' non-null targets (grads may be nullptr).
void moe_backward(const ModelConfig& config, const MoeWeights& w, const FfnActivations& saved, const float* d_out,
                  float* d_in, const FfnGradients* grads, FfnBackwardScratch& scratch);

}  // namespace minimind
