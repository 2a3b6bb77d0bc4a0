// The sampler against MiniMind's generate step (MINIMIND.md, "Generation"),
// re-implemented here in double: logits / temperature, repetition penalty
// on each seen id once, top-k, top-p, softmax; argmax when greedy.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <set>

#include "compare.h"
#include "model/sampler.h"
#include "util/error.h"
#include "util/random.h"

using namespace minimind;
using minimind::testing::first_mismatch;
using minimind::testing::message_contains;
using Doubles = std::vector<double>;

namespace {

const double kInf = std::numeric_limits<double>::infinity();

Doubles softmax(Doubles x) {
  const double max = *std::max_element(x.begin(), x.end());
  double sum = 0;
  for (double& v : x) sum += (v = std::exp(v - max));
  for (double& v : x) v /= sum;
  return x;
}

// One step of MiniMind's generate, as the distribution it samples from.
Doubles reference_probs(const std::vector<float>& logits, const SamplingParams& p, const std::vector<int32_t>& seen) {
  Doubles x(logits.begin(), logits.end());
  for (double& v : x) v /= p.temperature;
  for (const int32_t id : std::set<int32_t>(seen.begin(), seen.end())) {  // torch.unique(input_ids)
    double& v = x[size_t(id)];
    v = v > 0 ? v / p.repetition_penalty : v * p.repetition_penalty;
  }
  if (p.top_k > 0 && p.top_k < int64_t(x.size())) {
    Doubles sorted = x;
    std::sort(sorted.rbegin(), sorted.rend());
    const double kth = sorted[size_t(p.top_k - 1)];
    for (double& v : x)
      if (v < kth) v = -kInf;
  }
  if (p.top_p < 1) {
    std::vector<size_t> order(x.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return x[a] > x[b]; });
    Doubles sorted;
    for (size_t i : order) sorted.push_back(x[i]);
    const Doubles probs = softmax(sorted);
    double cumulative = probs[0];
    for (size_t i = 1; i < order.size(); ++i) {  // drop i when the tokens before it already exceed top_p
      if (cumulative > p.top_p) x[order[i]] = -kInf;
      cumulative += probs[i];
    }
  }
  return softmax(x);
}

std::vector<float> random_logits(int64_t V, uint64_t seed, double spread = 4.0) {
  std::mt19937_64 gen(seed);  // fully specified by the standard
  std::vector<float> x(static_cast<size_t>(V));
  for (float& v : x) v = float((double(gen() >> 11) * 0x1p-53 * 2 - 1) * spread);
  return x;
}

SamplingParams plain(float temperature = 1.0f) {
  SamplingParams p;
  p.temperature = temperature;
  p.top_k = 0;
  p.top_p = 1.0f;
  return p;
}

}  // namespace

TEST_CASE("greedy is the argmax, and the repetition penalty divides positive logits and multiplies negative ones",
          "[sampler]") {
  SamplingParams greedy;
  greedy.greedy = true;
  for (uint64_t seed = 0; seed < 20; ++seed) {
    const std::vector<float> x = random_logits(97, seed);
    size_t best = 0;
    for (size_t i = 1; i < x.size(); ++i)
      if (x[i] > x[best]) best = i;
    REQUIRE(Sampler(greedy).next(x.data(), 97, {}) == int32_t(best));
  }
  greedy.repetition_penalty = 1.3f;
  const std::vector<float> pos = {3.0f, 2.9f, 1.0f, -1.0f};  // 3 / 1.3 = 2.31 < 2.9
  CHECK(Sampler(greedy).next(pos.data(), 4, {}) == 0);
  CHECK(Sampler(greedy).next(pos.data(), 4, {0}) == 1);
  greedy.repetition_penalty = 2.0f;
  const std::vector<float> neg = {-0.5f, -0.6f, -3.0f};  // -0.5 * 2 = -1.0 < -0.6 (dividing would give -0.25)
  CHECK(Sampler(greedy).next(neg.data(), 3, {0}) == 1);
  greedy.repetition_penalty = 1.1f;
  const std::vector<float> twice = {3.0f, 2.7f};  // once: 2.73 > 2.7; twice it would be 2.48
  CHECK(Sampler(greedy).next(twice.data(), 2, {0, 0, 0}) == 0);

  SamplingParams p = plain();
  p.repetition_penalty = 1.5f;
  const std::vector<float> x = random_logits(40, 7);
  const std::vector<int32_t> seen = {3, 3, 17, 0, 39, 17, 25};
  REQUIRE(first_mismatch(Sampler(p).probabilities(x.data(), 40, seen), reference_probs(x, p, seen), 1e-7, 1e-5) == "");
  // Ids outside the vocabulary cannot be penalised and are ignored.
  REQUIRE(Sampler(p).probabilities(x.data(), 40, {-1, 40, 1000}) == Sampler(p).probabilities(x.data(), 40, {}));
}

TEST_CASE("temperature: the distribution is softmax(logits / T)", "[sampler]") {
  const std::vector<float> x = random_logits(64, 3);
  double previous_max = 0;
  for (const float T : {0.25f, 0.5f, 1.0f, 2.0f}) {
    CAPTURE(T);
    const std::vector<float> probs = Sampler(plain(T)).probabilities(x.data(), 64, {});
    Doubles scaled(x.begin(), x.end());
    for (double& v : scaled) v /= T;
    REQUIRE(first_mismatch(probs, softmax(scaled), 1e-7, 1e-5) == "");
    const double max = *std::max_element(probs.begin(), probs.end());
    if (previous_max > 0) CHECK(max < previous_max);  // hotter is flatter
    previous_max = max;
  }
}

TEST_CASE("top_k keeps exactly the k largest logits", "[sampler]") {
  const std::vector<float> x = random_logits(100, 11);
  std::vector<size_t> order(100);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return x[a] > x[b]; });
  for (const int64_t k : {1, 5, 20, 99, 100, 500}) {
    CAPTURE(k);
    SamplingParams p = plain();
    p.top_k = k;
    const std::vector<float> probs = Sampler(p).probabilities(x.data(), 100, {});
    const std::set<size_t> top(order.begin(), order.begin() + std::min<int64_t>(k, 100));
    for (size_t i = 0; i < 100; ++i) {
      CAPTURE(i);
      REQUIRE((probs[i] > 0) == (top.count(i) == 1));
    }
    REQUIRE(first_mismatch(probs, reference_probs(x, p, {}), 1e-7, 1e-5) == "");
  }
}

TEST_CASE("top_p keeps the smallest prefix whose probability exceeds p, and always the first", "[sampler]") {
  // Probabilities 0.5, 0.3, 0.15, 0.05, shuffled over the ids.
  const std::vector<float> x = {std::log(0.15f), std::log(0.5f), std::log(0.05f), std::log(0.3f)};
  const struct {
    float top_p;
    std::vector<int> kept;
  } cases[] = {{0.4f, {1}}, {0.7f, {1, 3}}, {0.85f, {1, 3, 0}}, {0.99f, {1, 3, 0, 2}}, {1e-6f, {1}}};
  for (const auto& c : cases) {
    CAPTURE(c.top_p);
    SamplingParams p = plain();
    p.top_p = c.top_p;
    const std::vector<float> probs = Sampler(p).probabilities(x.data(), 4, {});
    for (int i = 0; i < 4; ++i) {
      CAPTURE(i);
      REQUIRE((probs[size_t(i)] > 0) == (std::count(c.kept.begin(), c.kept.end(), i) == 1));
    }
    REQUIRE(first_mismatch(probs, reference_probs(x, p, {}), 1e-7, 1e-5) == "");
  }
  for (const float top_p : {0.3f, 0.6f, 0.9f}) {
    CAPTURE(top_p);
    const std::vector<float> y = random_logits(300, 5, 3.0);
    SamplingParams p = plain(0.9f);
    p.top_p = top_p;
    const std::vector<float> probs = Sampler(p).probabilities(y.data(), 300, {});
    const Doubles ref = reference_probs(y, p, {});
    const auto kept = std::count_if(ref.begin(), ref.end(), [](double v) { return v > 0; });
    REQUIRE(kept > 1);
    REQUIRE(kept < 300);
    REQUIRE(first_mismatch(probs, ref, 1e-7, 1e-5) == "");
  }
}

TEST_CASE("MiniMind's default settings together match the reference step", "[sampler]") {
  SamplingParams p;  // temperature 0.85, top_k 50, top_p 0.85
  p.repetition_penalty = 1.3f;
  const std::vector<float> x = random_logits(200, 21, 6.0);
  const std::vector<int32_t> seen = {5, 7, 7, 190, 42};
  REQUIRE(first_mismatch(Sampler(p).probabilities(x.data(), 200, seen), reference_probs(x, p, seen), 1e-7, 1e-5) == "");
}

TEST_CASE("sampling draws from probabilities() with the seeded generator", "[sampler]") {
  SamplingParams p;
  p.temperature = 0.8f;
  p.top_k = 6;
  p.top_p = 0.95f;
  const std::vector<float> x = random_logits(10, 9, 2.0);
  const std::vector<float> probs = Sampler(p).probabilities(x.data(), 10, {});

  // The documented draw: u = uniform_unit() of SplitMix64(seed), the first
  // id whose cumulative probability exceeds u (the same on every platform).
  for (const uint64_t seed : {0ull, 1ull, 12345ull}) {
    p.seed = seed;
    Sampler sampler(p);
    SplitMix64 rng(seed);
    for (int i = 0; i < 200; ++i) {
      const float u = rng.uniform_unit();
      float cumulative = 0;
      int32_t expected = 0;
      while (expected < 9 && !(u < (cumulative += probs[size_t(expected)]))) ++expected;
      while (probs[size_t(expected)] == 0) --expected;  // u past the rounded total: the last kept id
      REQUIRE(sampler.next(x.data(), 10, {}) == expected);
    }
  }

  // Same seed, same tokens; another seed, other tokens.
  const auto draw = [&](uint64_t seed) {
    SamplingParams q = plain();
    q.seed = seed;
    Sampler s(q);
    std::vector<int32_t> out;
    const std::vector<float> flat = random_logits(50, 2, 0.5);
    for (int i = 0; i < 100; ++i) out.push_back(s.next(flat.data(), 50, {}));
    return out;
  };
  CHECK(draw(7) == draw(7));
  CHECK(draw(7) != draw(8));

  // Frequencies over many draws match probabilities() within 5 sigma.
  p.seed = 99;
  Sampler sampler(p);
  const int N = 20000;
  std::vector<int> counts(10, 0);
  for (int i = 0; i < N; ++i) ++counts[size_t(sampler.next(x.data(), 10, {}))];
  for (size_t i = 0; i < 10; ++i) {
    CAPTURE(i, probs[i], counts[i]);
    if (probs[i] == 0) REQUIRE(counts[i] == 0);  // filtered tokens are never drawn
    const double sigma = std::sqrt(probs[i] * (1 - probs[i]) / N);
    CHECK(std::fabs(counts[i] / double(N) - probs[i]) <= 5 * sigma + 1e-9);
  }
  REQUIRE(std::count(probs.begin(), probs.end(), 0.0f) >= 4);  // the filters really removed tokens
}

TEST_CASE("bad sampling parameters are refused with the parameter's name", "[sampler][errors]") {
  const auto with = [](auto edit) {
    SamplingParams p;
    edit(p);
    return p;
  };
  const struct {
    SamplingParams params;
    const char* message;
  } cases[] = {
      {with([](SamplingParams& p) { p.temperature = 0; }), "temperature must be a positive number, got 0"},
      {with([](SamplingParams& p) { p.temperature = -1; }), "temperature must be a positive number"},
      {with([](SamplingParams& p) { p.temperature = NAN; }), "temperature must be a positive number"},
      {with([](SamplingParams& p) { p.top_p = 0; }), "top_p must be in (0, 1], got 0"},
      {with([](SamplingParams& p) { p.top_p = 1.5f; }), "top_p must be in (0, 1], got 1.5"},
      {with([](SamplingParams& p) { p.top_p = -0.1f; }), "top_p must be in (0, 1]"},
      {with([](SamplingParams& p) { p.top_k = -1; }), "top_k must be 0 (off) or positive, got -1"},
      {with([](SamplingParams& p) { p.repetition_penalty = 0; }), "repetition_penalty must be a positive number"},
      {with([](SamplingParams& p) { p.repetition_penalty = -1.2f; }), "repetition_penalty must be a positive number"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.message);
    REQUIRE_THROWS_MATCHES(validate_sampling(c.params), Error, message_contains(c.message));
    REQUIRE_THROWS_MATCHES(Sampler{c.params}, Error, message_contains(c.message));
  }
  REQUIRE_NOTHROW(validate_sampling(SamplingParams{}));
  const std::vector<float> none;
  Sampler sampler{SamplingParams{}};
  REQUIRE_THROWS_AS(sampler.next(none.data(), 0, {}), Error);
}
