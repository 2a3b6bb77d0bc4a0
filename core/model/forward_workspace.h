// The scratch memory of one forward pass (Model::forward_into), kept by the
// caller between calls. Buffers only grow, so a run of one-token steps
// allocates nothing once they have reached their size, and `reserve` can
// bring them there up front.
#pragma once

#include <vector>

#include "ops/attention.h"
#include "ops/ffn.h"
#include "ops/moe.h"
#include "tensors/kv_cache.h"
#include "tensors/model_config.h"

namespace minimind {

struct ForwardWorkspace {
  std::vector<float> hidden;    // [T, D] the residual stream
  std::vector<float> normed;    // [T, D] its rms_norm, the input of a branch
  std::vector<float> branch;    // [T, D] attention's or the FFN's output
  std::vector<float> cos, sin;  // [T, Dh] RoPE rows of the T positions
  AttentionScratch attention;
  FfnScratch ffn;
  MoeScratch moe;
  // Used only by a hooked forward that gives heads their own input or z
  // (ForwardHooks::head_input, head_z): empty otherwise.
  struct HeadWrites {
    LayerKVCache cache{0, 0};        // one block's keys and values as a head given its own input reads them
    std::vector<float> normed;       // [T, D] input_layernorm of that input
    std::vector<float> z;            // [H, T, Dh] each such head's z
    std::vector<const float*> rows;  // [H] the z replacing each head's output, or nullptr
  } heads;

  // Grows every buffer to what a call of T tokens against up to Tk keys
  // (cached + new) needs.
  void reserve(const ModelConfig& config, int64_t T, int64_t Tk);
};

}  // namespace minimind
