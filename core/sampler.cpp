#include "sampler.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>

namespace minimind {

namespace {

void softmax(std::vector<float>& x) {
  const float max = *std::max_element(x.begin(), x.end());
  float sum = 0.0f;
  for (float& v : x) sum += (v = std::exp(v - max));
  for (float& v : x) v /= sum;
}

}  // namespace

void validate_sampling(const SamplingParams& p) {
  if (!p.greedy && !(p.temperature > 0 && std::isfinite(p.temperature))) {
    throw std::invalid_argument("temperature must be a positive number, got " + std::to_string(p.temperature));
  }
  if (p.top_k < 0) throw std::invalid_argument("top_k must be 0 (off) or positive, got " + std::to_string(p.top_k));
  if (!(p.top_p > 0 && p.top_p <= 1)) {
    throw std::invalid_argument("top_p must be in (0, 1], got " + std::to_string(p.top_p));
  }
  if (!(p.repetition_penalty > 0 && std::isfinite(p.repetition_penalty))) {
    throw std::invalid_argument("repetition_penalty must be a positive number, got " +
                                std::to_string(p.repetition_penalty));
  }
}

Sampler::Sampler(const SamplingParams& params) : params_(params), rng_(params.seed) { validate_sampling(params); }

std::vector<float> Sampler::filtered_logits(const float* logits, int64_t V, const std::vector<int32_t>& seen) const {
  const float neg_inf = -std::numeric_limits<float>::infinity();
  std::vector<float> x(logits, logits + V);
  if (!params_.greedy) {
    for (float& v : x) v /= params_.temperature;  // logits / temperature
  }
  if (params_.repetition_penalty != 1.0f) {
    std::vector<int32_t> unique(seen);
    std::sort(unique.begin(), unique.end());
    unique.erase(std::unique(unique.begin(), unique.end()), unique.end());
    for (int32_t id : unique) {
      if (id < 0 || id >= V) continue;
      float& v = x[size_t(id)];
      v = v > 0 ? v / params_.repetition_penalty : v * params_.repetition_penalty;
    }
  }
  if (params_.greedy) return x;
  if (params_.top_k > 0 && params_.top_k < V) {
    // logits[logits < topk(logits, k)[-1]] = -inf: ties with the k-th stay.
    std::vector<float> sorted(x);
    std::nth_element(sorted.begin(), sorted.begin() + (params_.top_k - 1), sorted.end(), std::greater<float>());
    const float kth = sorted[size_t(params_.top_k - 1)];
    for (float& v : x) {
      if (v < kth) v = neg_inf;
    }
  }
  if (params_.top_p < 1.0f) {
    // Keep the smallest prefix of the sorted distribution whose cumulative
    // probability exceeds top_p; the most likely token always stays.
    std::vector<int64_t> order(static_cast<size_t>(V));
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return x[size_t(a)] > x[size_t(b)]; });
    std::vector<float> probs(static_cast<size_t>(V));
    for (int64_t i = 0; i < V; ++i) probs[size_t(i)] = x[size_t(order[size_t(i)])];
    softmax(probs);
    float cumulative = 0.0f;
    bool previous_over = false;  // mask[i] = cumsum[i - 1] > top_p
    for (int64_t i = 0; i < V; ++i) {
      if (i > 0 && previous_over) x[size_t(order[size_t(i)])] = neg_inf;
      cumulative += probs[size_t(i)];
      previous_over = cumulative > params_.top_p;
    }
  }
  return x;
}

std::vector<float> Sampler::probabilities(const float* logits, int64_t V, const std::vector<int32_t>& seen) const {
  std::vector<float> x = filtered_logits(logits, V, seen);
  softmax(x);
  return x;
}

int32_t Sampler::next(const float* logits, int64_t V, const std::vector<int32_t>& seen) {
  if (V <= 0) throw std::invalid_argument("no logits to sample from");
  const std::vector<float> x = filtered_logits(logits, V, seen);
  if (params_.greedy) return int32_t(std::max_element(x.begin(), x.end()) - x.begin());  // argmax, first on ties
  std::vector<float> probs(x);
  softmax(probs);
  const float u = rng_.uniform_unit();
  float cumulative = 0.0f;
  int32_t last_nonzero = 0;
  for (int64_t i = 0; i < V; ++i) {
    if (probs[size_t(i)] <= 0) continue;
    last_nonzero = int32_t(i);
    cumulative += probs[size_t(i)];
    if (u < cumulative) return int32_t(i);
  }
  return last_nonzero;  // rounding left cumulative just under u
}

}  // namespace minimind
