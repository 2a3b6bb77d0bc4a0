// The circuit's graph (MINIMIND.md, "components and receivers"): senders
// are what writes the residual stream, receivers what reads it.
//
// Senders, in forward order: embed, then per block k: L{k}H0 .. L{k}H{H-1}
// (head h's z through its o_proj columns) and L{k}ffn (the FFN's or whole
// MoE's output). S = 1 + L·(H + 1).
// Receivers, in forward order: per block l, for each head h: L{l}H{h}.q,
// .k, .v (input_layernorm, then head h's q_proj rows or its kv head's
// k_proj / v_proj rows: under GQA each query head reads privately), then
// L{l}ffn (post_attention_layernorm and the FFN: it also reads block l's
// heads); last, logits (the final norm and lm_head). Rcv = L·(3H + 1) + 1.
//
// A sender feeds every receiver after it, so receiver r reads senders
// 0 .. sender_count(r) - 1. Edges are listed receiver by receiver, senders
// in order within each.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tensors/model_config.h"

namespace minimind {

struct CircuitGraph {
  enum class Kind { q, k, v, ffn, logits };
  struct Receiver {
    Kind kind = Kind::logits;
    int64_t layer = 0, head = 0;  // head: q, k and v only
    int64_t senders = 0;          // it reads senders 0 .. senders - 1
    int64_t first_edge = 0;       // its edges are first_edge .. first_edge + senders - 1
  };

  int64_t L = 0, H = 0;
  std::vector<std::string> sender_names;    // [S]
  std::vector<std::string> receiver_names;  // [Rcv]
  std::vector<Receiver> receivers;          // [Rcv]
  int64_t edges = 0;

  explicit CircuitGraph(const ModelConfig& config);

  int64_t senders() const { return int64_t(sender_names.size()); }
  // Sender index of head h of block k, and of block k's FFN.
  int64_t head_sender(int64_t k, int64_t h) const { return 1 + k * (H + 1) + h; }
  int64_t ffn_sender(int64_t k) const { return 1 + k * (H + 1) + H; }
  // Receiver index of head h's q (k, v: + 1, + 2) in block l, of block l's FFN, of the logits.
  int64_t head_receiver(int64_t l, int64_t h, Kind kind) const {
    return l * (3 * H + 1) + 3 * h + (kind == Kind::q ? 0 : kind == Kind::k ? 1 : 2);
  }
  int64_t ffn_receiver(int64_t l) const { return l * (3 * H + 1) + 3 * H; }
  int64_t logits_receiver() const { return L * (3 * H + 1); }
  // The receiver of edge e (its sender: e - receivers[r].first_edge).
  int64_t receiver_of(int64_t edge) const;
};

}  // namespace minimind
