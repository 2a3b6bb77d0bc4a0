// Faithfulness of a circuit C (a set of edges; MIB's measure): one run on
// the clean text in which each receiver r reads
//   Σ over (s, r) in C of s's output in this run + Σ over (s, r) not in C of s's corrupt output,
// every head on its own q, k and v inputs (under GQA a private K/V), every
// norm recomputed. Its metric's share of the way from corrupt to clean,
// (metric - corrupt) / (clean - corrupt), is how much of the answer the
// circuit keeps: the empty circuit gives the corrupt run (share 0), all
// edges the clean run (share 1).
#pragma once

#include <cstdint>
#include <vector>

#include "interp/circuit_forward.h"

namespace minimind {

// The metric of the run above; in_circuit: [E] flags in circuit_graph.h's edge order.
float circuit_metric(const CircuitForward& forward, const CircuitRun& clean, const CircuitRun& corrupt,
                     const std::vector<uint8_t>& in_circuit, CircuitScratch& scratch);

// The circuit sizes of the curve: 0, 1, 2, 5, 10, 20, 50, … below `edges`, then `edges`.
std::vector<int64_t> faithfulness_sizes(int64_t edges);

}  // namespace minimind
