#include "interp/path_patching.h"

#include <algorithm>

#include "ops/linear.h"
#include "util/tensor.h"
#include "util/thread_pool.h"

namespace minimind {

namespace {

// The first row at which sender s's corrupt output differs from its clean one (T: none).
int64_t first_changed_row(const CircuitRun& clean, const CircuitRun& corrupt, int64_t s, int64_t D) {
  const int64_t T = clean.T;
  const float* a = clean.senders.data() + s * T * D;
  const float* b = corrupt.senders.data() + s * T * D;
  for (int64_t i = 0; i < T * D; ++i) {
    if (a[i] != b[i]) return i / D;
  }
  return T;
}

// `same`: the sender's first changed row. Rows before it are the clean run's in every block
// from the receiver's on (causal attention), so only rows same..T-1 are recomputed.
float patch_one(const CircuitForward& f, const CircuitRun& clean, const CircuitRun& corrupt, int64_t e, int64_t same,
                CircuitScratch& s) {
  const ModelConfig& c = f.config();
  const CircuitGraph& graph = f.graph();
  const int64_t T = clean.T, D = c.hidden_size, L = c.num_hidden_layers, Dh = c.head_dim;
  const int64_t R = c.num_attention_heads / c.num_key_value_heads, qd = c.q_dim(), kvd = c.kv_dim();
  const int64_t r = graph.receiver_of(e), sender = e - graph.receivers[size_t(r)].first_edge;
  const CircuitGraph::Receiver& rec = graph.receivers[size_t(r)];
  const float* clean_out = clean.senders.data() + sender * T * D;  // [T, D]
  const float* corrupt_out = corrupt.senders.data() + sender * T * D;
  // The receiver's input: its clean input with this sender's output swapped.
  const auto swapped = [&](const float* clean_input, float* x) {
    for (int64_t i = 0; i < T * D; ++i)
      x[i] = clean_input[i] + (corrupt_out[i] - clean_out[i]);  // exact where they agree
  };
  float* x = scratch(s.x, T * D);  // [T, D]
  float* h = scratch(s.h, T * D);  // [T, D] the residual stream from the receiver's block on

  if (same == T) return clean.metric;  // the sender's output is the same in both runs
  if (rec.kind == CircuitGraph::Kind::logits) {
    const int64_t last = (T - 1) * D;
    for (int64_t i = 0; i < D; ++i) {
      x[i] = clean.final_input[size_t(last + i)] + (corrupt_out[last + i] - clean_out[last + i]);
    }
    return f.metric(x);
  }
  const int64_t l = rec.layer;
  const CircuitBlock& b = clean.blocks[size_t(l)];
  const int64_t first = std::max(same, l == L - 1 ? T - 1 : int64_t{0});  // the last block: its last row alone
  // The block's output: the clean one before `same`, recomputed from `first` on.
  const float* after = l + 1 < L ? clean.blocks[size_t(l + 1)].input.data() : clean.final_input.data();
  std::copy_n(after, same * D, h);
  if (rec.kind == CircuitGraph::Kind::ffn) {
    // Only the FFN reads the swapped residual; the stream past it stays the clean attn_residual.
    swapped(b.attn_residual.data(), x);
    f.ffn_half(l, b.attn_residual.data(), x, first, s.block, h, s);
    return f.metric_from(l + 1, h, s, &clean, same);
  }
  // A head's q, k or v: that head alone recomputes its z, the others keep theirs.
  const int64_t hd = rec.head, j = hd / R;
  if (f.ablated(l, hd)) return clean.metric;  // its z stays zero whatever its input
  swapped(b.input.data(), x);
  float* a = scratch(s.a, T * D);
  f.attn_norm(l, x, a);
  float* q = scratch(s.q, T * Dh);
  float* k = scratch(s.k, T * Dh);
  float* v = scratch(s.v, T * Dh);
  float* z = scratch(s.z, T * Dh);
  if (rec.kind == CircuitGraph::Kind::q) {
    f.head_q(l, hd, a, q);
  } else {
    head_columns(b.q.data(), T, qd, hd, Dh, q);
  }
  if (rec.kind == CircuitGraph::Kind::k) {
    f.head_k(l, hd, a, k);
  } else {
    head_columns(b.k.data(), T, kvd, j, Dh, k);
  }
  if (rec.kind == CircuitGraph::Kind::v) {
    f.head_v(l, hd, a, v);
  } else {
    head_columns(b.v.data(), T, kvd, j, Dh, v);
  }
  f.attend(q, k, v, z, s);
  head_columns(b.concat.data(), T, qd, hd, Dh, q);  // q now holds the clean z
  for (int64_t i = 0; i < T * Dh; ++i) z[i] -= q[i];
  float* write = scratch(s.write, T * D);  // [T, D] the change of head hd's write
  linear_rows(z, T, Dh, f.heads(l).o[size_t(hd)], write, D);
  for (int64_t i = 0; i < T * D; ++i) x[i] = b.attn_residual[size_t(i)] + write[i];
  f.ffn_half(l, x, x, first, s.block, h, s);
  return f.metric_from(l + 1, h, s, &clean, same);
}

}  // namespace

void path_patching(const CircuitForward& f, const CircuitRun& clean, const CircuitRun& corrupt,
                   const std::vector<int64_t>& edges, std::vector<float>& patched) {
  const CircuitGraph& graph = f.graph();
  std::vector<int64_t> same(size_t(graph.senders()));
  for (int64_t sender = 0; sender < graph.senders(); ++sender) {
    same[size_t(sender)] = first_changed_row(clean, corrupt, sender, f.config().hidden_size);
  }
  patched.resize(edges.size());
  // Edges in one contiguous part per thread, each part on its own scratch (an edge's run is the
  // same bits on any thread).
  const int64_t n = int64_t(edges.size()), parts = std::max<int64_t>(1, std::min<int64_t>(thread_count(), n));
  std::vector<CircuitScratch> scratches(static_cast<size_t>(parts));
  parallel_for(parts, [&](int64_t part) {
    const Range range = split_range(n, parts, part);
    for (int64_t i = range.begin; i < range.end; ++i) {
      const int64_t e = edges[size_t(i)], r = graph.receiver_of(e);
      patched[size_t(i)] = patch_one(f, clean, corrupt, e, same[size_t(e - graph.receivers[size_t(r)].first_edge)],
                                     scratches[size_t(part)]);
    }
  });
}

}  // namespace minimind
