#include "util/random.h"

namespace minimind {

uint64_t fnv1a64(const std::string& text) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char byte : text) {
    h ^= byte;
    h *= 0x100000001b3ull;
  }
  return h;
}

uint64_t SplitMix64::next() {
  state_ += 0x9E3779B97F4A7C15ull;
  uint64_t z = state_;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

float SplitMix64::uniform_symmetric() { return float(next() >> 40) * (1.0f / 8388608.0f) - 1.0f; }

float SplitMix64::uniform_unit() { return float(next() >> 40) * (1.0f / 16777216.0f); }

}  // namespace minimind
