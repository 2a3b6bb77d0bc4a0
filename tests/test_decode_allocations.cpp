// The decode loop allocates nothing: once a generator has made room for the
// tokens it will produce, each step (one-token forward through the cache,
// then the choice of the next token) runs on memory it already holds.
#include <catch2/catch.hpp>

#include "allocation_counter.h"
#include "fixtures.h"
#include "model/generation.h"
#include "model/presets.h"

using namespace minimind;
using namespace minimind::testing;

namespace {

constexpr int64_t kPrompt = 7, kSteps = 24;

std::vector<int32_t> prompt_for(const Model& model) {
  std::vector<int32_t> ids;
  for (int64_t i = 0; i < kPrompt; ++i) ids.push_back(int32_t((5 + 11 * i * i) % model.config().vocab_size));
  return ids;
}

// Allocations made by kSteps steps, after one warm-up step.
int64_t allocations_of_steps(const Model& model, const SamplingParams& params) {
  Generator generator(model, prompt_for(model), params, nullptr, kPrompt + kSteps + 1);
  generator.step();
  int64_t count = 0;
  {
    const AllocationCounter counter;
    for (int64_t s = 0; s < kSteps && !generator.finished(); ++s) generator.step();
    count = counter.count();
  }
  return count;
}

SamplingParams sampled() {
  SamplingParams p;
  p.top_k = 5;
  p.top_p = 0.9f;
  p.repetition_penalty = 1.3f;
  p.seed = 3;
  return p;
}

SamplingParams greedy() {
  SamplingParams p;
  p.greedy = true;
  return p;
}

}  // namespace

TEST_CASE("the counter sees allocations", "[decode][allocations]") {
  const AllocationCounter counter;
  std::vector<int> grown;
  for (int i = 0; i < 100; ++i) grown.push_back(i);
  CHECK(counter.count() > 0);
}

TEST_CASE("decode steps allocate nothing", "[decode][allocations]") {
  for (const std::string preset : {"lab-a", "lab-b"}) {
    const Model model = Model::random(preset_config(preset), 4);
    INFO(preset);
    CHECK(allocations_of_steps(model, greedy()) == 0);
    CHECK(allocations_of_steps(model, sampled()) == 0);
  }
  // Every reference architecture: generation 2 and 3, MoE, YaRN, untied head.
  for (const std::string& name : golden_case_names()) {
    const GoldenCase c = load_golden_case(name);
    INFO(name);
    CHECK(allocations_of_steps(*c.model, greedy()) == 0);
    CHECK(allocations_of_steps(*c.model, sampled()) == 0);
  }
}

TEST_CASE("steps past the reserved room still run, and grow the cache", "[decode][allocations]") {
  const Model model = Model::random(preset_config("lab-a"), 4);
  Generator generator(model, prompt_for(model), greedy(), nullptr, kPrompt + 2);
  for (int i = 0; i < 40; ++i) generator.step();
  REQUIRE_FALSE(generator.finished());
  CHECK(generator.cache().length() == int64_t(generator.ids().size()));
  // The same tokens as a generator that made room for all of them.
  Generator roomy(model, prompt_for(model), greedy(), nullptr, kPrompt + 40);
  for (int i = 0; i < 40; ++i) roomy.step();
  CHECK(roomy.ids() == generator.ids());
}
