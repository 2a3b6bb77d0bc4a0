// PyTorch .pth checkpoints: the fixtures torch.save wrote (tests/make_fixtures.py)
// load to exactly the weights of the same case's model.safetensors and give
// the reference logits; config inference recovers each case's config; and
// every hostile or malformed file is refused with a PthError naming the
// problem (the opcode, the global, the tensor, the zip record), never a
// crash (the ASan build runs these too).
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <set>

#include "checkpoint/infer_config.h"
#include "compare.h"
#include "fixtures.h"
#include "formats/pth.h"
#include "pth_builder.h"
#include "tensors/weights.h"

using namespace minimind;
using namespace minimind::testing;

namespace {

const std::vector<std::string> kPthCases = {"gen3_dense", "gen2_dense", "gen2_moe"};

std::vector<float> floats(const TensorSource& source, const std::string& name) {
  std::vector<float> out(size_t(shape_numel(source.tensor_info(name)->shape)));
  source.read_tensor(name, out.data());
  return out;
}

void parse(const Bytes& bytes) { PthFile file(bytes.data(), bytes.size()); }

// A one-tensor state dict {"w": tensor} whose storage "0" holds `storage` bytes.
Bytes one_tensor(const std::string& type, int64_t numel, int64_t offset, const std::vector<int64_t>& size,
                 const std::vector<int64_t>& stride, const Bytes& storage, const std::string& key = "0") {
  Pickle p;
  p.proto().empty_dict().mark().str("w").tensor(type, key, numel, offset, size, stride).setitems().stop();
  return make_pth(p.bytes, {{"0", storage}});
}

}  // namespace

TEST_CASE("pth fixtures hold exactly the weights of the same case's safetensors", "[pth]") {
  for (const std::string& name : kPthCases) {
    DYNAMIC_SECTION(name) {
      const Bytes st_bytes = read_bytes(fixture_path(name + "/model.safetensors"));
      const Bytes pth_bytes = read_bytes(fixture_path(name + "/model.pth"));
      const SafetensorsFile st(st_bytes.data(), st_bytes.size());
      const PthFile pth(pth_bytes.data(), pth_bytes.size());
      CHECK(pth.archive_name() == "model");

      // Names (prefixes stripped) are the safetensors names, plus the tied
      // head a state_dict lists under both names.
      std::set<std::string> st_names, pth_names;
      for (const auto& e : st.entries()) st_names.insert(e.name);
      for (const auto& e : pth.entries()) pth_names.insert(e.name);
      if (!st_names.count("lm_head.weight")) st_names.insert("lm_head.weight");
      REQUIRE(pth_names == st_names);

      for (const auto& e : st.entries()) {
        CAPTURE(e.name);
        const PthTensor* t = pth.find(e.name);
        REQUIRE(t);
        CHECK(t->dtype == e.dtype);
        REQUIRE(t->shape == e.shape);
        const std::vector<float> a = floats(st, e.name), b = floats(pth, e.name);
        REQUIRE(std::memcmp(a.data(), b.data(), a.size() * 4) == 0);
      }
      CHECK(floats(pth, "lm_head.weight") == floats(pth, "model.embed_tokens.weight"));
    }
  }
}

TEST_CASE("model_from_pth gives the reference logits, bit-identical to the safetensors model", "[pth][golden]") {
  for (const std::string& name : kPthCases) {
    DYNAMIC_SECTION(name) {
      const GoldenCase c = load_golden_case(name);
      const Bytes bytes = read_bytes(fixture_path(name + "/model.pth"));
      const Model model = model_from_pth(c.model->config(), bytes.data(), bytes.size());
      const auto ids = c.rows("input_ids");
      const auto mask = c.has("attention_mask") ? c.rows("attention_mask") : std::vector<std::vector<int32_t>>{};
      const Tensor logits = model.forward_batch(ids, mask);
      REQUIRE(logits.shape == c.shape("logits"));
      CHECK_CLOSE(logits.data, c.floats("logits"), 1e-5, 1e-4);
      CHECK(logits.data == c.model->forward_batch(ids, mask).data);
    }
  }
}

TEST_CASE("infer_config recovers every case's config from the tensors", "[pth][infer]") {
  for (const std::string& name : golden_case_names()) {
    DYNAMIC_SECTION(name) {
      // The config the golden model runs with (q/k norm decided by the weights;
      // a dense generation-2 config.json is not told apart from generation 3).
      const GoldenCase golden = load_golden_case(name);
      const ModelConfig& expected = golden.model->config();
      InferHints hints;
      if (!expected.use_qk_norm) hints.num_attention_heads = expected.num_attention_heads;
      if (expected.rope_theta != 1e6) hints.rope_theta = expected.rope_theta;
      if (expected.inference_rope_scaling) hints.inference_rope_scaling = true;

      const Bytes st_bytes = read_bytes(fixture_path(name + "/model.safetensors"));
      const SafetensorsFile st(st_bytes.data(), st_bytes.size());
      std::vector<std::pair<std::string, InferredConfig>> results = {{"safetensors", infer_config(st, hints)}};
      Bytes pth_bytes;
      if (std::find(kPthCases.begin(), kPthCases.end(), name) != kPthCases.end()) {
        pth_bytes = read_bytes(fixture_path(name + "/model.pth"));
        results.emplace_back("pth", infer_config(PthFile(pth_bytes.data(), pth_bytes.size()), hints));
      }
      for (const auto& [source, inferred] : results) {
        INFO(source);
        const ModelConfig& c = inferred.config;
        CHECK(c.generation == (expected.use_qk_norm ? 3 : 2));
        CHECK(c.hidden_size == expected.hidden_size);
        CHECK(c.num_hidden_layers == expected.num_hidden_layers);
        CHECK(c.num_attention_heads == expected.num_attention_heads);
        CHECK(c.num_key_value_heads == expected.num_key_value_heads);
        CHECK(c.head_dim == expected.head_dim);
        CHECK(c.explicit_head_dim == expected.explicit_head_dim);
        CHECK(c.vocab_size == expected.vocab_size);
        CHECK(c.tie_word_embeddings == expected.tie_word_embeddings);
        CHECK(c.use_qk_norm == expected.use_qk_norm);
        CHECK(c.rms_norm_eps == expected.rms_norm_eps);
        CHECK(c.rope_theta == expected.rope_theta);
        CHECK(c.inference_rope_scaling == expected.inference_rope_scaling);
        CHECK(c.use_moe == expected.use_moe);
        if (expected.use_moe) {
          CHECK(c.num_experts == expected.num_experts);
          CHECK(c.num_experts_per_tok == expected.num_experts_per_tok);
          CHECK(c.expert_intermediate_size() == expected.expert_intermediate_size());
          CHECK(c.n_shared_experts == expected.n_shared_experts);
          CHECK(c.norm_topk_prob == expected.norm_topk_prob);
        }
        if (!(expected.use_moe && expected.generation == 3)) {  // gen-3 MoE does not use intermediate_size
          CHECK(c.intermediate_size == expected.intermediate_size);
        }
        // Sizes come from the tensors; only what they cannot tell is assumed.
        for (const char* key : {"hidden_size", "num_hidden_layers", "num_key_value_heads", "head_dim", "vocab_size",
                                "tie_word_embeddings", "use_moe"}) {
          CHECK(inferred.source(key) == FieldSource::Inferred);
        }
        CHECK(inferred.source("rms_norm_eps") == FieldSource::Default);
        CHECK(inferred.source("num_attention_heads") ==
              (expected.use_qk_norm ? FieldSource::Inferred : FieldSource::Hint));

        // The inferred config loads the weights and reproduces the reference.
        const LoadedWeights loaded = load_weights(c, st);
        const Model model(loaded.config, loaded.weights);
        const auto ids = golden.rows("input_ids");
        const auto mask =
            golden.has("attention_mask") ? golden.rows("attention_mask") : std::vector<std::vector<int32_t>>{};
        CHECK_CLOSE(model.forward_batch(ids, mask).data, golden.floats("logits"), 1e-5, 1e-4);
      }
    }
  }
}

TEST_CASE("infer_config says what it assumed, and names what does not fit", "[pth][infer][errors]") {
  const Bytes bytes = read_bytes(fixture_path("gen2_dense/model.pth"));
  const PthFile pth(bytes.data(), bytes.size());
  // Without the heads hint, generation 2 falls back on MiniMind's 8 heads and says so.
  const InferredConfig guess = infer_config(pth);
  CHECK(guess.config.num_attention_heads == 8);
  CHECK(guess.source("num_attention_heads") == FieldSource::Default);
  const std::vector<std::string> assumed = guess.assumed();
  CHECK(std::find(assumed.begin(), assumed.end(), "num_attention_heads") != assumed.end());
  CHECK(std::find(assumed.begin(), assumed.end(), "rope_theta") != assumed.end());
  CHECK(std::find(assumed.begin(), assumed.end(), "hidden_size") == assumed.end());
  CHECK(std::string(field_source_name(FieldSource::Hint)) == "hint");

  InferHints three;  // q_proj has 32 rows: 3 heads do not divide them
  three.num_attention_heads = 3;
  REQUIRE_THROWS_MATCHES(infer_config(pth, three), ConfigError, message_contains("not a multiple of 3"));

  // Generation 3: q_norm fixes head_dim, so a contradicting hint is named.
  const Bytes g3 = read_bytes(fixture_path("gen3_dense/model.pth"));
  InferHints six;
  six.num_attention_heads = 6;
  REQUIRE_THROWS_MATCHES(infer_config(PthFile(g3.data(), g3.size()), six), ConfigError,
                         message_contains("contradicts the tensors"));

  // The kv heads instead: head_dim = k_proj rows / Hkv, and the heads follow.
  InferHints kv;
  kv.num_key_value_heads = 1;
  const InferredConfig from_kv = infer_config(pth, kv);
  CHECK(from_kv.config.num_attention_heads == 4);
  CHECK(from_kv.config.head_dim == 8);
  CHECK(from_kv.source("num_key_value_heads") == FieldSource::Hint);
  CHECK(from_kv.source("num_attention_heads") == FieldSource::Inferred);
  kv.num_key_value_heads = 3;
  REQUIRE_THROWS_MATCHES(infer_config(pth, kv), ConfigError, message_contains("8 rows are not a multiple of 3"));
  kv.num_key_value_heads = 2;
  kv.num_attention_heads = 4;  // both: they must agree with the tensors
  REQUIRE_THROWS_MATCHES(infer_config(pth, kv), ConfigError,
                         message_contains("the hint num_key_value_heads 2 contradicts the tensors"));
  InferHints kv3;
  kv3.num_key_value_heads = 3;
  REQUIRE_THROWS_MATCHES(
      infer_config(PthFile(g3.data(), g3.size()), kv3), ConfigError,
      message_contains("the hint num_key_value_heads 3 contradicts the tensors: k_proj has 16 rows"));

  // A state dict that is not MiniMind's.
  Pickle p;
  p.proto().empty_dict().mark().str("w").tensor("FloatStorage", "0", 1, 0, {1}, {1}).setitems().stop();
  const Bytes other = make_pth(p.bytes, {{"0", f32_bytes({1})}});
  REQUIRE_THROWS_MATCHES(infer_config(PthFile(other.data(), other.size())), ConfigError,
                         message_contains("model.embed_tokens.weight"));
}

TEST_CASE("pth views: storage offsets, shared storages and empty tensors (BF16)", "[pth]") {
  const Bytes bytes = read_bytes(fixture_path("pth/views_bf16.pth"));
  const PthFile pth(bytes.data(), bytes.size());
  CHECK(pth.archive_name() == "views_bf16");
  REQUIRE(pth.tensor_names() == std::vector<std::string>{"grid", "row1", "tail", "one", "empty"});
  const auto range = [](float from, float to) {
    std::vector<float> v;
    for (float x = from; x < to; ++x) v.push_back(x);
    return v;
  };
  CHECK(pth.find("grid")->dtype == DType::BF16);
  CHECK(pth.find("grid")->shape == Shape{3, 4});
  CHECK(floats(pth, "grid") == range(0, 12));
  CHECK(floats(pth, "row1") == range(4, 8));
  CHECK(pth.find("tail")->shape == Shape{2, 4});
  CHECK(floats(pth, "tail") == range(4, 12));
  CHECK(pth.find("one")->shape == Shape{1, 1});  // strides (4, 1): contiguous as PyTorch judges it
  CHECK(floats(pth, "one") == std::vector<float>{9});
  CHECK(pth.find("empty")->shape == Shape{0, 4});
  CHECK(pth.find("empty")->nbytes == 0);
  REQUIRE_THROWS_MATCHES(pth.read_tensor("nope", nullptr), PthError, message_contains("no tensor \"nope\""));
}

TEST_CASE("a hostile pickle is refused, never executed", "[pth][errors]") {
  // torch.save of an object whose __reduce__ is (os.system, ('echo pwned',)).
  const Bytes bytes = read_bytes(fixture_path("pth/hostile_os_system.pth"));
  REQUIRE_THROWS_MATCHES(parse(bytes), PthError,
                         message_contains("model.pth: pickle opcode GLOBAL 'posix system' is not allowed: .pth files "
                                          "are read as data only"));
  Pickle eval;
  eval.proto().global("builtins", "eval").str("1").tuple_n(1).reduce().stop();
  REQUIRE_THROWS_MATCHES(parse(make_pth(eval.bytes)), PthError,
                         message_contains("pickle opcode GLOBAL 'builtins eval' is not allowed"));
  REQUIRE_THROWS_MATCHES(PthFile(bytes.data(), bytes.size(), "evil.pth"), PthError, message_contains("evil.pth: "));
}

TEST_CASE("each malformed pickle gets its own clear error", "[pth][errors]") {
  const Bytes storage = f32_bytes({1, 2, 3, 4, 5, 6});
  Pickle good;
  good.proto().empty_dict().mark().str("w").tensor("FloatStorage", "0", 6, 0, {2, 3}, {3, 1}).setitems().stop();
  REQUIRE_NOTHROW(parse(make_pth(good.bytes, {{"0", storage}})));

  const struct {
    const char* what;
    Bytes pickle;
    const char* message;
  } cases[] = {
      {"INST", Pickle().proto().raw({'i'}).raw({'o', 's', '\n', 's', 'y', 's', 't', 'e', 'm', '\n'}).stop().bytes,
       "pickle opcode INST (0x69) is not allowed"},
      {"STACK_GLOBAL (protocol 4)", Pickle().proto().str("os").str("system").op(0x93).stop().bytes,
       "pickle opcode STACK_GLOBAL 'os system' is not allowed"},
      {"STACK_GLOBAL of a non-string", Pickle().proto().str("os").integer(1).op(0x93).stop().bytes,
       "STACK_GLOBAL takes a module and a name as strings, got a string and an int"},
      {"a byte that is no opcode", Pickle().proto().op(0xff).bytes, "byte 0xff is not a pickle opcode"},
      {"unknown protocol", Pickle().raw({0x80, 9}).bytes, "pickle protocol 9 is unknown"},
      {"truncated BINUNICODE", Pickle().proto().raw({'X', 0xff, 0xff, 0xff, 0xff, 'a'}).bytes, "truncated pickle"},
      {"no STOP", Pickle().proto().empty_dict().bytes, "ends without STOP"},
      {"unterminated GLOBAL", Pickle().proto().raw({'c', 't', 'o'}).bytes, "has no end of line"},
      {"stack underflow", Pickle().proto().tuple_n(2).stop().bytes, "pickle stack underflow at opcode TUPLE2"},
      {"underflow across a MARK", Pickle().proto().empty_dict().mark().setitem().stop().bytes,
       "pickle stack underflow at opcode SETITEM"},
      {"TUPLE without MARK", Pickle().proto().tuple().stop().bytes, "TUPLE without a MARK"},
      {"memo miss", Pickle().proto().binget(7).stop().bytes, "reads memo entry 7, never stored"},
      {"LONG_BINGET miss", Pickle().proto().raw({'j', 1, 0, 0, 1}).stop().bytes, "memo entry 16777217"},
      {"STOP on an empty stack", Pickle().proto().stop().bytes, "stack underflow at opcode STOP"},
      {"not a dict", Pickle().proto().integer(3).stop().bytes, "the pickled object is an int, not a state dict"},
      {"optimizer state", Pickle().proto().empty_dict().mark().str("optimizer").empty_dict().setitems().stop().bytes,
       "entry 'optimizer' is a dict, not a tensor"},
      {"unsupported storage", Pickle().proto().global("torch", "LongStorage").stop().bytes,
       "storage type torch.LongStorage is not supported"},
      {"calling a storage", Pickle().proto().global("torch", "FloatStorage").empty_tuple().reduce().stop().bytes,
       "REDUCE of a storage type is not allowed"},
      {"OrderedDict with arguments",
       Pickle().proto().global("collections", "OrderedDict").integer(1).tuple_n(1).reduce().stop().bytes,
       "OrderedDict is built with arguments"},
      {"BUILD on a tuple", Pickle().proto().empty_tuple().empty_dict().op('b').stop().bytes, "BUILD on a tuple"},
      {"persistent id not from torch", Pickle().proto().str("x").persid().stop().bytes, "persistent id is a string"},
      {"LONG1 too wide", Pickle().proto().raw({0x8a, 9, 1, 2, 3, 4, 5, 6, 7, 8, 9}).stop().bytes,
       "LONG1 integer of 9 bytes"},
      {"odd SETITEMS", Pickle().proto().empty_dict().mark().str("a").setitems().stop().bytes,
       "SETITEMS with an odd number of items"},
      {"negative size",
       Pickle()
           .proto()
           .empty_dict()
           .mark()
           .str("w")
           .tensor("FloatStorage", "0", 6, 0, {-2, 3}, {3, 1})
           .setitems()
           .stop()
           .bytes,
       "size and stride are not two tuples of sizes"},
      {"17 dimensions",
       Pickle()
           .proto()
           .empty_dict()
           .mark()
           .str("w")
           .tensor("FloatStorage", "0", 6, 0, std::vector<int64_t>(17, 1), std::vector<int64_t>(17, 1))
           .setitems()
           .stop()
           .bytes,
       "(at most 16)"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.what);
    REQUIRE_THROWS_MATCHES(parse(make_pth(c.pickle, {{"0", storage}})), PthError, message_contains(c.message));
  }
}

TEST_CASE("tensors must fit their storage records, contiguously", "[pth][errors]") {
  const Bytes six = f32_bytes({1, 2, 3, 4, 5, 6});
  REQUIRE_NOTHROW(parse(one_tensor("FloatStorage", 6, 2, {2, 2}, {2, 1}, six)));
  REQUIRE_THROWS_MATCHES(parse(one_tensor("FloatStorage", 6, 0, {2, 3}, {3, 1}, six, "5")), PthError,
                         message_contains("tensor \"w\": its storage has no record archive/data/5 in the zip"));
  REQUIRE_THROWS_MATCHES(parse(one_tensor("FloatStorage", 100, 0, {2, 3}, {3, 1}, six)), PthError,
                         message_contains("declares 100 elements of F32 but record archive/data/0 holds only 24"));
  REQUIRE_THROWS_MATCHES(parse(one_tensor("HalfStorage", int64_t(1) << 62, 0, {2}, {1}, six)), PthError,
                         message_contains("declares 4611686018427387904 elements"));
  REQUIRE_THROWS_MATCHES(parse(one_tensor("FloatStorage", 6, 0, {3, 3}, {3, 1}, six)), PthError,
                         message_contains("shape (3, 3) at storage offset 0 runs past its storage of 6 elements"));
  REQUIRE_THROWS_MATCHES(parse(one_tensor("FloatStorage", 6, 4, {2, 2}, {2, 1}, six)), PthError,
                         message_contains("runs past its storage"));
  REQUIRE_THROWS_MATCHES(parse(one_tensor("FloatStorage", 6, 7, {0}, {1}, six)), PthError,
                         message_contains("runs past its storage"));
  const int64_t big = int64_t(1) << 40;  // the product overflows 64 bits
  REQUIRE_THROWS_MATCHES(parse(one_tensor("FloatStorage", 6, 0, {big, big, big}, {1, 1, 1}, six)), PthError,
                         message_contains("shape (1099511627776, 1099511627776, 1099511627776) is too large"));
  REQUIRE_THROWS_MATCHES(parse(one_tensor("FloatStorage", 6, 0, {big, big, 0}, {0, 0, 1}, six)), PthError,
                         message_contains("is too large"));  // even when empty
  REQUIRE_THROWS_MATCHES(parse(one_tensor("FloatStorage", 6, 0, {big}, {1}, six)), PthError,
                         message_contains("runs past its storage"));
  REQUIRE_THROWS_MATCHES(parse(one_tensor("FloatStorage", 6, 0, {3, 2}, {1, 3}, six)), PthError,
                         message_contains("stride (1, 3) for shape (3, 2) is not contiguous row-major"));
  // What torch really writes for x.t().
  const Bytes t = read_bytes(fixture_path("pth/transposed.pth"));
  REQUIRE_THROWS_MATCHES(parse(t), PthError, message_contains("tensor \"t\": stride (1, 3) for shape (3, 2)"));

  // Names: the DDP and torch.compile prefixes go; a name twice is refused.
  Pickle p;
  p.proto().empty_dict().mark();
  p.str("module._orig_mod.a").tensor("FloatStorage", "0", 6, 0, {6}, {1});
  p.str("_orig_mod.module.b").tensor("FloatStorage", "0", 6, 0, {6}, {1}).setitems().stop();
  const Bytes ok = make_pth(p.bytes, {{"0", six}});
  REQUIRE(PthFile(ok.data(), ok.size()).tensor_names() == std::vector<std::string>{"a", "b"});
  Pickle twice;
  twice.proto().empty_dict().mark();
  twice.str("module.a").tensor("FloatStorage", "0", 6, 0, {6}, {1});
  twice.str("a").tensor("FloatStorage", "0", 6, 0, {6}, {1}).setitems().stop();
  REQUIRE_THROWS_MATCHES(parse(make_pth(twice.bytes, {{"0", six}})), PthError, message_contains("names a twice"));
}

TEST_CASE("each malformed zip gets its own clear error", "[pth][errors]") {
  const Bytes real = read_bytes(fixture_path("gen2_dense/model.pth"));
  REQUIRE_NOTHROW(parse(real));

  Pickle empty;
  empty.proto().empty_dict().stop();
  REQUIRE_NOTHROW(parse(make_pth(empty.bytes)));
  REQUIRE_THROWS_MATCHES(parse(make_pth(empty.bytes, {}, 8)), PthError,
                         message_contains("entry \"archive/data.pkl\" is compressed (deflate)"));
  // Without ZIP64 records too, and with ZIP64 extra fields (records past 4 GiB).
  REQUIRE_NOTHROW(parse(make_zip({{"a/data.pkl", empty.bytes}}, false)));
  Pickle one;
  one.proto().empty_dict().mark().str("w").tensor("FloatStorage", "0", 2, 0, {2}, {1}).setitems().stop();
  const Bytes extra = make_zip({{"a/data.pkl", one.bytes}, {"a/data/0", f32_bytes({1.5f, -2})}}, true, true);
  REQUIRE(floats(PthFile(extra.data(), extra.size()), "w") == std::vector<float>{1.5f, -2});
  Bytes short_extra = extra;  // the first entry's ZIP64 extra field declares 16 bytes, not 24
  const Bytes header = {0x01, 0x00, 24, 0x00};
  const auto field = std::search(short_extra.begin(), short_extra.end(), header.begin(), header.end());
  REQUIRE(field != short_extra.end());
  field[2] = 16;
  REQUIRE_THROWS_MATCHES(parse(short_extra), PthError, message_contains("ZIP64 extra field is too short"));
  REQUIRE_THROWS_MATCHES(parse(make_zip({{"a/notes.txt", {'x'}}})), PthError,
                         message_contains("no <archive>/data.pkl record"));
  REQUIRE_THROWS_MATCHES(parse(make_zip({{"a/data.pkl", empty.bytes}, {"b/data.pkl", empty.bytes}})), PthError,
                         message_contains("two pickles"));
  REQUIRE_THROWS_MATCHES(parse(make_zip({{"a/data.pkl", empty.bytes}, {"a/data.pkl", empty.bytes}})), PthError,
                         message_contains("two entries named \"a/data.pkl\""));
  REQUIRE_THROWS_MATCHES(parse(make_zip({{"a/data.pkl", empty.bytes}, {"a/byteorder", {'b', 'i', 'g'}}})), PthError,
                         message_contains("big-endian"));

  // Truncations: the end records go first.
  REQUIRE_THROWS_MATCHES(parse(Bytes(real.begin(), real.begin() + real.size() / 2)), PthError,
                         message_contains("no end-of-central-directory record"));
  REQUIRE_THROWS_MATCHES(parse(Bytes(real.begin(), real.begin() + 10)), PthError,
                         message_contains("too short for a zip"));
  for (size_t cut = 1; cut < 200; ++cut) {  // every cut of the tail: an error, never a crash
    CAPTURE(cut);
    REQUIRE_THROWS_AS(parse(Bytes(real.begin(), real.end() - std::ptrdiff_t(cut))), PthError);
  }

  // The central directory offset (classic end record) pointing past the end.
  Bytes classic = make_zip({{"a/data.pkl", empty.bytes}}, false);
  classic[classic.size() - 6] = 0xff;
  REQUIRE_THROWS_MATCHES(parse(classic), PthError, message_contains("central directory (offset"));
  REQUIRE_THROWS_MATCHES(parse(classic), PthError, message_contains("runs past the end of the file"));
  // ... and the ZIP64 record's (torch's files): its offset field is 48 bytes in.
  Bytes zip64 = real;
  const size_t record = real.size() - 22 - 20 - 56;
  REQUIRE(zip64[record] == 'P');
  REQUIRE(zip64[record + 3] == 6);
  zip64[record + 48 + 5] = 0x01;  // + 2^40
  REQUIRE_THROWS_MATCHES(parse(zip64), PthError, message_contains("runs past the end of the file"));
  // A local header offset pointing past the end.
  Bytes local = make_zip({{"a/data.pkl", empty.bytes}}, false);
  local[local.size() - 22 - 10 - 4] = 0xf0;  // the central entry's local offset
  REQUIRE_THROWS_MATCHES(parse(local), PthError, message_contains("does not point to a local file header"));
  // An entry count larger than the directory can hold.
  Bytes count = make_zip({{"a/data.pkl", empty.bytes}}, false);
  count[count.size() - 14] = count[count.size() - 12] = 0x40;  // entries on this disk, in all
  REQUIRE_THROWS_MATCHES(parse(count), PthError, message_contains("declares 64 entries"));

  // Not a zip at all.
  REQUIRE_THROWS_MATCHES(parse(Pickle().proto().empty_dict().stop().bytes), PthError,
                         message_contains("legacy torch.save format"));
  const Bytes st = read_bytes(fixture_path("gen2_dense/model.safetensors"));
  REQUIRE_THROWS_MATCHES(parse(st), PthError, message_contains("does not start like a zip"));
  REQUIRE_THROWS_MATCHES(parse(Bytes{}), PthError, message_contains("does not start like a zip"));
}

TEST_CASE("MiniMind's resume checkpoint: its model entry loads, the optimizer state is data", "[pth]") {
  // lm_checkpoint's <weight>_<hidden>_resume.pth of gen2_dense (torch.save of
  // {"model", "optimizer" (AdamW after one step), "epoch", "step",
  // "world_size", "wandb_id", "scaler"}).
  const Bytes bytes = read_bytes(fixture_path("pth/pretrain_32_resume.pth"));
  const PthFile resume(bytes.data(), bytes.size(), "pretrain_32_resume.pth");
  CHECK(resume.is_training_checkpoint());
  CHECK(resume.is_resume_checkpoint());
  CHECK(resume.epoch() == 0);
  CHECK(resume.step() == 7);
  CHECK(resume.world_size() == 1);
  CHECK(resume.description() ==
        "pretrain_32_resume.pth is MiniMind's resume checkpoint (a dict of model, optimizer, epoch, step, "
        "world_size, wandb_id, scaler; epoch 0, step 7, world_size 1): its weights are the 'model' entry; the "
        "optimizer state is not used");

  // The model entry is the trainer's state dict of gen2_dense: the same names and values.
  const Bytes plain_bytes = read_bytes(fixture_path("gen2_dense/model.pth"));
  const PthFile plain(plain_bytes.data(), plain_bytes.size());
  CHECK_FALSE(plain.is_training_checkpoint());
  CHECK(plain.description().empty());
  REQUIRE(resume.tensor_names() == plain.tensor_names());
  for (const std::string& name : plain.tensor_names()) {
    CAPTURE(name);
    CHECK(resume.find(name)->dtype == DType::F16);
    CHECK(floats(resume, name) == floats(plain, name));
  }

  // It gives the reference logits, and its config is inferred like the state dict's.
  const GoldenCase c = load_golden_case("gen2_dense");
  const Model model = model_from_pth(c.model->config(), bytes.data(), bytes.size());
  CHECK_CLOSE(model.forward_batch(c.rows("input_ids")).data, c.floats("logits"), 1e-5, 1e-4);
  InferHints four;
  four.num_attention_heads = 4;
  CHECK(infer_config(resume, four).config.num_key_value_heads == 1);

  // Whatever else is wrong, the message says what the file is.
  const GoldenCase other = load_golden_case("gen3_dense");
  REQUIRE_THROWS_MATCHES(load_weights(other.model->config(), resume), ConfigError,
                         message_contains("tensor model.layers.0.self_attn.k_proj.weight has shape (8, 32)") &&
                             message_contains("(pretrain_32_resume.pth is MiniMind's resume checkpoint"));
  InferHints three;
  three.num_attention_heads = 3;
  REQUIRE_THROWS_MATCHES(infer_config(resume, three), ConfigError,
                         message_contains("not a multiple of 3") &&
                             message_contains("(pretrain_32_resume.pth is MiniMind's resume checkpoint"));
}

TEST_CASE("MiniMind's resume checkpoint: AdamW's state reads per parameter index", "[pth][resume]") {
  // The fixture's optimizer took one step from zero moments with gradients g:
  // exp_avg = 0.1 g and exp_avg_sq = 0.001 g², so exp_avg_sq = 0.1 exp_avg².
  const Bytes bytes = read_bytes(fixture_path("pth/pretrain_32_resume.pth"));
  const PthFile resume(bytes.data(), bytes.size(), "pretrain_32_resume.pth");
  CHECK(resume.optimizer_problem().empty());
  REQUIRE(resume.optimizer());
  const PthOptimizer& o = *resume.optimizer();
  const size_t n = resume.tensor_names().size() - 1;  // lm_head.weight is the tied embedding: one parameter
  REQUIRE(o.groups.size() == 1);
  CHECK(o.groups[0].params.size() == n);
  CHECK(o.groups[0].params.front() == 0);
  CHECK(o.groups[0].params.back() == int64_t(n) - 1);
  CHECK(o.groups[0].lr == 5e-4);
  CHECK(o.groups[0].beta1 == 0.9);
  CHECK(o.groups[0].beta2 == 0.999);
  CHECK(o.groups[0].eps == 1e-8);
  CHECK(o.groups[0].weight_decay == 0.01);
  CHECK_FALSE(o.groups[0].amsgrad);
  REQUIRE(o.state.size() == n);
  for (size_t i = 0; i < n; ++i) {
    const PthAdamEntry& e = o.state[i];
    CAPTURE(i);
    CHECK(e.index == int64_t(i));
    CHECK(e.step == 1.0);
    CHECK(e.exp_avg.dtype == DType::F32);
    CHECK(e.exp_avg.shape == e.exp_avg_sq.shape);
    std::vector<float> m(size_t(shape_numel(e.exp_avg.shape))), v(m.size());
    resume.read_floats(e.exp_avg, m.data());
    resume.read_floats(e.exp_avg_sq, v.data());
    for (size_t k = 0; k < m.size(); ++k) {
      REQUIRE(m[k] != 0.0f);
      REQUIRE(std::fabs(double(v[k]) - 0.1 * double(m[k]) * m[k]) <= 1e-5 * double(v[k]));
    }
  }
  // The embedding comes first, as in model.parameters().
  CHECK(o.state[0].exp_avg.shape == resume.find("model.embed_tokens.weight")->shape);

  // An "optimizer" that is not AdamW's state: the weights still load, the problem is said.
  Pickle p;
  p.proto().empty_dict().mark();
  p.str("model").empty_dict().mark().str("w").tensor("FloatStorage", "0", 2, 0, {2}, {1}).setitems();
  p.str("optimizer").empty_dict().mark().str("state").empty_dict().setitems().setitems().stop();
  const Bytes other = make_pth(p.bytes, {{"0", f32_bytes({1, 2})}});
  const PthFile file(other.data(), other.size(), "other.pth");
  CHECK(file.tensor_names() == std::vector<std::string>{"w"});
  CHECK_FALSE(file.optimizer());
  CHECK(file.optimizer_problem() == "the 'optimizer' entry has no 'param_groups' list");
}

TEST_CASE("protocol-4 pickles and nn.Parameter values are data too", "[pth]") {
  // torch.save(..., pickle_protocol=4): FRAME, MEMOIZE, SHORT_BINUNICODE, STACK_GLOBAL.
  const Bytes p4 = read_bytes(fixture_path("pth/protocol4.pth"));
  const PthFile four(p4.data(), p4.size());
  const std::string long_name(300, 'n');
  REQUIRE(four.tensor_names() == std::vector<std::string>{"grid", "row2", "half", "bf16", long_name});
  CHECK(floats(four, "grid") == std::vector<float>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
  CHECK(floats(four, "row2") == std::vector<float>{8, 9, 10, 11});
  CHECK(four.find("half")->dtype == DType::F16);
  CHECK(floats(four, "half") == std::vector<float>{0, 0.25f, 0.5f, 0.75f, 1, 1.25f});
  CHECK(four.find("bf16")->dtype == DType::BF16);
  CHECK(floats(four, "bf16") == std::vector<float>{1.5f, -2});
  CHECK(floats(four, long_name) == std::vector<float>{7});

  // torch._utils._rebuild_parameter(tensor, requires_grad, hooks): the tensor.
  const Bytes params = read_bytes(fixture_path("pth/parameters.pth"));
  const PthFile p(params.data(), params.size());
  REQUIRE(p.tensor_names() == std::vector<std::string>{"weight", "frozen"});
  CHECK(p.find("weight")->shape == Shape{2, 3});
  CHECK(floats(p, "weight") == std::vector<float>{0, 1, 2, 3, 4, 5});
  CHECK(p.find("frozen")->dtype == DType::F16);
  CHECK(floats(p, "frozen") == std::vector<float>{0.5f, 0.25f});
}

TEST_CASE("checkpoint dicts: plain data is read, the weights come from 'model' only", "[pth][errors]") {
  const Bytes storage = f32_bytes({1, 2, 3, 4, 5, 6});
  // {"model": {"w": tensor}, "optim": {"lr": 0.5, "params": [0, 1, 2]}, "epoch": 3, "note": None, "ids": [4]}
  Pickle p;
  p.proto().empty_dict().mark();
  p.str("model").empty_dict().mark().str("w").tensor("FloatStorage", "0", 6, 0, {6}, {1}).setitems();
  p.str("optim").empty_dict().mark().str("lr").raw({'G', 0x3f, 0xe0, 0, 0, 0, 0, 0, 0});  // BINFLOAT 0.5
  p.str("params").op(']').integer(0).op('a').mark().integer(1).integer(2).op('e').setitems();
  p.str("epoch").integer(3).str("note").op('N').str("ids").mark().integer(4).op('l').setitems().stop();
  const Bytes bytes = make_pth(p.bytes, {{"0", storage}});
  const PthFile file(bytes.data(), bytes.size(), "ckpt.pth");
  CHECK(file.is_training_checkpoint());
  CHECK_FALSE(file.is_resume_checkpoint());  // an optimizer key would make it MiniMind's
  CHECK(file.tensor_names() == std::vector<std::string>{"w"});
  CHECK(file.epoch() == 3);
  CHECK_FALSE(file.step().has_value());
  CHECK(file.description() ==
        "ckpt.pth is a checkpoint dict (model, optim, epoch, note, ids; epoch 3): its weights are the 'model' entry");

  const struct {
    const char* what;
    Bytes pickle;
    const char* message;
  } cases[] = {
      {"no 'model' entry",
       Pickle()
           .proto()
           .empty_dict()
           .mark()
           .str("state_dict")
           .empty_dict()
           .str("epoch")
           .integer(1)
           .setitems()
           .stop()
           .bytes,
       "state dict entry 'state_dict' is a dict, not a tensor (a training checkpoint? a state dict holds only "
       "tensors; MiniMind's resume checkpoint keeps them under 'model', and this dict has the keys 'state_dict', "
       "'epoch')"},
      {"a 'model' entry that is no state dict",
       Pickle()
           .proto()
           .empty_dict()
           .mark()
           .str("model")
           .empty_dict()
           .mark()
           .str("w")
           .integer(1)
           .setitems()
           .str("optimizer")
           .empty_dict()
           .setitems()
           .stop()
           .bytes,
       "the checkpoint's 'model' entry: state dict entry 'w' is an int, not a tensor"},
      {"APPEND on a dict", Pickle().proto().empty_dict().integer(1).op('a').stop().bytes,
       "APPEND on a dict, not a list"},
      {"APPENDS without MARK", Pickle().proto().op(']').op('e').stop().bytes, "APPENDS without a MARK"},
      {"truncated BINFLOAT", Pickle().proto().raw({'G', 1, 2}).bytes,
       "truncated pickle: opcode BINFLOAT needs 8 bytes"},
      {"truncated BINUNICODE8", Pickle().proto().raw({0x8d, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f}).bytes,
       "truncated pickle: opcode BINUNICODE8 needs 9223372036854775807 bytes"},
      {"truncated SHORT_BINUNICODE", Pickle().proto().raw({0x8c, 5, 'a'}).bytes,
       "opcode SHORT_BINUNICODE needs 5 bytes, 1 left"},
      {"_rebuild_parameter of an int",
       Pickle()
           .proto()
           .global("torch._utils", "_rebuild_parameter")
           .integer(1)
           .newfalse()
           .empty_dict()
           .tuple_n(3)
           .reduce()
           .stop()
           .bytes,
       "_rebuild_parameter's first argument is not a tensor"},
      {"_rebuild_parameter with one argument",
       Pickle().proto().global("torch._utils", "_rebuild_parameter").integer(1).tuple_n(1).reduce().stop().bytes,
       "_rebuild_parameter takes 3 arguments, got 1"},
      {"_rebuild_parameter as a storage type",
       Pickle()
           .proto()
           .mark()
           .str("storage")
           .global("torch._utils", "_rebuild_parameter")
           .str("0")
           .str("cpu")
           .integer(1)
           .tuple()
           .persid()
           .stop()
           .bytes,
       "persistent id has no storage type"},
      {"MEMOIZE on an empty stack", Pickle().proto().op(0x94).stop().bytes, "stack underflow at opcode MEMOIZE"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.what);
    REQUIRE_THROWS_MATCHES(parse(make_pth(c.pickle, {{"0", storage}})), PthError, message_contains(c.message));
  }
  // MEMOIZE numbers entries as CPython does: the memo's size.
  Pickle memo;
  memo.proto().empty_dict().op(0x94).mark().str("w").op(0x94).tensor("FloatStorage", "0", 6, 0, {6}, {1});
  memo.op(0x94).binget(1).binget(2).setitems().stop();  // "w" -> the same tensor, named twice
  REQUIRE_THROWS_MATCHES(parse(make_pth(memo.bytes, {{"0", storage}})), PthError, message_contains("names 'w' twice"));
}
