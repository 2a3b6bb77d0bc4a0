// Whole-model invariants: attention rows, causal mask, GQA sharing, the
// lesson-11 lab shapes, cached decoding, the seeded initialisation recipe,
// trace bounds, and that errors leave the model usable.
#include <catch2/catch.hpp>
#include <cmath>
#include <nlohmann/json.hpp>

#include "compare.h"
#include "fixtures.h"
#include "lesson/lab_record.h"
#include "model/generation.h"
#include "model/presets.h"

using namespace minimind;
using namespace minimind::testing;

namespace {

std::vector<int32_t> some_ids(int64_t n, int64_t vocab, int32_t offset = 3) {
  std::vector<int32_t> ids;
  for (int64_t i = 0; i < n; ++i) ids.push_back(int32_t((offset + 7 * i * i + 3 * i) % vocab));
  return ids;
}

TraceRequest layers_and_stages(std::vector<int64_t> layers, std::vector<std::string> stages) {
  TraceRequest r;
  r.layers = std::move(layers);
  r.stages = std::move(stages);
  return r;
}

}  // namespace

TEST_CASE("attention rows sum to 1 and the future gets exactly 0", "[model][invariants]") {
  for (const std::string preset : {"lab-a", "lab-b"}) {
    const Model model = Model::random(preset_config(preset), 7);
    const int64_t T = 9, H = model.config().num_attention_heads;
    Trace trace(layers_and_stages({0, 1}, {stage::kAttnWeights}), 1);
    model.forward(some_ids(T, model.config().vocab_size), nullptr, {}, {}, &trace);
    for (int64_t l = 0; l < 2; ++l) {
      const Tensor& w = *trace.get(l, stage::kAttnWeights);  // [1, H, T, T]
      REQUIRE(w.shape == Shape{1, H, T, T});
      for (int64_t h = 0; h < H; ++h) {
        for (int64_t i = 0; i < T; ++i) {
          double sum = 0;
          for (int64_t j = 0; j < T; ++j) {
            const float p = w.data[size_t((h * T + i) * T + j)];
            if (j > i) REQUIRE(p == 0.0f);  // exactly 0, not merely small
            sum += p;
          }
          CHECK(sum == Approx(1.0).margin(1e-6));
        }
      }
    }
  }
}

TEST_CASE("the masked scores hold -inf above the diagonal, and turning the mask off leaks the future",
          "[model][invariants]") {
  const Model model = Model::random(preset_config("lab-a"), 1);
  const int64_t T = 5;
  Trace masked(layers_and_stages({0}, {stage::kScoresMasked}), 1);
  model.forward(some_ids(T, 128), nullptr, {}, {}, &masked);
  const Tensor& s = *masked.get(0, stage::kScoresMasked);
  CHECK(std::isinf(s.data[1]));
  CHECK(s.data[1] < 0);
  CHECK(std::isfinite(s.data[0]));

  ForwardOptions no_mask;
  no_mask.attention.causal_mask = false;
  Trace leaked(layers_and_stages({0}, {stage::kAttnWeights}), 1);
  model.forward(some_ids(T, 128), nullptr, {}, no_mask, &leaked);
  double future = 0;
  const Tensor& w = *leaked.get(0, stage::kAttnWeights);
  for (int64_t i = 0; i < T; ++i) {
    for (int64_t j = i + 1; j < T; ++j) future += w.data[size_t(i * T + j)];
  }
  CHECK(future > 0.1);
}

TEST_CASE("q heads of one GQA group read the same keys and values", "[model][invariants]") {
  const ModelConfig config = preset_config("lab-b");  // 6 q heads, 3 kv heads: R = 2
  const Model model = Model::random(config, 3);
  const int64_t T = 6, H = 6, Dh = config.head_dim, R = config.n_rep();
  Trace trace(layers_and_stages({0}, {stage::kQRope, stage::kKRope, stage::kScoresRaw}), 1);
  model.forward(some_ids(T, config.vocab_size), nullptr, {}, {}, &trace);
  const Tensor& q = *trace.get(0, stage::kQRope);      // [1, T, H, Dh]
  const Tensor& k = *trace.get(0, stage::kKRope);      // [1, T, Hkv, Dh]
  const Tensor& s = *trace.get(0, stage::kScoresRaw);  // [1, H, T, T]
  for (int64_t h = 0; h < H; ++h) {
    for (int64_t i = 0; i < T; ++i) {
      for (int64_t j = 0; j < T; ++j) {
        // Recompute q·k with kv head h / R: the score must be that dot product
        // (and not the one with any other kv head).
        double dot = 0;
        for (int64_t d = 0; d < Dh; ++d) {
          dot += double(q.data[size_t((i * H + h) * Dh + d)]) * k.data[size_t((j * (H / R) + h / R) * Dh + d)];
        }
        REQUIRE(s.data[size_t((h * T + i) * T + j)] == Approx(dot).margin(1e-4));
      }
    }
  }
}

TEST_CASE("lesson 11 lab records: the shapes the lesson prints", "[model][lab]") {
  const std::string a = lesson11_lab_record("lab-a");
  CHECK_THAT(a, Catch::Contains("x.shape=(2, 5, 64)"));
  CHECK_THAT(a, Catch::Contains("q_proj(x).shape=(2, 5, 64)"));
  CHECK_THAT(a, Catch::Contains("k_proj(x).shape=(2, 5, 32)"));
  CHECK_THAT(a, Catch::Contains("v_proj(x).shape=(2, 5, 32)"));
  CHECK_THAT(a, Catch::Contains("scores.shape=(2, 4, 5, 5)"));
  CHECK_THAT(a, Catch::Contains("future_attention_mass_for_batch0_head0=0.0000000000"));
  const std::string b = lesson11_lab_record("lab-b");
  CHECK_THAT(b, Catch::Contains("head_dim=16"));
  CHECK_THAT(b, Catch::Contains("q_proj(x).shape=(2, 5, 96)"));
  CHECK_THAT(b, Catch::Contains("k_proj(x).shape=(2, 5, 48)"));
  CHECK_THAT(b, Catch::Contains("xq.shape=(2, 5, 6, 16)"));
  CHECK_THAT(b, Catch::Contains("xk after repeat shape=(2, 5, 6, 16)"));
  CHECK_THAT(b, Catch::Contains("scores.shape=(2, 6, 5, 5)"));
  // The hand-written attention and the module add in the same order: the
  // same floats, as the lesson's PyTorch lab prints.
  CHECK_THAT(a, Catch::Contains("manual_vs_module_max_abs_diff=0.000000000000"));
  for (const uint64_t seed : {1, 2, 3}) {
    CHECK_THAT(lesson11_lab_record("lab-a", seed), Catch::Contains("manual_vs_module_max_abs_diff=0.000000000000"));
    CHECK_THAT(lesson11_lab_record("lab-b", seed), Catch::Contains("manual_vs_module_max_abs_diff=0.000000000000"));
  }
}

TEST_CASE("cached decoding equals full recomputation", "[model][cache]") {
  for (const std::string preset : {"lab-a", "lab-b"}) {
    const Model model = Model::random(preset_config(preset), 11);
    const std::vector<int32_t> ids = some_ids(12, model.config().vocab_size);
    const Matrix full = model.forward(ids);  // [12, V]
    // Prefill 5, then 1, then 2, then one at a time.
    KVCache cache = model.make_cache();
    const std::vector<std::pair<size_t, size_t>> chunks = {{0, 5}, {5, 6}, {6, 8}, {8, 9}, {9, 10}, {10, 11}, {11, 12}};
    double max_diff = 0;
    for (const auto& [begin, end] : chunks) {
      const Matrix part =
          model.forward(std::vector<int32_t>(ids.begin() + long(begin), ids.begin() + long(end)), &cache);
      max_diff =
          std::max(max_diff, double((part - full.middleRows(long(begin), long(end - begin))).cwiseAbs().maxCoeff()));
    }
    INFO(preset << " max abs diff " << max_diff);
    CHECK(max_diff <= 1e-5);
    CHECK(cache.length() == 12);
    CHECK(cache.bytes() == 2 * 12 * model.config().kv_dim() * 4 * model.config().num_hidden_layers);
  }
  // And on the reference models, MoE included.
  for (const std::string& name : golden_case_names()) {
    const GoldenCase c = load_golden_case(name);
    const std::vector<int32_t> ids = c.rows("input_ids")[0];
    const Matrix full = c.model->forward(ids);
    KVCache cache = c.model->make_cache();
    Matrix stepwise(full.rows(), full.cols());
    for (size_t t = 0; t < ids.size(); ++t) stepwise.row(long(t)) = c.model->forward({ids[t]}, &cache);
    const double diff = (stepwise - full).cwiseAbs().maxCoeff();
    std::printf("cached vs full %-16s max_abs_diff=%.3g\n", name.c_str(), diff);
    INFO(name);
    CHECK(diff <= 1e-5);
  }
}

TEST_CASE("generate() runs one forward per token it feeds: the last token is chosen, not fed", "[model][generation]") {
  const Model model = Model::random(preset_config("lab-b"), 8);
  const std::vector<int32_t> prompt = some_ids(6, model.config().vocab_size);
  SamplingParams greedy;
  greedy.greedy = true;
  Generator stepwise(model, prompt, greedy);
  std::vector<int32_t> expected;
  for (int i = 0; i < 5; ++i) expected.push_back(stepwise.step().token);
  CHECK(generate(model, prompt, 5, greedy) == expected);
  CHECK(generate(model, prompt, 1, greedy) == std::vector<int32_t>{expected[0]});
  CHECK(generate(model, prompt, 0, greedy).empty());
  Generator last(model, prompt, greedy);
  last.step();
  CHECK(last.cache().length() == 7);
  CHECK(last.final_step().token == expected[1]);
  CHECK(last.cache().length() == 7);  // the final token was not fed
  CHECK(last.finished());
  CHECK_THROWS_WITH(last.step(), Catch::Contains("already ended"));
}

TEST_CASE("float16 storage halves the weights' memory and changes no result", "[model][storage]") {
  for (const std::string preset : {"lab-a", "lab-b"}) {
    CAPTURE(preset);
    const ModelConfig config = preset_config(preset);
    const Model narrow = Model::random(config, 5), wide = Model::random(config, 5, {}, WeightPacking::Float32);
    const StoredWeights a = stored_weights(config, narrow.weights()), b = stored_weights(config, wide.weights());
    CHECK(a.tensors_by_storage.count("F32") == 1);  // only the norms stay float32
    CHECK(a.tensors_by_storage.at("F16") > 0);
    CHECK(b.tensors_by_storage.count("F16") == 0);
    CHECK(double(a.bytes) < 0.51 * double(b.bytes) + 4.0 * double(config.hidden_size * 4 * config.num_hidden_layers));
    const std::vector<int32_t> ids = some_ids(9, config.vocab_size);
    const Matrix x = narrow.forward(ids), y = wide.forward(ids);
    REQUIRE(x.rows() == 9);
    CHECK(x == y);  // bit for bit, prefill (many rows)
    KVCache ca = narrow.make_cache(), cb = wide.make_cache();
    for (const int32_t id : ids) CHECK(narrow.forward({id}, &ca) == wide.forward({id}, &cb));  // and decoding
  }
}

TEST_CASE("a decode step's attention row is the last row of the full matrix", "[model][cache]") {
  const Model model = Model::random(preset_config("lab-a"), 5);
  const std::vector<int32_t> ids = some_ids(7, 128);
  Trace full(layers_and_stages({1}, {stage::kAttnWeights}), 1);
  model.forward(ids, nullptr, {}, {}, &full);
  KVCache cache = model.make_cache();
  model.forward(std::vector<int32_t>(ids.begin(), ids.end() - 1), &cache);
  Trace step(layers_and_stages({1}, {stage::kAttnWeights}), 1);
  model.forward({ids.back()}, &cache, {}, {}, &step);
  const Tensor& row = *step.get(1, stage::kAttnWeights);  // [1, H, 1, 7]
  REQUIRE(row.shape == Shape{1, 4, 1, 7});
  const Tensor& matrix = *full.get(1, stage::kAttnWeights);  // [1, H, 7, 7]
  for (int64_t h = 0; h < 4; ++h) {
    for (int64_t j = 0; j < 7; ++j) {
      CHECK(row.data[size_t(h * 7 + j)] == Approx(matrix.data[size_t((h * 7 + 6) * 7 + j)]).margin(1e-6));
    }
  }
}

TEST_CASE("the seeded initialisation follows the documented recipe", "[model][init]") {
  // tests/fixtures/random_init.json is written by an independent numpy
  // implementation of the recipe in tests/make_fixtures.py.
  const auto expected = nlohmann::json::parse(read_text(fixture_path("random_init.json")));
  REQUIRE(expected["format_version"] == 1);
  const ModelConfig config = preset_config(expected["preset"].get<std::string>());
  ModelWeights weights = random_weights(config, expected["seed"].get<uint64_t>());
  const auto slots = weight_slots(config, weights);
  REQUIRE(slots.size() == expected["tensors"].size());
  for (const WeightSlot& slot : slots) {
    INFO(slot.name);
    const auto& e = expected["tensors"].at(slot.name);
    CHECK(slot.shape == e["shape"].get<Shape>());
    const auto first = e["first"].get<std::vector<double>>();
    const std::vector<float> values = slot.values();
    for (size_t i = 0; i < first.size(); ++i) CHECK(double(values[i]) == first[i]);  // bit-exact
    double sum = 0;
    for (const float v : values) sum += v;
    CHECK(sum == Approx(e["sum"].get<double>()).epsilon(1e-12).margin(1e-9));
  }
  // Same seed, same weights; another seed, other weights.
  CHECK(random_weights(config, 42).embed_tokens == weights.embed_tokens);
  CHECK(random_weights(config, 43).embed_tokens != weights.embed_tokens);
}

TEST_CASE("the trace is opt-in and bounded", "[model][trace]") {
  const Model model = Model::random(preset_config("lab-a"), 2);
  const std::vector<int32_t> ids = some_ids(6, 128);
  Trace only_layer1(layers_and_stages({1}, {stage::kAttnWeights, stage::kQProj}), 1);
  model.forward(ids, nullptr, {}, {}, &only_layer1);
  CHECK(only_layer1.get(0, stage::kAttnWeights) == nullptr);
  CHECK(only_layer1.get(1, stage::kVProj) == nullptr);
  REQUIRE(only_layer1.get(1, stage::kQProj) != nullptr);
  CHECK(only_layer1.get(1, stage::kQProj)->shape == Shape{1, 6, 4, 16});
  CHECK(only_layer1.tensors().size() == 2);

  // Every stage of a layer when no stage is named, each with its shape.
  Trace everything(layers_and_stages({0}, {}), 1);
  model.forward(ids, nullptr, {}, {}, &everything);
  CHECK(everything.get(0, stage::kBlockInput)->shape == Shape{1, 6, 64});
  CHECK(everything.get(0, stage::kQNorm)->shape == Shape{1, 6, 4, 16});
  CHECK(everything.get(0, stage::kKRope)->shape == Shape{1, 6, 2, 16});
  CHECK(everything.get(0, stage::kScoresScaled)->shape == Shape{1, 4, 6, 6});
  CHECK(everything.get(0, stage::kAttnConcat)->shape == Shape{1, 6, 64});
  CHECK(everything.get(0, stage::kFfnAct)->shape == Shape{1, 6, 256});
  CHECK(everything.get(kModelLevel, stage::kLogits)->shape == Shape{1, 6, 128});

  // A bound too small is refused with a message, and the model keeps working.
  TraceRequest tiny = layers_and_stages({0, 1}, {});
  tiny.max_floats = 1000;
  Trace bounded(tiny, 1);
  KVCache cache = model.make_cache();
  REQUIRE_THROWS_WITH(model.forward(ids, &cache, {}, {}, &bounded), Catch::Contains("trace would hold more than"));
  CHECK(cache.length() == 0);
  for (int64_t l = 0; l < 2; ++l) CHECK(cache.layer(l).length() == 0);
  CHECK_CLOSE(model.forward(ids, &cache).reshaped(), model.forward(ids).reshaped(), 0.0, 0.0);

  REQUIRE_THROWS_WITH(model.forward(ids, nullptr, {}, {}, &*std::make_unique<Trace>(layers_and_stages({2}, {}), 1)),
                      Catch::Contains("trace layer 2 is out of range"));
  REQUIRE_THROWS_WITH(model.forward(ids, nullptr, {}, {}, &*std::make_unique<Trace>(layers_and_stages({0}, {"qk"}), 1)),
                      Catch::Contains("unknown trace stage \"qk\""));
}

TEST_CASE("bad token input is refused with a clear message", "[model][errors]") {
  const Model model = Model::random(preset_config("lab-a"), 2);
  REQUIRE_THROWS_WITH(model.forward({}), Catch::Contains("input is empty"));
  REQUIRE_THROWS_WITH(model.forward({5, 128}), Catch::Contains("token id 128 at position 1 is outside the vocabulary"));
  REQUIRE_THROWS_WITH(model.forward({-1}), Catch::Contains("token id -1"));
  REQUIRE_THROWS_WITH(model.forward_batch({{1, 2}, {3}}), Catch::Contains("same length"));
  REQUIRE_THROWS_WITH(model.forward({1, 2, 3}, nullptr, {1, 1}), Catch::Contains("attention_mask has 2 entries"));
  ModelConfig short_context = preset_config("lab-a");
  short_context.max_position_embeddings = 4;
  const Model small = Model::random(short_context, 2);
  REQUIRE_THROWS_WITH(small.forward({1, 2, 3, 4, 5}), Catch::Contains("exceed max_position_embeddings 4"));
  // After every refusal the same model still runs.
  CHECK(model.forward(some_ids(3, 128)).rows() == 3);
}

TEST_CASE("a model refuses weights of another shape, naming the tensor", "[model][errors]") {
  const ModelConfig a = preset_config("lab-a"), b = preset_config("lab-b");
  REQUIRE_THROWS_WITH(Model(a, random_weights(b, 0)),
                      Catch::Contains("tensor model.embed_tokens.weight has shape (128, 96), expected (128, 64)"));
  ModelConfig three_layers = a;
  three_layers.num_hidden_layers = 3;
  REQUIRE_THROWS_WITH(Model(three_layers, random_weights(a, 0)),
                      Catch::Contains("the weights hold 2 layers, the config calls for 3"));
  CHECK(Model(a, random_weights(a, 0)).forward({1, 2}).rows() == 2);
}

TEST_CASE("forward_into computes only the logit rows asked for, and the trace still gets all", "[model]") {
  const Model model = Model::random(preset_config("lab-a"), 5);
  const std::vector<int32_t> ids = some_ids(9, model.config().vocab_size);
  const int64_t T = int64_t(ids.size()), V = model.config().vocab_size;
  const Matrix full = model.forward(ids);  // [T, V]
  for (const int64_t rows : {int64_t(1), int64_t(3), T}) {
    CAPTURE(rows);
    KVCache cache = model.make_cache();
    ForwardWorkspace workspace;
    Trace trace(layers_and_stages({0}, {stage::kLogits}), 1);
    Matrix last(rows, V);
    model.forward_into(ids.data(), T, cache, workspace, last.data(), rows, nullptr, {}, &trace);
    CHECK_CLOSE(last.reshaped(), full.bottomRows(rows).reshaped(), 0.0, 0.0);
    REQUIRE(trace.get(kModelLevel, stage::kLogits));
    CHECK(trace.get(kModelLevel, stage::kLogits)->shape == Shape{1, T, V});
    CHECK(trace.get(kModelLevel, stage::kLogits)->data == std::vector<float>(full.data(), full.data() + full.size()));
  }
  KVCache cache = model.make_cache();
  ForwardWorkspace workspace;
  std::vector<float> out(size_t(V * (T + 1)));
  REQUIRE_THROWS_WITH(model.forward_into(ids.data(), T, cache, workspace, out.data(), 0),
                      Catch::Contains("logit_rows must be between 1 and the 9 tokens, got 0"));
  REQUIRE_THROWS_WITH(model.forward_into(ids.data(), T, cache, workspace, out.data(), T + 1),
                      Catch::Contains("got 10"));
  CHECK(cache.length() == 0);
}
