// The kinds of errors that used to be bare sentences: each names what is
// wrong and carries the numbers of its message, so the page can word it in
// the reader's language; and every kind thrown here is in the registry
// (util/error_kinds.h) the page's catalogue is checked against.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "checkpoint/model_export.h"
#include "checkpoint/model_loader.h"
#include "model/generation.h"
#include "model/model.h"
#include "model/presets.h"
#include "model/sampler.h"
#include "tensors/model_config.h"
#include "train/pretrain_data.h"
#include "train/trainer.h"
#include "util/error.h"
#include "util/error_kinds.h"

using namespace minimind;

namespace {

bool registered(const std::string& kind) {
  const auto& kinds = error_kinds();
  return std::binary_search(kinds.begin(), kinds.end(), kind);
}

template <typename F>
Error thrown(F run) {
  try {
    run();
  } catch (const Error& e) {
    CHECK(registered(e.kind()));
    return e;
  }
  FAIL("no minimind::Error was thrown");
  return Error("", {}, "");
}

template <typename Values>
int64_t integer(const Values& values, const std::string& name) {
  for (const auto& [key, v] : values) {
    if (key == name) return std::get<int64_t>(v);
  }
  FAIL("no value " + name);
  return 0;
}

template <typename Values>
std::string text(const Values& values, const std::string& name) {
  for (const auto& [key, v] : values) {
    if (key == name) return std::get<std::string>(v);
  }
  FAIL("no value " + name);
  return "";
}

}  // namespace

TEST_CASE("error kinds: the registry is sorted, unique and names families", "[errors]") {
  const auto& kinds = error_kinds();
  REQUIRE(kinds.size() > 100);
  CHECK(std::is_sorted(kinds.begin(), kinds.end()));
  CHECK(std::adjacent_find(kinds.begin(), kinds.end()) == kinds.end());
  CHECK(registered("input.too_long"));
  CHECK(registered("weights.misfit"));
  CHECK_FALSE(registered("input.too_longer"));
}

TEST_CASE("error kinds: forward, generation and sampling limits carry their numbers", "[errors]") {
  ModelConfig short_context = preset_config("lab-a");
  short_context.max_position_embeddings = 4;
  const Model model = Model::random(short_context, 2);
  Error e = thrown([&] { model.forward({1, 2, 3, 4, 5}); });
  CHECK(e.kind() == "input.too_long");
  CHECK(integer(e.values(), "tokens") == 5);
  CHECK(integer(e.values(), "limit") == 4);

  e = thrown([&] { model.forward({}); });
  CHECK(e.kind() == "input.empty");

  e = thrown([&] { Generator(model, {}, SamplingParams{}); });
  CHECK(e.kind() == "generation.empty_prompt");

  SamplingParams hot;
  hot.greedy = false;
  hot.temperature = -0.5f;
  e = thrown([&] { validate_sampling(hot); });
  CHECK(e.kind() == "sampling.temperature");
  CHECK(std::get<double>(*e.value("value")) == -0.5);

  e = thrown([&] { preset_config("lab-z"); });
  CHECK(e.kind() == "preset.unknown");
  CHECK(text(e.values(), "name") == "lab-z");
  CHECK(text(e.values(), "known").find("lab-a") != std::string::npos);
  // After every refusal the model still runs.
  CHECK(model.forward({1, 2, 3}).rows() == 3);
}

TEST_CASE("error kinds: training options and data name the option, the line and the value", "[errors]") {
  Model model = Model::random(preset_config("lab-a"), 3);
  TrainerOptions options;
  options.batch_size = 0;
  Error e = thrown([&] { Trainer(model, PretrainDataset::from_sequences({{1, 2, 3}}), options); });
  CHECK(e.kind() == "train.option_below_one");
  CHECK(text(e.values(), "key") == "batch_size");
  CHECK(integer(e.values(), "value") == 0);

  e = thrown(
      [&] { PretrainDataset::parse("{\"ids\": [1, 2]}\n{\"ids\": [1, -2]}\n", DataFormat::Jsonl, nullptr, {}); });
  CHECK(e.kind() == "pretrain.bad_id");
  CHECK(integer(e.values(), "line") == 2);
  CHECK(integer(e.values(), "index") == 1);
  CHECK(text(e.values(), "value") == "-2");

  DataOptions short_rows;
  short_rows.max_seq_len = model.config().max_position_embeddings + 1;
  e = thrown([&] { Trainer(model, PretrainDataset::from_sequences({{1, 2, 3}}, short_rows)); });
  CHECK(e.kind() == "train.seq_len_too_long");
  CHECK(integer(e.values(), "max_seq_len") == model.config().max_position_embeddings + 1);
  CHECK(integer(e.values(), "limit") == model.config().max_position_embeddings);
}

TEST_CASE("error kinds: a config for other weights says the key it contradicts first", "[errors]") {
  const ModelConfig a = preset_config("lab-a"), b = preset_config("lab-b");
  REQUIRE(a.hidden_size != b.hidden_size);
  const std::vector<uint8_t> file = model_safetensors(Model::random(b, 1), DType::F32);
  try {
    model_from_safetensors(a, file.data(), file.size());
    FAIL("loaded lab-b's weights with lab-a's config");
  } catch (const ConfigError& e) {
    const auto& problems = e.kinded_problems();
    REQUIRE(problems.size() > 2);
    CHECK(problems[0].kind == "weights.misfit");
    CHECK(text(problems[0].values, "key") == "hidden_size");
    CHECK(integer(problems[0].values, "config") == a.hidden_size);
    CHECK(integer(problems[0].values, "weights") == b.hidden_size);
    const std::string first_line = std::string(e.what()).substr(0, std::string(e.what()).find('\n'));
    CHECK(first_line == "config.json says hidden_size " + std::to_string(a.hidden_size) + ", the weights have " +
                            std::to_string(b.hidden_size) + ": this config is not for these weights");
    // Every other problem is kinded too: a shape with the tensor's name.
    for (const Problem& p : problems) CHECK(registered(p.kind));
    CHECK(problems[1].kind == "weights.shape_mismatch");
    CHECK(text(problems[1].values, "tensor") == "model.embed_tokens.weight");
  }
  // Only the layer count differs: that is the cause named.
  ModelConfig deeper = a;
  deeper.num_hidden_layers = a.num_hidden_layers + 1;
  const std::vector<uint8_t> same = model_safetensors(Model::random(a, 1), DType::F32);
  try {
    model_from_safetensors(deeper, same.data(), same.size());
    FAIL("loaded weights with one layer too few");
  } catch (const ConfigError& e) {
    REQUIRE_FALSE(e.kinded_problems().empty());
    const Problem& cause = e.kinded_problems()[0];
    CHECK(cause.kind == "weights.misfit");
    CHECK(text(cause.values, "key") == "num_hidden_layers");
    CHECK(integer(cause.values, "config") == a.num_hidden_layers + 1);
    CHECK(integer(cause.values, "weights") == a.num_hidden_layers);
  }
}
