// Lesson 11's lab ("trace_attention_shapes.py"), recomputed by the core: one
// Attention call on a batch of 2 sequences of 5 tokens, printed as the
// lesson's record lines (x.shape=..., scores.shape=..., ...).
#pragma once

#include <cstdint>
#include <string>

namespace minimind {

// Runs layer 0 of `preset` (random weights from `seed`) on token ids
// [[3..7], [8..12]] and returns the record, one line per value.
std::string lesson11_lab_record(const std::string& preset, uint64_t seed = 0);

}  // namespace minimind
