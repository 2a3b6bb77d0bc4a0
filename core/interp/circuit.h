// The circuit behind a prediction: every edge sender -> receiver of the
// decomposition in circuit_graph.h scored by edge attribution patching
// (edge_attribution.h), the strongest checked by path patching
// (path_patching.h), and the faithfulness of the circuits made of the top
// N edges (faithfulness.h). Metric: logit(answer) - logit(wrong) at the
// last position, on two texts of the same token length.
// Shapes: T tokens, E edges.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/model.h"

namespace minimind {

struct CircuitRequest {
  std::vector<int32_t> clean, corrupt;  // [T] each
  int32_t answer = 0, wrong = 0;
  int64_t top = -1;          // path-patch the `top` edges of largest |score| (ties: edge order); -1: every edge
  bool positions = false;    // split each score by position
  bool faithfulness = true;  // the two curves (off: EAP and path patching only)
  // Heads switched off in every run (clean, corrupt, patched, faithfulness): their z is zero, as
  // ForwardOptions::ablated_heads does it, so their edges score 0 and patch to the clean metric.
  std::vector<HeadId> ablate;
};

struct CircuitEdge {
  int32_t from = 0, to = 0;  // sender and receiver indices
  float score = 0.0f;        // EAP: Σ_t (corrupt - clean output) · ∂metric/∂(receiver input)
  float patched = 0.0f;      // the path-patched metric (NaN: not patched, outside `top`)
};

struct FaithfulnessPoint {
  int64_t edges = 0;  // N: the circuit is the top N edges
  float metric = 0.0f;
  float share = 0.0f;  // (metric - corrupt) / (clean - corrupt); NaN where clean == corrupt
};

struct CircuitResult {
  int64_t T = 0;
  float clean = 0.0f, corrupt = 0.0f;  // the metric of each run
  std::vector<std::string> senders;    // [S] embed, L{k}H{h}, L{k}ffn
  std::vector<std::string> receivers;  // [Rcv] L{l}H{h}.q/.k/.v, L{l}ffn, logits
  std::vector<CircuitEdge> edges;      // [E] receiver by receiver, senders in order
  std::vector<float> positions;        // [E, T] with request.positions: each score split by position
  // Ranked by |score| (EAP), and by |patched - clean| (edges not patched follow, by |score|).
  std::vector<FaithfulnessPoint> faithfulness, faithfulness_patched;
};

// Errors (minimind::Error, the model stays usable): circuit.empty (no
// token), circuit.length_mismatch {clean, corrupt}, token_id.out_of_range
// {id, position, last} (text: "clean" / "corrupt" in `input`),
// circuit.answer_out_of_range {id, last, which}, circuit.same_token {id},
// input.too_long {tokens, limit}, ablate.head_out_of_range {layer, head,
// layers, heads}.
CircuitResult circuit(const Model& model, const CircuitRequest& request);

// The edges ranked, strongest first: by |score| (by_patched false) or by
// |patched - clean| with unpatched edges after by |score|; ties in edge order.
std::vector<int64_t> circuit_ranking(const CircuitResult& result, bool by_patched);

}  // namespace minimind
