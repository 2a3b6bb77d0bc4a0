#include "model/sampler.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>

#include "util/error.h"
#include "util/tensor.h"

namespace minimind {

namespace {

// In place over x[0..n).
void softmax(float* x, int64_t n) {
  const float max = *std::max_element(x, x + n);
  float sum = 0.0f;
  for (int64_t i = 0; i < n; ++i) sum += (x[i] = std::exp(x[i] - max));
  for (int64_t i = 0; i < n; ++i) x[i] /= sum;
}

}  // namespace

void validate_sampling(const SamplingParams& p) {
  if (!p.greedy && !(p.temperature > 0 && std::isfinite(p.temperature))) {
    throw Error("sampling.temperature", {{"value", double(p.temperature)}},
                "temperature must be a positive number, got " + std::to_string(p.temperature));
  }
  if (p.top_k < 0)
    throw Error("sampling.top_k", {{"value", int64_t(p.top_k)}},
                "top_k must be 0 (off) or positive, got " + std::to_string(p.top_k));
  if (!(p.top_p > 0 && p.top_p <= 1)) {
    throw Error("sampling.top_p", {{"value", double(p.top_p)}},
                "top_p must be in (0, 1], got " + std::to_string(p.top_p));
  }
  if (!(p.repetition_penalty > 0 && std::isfinite(p.repetition_penalty))) {
    throw Error("sampling.repetition_penalty", {{"value", double(p.repetition_penalty)}},
                "repetition_penalty must be a positive number, got " + std::to_string(p.repetition_penalty));
  }
}

Sampler::Sampler(const SamplingParams& params) : params_(params), rng_(params.seed) { validate_sampling(params); }

void Sampler::Scratch::reserve(int64_t V) {
  scratch(x, V);
  scratch(sorted, V);
  scratch(order, V);
  scratch(seen, V);
}

void Sampler::reserve(int64_t V) { scratch_.reserve(V); }

void Sampler::filter(const float* logits, int64_t V, const std::vector<int32_t>& seen_ids, Scratch& s) const {
  const float neg_inf = -std::numeric_limits<float>::infinity();
  float* x = scratch(s.x, V);
  std::copy(logits, logits + V, x);
  if (!params_.greedy) {
    for (int64_t i = 0; i < V; ++i) x[i] /= params_.temperature;  // logits / temperature
  }
  if (params_.repetition_penalty != 1.0f) {
    // Each id seen so far once, however often it occurs.
    uint8_t* penalised = scratch(s.seen, V);
    std::fill(penalised, penalised + V, uint8_t{0});
    for (int32_t id : seen_ids) {
      if (id < 0 || id >= V || penalised[id]) continue;
      penalised[id] = 1;
      float& v = x[id];
      v = v > 0 ? v / params_.repetition_penalty : v * params_.repetition_penalty;
    }
  }
  if (params_.greedy) return;
  if (params_.top_k > 0 && params_.top_k < V) {
    // logits[logits < topk(logits, k)[-1]] = -inf: ties with the k-th stay.
    float* sorted = scratch(s.sorted, V);
    std::copy(x, x + V, sorted);
    std::nth_element(sorted, sorted + (params_.top_k - 1), sorted + V, std::greater<float>());
    const float kth = sorted[params_.top_k - 1];
    for (int64_t i = 0; i < V; ++i) {
      if (x[i] < kth) x[i] = neg_inf;
    }
  }
  if (params_.top_p < 1.0f) {
    // Keep the smallest prefix of the sorted distribution whose cumulative
    // probability exceeds top_p; the most likely token always stays. Sorted
    // by logit, highest first, ties by id (a stable sort's order).
    int64_t* order = scratch(s.order, V);
    std::iota(order, order + V, 0);
    std::sort(order, order + V, [&](int64_t a, int64_t b) { return x[a] > x[b] || (x[a] == x[b] && a < b); });
    float* probs = scratch(s.sorted, V);
    for (int64_t i = 0; i < V; ++i) probs[i] = x[order[i]];
    softmax(probs, V);
    float cumulative = 0.0f;
    bool previous_over = false;  // mask[i] = cumsum[i - 1] > top_p
    for (int64_t i = 0; i < V; ++i) {
      if (i > 0 && previous_over) x[order[i]] = neg_inf;
      cumulative += probs[i];
      previous_over = cumulative > params_.top_p;
    }
  }
}

std::vector<float> Sampler::probabilities(const float* logits, int64_t V, const std::vector<int32_t>& seen) const {
  Scratch s;
  filter(logits, V, seen, s);
  softmax(s.x.data(), V);
  return std::vector<float>(s.x.begin(), s.x.begin() + V);
}

int32_t Sampler::next(const float* logits, int64_t V, const std::vector<int32_t>& seen) {
  if (V <= 0) throw Error("sampling.no_logits", {}, "no logits to sample from");
  filter(logits, V, seen, scratch_);
  float* probs = scratch_.x.data();                                                // [V]
  if (params_.greedy) return int32_t(std::max_element(probs, probs + V) - probs);  // argmax, first on ties
  softmax(probs, V);
  const float u = rng_.uniform_unit();
  float cumulative = 0.0f;
  int32_t last_nonzero = 0;
  for (int64_t i = 0; i < V; ++i) {
    if (probs[i] <= 0) continue;
    last_nonzero = int32_t(i);
    cumulative += probs[i];
    if (u < cumulative) return int32_t(i);
  }
  return last_nonzero;  // rounding left cumulative just under u
}

}  // namespace minimind
