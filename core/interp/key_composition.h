// K-composition over a set of attention cells: for every head of every
// block ≥ 1, how much of its score on a chosen key (above the mean score of
// the row's other keys) each component of the residual stream wrote on the
// key side: the embedding, each earlier head, each earlier FFN. The training
// timeline follows it on the induction probe (query: a token's second
// occurrence; key: the token after its first occurrence), to show an
// induction head's keys coming from a previous-token head as it forms
// (Olsson et al. 2022).
//
// It is QK attribution's split (qk_attribution.h: frozen norms, RoPE a fixed
// rotation) with the query whole and the key side split. For query i, key j
// and component b, with q_i the run's query and k_t(b) component b's part of
// the key at t:
//   part_b = q_i · k_j(b) · s  −  mean over t ≤ i, t ≠ j of q_i · k_t(b) · s
// and Σ_b part_b = score(i, j) − mean_{t≠j} score(i, t), the gap (a shift
// shared by the row cancels, as softmax ignores it). Parts and gaps are
// means over the cells. Shapes: C components = 1 + l·(H + 1) at block l.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "interp/hooks.h"

namespace minimind {

struct CompositionCell {
  int64_t query = 0, key = 0;  // key ≤ query, query ≥ 1 (the row needs another key)
};

struct HeadKeyComposition {
  int64_t head = 0;
  float gap = 0.0f;          // mean over cells of Σ_b part_b
  std::vector<float> parts;  // [C] mean over cells of part_b, in qk_component_names order
};

struct LayerKeyComposition {
  int64_t layer = 0;
  std::vector<std::string> components;    // [C] qk_component_names(config, layer)
  std::vector<HeadKeyComposition> heads;  // [H]
};

// Blocks 1 .. L-1, one run of ids. Errors (minimind::Error, the model stays
// usable): composition.no_cells, composition.cell_out_of_range (a query past
// the tokens, a key after its query, or a query with no other key), and
// check_interp_ids's for ids.
std::vector<LayerKeyComposition> key_composition(const Model& model, const std::vector<int32_t>& ids,
                                                 const std::vector<CompositionCell>& cells,
                                                 const InterpOptions& options = {});

// The same from a run of ids already made (run_with_hooks with the same options).
std::vector<LayerKeyComposition> key_composition(const Model& model, const std::vector<int32_t>& ids,
                                                 const Activations& run, const std::vector<CompositionCell>& cells,
                                                 const InterpOptions& options = {});

}  // namespace minimind
