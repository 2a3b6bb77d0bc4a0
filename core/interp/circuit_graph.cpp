#include "interp/circuit_graph.h"

#include <algorithm>

namespace minimind {

CircuitGraph::CircuitGraph(const ModelConfig& c) : L(c.num_hidden_layers), H(c.num_attention_heads) {
  sender_names.push_back("embed");
  for (int64_t k = 0; k < L; ++k) {
    const std::string block = "L" + std::to_string(k);
    for (int64_t h = 0; h < H; ++h) sender_names.push_back(block + "H" + std::to_string(h));
    sender_names.push_back(block + "ffn");
  }
  const auto add = [&](std::string name, Kind kind, int64_t layer, int64_t head, int64_t senders) {
    receiver_names.push_back(std::move(name));
    receivers.push_back({kind, layer, head, senders, edges});
    edges += senders;
  };
  for (int64_t l = 0; l < L; ++l) {
    const std::string block = "L" + std::to_string(l);
    const int64_t before = 1 + l * (H + 1);  // embed and every earlier block
    for (int64_t h = 0; h < H; ++h) {
      const std::string head = block + "H" + std::to_string(h);
      add(head + ".q", Kind::q, l, h, before);
      add(head + ".k", Kind::k, l, h, before);
      add(head + ".v", Kind::v, l, h, before);
    }
    add(block + "ffn", Kind::ffn, l, 0, before + H);
  }
  add("logits", Kind::logits, L, 0, senders());
}

int64_t CircuitGraph::receiver_of(int64_t edge) const {
  const auto after = std::upper_bound(receivers.begin(), receivers.end(), edge,
                                      [](int64_t e, const Receiver& r) { return e < r.first_edge; });
  return int64_t(after - receivers.begin()) - 1;
}

}  // namespace minimind
