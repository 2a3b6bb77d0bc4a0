#include "interp/head_weights.h"

#include <algorithm>
#include <vector>

namespace minimind {

PanelsView head_rows(const WeightMatrix& W, int64_t first, int64_t count, WeightMatrix& storage) {
  constexpr int64_t kRowsPerPanel = PanelsView::kPanelRows;
  const PanelsView all = W.view();
  if (first % kRowsPerPanel == 0 && (count % kRowsPerPanel == 0 || first + count == W.rows())) {
    PanelsView v = all;
    v.rows = count;
    const int64_t at = (first / kRowsPerPanel) * all.cols * kRowsPerPanel;
    if (all.f32) v.f32 += at;
    if (all.half) v.half += at;
    return v;
  }
  std::vector<float> values(size_t(count * W.cols()));  // [count, cols]
  for (int64_t r = 0; r < count; ++r) W.row(first + r, values.data() + r * W.cols());
  storage = WeightMatrix(values.data(), count, W.cols(), WeightPacking::Float32);
  return storage.view();
}

void head_columns(const float* x, int64_t T, int64_t width, int64_t h, int64_t Dh, float* out) {
  for (int64_t t = 0; t < T; ++t) std::copy_n(x + t * width + h * Dh, Dh, out + t * Dh);
}

void dense_f32(const WeightMatrix& W, std::vector<float>& out) {
  out.resize(size_t(W.rows() * W.cols()));
  for (int64_t r = 0; r < W.rows(); ++r) W.row(r, out.data() + r * W.cols());
}

BlockHeadWeights block_head_weights(const ModelConfig& c, const LayerWeights& w) {
  const int64_t H = c.num_attention_heads, Hkv = c.num_key_value_heads, Dh = c.head_dim, D = c.hidden_size;
  const int64_t qd = c.q_dim();
  BlockHeadWeights b;
  const auto rows = [&](const WeightMatrix& W, int64_t head) {
    b.copies.emplace_back();
    return head_rows(W, head * Dh, Dh, b.copies.back());
  };
  for (int64_t h = 0; h < H; ++h) b.q.push_back(rows(w.q_proj, h));
  for (int64_t j = 0; j < Hkv; ++j) {
    b.k.push_back(rows(w.k_proj, j));
    b.v.push_back(rows(w.v_proj, j));
  }
  std::vector<float> o;  // [D, H·Dh]
  dense_f32(w.o_proj, o);
  std::vector<float> columns(size_t(D * Dh));  // [D, Dh]
  for (int64_t h = 0; h < H; ++h) {
    for (int64_t i = 0; i < D; ++i) {
      for (int64_t d = 0; d < Dh; ++d) columns[size_t(i * Dh + d)] = o[size_t(i * qd + h * Dh + d)];
    }
    b.o.emplace_back(columns.data(), D, Dh, WeightPacking::Float32);
  }
  return b;
}

}  // namespace minimind
