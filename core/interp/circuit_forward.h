// The forward the circuit tools run: MiniMind's forward on one sequence of
// T tokens (no cache, causal mask, ÷√Dh), computed by the same ops as
// Model::forward_into, keeping what edge attribution's backward and path
// patching reuse, and each sender's output (circuit_graph.h). Besides the
// whole forward it runs a head on inputs of its own (a receiver given a
// patched residual) and the blocks from any block on.
// Shapes: T tokens, D hidden, H heads, Hkv kv heads, Dh head_dim, F
// intermediate size, S senders.
#pragma once

#include <cstdint>
#include <vector>

#include "interp/circuit_graph.h"
#include "interp/head_weights.h"
#include "model/model.h"
#include "ops/attention.h"
#include "ops/ffn_block.h"

namespace minimind {

// One block of a run.
struct CircuitBlock {
  std::vector<float> input;          // [T, D] the residual stream entering the block
  std::vector<float> attn_norm;      // [T, D] input_layernorm(input)
  std::vector<float> q_pre, k_pre;   // [T, H·Dh], [T, Hkv·Dh] before q_norm / k_norm (generation 3)
  std::vector<float> q, k, v;        // [T, H·Dh], [T, Hkv·Dh] ×2 after q/k norm and RoPE (v raw)
  std::vector<float> probs;          // [H, T, T] softmax weights
  std::vector<float> concat;         // [T, H·Dh] z, the heads side by side
  std::vector<float> attn_residual;  // [T, D] input + o_proj(concat)
  std::vector<float> ffn_norm;       // [T, D] post_attention_layernorm(attn_residual)
  FfnActivations ffn;                // the FFN's (dense or MoE) activations, for its backward
  std::vector<float> ffn_out;        // [T, D]
};

// A whole run of one sequence.
struct CircuitRun {
  int64_t T = 0;
  std::vector<CircuitBlock> blocks;  // [L]
  std::vector<float> final_input;    // [T, D] the last block's output
  std::vector<float> senders;        // [S, T, D] each sender's output (its write to the residual)
  float metric = 0.0f;               // logit(answer) - logit(wrong) at the last position
};

// Buffers of one thread's runs (they only grow).
struct CircuitScratch {
  CircuitBlock block;
  std::vector<float> h, x, a, q, k, v, z, probs, write;
  AttentionCoreScratch attention;
};

class CircuitForward {
 public:
  // answer, wrong: token ids (checked by the caller). T: the tokens of every run. ablated: [L·H]
  // flags of the heads switched off (head_ablation_flags), or empty for none.
  CircuitForward(const Model& model, int32_t answer, int32_t wrong, int64_t T, std::vector<uint8_t> ablated = {});

  const Model& model() const { return model_; }
  const ModelConfig& config() const { return model_.config(); }
  const CircuitGraph& graph() const { return graph_; }
  // Head h of block l is switched off: its z is zero in every run.
  bool ablated(int64_t l, int64_t h) const {
    return !ablated_.empty() && ablated_[size_t(l * config().num_attention_heads + h)] != 0;
  }
  const BlockHeadWeights& heads(int64_t l) const { return heads_[size_t(l)]; }
  const float* cos(int64_t t) const { return cos_.data() + t * config().head_dim; }
  const float* sin(int64_t t) const { return sin_.data() + t * config().head_dim; }
  // ∂metric/∂(the final norm's output) at the last row: lm_head[answer] - lm_head[wrong], [D].
  const std::vector<float>& direction() const { return direction_; }

  // The whole forward of ids [T], keeping everything in `run`.
  void run(const std::vector<int32_t>& ids, CircuitRun& run) const;

  // Block l on input [T, D] -> out [T, D], keeping its activations in s.
  // last_row_only: o_proj and the FFN on the last row alone (only out's last row is valid).
  // A patched run whose rows before `same` are the clean run's (a causal model changes no row
  // before the first changed one) passes the clean run's block: its q, k and v of those rows are
  // reused and only rows same..T-1 of out are written.
  void block(int64_t l, const float* input, CircuitBlock& s, float* out, bool last_row_only, CircuitScratch& scratch,
             const CircuitBlock* clean = nullptr, int64_t same = 0) const;

  // The FFN half of block l: out [T, D] = resid + FFN(post_attention_layernorm(ffn_in)), rows
  // first..T-1 (resid and ffn_in differ when only the FFN reads a patched residual). Keeps the
  // FFN's activations in s (ffn_norm, ffn of rows first..T-1, ffn_out).
  void ffn_half(int64_t l, const float* resid, const float* ffn_in, int64_t first, CircuitBlock& s, float* out,
                CircuitScratch& scratch) const;

  // Runs blocks first..L-1 on h [T, D] (the residual entering block `first`), then the final
  // norm: the metric at the last row. h is overwritten. With `clean`, rows before `same` of h
  // are the clean run's and stay so (only rows same..T-1 are recomputed).
  float metric_from(int64_t first, float* h, CircuitScratch& scratch, const CircuitRun* clean = nullptr,
                    int64_t same = 0) const;

  // The metric of a final residual row x [D].
  float metric(const float* x) const;

  // Head h of block l on normed inputs [T, D] (input_layernorm's outputs of its q, k and v
  // receivers): q [T, Dh] from its q_proj rows, k and v [T, Dh] from its kv head's rows,
  // q/k-normed and rotated. Each may be null (left as is).
  void head_q(int64_t l, int64_t h, const float* normed, float* q) const;
  void head_k(int64_t l, int64_t h, const float* normed, float* k) const;
  void head_v(int64_t l, int64_t h, const float* normed, float* v) const;
  // z [T, Dh] of one head from its q, k, v [T, Dh] (causal, ÷√Dh); callers zero a switched-off head's.
  void attend(const float* q, const float* k, const float* v, float* z, CircuitScratch& scratch) const;
  // x [T, D] -> input_layernorm(x) of block l.
  void attn_norm(int64_t l, const float* x, float* out) const;

 private:
  const Model& model_;
  CircuitGraph graph_;
  int64_t T_;
  std::vector<BlockHeadWeights> heads_;        // [L]
  std::vector<float> cos_, sin_;               // [T, Dh] RoPE rows of positions 0..T-1
  std::vector<float> direction_;               // [D]
  std::vector<float> answer_row_, wrong_row_;  // [D] lm_head's rows
  std::vector<uint8_t> ablated_;               // [L·H] or empty
};

}  // namespace minimind
