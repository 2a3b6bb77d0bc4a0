// Safetensors reading and writing, and weight loading against the table of
// expected names and shapes. Every malformed file must be refused with its
// own SafetensorsError naming the problem, never a crash (the ASan build
// runs these too).
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <unordered_map>

#include "checkpoint/model_loader.h"
#include "compare.h"
#include "formats/safetensors.h"
#include "model/model.h"
#include "model/presets.h"
#include "tensors/weights.h"
#include "util/half.h"

using namespace minimind;
using Catch::Matchers::Contains;
using minimind::testing::message_contains;

namespace {

// 8-byte little-endian header length, the header text, then `data` zero bytes.
// `declared` overrides the length field (for lying headers).
std::vector<uint8_t> raw_file(const std::string& header, size_t data = 0,
                              uint64_t declared = std::numeric_limits<uint64_t>::max()) {
  const uint64_t n = declared == std::numeric_limits<uint64_t>::max() ? header.size() : declared;
  std::vector<uint8_t> out;
  for (int i = 0; i < 8; ++i) out.push_back(uint8_t(n >> (8 * i)));  // explicit LE, not memcpy
  out.insert(out.end(), header.begin(), header.end());
  out.resize(out.size() + data, 0);
  return out;
}

void parse(const std::vector<uint8_t>& bytes) { SafetensorsFile file(bytes.data(), bytes.size()); }

// The weights of `config` as named tensors, in table order.
std::vector<NamedTensor> named(const ModelConfig& config, ModelWeights& weights, DType dtype = DType::F32) {
  std::vector<NamedTensor> out;
  for (const WeightSlot& s : weight_slots(config, weights)) {
    out.push_back({s.name, dtype, s.shape, s.values()});
  }
  return out;
}

NamedTensor* find(std::vector<NamedTensor>& tensors, const std::string& name) {
  for (NamedTensor& t : tensors)
    if (t.name == name) return &t;
  FAIL("test setup: no tensor " << name);
  return nullptr;
}

LoadedWeights load(const ModelConfig& config, const std::vector<NamedTensor>& tensors) {
  const std::vector<uint8_t> bytes = write_safetensors(tensors);
  return load_weights(config, SafetensorsFile(bytes.data(), bytes.size()));
}

// Bit-for-bit equality of every slot the two weight sets share by name.
void require_same_weights(const ModelConfig& c, ModelWeights& expected, const ModelConfig& c2, ModelWeights& actual) {
  const auto a = weight_slots(c2, actual);
  for (const WeightSlot& e : weight_slots(c, expected)) {
    const auto it = std::find_if(a.begin(), a.end(), [&](const WeightSlot& s) { return s.name == e.name; });
    if (it == a.end()) continue;
    CAPTURE(e.name);
    REQUIRE(it->shape == e.shape);
    const std::vector<float> a_values = it->values(), e_values = e.values();
    REQUIRE(std::memcmp(a_values.data(), e_values.data(), e_values.size() * 4) == 0);
  }
}

}  // namespace

TEST_CASE("write_safetensors round trip: F32, F16, BF16 and I32", "[loaders][safetensors]") {
  const std::vector<NamedTensor> tensors = {
      {"f32", DType::F32, {2, 3}, {0.1f, -3.5e-8f, 1e30f, -0.0f, 1.0f / 3, 0x1p-149f}},
      // Exactly representable: max, smallest subnormal, 1 + ulp, negative zero.
      {"f16", DType::F16, {6}, {0.5f, -2.0f, 65504.0f, 0x1p-24f, 1.0f + 0x1p-10f, -0.0f}},
      {"bf16", DType::BF16, {5, 1}, {1.5f, -3.0f, 0x1p-126f, 0x1.fep127f, 1.0f + 0x1p-7f}},
      {"i32", DType::I32, {5}, {0, -1, 16777216, -7, 6400}},
      {"empty", DType::F32, {0, 4}, {}},
      {"scalar", DType::F32, {}, {42.0f}},
  };
  const std::map<std::string, std::string> metadata = {{"format", "pt"}, {"note", "round trip"}};
  const std::vector<uint8_t> bytes = write_safetensors(tensors, metadata);
  uint64_t header = 0;
  for (int i = 0; i < 8; ++i) header |= uint64_t(bytes[size_t(i)]) << (8 * i);
  CHECK(header % 8 == 0);  // padded like the fixtures (and safetensors' own writer)

  const SafetensorsFile file(bytes.data(), bytes.size());
  REQUIRE(file.entries().size() == tensors.size());
  REQUIRE(file.metadata() == metadata);
  for (const NamedTensor& t : tensors) {
    CAPTURE(t.name);
    const SafetensorsEntry* e = file.find(t.name);
    REQUIRE(e);
    REQUIRE(e->dtype == t.dtype);
    REQUIRE(e->shape == t.shape);
    REQUIRE(e->end - e->begin == t.values.size() * dtype_size(t.dtype));
    if (t.dtype == DType::I32) {
      const std::vector<int32_t> ints = file.read_int32(*e);
      REQUIRE(std::vector<float>(ints.begin(), ints.end()) == t.values);
      REQUIRE_THROWS_MATCHES(file.read_floats(*e, nullptr), SafetensorsError, message_contains("holds integers (I32)"));
    } else {
      std::vector<float> values(t.values.size());
      file.read_floats(*e, values.data());
      REQUIRE((values.empty() || std::memcmp(values.data(), t.values.data(), values.size() * 4) == 0));  // -0.0 too
      REQUIRE_THROWS_MATCHES(file.read_int32(*e), SafetensorsError, message_contains("not I32"));
    }
  }
  // Not representable: F16 and BF16 store the nearest value.
  const std::vector<uint8_t> rounded =
      write_safetensors({{"h", DType::F16, {1}, {0.1f}}, {"b", DType::BF16, {1}, {0.1f}}});
  const SafetensorsFile r(rounded.data(), rounded.size());
  float h = 0, b = 0;
  r.read_floats(*r.find("h"), &h);
  r.read_floats(*r.find("b"), &b);
  CHECK(h == 0.0999755859375f);  // 1638 · 2^-14
  CHECK(b == 0.10009765625f);    // 205 · 2^-11
}

TEST_CASE("hand-made little-endian F16 and BF16 bytes decode exactly", "[loaders][safetensors]") {
  std::vector<uint8_t> bytes = raw_file(
      R"({"h":{"dtype":"F16","shape":[3],"data_offsets":[0,6]},"b":{"dtype":"BF16","shape":[2],"data_offsets":[6,10]}})",
      10);
  const uint8_t data[10] = {0x00, 0x3c, 0x00, 0xc0, 0x01, 0x00, 0xc0, 0x3f, 0x80, 0xff};  // 1, -2, 2^-24 | 1.5, -inf
  std::memcpy(bytes.data() + bytes.size() - 10, data, 10);
  const SafetensorsFile file(bytes.data(), bytes.size());
  std::vector<float> h(3), b(2);
  file.read_floats(*file.find("h"), h.data());
  file.read_floats(*file.find("b"), b.data());
  CHECK(h == std::vector<float>{1.0f, -2.0f, 0x1p-24f});
  CHECK(b == std::vector<float>{1.5f, -INFINITY});
}

TEST_CASE("each malformed safetensors file gets its own clear error", "[loaders][safetensors][errors]") {
  const auto one = [](const std::string& entry, size_t data) { return raw_file("{\"w\":" + entry + "}", data); };
  const auto f32 = [](const std::string& shape, const std::string& offsets) {
    return R"({"dtype":"F32","shape":)" + shape + R"(,"data_offsets":)" + offsets + "}";
  };
  const struct {
    const char* what;
    std::vector<uint8_t> bytes;
    const char* message;
  } cases[] = {
      {"empty file", {}, "starts with an 8-byte header length"},
      {"shorter than 8 bytes", {1, 2, 3}, "file is 3 bytes"},
      {"header length past the end", raw_file("{}", 0, 100), "runs past the end of the file"},
      {"header length over 16 MiB", raw_file("{}", 0, (16u << 20) + 1), "exceeds the limit of 16777216 bytes"},
      {"absurd header length", raw_file("{}", 0, ~uint64_t{0} - 1), "exceeds the limit"},
      {"header not JSON", raw_file("{\"w\": "), "header is not valid JSON"},
      {"header not an object", raw_file("[1, 2]"), "header must be a JSON object"},
      {"entry not an object", one("3", 0), "tensor \"w\": header entry must be an object"},
      {"missing dtype", one(R"({"shape":[1],"data_offsets":[0,4]})", 4), "tensor \"w\": missing \"dtype\""},
      {"missing shape", one(R"({"dtype":"F32","data_offsets":[0,4]})", 4), "missing \"shape\" array"},
      {"missing data_offsets", one(R"({"dtype":"F32","shape":[1]})", 4), "\"data_offsets\" must be [begin, end]"},
      {"one offset", one(R"({"dtype":"F32","shape":[1],"data_offsets":[0]})", 4), "must be [begin, end]"},
      {"dtype I64", one(R"({"dtype":"I64","shape":[1],"data_offsets":[0,8]})", 8), "has dtype \"I64\"; supported"},
      {"dtype F64", one(R"({"dtype":"F64","shape":[1],"data_offsets":[0,8]})", 8), "has dtype \"F64\""},
      {"negative shape", one(f32("[-1]", "[0,4]"), 4), "shape [-1] is not a list of sizes"},
      {"fractional shape", one(f32("[1.5]", "[0,4]"), 4), "shape [1.5] is not a list of sizes"},
      {"string shape", one(f32("[\"2\"]", "[0,8]"), 8), "is not a list of sizes"},
      {"overflowing shape", one(f32("[1073741824,1073741824]", "[0,4]"), 4), "is too large"},
      {"end before begin", one(f32("[1]", "[8,4]"), 8), "data_offsets [8,4] are not a range"},
      {"negative offset", one(f32("[1]", "[-4,0]"), 4), "are not a range"},
      {"offsets past the data", one(f32("[4]", "[0,16]"), 8), "run past the end of the data (8 bytes)"},
      {"bytes not matching shape", one(f32("[3]", "[0,8]"), 8), "cover 8 bytes but shape (3,) of F32 needs 12"},
      {"overlapping tensors", raw_file("{\"a\":" + f32("[2]", "[0,8]") + ",\"b\":" + f32("[2]", "[4,12]") + "}", 12),
       "tensors \"a\" and \"b\" overlap"},
      {"metadata not an object", raw_file(R"({"__metadata__":["pt"]})"), "__metadata__ must be an object of strings"},
      {"metadata value not a string", raw_file(R"({"__metadata__":{"format":1}})"),
       "__metadata__ value \"format\" is not a string"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.what);
    REQUIRE_THROWS_MATCHES(parse(c.bytes), SafetensorsError, message_contains(c.message));
  }
}

TEST_CASE("every truncation or corruption of a valid file is refused cleanly", "[loaders][safetensors][errors]") {
  const std::vector<uint8_t> good = write_safetensors(
      {{"a", DType::F16, {3, 2}, {1, 2, 3, 4, 5, 6}}, {"b", DType::F32, {2}, {7, 8}}}, {{"format", "pt"}});
  for (size_t n = 0; n < good.size(); ++n) {
    CAPTURE(n);
    const std::vector<uint8_t> cut(good.begin(), good.begin() + long(n));  // exactly n bytes: ASan sees over-reads
    REQUIRE_THROWS_AS(parse(cut), SafetensorsError);
  }
  // Overwrite each header byte with characters JSON cares about: parse or refuse, never crash.
  for (size_t i = 0; i < good.size(); ++i) {
    for (const uint8_t ch : {uint8_t('9'), uint8_t('"'), uint8_t('-'), uint8_t(0xff), uint8_t(0)}) {
      std::vector<uint8_t> bad = good;
      bad[i] = ch;
      try {
        SafetensorsFile file(bad.data(), bad.size());
        for (const SafetensorsEntry& e : file.entries()) {
          if (e.dtype == DType::I32) continue;
          std::vector<float> out(size_t(shape_numel(e.shape)));
          file.read_floats(e, out.data());  // offsets were checked: this must stay in bounds
        }
      } catch (const SafetensorsError&) {
      }
    }
  }
}

TEST_CASE("random weights written as F32 or F16 load back bit for bit", "[loaders][weights]") {
  const ModelConfig config = preset_config("lab-a");
  ModelWeights weights = random_weights(config, 1234);
  REQUIRE(weights.layers[1].mlp.down_proj.unpacked().cwiseAbs().sum() > 0);  // not trivially zero
  for (const DType dtype : {DType::F32, DType::F16}) {  // the recipe rounds to f16: F16 is exact too
    CAPTURE(dtype_name(dtype));
    LoadedWeights loaded = load(config, named(config, weights, dtype));
    require_same_weights(config, weights, loaded.config, loaded.weights);
    // The seeded values are float16 values: kept as float16, half the bytes.
    REQUIRE(loaded.weights.layers[0].q_proj.storage() == WeightStorage::F16);
    REQUIRE(weight_slots(config, weights).size() == weight_slots(loaded.config, loaded.weights).size());
  }
  const std::vector<uint8_t> bytes = write_safetensors(named(config, weights));
  const Model model = model_from_safetensors(config, bytes.data(), bytes.size());
  REQUIRE(model.weights().embed_tokens == weights.embed_tokens);
  REQUIRE(model.weights().layers[1].k_norm == weights.layers[1].k_norm);
  REQUIRE(model.config().use_qk_norm);
}

TEST_CASE("a safetensors file read tensor by tensor gives the same model as the whole bytes",
          "[loaders][safetensors]") {
  const ModelConfig config = preset_config("lab-b");
  ModelWeights weights = random_weights(config, 77);
  const std::vector<uint8_t> bytes = write_safetensors(named(config, weights, DType::F16));
  const uint64_t header = 8 + bytes[0] + (uint64_t(bytes[1]) << 8) + (uint64_t(bytes[2]) << 16);
  size_t largest_read = 0, total_read = 0;
  const SafetensorsFile::ByteReader read = [&](size_t offset, size_t n, uint8_t* out) {
    REQUIRE(offset + n <= bytes.size());
    largest_read = std::max(largest_read, n);
    total_read += n;
    std::memcpy(out, bytes.data() + offset, n);
  };
  const SafetensorsFile streamed(bytes.data(), size_t(header), bytes.size(), read);
  const Model a = Model::from_source(config, streamed);
  const Model b = model_from_safetensors(config, bytes.data(), bytes.size());
  // One read per tensor, never more than the largest tensor at once.
  size_t largest_tensor = 0;
  for (const SafetensorsEntry& e : streamed.entries()) largest_tensor = std::max(largest_tensor, e.end - e.begin);
  CHECK(total_read == bytes.size() - header);
  CHECK(largest_read == largest_tensor);
  CHECK(largest_tensor < (bytes.size() - header) / 4);
  const std::vector<int32_t> ids = {5, 6, 7, 8};
  CHECK(a.forward(ids) == b.forward(ids));
  CHECK(a.weights().embed_tokens == weights.embed_tokens);

  // A head that stops inside the header, or claims more than the file.
  CHECK_THROWS_WITH(SafetensorsFile(bytes.data(), size_t(header) - 1, bytes.size(), read),
                    Catch::Contains("is not all in the first"));
  CHECK_THROWS_WITH(SafetensorsFile(bytes.data(), size_t(header), size_t(header) - 1, read),
                    Catch::Contains("more than the whole file"));
  // A reader that fails: the error reaches the caller.
  const SafetensorsFile failing(bytes.data(), size_t(header), bytes.size(),
                                [](size_t, size_t, uint8_t*) { throw std::runtime_error("the disk is gone"); });
  CHECK_THROWS_WITH(Model::from_source(config, failing), Catch::Contains("the disk is gone"));
}

TEST_CASE("load_weights names every missing, misshapen, unexpected or unusable tensor", "[loaders][weights][errors]") {
  const ModelConfig config = preset_config("lab-a");
  ModelWeights weights = random_weights(config, 7);
  const std::string D = std::to_string(config.hidden_size), KV = std::to_string(config.kv_dim());
  const std::string k_proj = "model.layers.1.self_attn.k_proj.weight";

  SECTION("missing tensor: its name and expected shape") {
    std::vector<NamedTensor> t = named(config, weights);
    t.erase(t.begin() + (find(t, k_proj) - t.data()));
    REQUIRE_THROWS_MATCHES(load(config, t), ConfigError,
                           message_contains("missing tensor " + k_proj + " (expected shape (" + KV + ", " + D + "))"));
  }
  SECTION("misshapen tensor: expected and found shape") {
    std::vector<NamedTensor> t = named(config, weights);
    find(t, k_proj)->shape = {config.hidden_size, config.kv_dim()};  // transposed
    REQUIRE_THROWS_MATCHES(
        load(config, t), ConfigError,
        message_contains("tensor " + k_proj + " has shape (" + D + ", " + KV + "), expected (" + KV + ", " + D + ")"));
  }
  SECTION("unexpected tensor, alongside a missing one: both reported") {
    std::vector<NamedTensor> t = named(config, weights);
    t.push_back({"model.layers.0.self_attn.q_proj.bias",
                 DType::F32,
                 {config.q_dim()},
                 std::vector<float>(size_t(config.q_dim()))});
    t.erase(t.begin());  // model.embed_tokens.weight
    try {
      load(config, t);
      FAIL("loaded a file with a missing and an unexpected tensor");
    } catch (const ConfigError& e) {
      REQUIRE(e.problems().size() == 2);
      CHECK_THAT(e.what(), Contains("missing tensor model.embed_tokens.weight"));
      CHECK_THAT(e.what(), Contains("unexpected tensor model.layers.0.self_attn.q_proj.bias (" +
                                    std::to_string(config.q_dim()) + ",)"));
    }
  }
  SECTION("many problems are capped with a count of the rest") {
    std::vector<NamedTensor> t = named(config, weights);
    for (int i = 0; i < 30; ++i) t.push_back({"extra." + std::to_string(i), DType::F32, {1}, {0.0f}});
    try {
      load(config, t);
      FAIL("loaded a file with 30 unexpected tensors");
    } catch (const ConfigError& e) {
      REQUIRE(e.problems().size() == 21);
      CHECK(e.problems().back() == "... and 10 more problems");
    }
  }
  SECTION("an I32 tensor in place of a weight") {
    std::vector<NamedTensor> t = named(config, weights);
    find(t, "model.norm.weight")->dtype = DType::I32;
    REQUIRE_THROWS_MATCHES(load(config, t), ConfigError, message_contains("tensor model.norm.weight is I32"));
  }
  SECTION("NaN or infinite weights name the tensor") {
    for (const float bad : {NAN, INFINITY, -INFINITY}) {
      std::vector<NamedTensor> t = named(config, weights);
      find(t, "model.layers.0.mlp.up_proj.weight")->values[5] = bad;
      CAPTURE(bad);
      REQUIRE_THROWS_MATCHES(load(config, t), ConfigError,
                             message_contains("tensor model.layers.0.mlp.up_proj.weight holds a non-finite value"));
      REQUIRE_THROWS_MATCHES(load(config, t), ConfigError, message_contains("at flat index 5"));
      // An F16 file overflows to inf from a large finite value: refused as well.
      std::vector<NamedTensor> h = named(config, weights, DType::F16);
      find(h, "model.embed_tokens.weight")->values[0] = 1e6f;
      REQUIRE_THROWS_MATCHES(load(config, h), ConfigError,
                             message_contains("tensor model.embed_tokens.weight holds a non-finite"));
    }
  }
  SECTION("a file for another shape (lab-b) into lab-a") {
    const ModelConfig other = preset_config("lab-b");
    ModelWeights w = random_weights(other, 1);
    REQUIRE_THROWS_MATCHES(
        load(config, named(other, w)), ConfigError,
        message_contains("tensor model.embed_tokens.weight has shape (128, 96), expected (128, 64)"));
  }
}

TEST_CASE("the file decides q/k norm, and tied heads may carry lm_head.weight", "[loaders][weights]") {
  const ModelConfig config = preset_config("lab-a");
  REQUIRE(config.use_qk_norm);
  ModelWeights weights = random_weights(config, 3);

  SECTION("a generation-2 file without any q_norm/k_norm loads without q/k norm") {
    std::vector<NamedTensor> t = named(config, weights);
    t.erase(std::remove_if(t.begin(), t.end(),
                           [](const NamedTensor& x) {
                             return x.name.find("_norm.weight") != std::string::npos &&
                                    x.name.find("self_attn") != std::string::npos;
                           }),
            t.end());
    REQUIRE(t.size() == named(config, weights).size() - 4);
    LoadedWeights loaded = load(config, t);
    REQUIRE_FALSE(loaded.config.use_qk_norm);
    REQUIRE(loaded.weights.layers[0].q_norm.size() == 0);
    require_same_weights(config, weights, loaded.config, loaded.weights);
    const std::vector<uint8_t> bytes = write_safetensors(t);
    REQUIRE_FALSE(model_from_safetensors(config, bytes.data(), bytes.size()).config().use_qk_norm);
  }
  SECTION("q_norm in one layer only is a missing tensor, not generation 2") {
    std::vector<NamedTensor> t = named(config, weights);
    const auto is_layer1_norm = [](const NamedTensor& x) {
      return x.name.rfind("model.layers.1.self_attn.q_norm", 0) == 0;
    };
    t.erase(std::remove_if(t.begin(), t.end(), is_layer1_norm), t.end());
    REQUIRE_THROWS_MATCHES(load(config, t), ConfigError,
                           message_contains("missing tensor model.layers.1.self_attn.q_norm.weight"));
  }
  SECTION("a tied model file that also holds lm_head.weight loads; the head stays tied") {
    std::vector<NamedTensor> t = named(config, weights);
    NamedTensor head = *find(t, "model.embed_tokens.weight");
    head.name = "lm_head.weight";
    t.push_back(head);
    LoadedWeights loaded = load(config, t);
    REQUIRE(loaded.weights.lm_head.size() == 0);
    REQUIRE(loaded.weights.output_head() == weights.embed_tokens);
    CHECK(loaded.warnings.empty());
  }
  SECTION("tied, but lm_head.weight differs: the shared tensor takes lm_head.weight, as MiniMind's does") {
    // MiniMind's load_state_dict copies model.embed_tokens.weight and then
    // lm_head.weight into the one tensor both names share (module order, in
    // either file order: checked with torch 1.13), so lm_head.weight is left.
    ModelConfig untied = config;
    untied.tie_word_embeddings = false;
    ModelWeights other = random_weights(untied, 4);
    for (const bool head_first : {false, true}) {
      CAPTURE(head_first);
      std::vector<NamedTensor> t = named(config, weights);
      NamedTensor head{"lm_head.weight",
                       DType::F32,
                       {config.vocab_size, config.hidden_size},
                       weight_slots(untied, other).back().values()};
      REQUIRE(head.name == weight_slots(untied, other).back().name);
      t.insert(head_first ? t.begin() : t.end(), head);
      LoadedWeights loaded = load(config, t);
      REQUIRE(loaded.weights.lm_head.size() == 0);  // still tied: one tensor
      CHECK(loaded.weights.embed_tokens == other.lm_head);
      CHECK(loaded.weights.output_head() == other.lm_head);
      REQUIRE(loaded.warnings.size() == 1);
      CHECK_THAT(loaded.warnings[0], Contains("lm_head.weight differs from its model.embed_tokens.weight") &&
                                         Contains("the model uses lm_head.weight for both"));
      std::vector<std::string> warnings;
      const std::vector<uint8_t> bytes = write_safetensors(t);
      const Model model = Model::from_source(config, SafetensorsFile(bytes.data(), bytes.size()), &warnings);
      CHECK(warnings == loaded.warnings);
    }
    std::vector<NamedTensor> t = named(config, weights);
    t.push_back(
        {"lm_head.weight", DType::F32, {config.vocab_size, 8}, std::vector<float>(size_t(config.vocab_size) * 8)});
    REQUIRE_THROWS_MATCHES(load(config, t), ConfigError,
                           message_contains("tensor lm_head.weight has shape (128, 8), expected (128, 64) "
                                            "(tie_word_embeddings: it is model.embed_tokens.weight)"));
  }
  SECTION("an untied config needs lm_head.weight and uses it") {
    ModelConfig untied = config;
    untied.tie_word_embeddings = false;
    ModelWeights w = random_weights(untied, 3);
    REQUIRE(w.lm_head != w.embed_tokens);
    LoadedWeights loaded = load(untied, named(untied, w));
    REQUIRE(loaded.weights.output_head() == w.lm_head);
    REQUIRE_THROWS_MATCHES(load(untied, named(config, weights)), ConfigError,
                           message_contains("missing tensor lm_head.weight (expected shape (128, 64))"));
  }
}

TEST_CASE("a header of 200k tensors is looked up by name in constant time", "[loaders][safetensors]") {
  // find() is a hash map lookup, not a scan: with a scan, the 200k lookups
  // below would compare 2e10 names (minutes, so a scan would also time the
  // run out). The type says which it is; no clock here, since a loaded
  // machine made a time limit fail.
  STATIC_REQUIRE(std::is_same<SafetensorsFile::NameIndex, std::unordered_map<std::string, size_t>>::value);
  const size_t n = 200000;
  std::string header = "{";
  for (size_t i = 0; i < n; ++i) {
    header += (i ? ",\"t" : "\"t") + std::to_string(i) + "\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[" +
              std::to_string(4 * i) + "," + std::to_string(4 * i + 4) + "]}";
  }
  header += "}";
  const std::vector<uint8_t> bytes = raw_file(header, 4 * n);
  const SafetensorsFile file(bytes.data(), bytes.size());
  REQUIRE(file.entries().size() == n);
  REQUIRE(file.name_index().size() == n);
  for (size_t i = 0; i < n; ++i) {
    const SafetensorsEntry* e = file.find("t" + std::to_string(i));
    REQUIRE(e != nullptr);
    if (e->begin != 4 * i) FAIL("t" << i << " begins at " << e->begin);
  }
  CHECK(file.find("t200000") == nullptr);
  // Loading it as a model names the first problems, as quickly.
  REQUIRE_THROWS_MATCHES(load_weights(preset_config("lab-a"), file), ConfigError, message_contains("... and"));
}
