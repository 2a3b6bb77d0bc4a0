// Path patching (Wang et al. 2022; the edge intervention of ACDC, Conmy et
// al. 2023): the metric of the clean run in which only one receiver's input
// gets the sender's corrupt output in place of its clean one. Every other
// reader sees the clean value; the blocks from the receiver's on recompute
// (norms included), the earlier ones are the clean run's. A head's k or v
// receiver gets a private K or V: its kv-group siblings keep the clean keys.
#pragma once

#include <cstdint>
#include <vector>

#include "interp/circuit_forward.h"

namespace minimind {

// The patched metric of each edge in `edges` (indices in circuit_graph.h's
// order) -> patched [edges.size()].
void path_patching(const CircuitForward& forward, const CircuitRun& clean, const CircuitRun& corrupt,
                   const std::vector<int64_t>& edges, std::vector<float>& patched);

}  // namespace minimind
