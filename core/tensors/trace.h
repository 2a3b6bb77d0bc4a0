// The trace: opt-in, bounded copies of the intermediates a learner wants to
// see, per layer and stage, each with its shape. Stage names follow
// MiniMind's variable names where it has one (q_proj, q_norm, o_proj, ...).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "util/tensor.h"

namespace minimind {

// Stages and their per-sequence shapes (the trace prepends the batch, B).
namespace stage {
inline constexpr const char* kBlockInput = "block_input";        // [T, D] residual stream entering the block
inline constexpr const char* kAttnNorm = "attn_norm";            // [T, D] input_layernorm(h): the lesson's x
inline constexpr const char* kQProj = "q_proj";                  // [T, H, Dh] as projected
inline constexpr const char* kKProj = "k_proj";                  // [T, Hkv, Dh]
inline constexpr const char* kVProj = "v_proj";                  // [T, Hkv, Dh] (v is never normed or rotated)
inline constexpr const char* kQNorm = "q_norm";                  // [T, H, Dh] after q_norm (gen 3)
inline constexpr const char* kKNorm = "k_norm";                  // [T, Hkv, Dh] after k_norm (gen 3)
inline constexpr const char* kQRope = "q_rope";                  // [T, H, Dh] after RoPE
inline constexpr const char* kKRope = "k_rope";                  // [T, Hkv, Dh] after RoPE (what the cache stores)
inline constexpr const char* kScoresRaw = "scores_raw";          // [H, T, Tk] q·k
inline constexpr const char* kScoresScaled = "scores_scaled";    // [H, T, Tk] q·k / sqrt(Dh)
inline constexpr const char* kScoresMasked = "scores_masked";    // [H, T, Tk] + causal (-inf) and padding (-1e9)
inline constexpr const char* kAttnWeights = "attn_weights";      // [H, T, Tk] softmax
inline constexpr const char* kHeadOutputs = "head_outputs";      // [H, T, Dh] weights · v
inline constexpr const char* kAttnConcat = "attn_concat";        // [T, H·Dh] heads side by side
inline constexpr const char* kOProj = "o_proj";                  // [T, D]
inline constexpr const char* kAttnResidual = "attn_residual";    // [T, D] h + o_proj
inline constexpr const char* kFfnNorm = "ffn_norm";              // [T, D] post_attention_layernorm
inline constexpr const char* kFfnGate = "ffn_gate";              // [T, F] gate_proj (dense only)
inline constexpr const char* kFfnUp = "ffn_up";                  // [T, F] up_proj (dense only)
inline constexpr const char* kFfnAct = "ffn_act";                // [T, F] silu(gate) * up (dense only)
inline constexpr const char* kFfnDown = "ffn_down";              // [T, D] the FFN's (or MoE's) output
inline constexpr const char* kRouterProbs = "router_probs";      // [T, E] softmax of the router (MoE)
inline constexpr const char* kRouterExperts = "router_experts";  // [T, k] chosen experts (MoE)
inline constexpr const char* kRouterWeights = "router_weights";  // [T, k] their weights (MoE)
inline constexpr const char* kBlockOutput = "block_output";      // [T, D] residual stream after the block
// Model-level stages (layer -1).
inline constexpr const char* kFinalNorm = "final_norm";  // [T, D]
inline constexpr const char* kLogits = "logits";         // [T, V]
}  // namespace stage

// Every stage name, in pipeline order (block stages, then model stages).
const std::vector<std::string>& all_stage_names();

constexpr int kModelLevel = -1;  // the "layer" of final_norm and logits

// What to capture. Empty layers: no layer stage; empty stages: every stage.
struct TraceRequest {
  std::vector<int64_t> layers;
  std::vector<std::string> stages;
  // Bound on the floats kept in all; a larger trace is refused up front.
  int64_t max_floats = int64_t{64} << 20;
};

class Trace {
 public:
  Trace(TraceRequest request, int64_t batch_size);

  bool wants(int64_t layer, const char* stage) const;
  // Stores the tensor of one sequence, `per_sequence_shape`, as slice
  // `batch_index` of a [B, ...] tensor.
  void put(int64_t layer, const char* stage, int64_t batch_index, const Shape& per_sequence_shape, const float* data);
  // Where that slice goes, for a producer that writes it in place (the
  // tensor is made, zero-filled, on first use): per_sequence_shape floats.
  float* slice(int64_t layer, const char* stage, int64_t batch_index, const Shape& per_sequence_shape);

  // nullptr when not captured.
  const Tensor* get(int64_t layer, const std::string& stage) const;
  const std::map<std::pair<int64_t, std::string>, Tensor>& tensors() const { return tensors_; }
  const TraceRequest& request() const { return request_; }

 private:
  // The stage's tensor, made on first use from `whole` (its every value, for
  // a batch of one) or zero-filled (whole == nullptr); `made` says which.
  Tensor& tensor(int64_t layer, const char* stage, const Shape& per_sequence_shape, const float* whole, bool& made);

  TraceRequest request_;
  int64_t batch_size_;
  int64_t floats_ = 0;
  std::map<std::pair<int64_t, std::string>, Tensor> tensors_;
};

// Throws minimind::Error for unknown stage names or layers out of range.
void validate_trace_request(const TraceRequest& request, int64_t num_layers);

}  // namespace minimind
