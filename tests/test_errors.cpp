// The kinds and values of the core's errors (util/error.h): what the page
// words in the reader's language must arrive as a kind and the exact values
// the English message is made of, for files (safetensors, .pth, tokenizer
// JSON, config JSON), config validation and token ids.
#include <catch2/catch.hpp>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "formats/pth.h"
#include "formats/safetensors.h"
#include "model/model.h"
#include "model/presets.h"
#include "tensors/model_config.h"
#include "tokenizer/tokenizer.h"
#include "util/error.h"

using namespace minimind;

namespace {

// 8 little-endian bytes declaring a header of `declared` bytes, then `body`.
std::vector<uint8_t> with_header_length(uint64_t declared, const std::string& body) {
  std::vector<uint8_t> out;
  for (int i = 0; i < 8; ++i) out.push_back(uint8_t(declared >> (8 * i)));
  out.insert(out.end(), body.begin(), body.end());
  return out;
}

// The error `run` throws, as the base class the bindings read.
template <typename F>
Error thrown(F run) {
  try {
    run();
  } catch (const Error& e) {
    return e;
  }
  FAIL("no minimind::Error was thrown");
  return Error("", {}, "");
}

int64_t integer(const Error& e, const std::string& name) {
  const ErrorValue* v = e.value(name);
  REQUIRE(v != nullptr);
  REQUIRE(std::holds_alternative<int64_t>(*v));
  return std::get<int64_t>(*v);
}

std::string text(const Error& e, const std::string& name) {
  const ErrorValue* v = e.value(name);
  REQUIRE(v != nullptr);
  REQUIRE(std::holds_alternative<std::string>(*v));
  return std::get<std::string>(*v);
}

int64_t integer(const Problem& p, const std::string& name) {
  for (const auto& [key, v] : p.values) {
    if (key == name) return std::get<int64_t>(v);
  }
  FAIL("no value " + name);
  return 0;
}

std::string text(const Problem& p, const std::string& name) {
  for (const auto& [key, v] : p.values) {
    if (key == name) return std::get<std::string>(v);
  }
  FAIL("no value " + name);
  return "";
}

}  // namespace

TEST_CASE("errors: safetensors headers give their kind and the numbers of the message", "[errors]") {
  // The file from the issue: the first 8 bytes of a text file read as a header length.
  const std::vector<uint8_t> text_file = with_header_length(0x2065756c61762022ull, "more text");
  const Error too_long = thrown([&] { SafetensorsFile(text_file.data(), text_file.size()); });
  CHECK(too_long.kind() == "safetensors.header_too_long");
  CHECK(integer(too_long, "length") == int64_t(0x2065756c61762022ull));
  CHECK(integer(too_long, "limit") == 16777216);
  CHECK(std::string(too_long.what()).find("exceeds the limit of 16777216 bytes") != std::string::npos);

  // Past int64: the exact digits, as the message writes them.
  const std::vector<uint8_t> all_ones = with_header_length(~uint64_t{0}, "{}");
  const Error huge = thrown([&] { SafetensorsFile(all_ones.data(), all_ones.size()); });
  CHECK(text(huge, "length") == "18446744073709551615");

  const std::vector<uint8_t> long_header = with_header_length(20000000, "{}");
  const Error over = thrown([&] { SafetensorsFile(long_header.data(), long_header.size()); });
  CHECK(over.kind() == "safetensors.header_too_long");
  CHECK(integer(over, "length") == 20000000);

  const std::vector<uint8_t> truncated = with_header_length(100, "{}");
  const Error past_end = thrown([&] { SafetensorsFile(truncated.data(), truncated.size()); });
  CHECK(past_end.kind() == "safetensors.header_past_end");
  CHECK(integer(past_end, "length") == 100);
  CHECK(integer(past_end, "size") == 10);

  const std::vector<uint8_t> tiny = {1, 2, 3};
  const Error too_short = thrown([&] { SafetensorsFile(tiny.data(), tiny.size()); });
  CHECK(too_short.kind() == "safetensors.too_short");
  CHECK(integer(too_short, "size") == 3);

  const std::vector<uint8_t> not_json = with_header_length(3, "{x}");
  CHECK(thrown([&] { SafetensorsFile(not_json.data(), not_json.size()); }).kind() == "safetensors.header_not_json");

  const std::string header = R"({"w": {"dtype": "F64", "shape": [1], "data_offsets": [0, 8]}})";
  const std::vector<uint8_t> f64 = with_header_length(header.size(), header + std::string(8, '\0'));
  const Error dtype = thrown([&] { SafetensorsFile(f64.data(), f64.size()); });
  CHECK(dtype.kind() == "safetensors.unsupported_dtype");
  CHECK(text(dtype, "tensor") == "w");
  CHECK(text(dtype, "dtype") == "F64");

  // Every problem has a kind of its own, not only its file format's.
  const std::string overlap = R"({"w": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}, "__metadata__": 3})";
  const std::vector<uint8_t> bad_metadata = with_header_length(overlap.size(), overlap + std::string(4, '\0'));
  CHECK(thrown([&] { SafetensorsFile(bad_metadata.data(), bad_metadata.size()); }).kind() ==
        "safetensors.metadata_not_object");
}

TEST_CASE("errors: a .pth that is not a zip says so, with the file's label in front", "[errors]") {
  const std::string text(64, 'x');
  const auto* bytes = reinterpret_cast<const uint8_t*>(text.data());
  CHECK(thrown([&] { PthFile(bytes, text.size()); }).kind() == "pth.not_zip");
  CHECK_THROWS_AS(PthFile(bytes, text.size()), PthError);
  // Starts like a zip but has no directory: the zip reader's kind, under the .pth's label.
  std::string zip_start = "PK\x03\x04" + std::string(60, 'x');
  const auto* zip_bytes = reinterpret_cast<const uint8_t*>(zip_start.data());
  const Error not_zip = thrown([&] { PthFile(zip_bytes, zip_start.size(), "model.pth"); });
  CHECK(not_zip.kind() == "zip.not_zip");
  CHECK(std::string(not_zip.what()).rfind("model.pth: no end-of-central-directory record", 0) == 0);
  const Error short_zip = thrown([&] { PthFile(zip_bytes, 6); });
  CHECK(short_zip.kind() == "zip.too_short");
  CHECK(integer(short_zip, "size") == 6);
}

TEST_CASE("errors: tokenizer.json problems and ids outside the vocabulary", "[errors]") {
  CHECK(thrown([] { Tokenizer::from_json("{not json"); }).kind() == "tokenizer.not_json");
  const Error array = thrown([] { Tokenizer::from_json("[1, 2]"); });
  CHECK(array.kind() == "tokenizer.not_object");
  CHECK(text(array, "type") == "array");
  const Error no_model = thrown([] { Tokenizer::from_json("{}"); });
  CHECK(no_model.kind() == "tokenizer.missing_field");
  CHECK(text(no_model, "field") == "model");

  const ModelConfig config = preset_config("lab-a");
  const Model model = Model::random(config, 1);
  const Error id = thrown([&] { model.forward({3, int32_t(config.vocab_size) + 5}); });
  CHECK(id.kind() == "token_id.out_of_range");
  CHECK(integer(id, "id") == config.vocab_size + 5);
  CHECK(integer(id, "position") == 1);
  CHECK(integer(id, "last") == config.vocab_size - 1);
}

TEST_CASE("errors: config.json problems each carry a kind and their values", "[errors]") {
  const Error not_json = thrown([] { parse_config_json("{"); });
  CHECK(not_json.kind() == "config.invalid");
  try {
    parse_config_json("{");
    FAIL("accepted");
  } catch (const ConfigError& e) {
    REQUIRE(e.kinded_problems().size() == 1);
    CHECK(e.kinded_problems()[0].kind == "config.not_json");
  }

  try {
    parse_config_json(R"({"hidden_size": 0, "num_attention_heads": 6, "num_key_value_heads": 4,
                          "head_dim": 64, "hidden_act": "gelu", "rms_norm_eps": "small"})");
    FAIL("accepted");
  } catch (const ConfigError& e) {
    CHECK(e.kind() == "config.invalid");
    const auto& problems = e.kinded_problems();
    // The type error is found while reading; validation runs only on a config that reads.
    REQUIRE(problems.size() == 1);
    CHECK(problems[0].kind == "config.wrong_type");
    CHECK(e.problems() == std::vector<std::string>{"rms_norm_eps must be a number, got \"small\""});
  }

  try {
    parse_config_json(R"({"hidden_size": 0, "num_attention_heads": 6, "num_key_value_heads": 4,
                          "head_dim": 64, "hidden_act": "gelu"})");
    FAIL("accepted");
  } catch (const ConfigError& e) {
    const auto& problems = e.kinded_problems();
    // hidden_size 0 also makes the derived intermediate_size 0.
    REQUIRE(problems.size() == 4);
    CHECK(integer(e, "count") == 4);
    CHECK(problems[0].kind == "config.not_positive");
    CHECK(integer(problems[0], "value") == 0);
    CHECK(problems[1].kind == "config.not_positive");
    CHECK(problems[2].kind == "config.heads_not_multiple");
    CHECK(integer(problems[2], "heads") == 6);
    CHECK(integer(problems[2], "kv_heads") == 4);
    CHECK(problems[3].kind == "config.hidden_act");
    CHECK(problems[3].message == "hidden_act \"gelu\" is not supported (MiniMind uses \"silu\")");
    CHECK(e.problems().size() == 4);  // the sentences, as before
  }

  // The float and MoE checks are kinded too, with the key and its value.
  ModelConfig eps = preset_config("lab-a");
  eps.rms_norm_eps = -1;
  eps.rope_theta = 1e300;
  std::vector<Problem> problems = validate_config_problems(eps);
  REQUIRE(problems.size() == 2);
  CHECK(problems[0].kind == "config.not_positive_number");
  CHECK(text(problems[0], "key") == "rms_norm_eps");
  CHECK(problems[0].message.rfind("rms_norm_eps must be a positive number", 0) == 0);
  CHECK(problems[1].kind == "config.float32_overflow");
  CHECK(text(problems[1], "key") == "rope_theta");

  ModelConfig moe = preset_config("minimind-3-moe");
  moe.num_experts_per_tok = moe.num_experts + 1;
  problems = validate_config_problems(moe);
  REQUIRE(problems.size() == 1);
  CHECK(problems[0].kind == "config.out_of_range");
  CHECK(integer(problems[0], "value") == moe.num_experts + 1);
  CHECK(integer(problems[0], "min") == 1);
  CHECK(integer(problems[0], "max") == moe.num_experts);
}
