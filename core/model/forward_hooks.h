// Hook points of the model's forward (TransformerLens's HookedTransformer
// names them hook_resid_pre, hook_z, hook_mlp_out, ...): an optional object
// that Model::forward_blocks calls a few times per block, never per element.
// Without one the forward does no extra work.
//
// Read points: the residual stream entering each block, each receiver's
// input (input_layernorm's output, which every head's q, k and v read, and
// post_attention_layernorm's, which the FFN reads), each head's output z
// (o_proj's input) and each FFN's output. Write points: a residual position
// (overwrite the rows handed to `residual`), a head's z, and a head's own
// block input (the residual it reads in place of the block's: the receiver
// side of path patching).
//
// Every call covers positions first..first+rows-1 of the sequence (a cached
// or resumed run starts past 0); its tensors hold those rows only.
// Shapes: D hidden, H heads, Dh head_dim.
#pragma once

#include <cstdint>

namespace minimind {

class ForwardHooks {
 public:
  virtual ~ForwardHooks() = default;

  // Read and write: x [rows, D] is the residual stream entering block
  // `layer` (layer L: the last block's output). Rows overwritten here are
  // what the block reads (a residual patch).
  virtual void residual(int64_t /*layer*/, int64_t /*first*/, float* /*x*/, int64_t /*rows*/) {}

  // Read: input_layernorm(x) [rows, D], the input of every head's q_proj,
  // k_proj and v_proj (a head given its own input by head_input reads that).
  virtual void attention_input(int64_t /*layer*/, int64_t /*first*/, const float* /*normed*/, int64_t /*rows*/) {}

  // Write: the residual [rows, D] that head `head` reads in place of the
  // block's input at these positions (through input_layernorm, its q_proj
  // rows and its kv head's k_proj and v_proj rows), or nullptr. Keys and
  // values of positions before `first` stay the cached ones.
  virtual const float* head_input(int64_t /*layer*/, int64_t /*head*/, int64_t /*first*/, int64_t /*rows*/) {
    return nullptr;
  }

  // Write: z [rows, Dh] replacing head `head`'s output before o_proj, or
  // nullptr. Overrides what head_input gave the head. A head switched off
  // by ForwardOptions::ablated_heads stays zero: neither write applies.
  virtual const float* head_z(int64_t /*layer*/, int64_t /*head*/, int64_t /*first*/, int64_t /*rows*/) {
    return nullptr;
  }

  // Read: z [rows, H·Dh], o_proj's input (after ablation and the writes).
  virtual void head_outputs(int64_t /*layer*/, int64_t /*first*/, const float* /*z*/, int64_t /*rows*/) {}

  // Read: post_attention_layernorm(x) [rows, D], the FFN's (or MoE's) input.
  virtual void ffn_input(int64_t /*layer*/, int64_t /*first*/, const float* /*normed*/, int64_t /*rows*/) {}

  // Read: the FFN's (or the whole MoE's) output [rows, D].
  virtual void ffn_output(int64_t /*layer*/, int64_t /*first*/, const float* /*out*/, int64_t /*rows*/) {}
};

}  // namespace minimind
