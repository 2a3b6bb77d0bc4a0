// Deterministic randomness that gives the same numbers on every platform:
// integer-only generators, no std::*_distribution (their output is
// implementation-defined).
#pragma once

#include <cstdint>
#include <string>

namespace minimind {

// FNV-1a, 64 bit, over the bytes of a string: seeds one stream per tensor name.
uint64_t fnv1a64(const std::string& text);

// SplitMix64 (Steele, Lea, Flood 2014).
class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t state) : state_(state) {}
  uint64_t next();
  // Uniform in [-1, 1): the top 24 bits as m, m * 2^-23 - 1 (exact in float32).
  float uniform_symmetric();
  // Uniform in [0, 1): the top 24 bits times 2^-24 (exact in float32).
  float uniform_unit();

 private:
  uint64_t state_;
};

}  // namespace minimind
