// Next-token choice as MiniMind's generate does it: temperature, repetition
// penalty, top-k, top-p, then sample (or argmax for greedy).
#pragma once

#include <cstdint>
#include <vector>

#include "util/random.h"

namespace minimind {

struct SamplingParams {
  bool greedy = false;
  float temperature = 0.85f;        // MiniMind's defaults
  int64_t top_k = 50;               // 0 turns top-k off
  float top_p = 0.85f;              // 1 turns top-p off
  float repetition_penalty = 1.0f;  // 1 turns it off
  uint64_t seed = 0;                // our own generator: same seed, same tokens, on every platform
};

// Throws minimind::Error naming a bad parameter.
void validate_sampling(const SamplingParams& params);

class Sampler {
 public:
  explicit Sampler(const SamplingParams& params);

  // logits: [V] of the last position (copied, not changed); seen: the ids so
  // far (prompt + generated) for the repetition penalty. Allocates nothing
  // once its scratch memory has grown to V (see reserve).
  int32_t next(const float* logits, int64_t vocab_size, const std::vector<int32_t>& seen);
  // Grows the scratch memory for a vocabulary of V.
  void reserve(int64_t vocab_size);

  // The distribution `next` samples from for these logits: [V], zeros
  // outside top-k/top-p (what a page shows as next-token candidates).
  std::vector<float> probabilities(const float* logits, int64_t vocab_size, const std::vector<int32_t>& seen) const;

 private:
  // Working memory of one choice, [V] each.
  struct Scratch {
    std::vector<float> x;        // the logits, then the filtered logits, then probabilities
    std::vector<float> sorted;   // top-k: a partly sorted copy; top-p: probabilities in order
    std::vector<int64_t> order;  // top-p: token ids by logit, highest first
    std::vector<uint8_t> seen;   // repetition penalty: 1 for ids already penalised
    void reserve(int64_t V);
  };

  // Fills s.x [V] with the logits after temperature, repetition penalty,
  // top-k and top-p (-inf for filtered tokens).
  void filter(const float* logits, int64_t vocab_size, const std::vector<int32_t>& seen, Scratch& s) const;

  SamplingParams params_;
  SplitMix64 rng_;
  Scratch scratch_;
};

}  // namespace minimind
