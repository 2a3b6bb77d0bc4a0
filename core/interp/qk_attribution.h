// QK attribution ("why this weight"): one attention score of head `head` of
// block `layer`, from query position i to key position j, split into the
// components that wrote the query and the key.
//
// The residual stream entering block l is a sum of components, in this
// order: embed (the token embedding), then for each earlier block k:
// L{k}H0 .. L{k}H{H-1} (head h's z through its columns of o_proj) and
// L{k}ffn (the FFN's, or the whole MoE's, output). Head h reads its query
// through input_layernorm and its own q_proj rows (then q_norm and RoPE),
// its keys through input_layernorm and its kv head's k_proj rows (then
// k_norm and RoPE). Each RMSNorm's scale (input_layernorm's at i and at j,
// q_norm's and k_norm's where the config has them) is frozen at the value
// of the run being explained, and RoPE is a fixed rotation per position, so
// q_i = Σ_a q_i(a), k_j = Σ_b k_j(b), and
//   score = q_i · k_j · s = Σ_a Σ_b q_i(a) · k_j(b) · s,   s = 1/√Dh (1 with ÷√d off),
// exactly: a linearisation at frozen norms, not the effect of removing a
// component. Shapes: C components = 1 + l·(H + 1), Dh head_dim.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "interp/hooks.h"

namespace minimind {

// Which key the contrast compares with: none, a position, or the row's
// attention-weighted mean over its keys (what decides where the weight goes:
// softmax ignores a shift shared by the row).
struct QKVersus {
  enum class Kind { none, position, mean } kind = Kind::none;
  int64_t position = 0;  // with Kind::position
};

struct QKRequest {
  int64_t layer = 0, head = 0, query = 0, key = 0;
  QKVersus versus;
  int64_t rank_keys = 0;  // > 0: rank the whole vocabulary's keys at `key` (block 0 only)
};

struct RankedKey {
  int32_t id = 0;
  float score = 0.0f;
};

struct QKAttribution {
  int64_t layer = 0, head = 0, query = 0, key = 0;
  float score = 0.0f;                       // the score of the run (after q/k norm and RoPE, before mask and softmax)
  bool masked = false;                      // key > query under the causal mask: its weight is 0, its score still shown
  float weight = 0.0f;                      // the softmax weight of (query, key) in the run
  std::vector<std::string> components;      // [C] names in the order above
  std::vector<float> table;                 // [C, C] row-major: q-side component × k-side component; sums to score
  std::vector<float> rope_pairs;            // [Dh/2] the score's part from dims p and p + Dh/2 (rotate_half's pair p)
  std::vector<float> rope_pairs_unrotated;  // [Dh/2] the same parts with RoPE removed (both at one position)
  // The contrast score(i, j) - score(i, j'): j' a position, or the row's weighted mean (versus_key -1).
  bool has_versus = false;
  int64_t versus_key = -1;
  float versus_score = 0.0f;
  std::vector<float> versus_table;  // [C, C]
  std::vector<RankedKey> ranked;    // best first, with rank_keys > 0
};

// The component names of block `layer`'s input, in the order above: [C].
std::vector<std::string> qk_component_names(const ModelConfig& config, int64_t layer);

// The components of the residual stream entering block `layer` at each of
// `positions`, from a run of ids: [n, C, D]. They sum to run's residual
// there (to float rounding); options.ablate's heads are zero.
std::vector<float> qk_components(const Model& model, const std::vector<int32_t>& ids, const Activations& run,
                                 int64_t layer, const std::vector<int64_t>& positions,
                                 const InterpOptions& options = {});

// Errors (minimind::Error with a kind and values, the model stays usable):
// qk.layer_out_of_range, qk.head_out_of_range, qk.position_out_of_range
// (query, key or versus past the tokens), qk.rank_needs_block0 (rank_keys
// above block 0: a later block's key depends on more than its token), and
// check_interp_ids's for ids.
QKAttribution qk_attribution(const Model& model, const std::vector<int32_t>& ids, const QKRequest& request,
                             const InterpOptions& options = {});

// The same from a run already made with run_with_hooks(model, ids, options)
// (the page's cached forward: a click answers without running the model again).
QKAttribution qk_attribution(const Model& model, const std::vector<int32_t>& ids, const Activations& run,
                             const QKRequest& request, const InterpOptions& options = {});

}  // namespace minimind
