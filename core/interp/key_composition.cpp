#include "interp/key_composition.h"

#include <algorithm>

#include "interp/head_weights.h"
#include "interp/qk_attribution.h"
#include "interp/qk_projection.h"
#include "util/error.h"

namespace minimind {

namespace {

void check_cells(int64_t T, const std::vector<CompositionCell>& cells) {
  if (cells.empty()) throw Error("composition.no_cells", {}, "key_composition: give at least one (query, key) cell");
  for (const CompositionCell& cell : cells) {
    if (cell.query < 1 || cell.query >= T || cell.key < 0 || cell.key > cell.query)
      throw Error("composition.cell_out_of_range", {{"query", cell.query}, {"key", cell.key}, {"tokens", T}},
                  "key_composition: cell (" + std::to_string(cell.query) + ", " + std::to_string(cell.key) +
                      ") needs 1 <= query < " + std::to_string(T) + " and 0 <= key <= query");
  }
}

}  // namespace

std::vector<LayerKeyComposition> key_composition(const Model& model, const std::vector<int32_t>& ids,
                                                 const std::vector<CompositionCell>& cells,
                                                 const InterpOptions& options) {
  check_interp_ids(model, ids);
  check_cells(int64_t(ids.size()), cells);
  const Activations run = run_with_hooks(model, ids, options);
  return key_composition(model, ids, run, cells, options);
}

std::vector<LayerKeyComposition> key_composition(const Model& model, const std::vector<int32_t>& ids,
                                                 const Activations& run, const std::vector<CompositionCell>& cells,
                                                 const InterpOptions& options) {
  check_interp_ids(model, ids);
  const int64_t T = int64_t(ids.size());
  check_cells(T, cells);
  if (run.T != T)
    throw Error("qk.other_text", {{"tokens", T}, {"run_tokens", run.T}}, "key_composition: the run is of another text");
  const ModelConfig& c = model.config();
  const int64_t D = c.hidden_size, H = c.num_attention_heads, Hkv = c.num_key_value_heads, Dh = c.head_dim;
  int64_t last = 0;
  for (const CompositionCell& cell : cells) last = std::max(last, cell.query);
  const int64_t n = last + 1;  // keys 0 .. last
  std::vector<int64_t> positions(static_cast<size_t>(n));
  for (int64_t t = 0; t < n; ++t) positions[size_t(t)] = t;
  std::vector<int64_t> queries;
  for (const CompositionCell& cell : cells) queries.push_back(cell.query);
  const RotaryEmbedding rope(c);
  const float cells_count = float(cells.size());

  std::vector<LayerKeyComposition> out;
  for (int64_t l = 1; l < c.num_hidden_layers; ++l) {
    const int64_t C = 1 + l * (H + 1);
    const LayerWeights& w = model.weights().layers[size_t(l)];
    const float* x = run.residual_at(l, D);  // [T, D]: the residual stream entering block l
    const std::vector<float> comps = qk_components(model, ids, run, l, positions, options);  // [n, C, D]
    // Every kv head's key parts at every position: [Hkv][n, C, Dh].
    std::vector<std::vector<float>> key_parts(static_cast<size_t>(Hkv));
    for (int64_t g = 0; g < Hkv; ++g) {
      WeightMatrix rows;
      const PanelsView Wk = head_rows(w.k_proj, g * Dh, Dh, rows);  // [Dh, D]
      const qk_detail::HeadSide keys = qk_detail::head_side(model, w, x, positions, Wk, w.k_norm, rope);
      qk_detail::project_components(model, w, comps, C, positions, keys, Wk, w.k_norm, rope, key_parts[size_t(g)],
                                    nullptr);
    }
    LayerKeyComposition layer;
    layer.layer = l;
    layer.components = qk_component_names(c, l);
    for (int64_t h = 0; h < H; ++h) {
      WeightMatrix rows;
      const PanelsView Wq = head_rows(w.q_proj, h * Dh, Dh, rows);                                       // [Dh, D]
      const qk_detail::HeadSide query = qk_detail::head_side(model, w, x, queries, Wq, w.q_norm, rope);  // [cells, Dh]
      const std::vector<float>& parts = key_parts[size_t(h / c.n_rep())];  // repeat_kv: head h reads kv head h / R
      HeadKeyComposition head;
      head.head = h;
      head.parts.assign(size_t(C), 0.0f);
      std::vector<float> row(size_t(n * C));  // [t, C]: q_i · k_t(b) · s for t ≤ i
      for (size_t k = 0; k < cells.size(); ++k) {
        const int64_t i = cells[k].query, j = cells[k].key;
        qk_detail::score_products(query.rotated.data() + int64_t(k) * Dh, 1, parts.data(), (i + 1) * C, Dh,
                                  options.scale_scores, row.data());
        for (int64_t b = 0; b < C; ++b) {
          float others = 0.0f;
          for (int64_t t = 0; t <= i; ++t)
            if (t != j) others += row[size_t(t * C + b)];
          const float part = row[size_t(j * C + b)] - others / float(i);
          head.parts[size_t(b)] += part / cells_count;
        }
      }
      for (const float part : head.parts) head.gap += part;
      layer.heads.push_back(std::move(head));
    }
    out.push_back(std::move(layer));
  }
  return out;
}

}  // namespace minimind
