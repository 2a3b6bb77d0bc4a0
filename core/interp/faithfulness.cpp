#include "interp/faithfulness.h"

#include <algorithm>

#include "ops/linear.h"
#include "util/tensor.h"

namespace minimind {

std::vector<int64_t> faithfulness_sizes(int64_t edges) {
  std::vector<int64_t> sizes{0};
  for (int64_t decade = 1;; decade *= 10) {
    for (int64_t m : {1, 2, 5}) {
      if (m * decade >= edges) {
        sizes.push_back(edges);
        return sizes;
      }
      sizes.push_back(m * decade);
    }
  }
}

float circuit_metric(const CircuitForward& f, const CircuitRun& clean, const CircuitRun& corrupt,
                     const std::vector<uint8_t>& in_circuit, CircuitScratch& s) {
  const ModelConfig& c = f.config();
  const CircuitGraph& graph = f.graph();
  const int64_t T = clean.T, D = c.hidden_size, L = c.num_hidden_layers, H = c.num_attention_heads;
  const int64_t Dh = c.head_dim, S = graph.senders(), TD = T * D;
  std::vector<float> outs(size_t(S * TD));             // [S, T, D] each sender's output in this run
  std::copy_n(clean.senders.data(), TD, outs.data());  // embed: the clean text's
  std::vector<float> stream(clean.senders.begin(),
                            clean.senders.begin() + TD);  // [T, D] Σ of this run's outputs so far
  const float* corrupt_out = corrupt.senders.data();

  // Receiver r's input x [T, D] (rows first..T-1): from whichever side has fewer edges to swap.
  const auto input = [&](int64_t r, const float* corrupt_input, float* x, int64_t first) {
    const CircuitGraph::Receiver& rec = graph.receivers[size_t(r)];
    int64_t inside = 0;
    for (int64_t e = rec.first_edge; e < rec.first_edge + rec.senders; ++e) inside += in_circuit[size_t(e)];
    const bool from_corrupt = 2 * inside <= rec.senders;
    std::copy(from_corrupt ? corrupt_input + first * D : stream.data() + first * D,
              (from_corrupt ? corrupt_input : stream.data()) + TD, x + first * D);
    for (int64_t sd = 0; sd < rec.senders; ++sd) {
      if (bool(in_circuit[size_t(rec.first_edge + sd)]) != from_corrupt) continue;
      // From the corrupt input add (this run's - corrupt) of an edge inside;
      // from this run's stream add (corrupt - this run's) of an edge outside.
      const float sign = from_corrupt ? 1.0f : -1.0f;
      const float* mine = outs.data() + sd * TD;
      const float* theirs = corrupt_out + sd * TD;
      for (int64_t i = first * D; i < TD; ++i) x[i] += sign * (mine[i] - theirs[i]);
    }
  };

  float* x = scratch(s.x, TD);
  float* a = scratch(s.a, TD);
  float* q = scratch(s.q, T * Dh);
  float* k = scratch(s.k, T * Dh);
  float* v = scratch(s.v, T * Dh);
  float* z = scratch(s.z, T * Dh);
  for (int64_t l = 0; l < L; ++l) {
    const CircuitBlock& cb = corrupt.blocks[size_t(l)];
    for (int64_t h = 0; h < H; ++h) {
      if (f.ablated(l, h)) {  // switched off: writes nothing
        std::fill_n(outs.data() + graph.head_sender(l, h) * TD, TD, 0.0f);
        continue;
      }
      input(graph.head_receiver(l, h, CircuitGraph::Kind::q), cb.input.data(), x, 0);
      f.attn_norm(l, x, a);
      f.head_q(l, h, a, q);
      input(graph.head_receiver(l, h, CircuitGraph::Kind::k), cb.input.data(), x, 0);
      f.attn_norm(l, x, a);
      f.head_k(l, h, a, k);
      input(graph.head_receiver(l, h, CircuitGraph::Kind::v), cb.input.data(), x, 0);
      f.attn_norm(l, x, a);
      f.head_v(l, h, a, v);
      f.attend(q, k, v, z, s);
      linear_rows(z, T, Dh, f.heads(l).o[size_t(h)], outs.data() + graph.head_sender(l, h) * TD, D);
    }
    for (int64_t h = 0; h < H; ++h) {
      const float* o = outs.data() + graph.head_sender(l, h) * TD;
      for (int64_t i = 0; i < TD; ++i) stream[size_t(i)] += o[i];
    }
    input(graph.ffn_receiver(l), cb.attn_residual.data(), x, 0);
    float* ffn_sender = outs.data() + graph.ffn_sender(l) * TD;
    f.ffn_half(l, x, x, 0, s.block, a, s);
    std::copy_n(s.block.ffn_out.data(), TD, ffn_sender);
    for (int64_t i = 0; i < TD; ++i) stream[size_t(i)] += ffn_sender[i];
  }
  input(graph.logits_receiver(), corrupt.final_input.data(), x, T - 1);
  return f.metric(x + (T - 1) * D);
}

}  // namespace minimind
