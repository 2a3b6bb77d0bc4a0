// Scores of what each attention head does, measured on probes (inputs whose
// right answer is known), so that a head's role is shown by numbers, not
// asserted: the mean attention a head puts on chosen keys (previous token,
// the token after an earlier occurrence, a pronoun's referent, the first
// token), and how spread its attention is.
#pragma once

#include <cstdint>
#include <vector>

#include "model/model.h"

namespace minimind {

// The attention from position `query` of `ids` onto the positions `keys`.
struct AttentionProbe {
  std::vector<int32_t> ids;   // [T]
  int64_t query = 0;          // < T
  std::vector<int64_t> keys;  // each <= query (the causal mask gives later keys 0)
};

// [L, H]: per head, the mean over probes of Σ_{k in keys} attn_weights[query, k].
// Consecutive probes with the same ids share one forward. `options` may
// ablate heads (ForwardOptions::ablated_heads). Throws minimind::Error
// for an empty probe list or a position outside its sequence.
Matrix attention_mass(const Model& model, const std::vector<AttentionProbe>& probes,
                      const ForwardOptions& options = {});

// [L, H]: per head, the mean over sequences and query rows i >= 1 of the
// entropy of row i, -Σ_j p_j ln p_j in nats (row 0 sees one key: always 0).
Matrix attention_entropy(const Model& model, const std::vector<std::vector<int32_t>>& sequences);

}  // namespace minimind
