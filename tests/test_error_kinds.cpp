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
#include "formats/pickle_reader.h"
#include "formats/safetensors.h"
#include "formats/zip_reader.h"
#include "model/generation.h"
#include "model/model.h"
#include "model/presets.h"
#include "model/sampler.h"
#include "tensors/model_config.h"
#include "tokenizer/tokenizer.h"
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

namespace {

// A safetensors file of `header` (JSON) followed by `data_bytes` zero bytes.
std::vector<uint8_t> safetensors_bytes(const std::string& header, size_t data_bytes) {
  std::vector<uint8_t> bytes(8 + header.size() + data_bytes, 0);
  const uint64_t length = header.size();
  for (int i = 0; i < 8; ++i) bytes[size_t(i)] = uint8_t(length >> (8 * i));
  std::copy(header.begin(), header.end(), bytes.begin() + 8);
  return bytes;
}

}  // namespace

TEST_CASE("error kinds: a malformed safetensors header names the tensors and the byte counts", "[errors]") {
  const auto overlap = safetensors_bytes(
      R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})",
      8);
  Error e = thrown([&] { SafetensorsFile(overlap.data(), overlap.size()); });
  CHECK(e.kind() == "safetensors.overlap");
  CHECK(text(e.values(), "first") == "a");
  CHECK(text(e.values(), "second") == "b");

  const auto short_data = safetensors_bytes(R"({"w":{"dtype":"F16","shape":[3],"data_offsets":[0,4]}})", 4);
  e = thrown([&] { SafetensorsFile(short_data.data(), short_data.size()); });
  CHECK(e.kind() == "safetensors.size_mismatch");
  CHECK(text(e.values(), "tensor") == "w");
  CHECK(integer(e.values(), "bytes") == 4);
  CHECK(integer(e.values(), "needed") == 6);
  CHECK(text(e.values(), "dtype") == "F16");

  const auto no_shape = safetensors_bytes(R"({"w":{"dtype":"F32","data_offsets":[0,4]}})", 4);
  e = thrown([&] { SafetensorsFile(no_shape.data(), no_shape.size()); });
  CHECK(e.kind() == "safetensors.entry_field");
  CHECK(text(e.values(), "field") == "shape");
}

TEST_CASE("error kinds: a bad pickle opcode names the byte and where it stands", "[errors]") {
  // PROTO 2, then a byte that is no opcode at offset 2.
  const std::vector<uint8_t> unknown = {0x80, 0x02, 0xff};
  Error e = thrown([&] { read_checkpoint_pickle(unknown.data(), unknown.size()); });
  CHECK(e.kind() == "pickle.opcode_unknown");
  CHECK(text(e.values(), "opcode") == "0xff");
  CHECK(integer(e.values(), "offset") == 2);

  const std::vector<uint8_t> protocol = {0x80, 0x09, '.'};
  e = thrown([&] { read_checkpoint_pickle(protocol.data(), protocol.size()); });
  CHECK(e.kind() == "pickle.protocol");
  CHECK(integer(e.values(), "version") == 9);
  CHECK(integer(e.values(), "offset") == 0);
}

TEST_CASE("error kinds: a zip whose directory claims too much names its counts", "[errors]") {
  // An end-of-central-directory record alone, declaring 3 entries in a 0-byte directory.
  std::vector<uint8_t> zip = {0x50, 0x4b, 0x05, 0x06, 0, 0, 0, 0, 3, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  Error e = thrown([&] { ZipReader(zip.data(), zip.size()); });
  CHECK(e.kind() == "zip.too_many_entries");
  CHECK(integer(e.values(), "entries") == 3);
  CHECK(integer(e.values(), "room") == 0);
}

TEST_CASE("error kinds: a tokenizer.json merge of unknown pieces names the merge and the piece", "[errors]") {
  const std::string json = R"({"model":{"type":"BPE","vocab":{"a":0,"b":1},"merges":["a b"]},)"
                           R"("pre_tokenizer":{"type":"ByteLevel","add_prefix_space":false},)"
                           R"("decoder":{"type":"ByteLevel"}})";
  Error e = thrown([&] { Tokenizer::from_json(json); });
  CHECK(e.kind() == "tokenizer.merge_not_in_vocab");
  CHECK(text(e.values(), "field") == "model.merges[0]");
  CHECK(text(e.values(), "token") == "ab");

  const std::string normalizer = R"({"normalizer":{"type":"NFC"},"model":{"type":"BPE","vocab":{},"merges":[]}})";
  e = thrown([&] { Tokenizer::from_json(normalizer); });
  CHECK(e.kind() == "tokenizer.unsupported_part");
  CHECK(text(e.values(), "part") == "normalizer");
  CHECK(text(e.values(), "type") == "NFC");
}
