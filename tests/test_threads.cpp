// Threads split work by output rows (util/thread_pool.h): the thread pool
// runs every task once and rethrows a task's exception; and the products,
// a long prompt's forward and whole training steps give the same bits on
// 1, 2 and 4 threads.
#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <mutex>
#include <random>
#include <set>
#include <stdexcept>
#include <thread>

#include "model/model.h"
#include "ops/linear.h"
#include "tensors/trace.h"
#include "train/trainer.h"
#include "util/thread_pool.h"

using namespace minimind;

namespace {

// Restores the thread count a test changed.
struct ThreadCount {
  explicit ThreadCount(int n) { set_thread_count(n); }
  ~ThreadCount() { set_thread_count(1); }
};

std::vector<float> random_values(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> v(n);
  for (float& x : v) x = normal(rng);
  return v;
}

// A generation-3 model big enough that its products and attention split.
ModelConfig splitting_config() {
  ModelConfig c;
  c.hidden_size = 128;
  c.num_hidden_layers = 2;
  c.num_attention_heads = 8;
  c.num_key_value_heads = 2;
  c.head_dim = 16;
  c.intermediate_size = 384;
  c.vocab_size = 1024;
  return c;
}

const std::vector<int> kThreadCounts = {1, 2, 4};

}  // namespace

TEST_CASE("the thread pool runs every task once, on several threads, and rethrows", "[threads]") {
  if (!threads_supported()) {
    set_thread_count(4);
    CHECK(thread_count() == 1);  // a build without threads runs everything on the caller
    return;
  }
  const ThreadCount threads(4);
  REQUIRE(thread_count() == 4);
  std::vector<std::atomic<int>> runs(1000);
  std::mutex mutex;
  std::set<std::thread::id> ids;
  parallel_for(int64_t(runs.size()), [&](int64_t i) {
    runs[size_t(i)]++;
    if (i % 100 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(2));
    std::lock_guard<std::mutex> lock(mutex);
    ids.insert(std::this_thread::get_id());
  });
  for (const auto& r : runs) CHECK(r.load() == 1);
  CHECK(ids.size() > 1);
  // A nested parallel_for runs on its task's thread; the outer one still finishes.
  std::atomic<int64_t> inner{0};
  parallel_for(8, [&](int64_t) { parallel_for(10, [&](int64_t) { inner++; }); });
  CHECK(inner.load() == 80);
  // An exception in a task reaches the caller; the pool keeps working.
  CHECK_THROWS_WITH(parallel_for(50,
                                 [](int64_t i) {
                                   if (i == 17) throw std::runtime_error("task 17 failed");
                                 }),
                    "task 17 failed");
  std::atomic<int64_t> sum{0};
  parallel_for(100, [&](int64_t i) { sum += i; });
  CHECK(sum.load() == 4950);
}

TEST_CASE("split_seconds counts the wall time of split parallel_fors only", "[threads]") {
  const auto sleepy = [](int64_t) { std::this_thread::sleep_for(std::chrono::milliseconds(5)); };
  {
    ThreadCount one(1);
    const double before = split_seconds();
    parallel_for(4, sleepy);  // 20 ms on the caller alone: not split
    CHECK(split_seconds() == before);
  }
  ThreadCount two(2);
  const double before = split_seconds();
  parallel_for(1, sleepy);  // one task: runs on the caller, not split
  CHECK(split_seconds() == before);
  if (!threads_supported()) {  // a build without threads (Wasm without -pthread) never splits
    parallel_for(4, sleepy);
    CHECK(split_seconds() == before);
    return;
  }
  const auto start = std::chrono::steady_clock::now();
  parallel_for(4, sleepy);  // two threads, two tasks each: about 10 ms
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double split = split_seconds() - before;
  CHECK(split >= 0.009);
  CHECK(split <= wall);
}

TEST_CASE("split_range covers 0 to n in aligned, near-equal parts", "[threads]") {
  for (int64_t n : {0, 1, 7, 8, 33, 800}) {
    for (int64_t parts : {1, 2, 3, 4}) {
      for (int64_t align : {1, 4}) {
        int64_t next = 0;
        for (int64_t part = 0; part < parts; ++part) {
          const Range r = split_range(n, parts, part, align);
          CHECK(r.begin == next);
          CHECK(r.end >= r.begin);
          if (r.end < n) CHECK(r.end % align == 0);
          next = r.end;
        }
        CHECK(next == n);
      }
    }
  }
}

TEST_CASE("products give the same bits on 1, 2 and 4 threads", "[threads]") {
  for (WeightPacking packing : {WeightPacking::Narrowest, WeightPacking::Float32}) {
    for (int64_t T : {1, 3, 4, 37, 130}) {
      const int64_t out = 300, in = 96;  // 38 panels, the last one partial
      std::vector<float> w = random_values(size_t(out * in), 1);
      if (packing == WeightPacking::Narrowest) {
        for (float& v : w) v = float(int(v * 64)) / 64;  // float16 values: stored as F16
      }
      const WeightMatrix W(w.data(), out, in, packing);
      const std::vector<float> x = random_values(size_t(T * in), 2);
      std::vector<std::vector<float>> results;
      for (int threads : kThreadCounts) {
        const ThreadCount count(threads);
        std::vector<float> y(size_t(T * out), -1.0f);
        linear_rows(x.data(), T, in, W, y.data(), out);
        results.push_back(y);
      }
      INFO("T " << T << ", storage " << weight_storage_name(W.storage()));
      CHECK(results[1] == results[0]);
      CHECK(results[2] == results[0]);
    }
  }
}

TEST_CASE("a long prompt's logits and attention are the same on 1, 2 and 4 threads", "[threads]") {
  const Model model = Model::random(splitting_config(), 5);
  std::vector<int32_t> ids(200);
  for (size_t i = 0; i < ids.size(); ++i) ids[i] = int32_t((i * 37 + 11) % 1024);
  std::vector<Matrix> logits;
  std::vector<std::vector<float>> weights;
  for (int threads : kThreadCounts) {
    const ThreadCount count(threads);
    TraceRequest request;
    request.layers = {1};
    request.stages = {stage::kAttnWeights};
    Trace trace(request, 1);
    logits.push_back(model.forward(ids, nullptr, {}, {}, &trace));
    weights.push_back(trace.get(1, stage::kAttnWeights)->data);
  }
  CHECK(logits[1] == logits[0]);
  CHECK(logits[2] == logits[0]);
  CHECK(weights[1] == weights[0]);
  CHECK(weights[2] == weights[0]);
}

TEST_CASE("training steps give the same loss and weights on 1, 2 and 4 threads", "[threads][train]") {
  std::vector<std::vector<int32_t>> sequences;
  std::mt19937 rng(3);
  for (int s = 0; s < 24; ++s) {
    std::vector<int32_t> seq(size_t(20 + s % 30));
    for (int32_t& id : seq) id = int32_t(3 + rng() % 1000);
    sequences.push_back(seq);
  }
  DataOptions data;
  data.max_seq_len = 48;
  std::vector<std::vector<double>> losses;
  std::vector<std::vector<Parameter>> params;
  for (int threads : kThreadCounts) {
    const ThreadCount count(threads);
    Model model = Model::random(splitting_config(), 9, {}, WeightPacking::Narrowest, RandomInit::MiniMind);
    TrainerOptions o;
    o.batch_size = 8;
    o.accumulation_steps = 1;
    o.learning_rate = 1e-3;
    Trainer trainer(model, PretrainDataset::from_sequences(sequences, data), o);
    std::vector<double> l;
    for (int i = 0; i < 3; ++i) l.push_back(trainer.step().loss);
    losses.push_back(l);
    params.push_back(trainer.parameters());
  }
  CHECK(losses[1] == losses[0]);
  CHECK(losses[2] == losses[0]);
  for (size_t i = 0; i < params[0].size(); ++i) {
    INFO(params[0][i].name);
    CHECK(params[1][i].value == params[0][i].value);
    CHECK(params[2][i].value == params[0][i].value);
  }
}
