#include "interp/edge_attribution.h"

#include <algorithm>

#include "ops/ffn_block.h"
#include "ops/linear.h"
#include "ops/rmsnorm.h"
#include "ops/rope.h"
#include "util/error.h"
#include "util/tensor.h"

namespace minimind {

namespace {

// Wᵀ of a linear weight W [out, in], packed so that linear_rows(dy [N, out], Wᵀ) = dy·W [N, in].
struct PackedTranspose {
  std::vector<float> dense, storage;
  PanelsView view;
  void pack(const WeightMatrix& W) {
    dense_f32(W, dense);
    view = pack_transposed(dense.data(), W.rows(), W.cols(), W.cols(), storage);
  }
  // Rows first..first+count-1 of W only, from W as row-major float32 (dense_f32) [rows, cols]:
  // [count, cols] -> view [cols, count].
  void pack_rows(const std::vector<float>& W, int64_t cols, int64_t first, int64_t count) {
    view = pack_transposed(W.data() + first * cols, count, cols, cols, storage);
  }
};

}  // namespace

void ffn_receiver_gradient(const CircuitForward& f, int64_t l, const CircuitBlock& b, const float* d_out, float* g) {
  const ModelConfig& c = f.config();
  const LayerWeights& w = f.model().weights().layers[size_t(l)];
  const int64_t T = b.ffn.T, D = c.hidden_size;
  // Through the FFN (an MoE with its routing fixed, as autograd through torch.topk's values),
  // then post_attention_layernorm.
  FfnBackwardScratch scratch;
  std::vector<float> d_b(size_t(T * D)), dw(static_cast<size_t>(D));
  ffn_block_backward(c, w, b.ffn, d_out, d_b.data(), nullptr, scratch);
  rms_norm_backward(b.attn_residual.data(), w.post_attention_layernorm.data(), d_b.data(), T, D, float(c.rms_norm_eps),
                    g, dw.data());
}

void receiver_gradients(const CircuitForward& f, const CircuitRun& run,
                        const std::function<void(int64_t receiver, const float* g)>& visit) {
  const ModelConfig& c = f.config();
  const CircuitGraph& graph = f.graph();
  const int64_t T = run.T, D = c.hidden_size, L = c.num_hidden_layers, H = c.num_attention_heads;
  const int64_t Hkv = c.num_key_value_heads, R = H / Hkv, Dh = c.head_dim, qd = c.q_dim(), kvd = c.kv_dim();
  const float eps = float(c.rms_norm_eps);
  std::vector<float> dw(size_t(std::max(D, Dh)));  // the norms' weight gradients, unused

  // logits: the final norm's backward at the last row (the metric reads no other).
  std::vector<float> dh(size_t(T * D), 0.0f);  // [T, D] ∂metric/∂(residual stream)
  rms_norm_backward(run.final_input.data() + (T - 1) * D, f.model().weights().norm.data(), f.direction().data(), 1, D,
                    eps, dh.data() + (T - 1) * D, dw.data());
  visit(graph.logits_receiver(), dh.data());

  std::vector<float> g(size_t(T * D)), d_concat(size_t(T * qd));
  std::vector<float> q(size_t(T * Dh)), k(size_t(T * Dh)), v(size_t(T * Dh)), dz(size_t(T * Dh));
  std::vector<float> dq(size_t(T * Dh)), dk(size_t(T * Dh)), dv(size_t(T * Dh)), pre(size_t(T * Dh));
  AttentionCoreScratch attention;
  PackedTranspose o;
  std::vector<float> dense;  // one projection as row-major float32
  std::vector<PackedTranspose> wq(static_cast<size_t>(H)), wk(static_cast<size_t>(Hkv)), wv(static_cast<size_t>(Hkv));
  for (int64_t l = L - 1; l >= 0; --l) {
    const CircuitBlock& b = run.blocks[size_t(l)];
    const LayerWeights& w = f.model().weights().layers[size_t(l)];
    // L{l}ffn, then ∂metric/∂(attn_residual) = the residual's own path + the FFN's.
    ffn_receiver_gradient(f, l, b, dh.data(), g.data());
    visit(graph.ffn_receiver(l), g.data());
    for (int64_t i = 0; i < T * D; ++i) dh[size_t(i)] += g[size_t(i)];

    o.pack(w.o_proj);
    linear_rows(dh.data(), T, D, o.view, d_concat.data(), qd);  // ∂metric/∂z [T, H·Dh]
    dense_f32(w.q_proj, dense);
    for (int64_t h = 0; h < H; ++h) wq[size_t(h)].pack_rows(dense, D, h * Dh, Dh);
    dense_f32(w.k_proj, dense);
    for (int64_t j = 0; j < Hkv; ++j) wk[size_t(j)].pack_rows(dense, D, j * Dh, Dh);
    dense_f32(w.v_proj, dense);
    for (int64_t j = 0; j < Hkv; ++j) wv[size_t(j)].pack_rows(dense, D, j * Dh, Dh);
    std::vector<float> d_input = dh;  // the residual's own path past the block
    for (int64_t h = 0; h < H; ++h) {
      const int64_t j = h / R;
      if (f.ablated(l, h)) {  // z is zero whatever its inputs: no gradient reaches its q, k or v
        std::fill(g.begin(), g.end(), 0.0f);
        for (const auto kind : {CircuitGraph::Kind::q, CircuitGraph::Kind::k, CircuitGraph::Kind::v}) {
          visit(graph.head_receiver(l, h, kind), g.data());
        }
        continue;
      }
      // Head h alone, with its kv head's keys and values as private copies:
      // its dk, dv are its share of the kv head's gradient.
      head_columns(b.q.data(), T, qd, h, Dh, q.data());
      head_columns(b.k.data(), T, kvd, j, Dh, k.data());
      head_columns(b.v.data(), T, kvd, j, Dh, v.data());
      head_columns(d_concat.data(), T, qd, h, Dh, dz.data());
      attention_core_backward(q.data(), k.data(), v.data(), b.probs.data() + h * T * T, dz.data(), T, 1, 1, Dh, true,
                              dq.data(), dk.data(), dv.data(), attention);
      for (int64_t t = 0; t < T; ++t) {
        apply_rotary_backward(dq.data() + t * Dh, 1, Dh, f.cos(t), f.sin(t));
        apply_rotary_backward(dk.data() + t * Dh, 1, Dh, f.cos(t), f.sin(t));
      }
      if (c.use_qk_norm) {
        head_columns(b.q_pre.data(), T, qd, h, Dh, pre.data());
        rms_norm_backward(pre.data(), w.q_norm.data(), dq.data(), T, Dh, eps, dq.data(), dw.data());
        head_columns(b.k_pre.data(), T, kvd, j, Dh, pre.data());
        rms_norm_backward(pre.data(), w.k_norm.data(), dk.data(), T, Dh, eps, dk.data(), dw.data());
      }
      const struct {
        CircuitGraph::Kind kind;
        const float* d;
        const PanelsView& W_t;
      } sides[3] = {{CircuitGraph::Kind::q, dq.data(), wq[size_t(h)].view},
                    {CircuitGraph::Kind::k, dk.data(), wk[size_t(j)].view},
                    {CircuitGraph::Kind::v, dv.data(), wv[size_t(j)].view}};
      for (const auto& side : sides) {
        linear_rows(side.d, T, Dh, side.W_t, g.data(), D);  // ∂metric/∂(input_layernorm's output)
        rms_norm_backward(b.input.data(), w.input_layernorm.data(), g.data(), T, D, eps, g.data(), dw.data());
        visit(graph.head_receiver(l, h, side.kind), g.data());
        for (int64_t i = 0; i < T * D; ++i) d_input[size_t(i)] += g[size_t(i)];
      }
    }
    dh = std::move(d_input);
  }
}

void edge_attribution(const CircuitForward& f, const CircuitRun& clean, const CircuitRun& corrupt,
                      std::vector<float>& scores, std::vector<float>* positions) {
  const CircuitGraph& graph = f.graph();
  const int64_t T = clean.T, D = f.config().hidden_size, S = graph.senders();
  const int64_t per_block = 3 * graph.H + 1;  // receivers of one block
  // Per position t, every sender's corrupt - clean output as a weight matrix [S, D]: one
  // block's receiver gradients at t [R, D] times its transpose give every score's part at t.
  std::vector<WeightMatrix> delta;  // [T] of [S, D]
  {
    std::vector<float> rows(size_t(S * D));  // [S, D]
    for (int64_t t = 0; t < T; ++t) {
      for (int64_t s = 0; s < S; ++s) {
        const size_t at = size_t((s * T + t) * D);
        for (int64_t i = 0; i < D; ++i) rows[size_t(s * D + i)] = corrupt.senders[at + i] - clean.senders[at + i];
      }
      delta.emplace_back(rows.data(), S, D, WeightPacking::Float32);
    }
  }
  scores.assign(size_t(graph.edges), 0.0f);
  if (positions) positions->assign(size_t(graph.edges * T), 0.0f);

  std::vector<float> pending(size_t(per_block * T * D));  // [R, T, D] gradients of one block's receivers
  std::vector<int64_t> held;                              // their receiver indices
  std::vector<float> parts(size_t(per_block * S));        // [R, S'] one position's parts
  std::vector<double> sums;
  const auto flush = [&] {
    if (held.empty()) return;
    const int64_t first_receiver = held.front() - (held.front() % per_block);
    int64_t width = 0;
    for (int64_t r : held) width = std::max(width, graph.receivers[size_t(r)].senders);
    width = std::min(S, (width + PanelsView::kPanelRows - 1) / PanelsView::kPanelRows * PanelsView::kPanelRows);
    const bool logits = graph.receivers[size_t(held.front())].kind == CircuitGraph::Kind::logits;
    const int64_t rows = logits ? 1 : per_block;
    sums.assign(size_t(rows * width), 0.0);
    for (int64_t t = logits ? T - 1 : 0; t < T; ++t) {
      PanelsView senders = delta[size_t(t)].view();
      senders.rows = width;
      linear_rows(pending.data() + t * D, rows, T * D, senders, parts.data(), width);  // [rows, width]
      for (int64_t r : held) {
        const CircuitGraph::Receiver& rec = graph.receivers[size_t(r)];
        const int64_t slot = logits ? 0 : r - first_receiver;
        for (int64_t s = 0; s < rec.senders; ++s) {
          const float part = parts[size_t(slot * width + s)];
          sums[size_t(slot * width + s)] += part;
          if (positions) (*positions)[size_t((rec.first_edge + s) * T + t)] = part;
        }
      }
    }
    for (int64_t r : held) {
      const CircuitGraph::Receiver& rec = graph.receivers[size_t(r)];
      const int64_t slot = logits ? 0 : r - first_receiver;
      for (int64_t s = 0; s < rec.senders; ++s)
        scores[size_t(rec.first_edge + s)] = float(sums[size_t(slot * width + s)]);
    }
    held.clear();
  };
  receiver_gradients(f, clean, [&](int64_t r, const float* g) {
    const CircuitGraph::Receiver& rec = graph.receivers[size_t(r)];
    if (!held.empty() && graph.receivers[size_t(held.front())].layer != rec.layer) flush();
    const int64_t slot = rec.kind == CircuitGraph::Kind::logits ? 0 : r % per_block;
    std::copy(g, g + T * D, pending.begin() + slot * T * D);
    held.push_back(r);
  });
  flush();
}

}  // namespace minimind
