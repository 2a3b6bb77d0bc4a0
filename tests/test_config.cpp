// config.json parsing and validation, defaults of both MiniMind generations,
// and the presets against the released shapes in MINIMIND.md.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <set>
#include <string>

#include "compare.h"
#include "fixtures.h"
#include "model/presets.h"
#include "tensors/model_config.h"
#include "util/error.h"

using namespace minimind;
using minimind::testing::fixture_path;
using minimind::testing::golden_case_names;
using minimind::testing::message_contains;
using minimind::testing::read_text;

namespace {

// Every field, for comparing two configs and printing the first difference.
// explicit_head_dim is left out: it records how the value was found (written
// or derived), and config_to_json always writes head_dim.
std::string config_diff(const ModelConfig& a, const ModelConfig& b) {
  std::string d;
  const auto field = [&](const char* name, auto x, auto y) {
    if (!(x == y)) d += std::string(name) + ": " + std::to_string(x) + " vs " + std::to_string(y) + "\n";
  };
  field("generation", a.generation, b.generation);
  field("hidden_size", a.hidden_size, b.hidden_size);
  field("num_hidden_layers", a.num_hidden_layers, b.num_hidden_layers);
  field("num_attention_heads", a.num_attention_heads, b.num_attention_heads);
  field("num_key_value_heads", a.num_key_value_heads, b.num_key_value_heads);
  field("head_dim", a.head_dim, b.head_dim);
  field("intermediate_size", a.intermediate_size, b.intermediate_size);
  field("vocab_size", a.vocab_size, b.vocab_size);
  field("max_position_embeddings", a.max_position_embeddings, b.max_position_embeddings);
  field("rms_norm_eps", a.rms_norm_eps, b.rms_norm_eps);
  field("rope_theta", a.rope_theta, b.rope_theta);
  field("tie_word_embeddings", a.tie_word_embeddings, b.tie_word_embeddings);
  field("use_qk_norm", a.use_qk_norm, b.use_qk_norm);
  if (a.hidden_act != b.hidden_act) d += "hidden_act: " + a.hidden_act + " vs " + b.hidden_act + "\n";
  field("bos_token_id", a.bos_token_id, b.bos_token_id);
  field("eos_token_id", a.eos_token_id, b.eos_token_id);
  field("inference_rope_scaling", a.inference_rope_scaling, b.inference_rope_scaling);
  field("rope_scaling.beta_fast", a.rope_scaling.beta_fast, b.rope_scaling.beta_fast);
  field("rope_scaling.beta_slow", a.rope_scaling.beta_slow, b.rope_scaling.beta_slow);
  field("rope_scaling.factor", a.rope_scaling.factor, b.rope_scaling.factor);
  field("rope_scaling.original_max_position_embeddings", a.rope_scaling.original_max_position_embeddings,
        b.rope_scaling.original_max_position_embeddings);
  field("rope_scaling.attention_factor", a.rope_scaling.attention_factor, b.rope_scaling.attention_factor);
  field("use_moe", a.use_moe, b.use_moe);
  field("num_experts", a.num_experts, b.num_experts);
  field("num_experts_per_tok", a.num_experts_per_tok, b.num_experts_per_tok);
  field("moe_intermediate_size", a.moe_intermediate_size, b.moe_intermediate_size);
  field("norm_topk_prob", a.norm_topk_prob, b.norm_topk_prob);
  field("n_shared_experts", a.n_shared_experts, b.n_shared_experts);
  return d;
}

// Parameter count from the shapes alone (the spec's tensor list), tied head once.
int64_t count_parameters(const ModelConfig& c) {
  const int64_t D = c.hidden_size, V = c.vocab_size;
  const auto ffn = [&](int64_t F) { return 3 * D * F; };        // gate [F, D], up [F, D], down [D, F]
  int64_t layer = D * c.num_attention_heads * c.head_dim * 2    // q_proj [H·Dh, D], o_proj [D, H·Dh]
                  + D * c.num_key_value_heads * c.head_dim * 2  // k_proj, v_proj [Hkv·Dh, D]
                  + 2 * D                                       // input / post_attention layernorm
                  + (c.use_qk_norm ? 2 * c.head_dim : 0);
  if (!c.use_moe) {
    layer += ffn(c.intermediate_size);
  } else {
    const int64_t expert_F = c.generation == 2 ? c.intermediate_size : c.moe_intermediate_size;
    layer += c.num_experts * D + c.num_experts * ffn(expert_F) + c.n_shared_experts * ffn(c.intermediate_size);
  }
  return V * D + c.num_hidden_layers * layer + D + (c.tie_word_embeddings ? 0 : V * D);
}

int64_t gen3_intermediate(int64_t D) { return int64_t(std::ceil(double(D) * M_PI / 64)) * 64; }
int64_t gen2_intermediate(int64_t D) { return 64 * int64_t(std::ceil(double(D) * 8 / 3 / 64)); }

}  // namespace

TEST_CASE("an empty config.json gives MiniMind-3's defaults", "[config]") {
  const ModelConfig c = parse_config_json("{}");
  CHECK(c.generation == 3);
  CHECK(c.hidden_size == 768);
  CHECK(c.num_hidden_layers == 8);
  CHECK(c.num_attention_heads == 8);
  CHECK(c.num_key_value_heads == 4);
  CHECK(c.head_dim == 768 / 8);
  CHECK(c.intermediate_size == gen3_intermediate(768));
  CHECK(c.intermediate_size == 2432);  // the spec's table
  CHECK(c.vocab_size == 6400);
  CHECK(c.max_position_embeddings == 32768);
  CHECK(c.rms_norm_eps == 1e-6);
  CHECK(c.rope_theta == 1e6);
  CHECK(c.tie_word_embeddings);
  CHECK(c.use_qk_norm);
  CHECK_FALSE(c.inference_rope_scaling);
  CHECK(c.bos_token_id == 1);
  CHECK(c.eos_token_id == 2);
  CHECK(c.num_experts == 4);
  CHECK(c.num_experts_per_tok == 1);
  CHECK(c.moe_intermediate_size == c.intermediate_size);
  CHECK(c.norm_topk_prob);
  for (const int64_t D : {64, 96, 512, 640, 768, 1000}) {
    CAPTURE(D);
    CHECK(parse_config_json("{\"hidden_size\": " + std::to_string(D) + ", \"num_attention_heads\": 4}")
              .intermediate_size == gen3_intermediate(D));
    CHECK(default_intermediate_size(3, D) == gen3_intermediate(D));
    CHECK(default_intermediate_size(2, D) == gen2_intermediate(D));
  }
  // An explicit intermediate_size wins, and MoE experts default to it.
  const ModelConfig moe = parse_config_json(R"({"hidden_size": 64, "intermediate_size": 100, "use_moe": true})");
  CHECK(moe.moe_intermediate_size == 100);
}

TEST_CASE("MiniMind2 keys select generation 2 and its defaults", "[config]") {
  for (const char* marker : {R"("n_routed_experts": 4)", R"("scoring_func": "softmax")", R"("aux_loss_alpha": 0.1)"}) {
    CAPTURE(marker);
    const ModelConfig c = parse_config_json(std::string("{") + marker + "}");
    CHECK(c.generation == 2);
    CHECK(c.hidden_size == 512);
    CHECK(c.num_key_value_heads == 2);
    CHECK(c.head_dim == 64);
    CHECK(c.intermediate_size == gen2_intermediate(512));
    CHECK(c.intermediate_size == 1408);  // minimind2-small in the spec's table
    CHECK(c.rms_norm_eps == 1e-5);
    CHECK_FALSE(c.use_qk_norm);
    // MiniMind2's MoE defaults: 4 routed experts, top-2, one shared expert.
    CHECK(c.num_experts == 4);
    CHECK(c.num_experts_per_tok == 2);
    CHECK(c.n_shared_experts == 1);
  }
  const ModelConfig c = parse_config_json(R"({"n_routed_experts": 8, "n_shared_experts": 2, "hidden_size": 640,
                                             "use_moe": true, "num_experts_per_tok": 3})");
  CHECK(c.num_experts == 8);
  CHECK(c.n_shared_experts == 2);
  CHECK(c.num_experts_per_tok == 3);
  CHECK(c.intermediate_size == gen2_intermediate(640));
  CHECK(c.expert_intermediate_size() == c.intermediate_size);  // gen 2 experts are full size
}

TEST_CASE("num_key_value_heads: null means one kv head per q head", "[config]") {
  CHECK(parse_config_json(R"({"num_attention_heads": 6, "hidden_size": 96, "num_key_value_heads": null})")
            .num_key_value_heads == 6);
  CHECK(parse_config_json(R"({"num_attention_heads": 6, "hidden_size": 96, "num_key_value_heads": 3})")
            .num_key_value_heads == 3);
  CHECK(parse_config_json(R"({"num_attention_heads": 8})").num_key_value_heads == 4);  // absent: the default
}

TEST_CASE("each bad config gets a clear message", "[config][errors]") {
  const struct {
    const char* json;
    const char* message;
  } cases[] = {
      {"{", "config.json is not valid JSON"},
      {"[1, 2]", "config.json must hold a JSON object, got array"},
      {"\"hidden_size\"", "config.json must hold a JSON object, got string"},
      {R"({"hidden_size": 100, "num_attention_heads": 8})",
       "hidden_size 100 is not divisible by num_attention_heads 8"},
      {R"({"num_attention_heads": 8, "num_key_value_heads": 3})",
       "num_attention_heads 8 is not a multiple of num_key_value_heads 3"},
      {R"({"hidden_size": 72, "num_attention_heads": 8})", "head_dim 9 is odd"},
      {R"({"head_dim": 15})", "head_dim 15 is odd"},
      {R"({"vocab_size": 0})", "vocab_size must be a positive integer, got 0"},
      {R"({"num_hidden_layers": -2})", "num_hidden_layers must be a positive integer, got -2"},
      {R"({"num_attention_heads": 0})", "num_attention_heads must be a positive integer, got 0"},
      {R"({"hidden_size": 1048576})", "hidden_size 1048576 is larger than the supported 65536"},
      {R"({"rms_norm_eps": 0})", "rms_norm_eps must be a positive number"},
      {R"({"rope_theta": -1})", "rope_theta must be a positive number"},
      {R"({"hidden_size": "64"})", "hidden_size must be an integer, got \"64\""},
      {R"({"hidden_size": 64.5})", "hidden_size must be an integer, got 64.5"},
      {R"({"rms_norm_eps": "1e-6"})", "rms_norm_eps must be a number"},
      {R"({"tie_word_embeddings": 1})", "tie_word_embeddings must be true or false, got 1"},
      {R"({"hidden_act": 3})", "hidden_act must be a string, got 3"},
      {R"({"hidden_act": "gelu"})", "hidden_act \"gelu\" is not supported"},
      {R"({"n_routed_experts": 4, "scoring_func": "sigmoid"})", "scoring_func \"sigmoid\" is not supported"},
      {R"({"use_moe": true, "num_experts": 4, "num_experts_per_tok": 5})",
       "num_experts_per_tok must be between 1 and num_experts (4), got 5"},
      {R"({"use_moe": true, "num_experts": 0})", "num_experts must be between 1 and 256, got 0"},
      {R"({"use_moe": true, "moe_intermediate_size": -1})", "moe_intermediate_size must be a positive integer"},
      {R"({"hidden_size": 8192, "num_hidden_layers": 64, "intermediate_size": 32768})",
       "as float32, over the 2 GiB limit"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.json);
    REQUIRE_THROWS_MATCHES(parse_config_json(c.json), ConfigError, message_contains(c.message));
  }
  // A caller's own cap is the one named.
  REQUIRE_THROWS_MATCHES(parse_config_json("{}", int64_t{64} << 20), ConfigError,
                         message_contains("over the 64 MiB limit"));
  REQUIRE_NOTHROW(parse_config_json("{}", int64_t{1} << 30));  // minimind-3 (~256 MB) fits in 1 GiB
  REQUIRE_NOTHROW(parse_config_json(R"({"hidden_size": 64.0, "num_attention_heads": 4})"));  // integral float is fine
}

TEST_CASE("rope_theta and rms_norm_eps must be usable as float32", "[config][errors]") {
  const struct {
    const char* json;
    const char* message;
  } cases[] = {
      // JSON numbers past a double's range: the key is named, nothing reads as infinity.
      {R"({"rope_theta": 1e999})", "rope_theta is 1e999, beyond the range of a float64"},
      {R"({"hidden_size": 64, "rms_norm_eps": -1e400})", "rms_norm_eps is -1e400, beyond the range"},
      {R"([1e999])", "config.json has the number 1e999, beyond the range"},
      // Positive as doubles, but 0 or infinite in the float32 the core computes in.
      {R"({"rms_norm_eps": 1e-50})", "rms_norm_eps 1e-50 rounds to 0 in float32"},
      {R"({"rms_norm_eps": 1e39})", "rms_norm_eps 1e+39 overflows float32"},
      {R"({"rope_theta": 1e39})", "rope_theta 1e+39 is outside float32's range"},
      {R"({"rope_theta": 1e-50})", "rope_theta 1e-50 is outside float32's range"},
      {R"({"rope_theta": 1, "inference_rope_scaling": true})", "rope_theta 1 must be greater than 1"},
      {R"({"rms_norm_eps": 0})", "rms_norm_eps must be a positive number, got 0"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.json);
    REQUIRE_THROWS_MATCHES(parse_config_json(c.json), ConfigError, message_contains(c.message));
  }
  ModelConfig tiny = preset_config("lab-a");
  tiny.rms_norm_eps = 1e-50;
  REQUIRE(validate_config(tiny).size() == 1);
  tiny.rms_norm_eps = 1e-44;  // a float32 subnormal: small, but not 0
  CHECK(validate_config(tiny).empty());
  tiny.rope_theta = std::numeric_limits<double>::infinity();
  REQUIRE(validate_config(tiny).size() == 1);
  CHECK(validate_config(tiny)[0] == "rope_theta must be a positive number, got inf");
}

TEST_CASE("unknown config.json keys are listed, known harmless ones are not", "[config]") {
  std::vector<std::string> unknown = {"stale"};
  // A typo of num_attention_heads leaves MiniMind's 8 heads in place: say so.
  const ModelConfig c = parse_config_json(
      R"({"hidden_size": 64, "num_attention_head": 4, "model_type": "minimind", "dropout": 0.0,
          "flash_attn": true, "torch_dtype": "float16", "rope_scaling": null, "foo": 1})",
      kDefaultMaxWeightBytes, &unknown);
  CHECK(c.num_attention_heads == 8);
  CHECK(unknown == std::vector<std::string>{"foo", "num_attention_head"});
  CHECK(unknown_config_key_warning("foo") ==
        "config.json key \"foo\" is not a MiniMind config key and was ignored (a typo?)");

  // Every key the project and MiniMind's exports write is known.
  for (const std::string& preset : preset_names()) {
    CAPTURE(preset);
    parse_config_json(config_to_json(preset_config(preset)), kDefaultMaxWeightBytes, &unknown);
    CHECK(unknown.empty());
  }
  for (const std::string& name : golden_case_names()) {
    CAPTURE(name);
    parse_config_json(read_text(fixture_path(name + "/config.json")), kDefaultMaxWeightBytes, &unknown);
    CHECK(unknown.empty());
  }
  // scripts/convert_model.py's Qwen3 export.
  parse_config_json(R"({"architectures": ["Qwen3ForCausalLM"], "attention_bias": false, "attention_dropout": 0.0,
      "bos_token_id": 1, "eos_token_id": 2, "head_dim": 96, "hidden_act": "silu", "hidden_size": 768,
      "initializer_range": 0.02, "intermediate_size": 2432, "max_position_embeddings": 32768,
      "max_window_layers": 8, "model_type": "qwen3", "num_attention_heads": 8, "num_hidden_layers": 8,
      "num_key_value_heads": 4, "rms_norm_eps": 1e-06, "rope_scaling": null, "rope_theta": 1000000.0,
      "sliding_window": null, "tie_word_embeddings": true, "torch_dtype": "float16",
      "transformers_version": "4.57.1", "use_cache": true, "use_sliding_window": false, "vocab_size": 6400})",
                    kDefaultMaxWeightBytes, &unknown);
  CHECK(unknown.empty());
  // Keys of the other generation are not read, and so are listed.
  parse_config_json(R"({"n_routed_experts": 4, "num_experts": 4})", kDefaultMaxWeightBytes, &unknown);
  CHECK(unknown == std::vector<std::string>{"num_experts"});
}

TEST_CASE("YaRN follows inference_rope_scaling alone, with MiniMind's fixed parameters", "[config]") {
  // MiniMindConfig overwrites rope_scaling from inference_rope_scaling, so a
  // block in the file changes nothing.
  const ModelConfig off = parse_config_json(R"({"rope_scaling": {"factor": 4, "type": "yarn"}})");
  CHECK_FALSE(off.inference_rope_scaling);
  const ModelConfig on = parse_config_json(R"({"inference_rope_scaling": true, "rope_scaling": {"factor": 4}})");
  CHECK(on.inference_rope_scaling);
  CHECK(on.rope_scaling.factor == 16.0);
  CHECK(on.rope_scaling.original_max_position_embeddings == 2048);
}

TEST_CASE("several problems at once are all reported", "[config][errors]") {
  try {
    parse_config_json(R"({"vocab_size": 0, "num_key_value_heads": 3, "hidden_act": "relu", "rope_theta": 0})");
    FAIL("accepted a config with four problems");
  } catch (const ConfigError& e) {
    CHECK(e.problems().size() == 4);
    CHECK_THAT(e.what(), Catch::Contains("vocab_size") && Catch::Contains("num_key_value_heads 3") &&
                             Catch::Contains("relu") && Catch::Contains("rope_theta"));
  }
  try {
    parse_config_json(R"({"hidden_size": "64", "use_moe": "yes", "rms_norm_eps": null})");
    FAIL("accepted a config with two type errors");
  } catch (const ConfigError& e) {
    CHECK(e.problems().size() == 2);  // null is "absent": the default eps
    CHECK_THAT(e.what(),
               Catch::Contains("hidden_size must be an integer") && Catch::Contains("use_moe must be true or false"));
  }
  ModelConfig c;
  c.hidden_size = -1;
  c.vocab_size = 0;
  c.hidden_act = "tanh";
  CHECK(validate_config(c).size() == 3);
  CHECK(validate_config(ModelConfig{}).empty());
}

TEST_CASE("config_to_json round-trips through parse_config_json", "[config]") {
  std::vector<ModelConfig> configs;
  for (const std::string& name : preset_names()) configs.push_back(preset_config(name));
  ModelConfig yarn = preset_config("lab-b");  // non-default values everywhere
  yarn.inference_rope_scaling = true;
  yarn.rope_theta = 1e4;
  yarn.tie_word_embeddings = false;
  yarn.rms_norm_eps = 1e-5;
  yarn.bos_token_id = 5;
  yarn.max_position_embeddings = 4096;
  configs.push_back(yarn);
  ModelConfig moe = preset_config("minimind-3-moe");
  moe.num_experts = 6, moe.num_experts_per_tok = 2, moe.moe_intermediate_size = 512, moe.norm_topk_prob = false;
  configs.push_back(moe);
  for (const ModelConfig& c : configs) {
    const std::string text = config_to_json(c);
    CAPTURE(text);
    REQUIRE(config_diff(parse_config_json(text), c) == "");
  }
}

TEST_CASE("presets have the released shapes and parameter counts", "[config][presets]") {
  const struct {
    const char* name;
    int generation;
    int64_t layers, hidden, heads, kv_heads, head_dim, intermediate, vocab;
    bool qk_norm;
    double eps;
    bool moe;
    int64_t experts, top_k, shared;
    double published_millions;  // 0: not a released model
  } table[] = {
      {"lab-a", 3, 2, 64, 4, 2, 16, gen3_intermediate(64), 128, true, 1e-6, false, 0, 0, 0, 0},
      {"lab-b", 3, 2, 96, 6, 3, 16, gen3_intermediate(96), 128, true, 1e-6, false, 0, 0, 0, 0},
      {"minimind2-small", 2, 8, 512, 8, 2, 64, 1408, 6400, false, 1e-5, false, 0, 0, 0, 26},
      {"minimind2", 2, 16, 768, 8, 2, 96, 2048, 6400, false, 1e-5, false, 0, 0, 0, 104},
      {"minimind2-moe", 2, 8, 640, 8, 2, 80, gen2_intermediate(640), 6400, false, 1e-5, true, 4, 2, 1, 145},
      {"minimind-3", 3, 8, 768, 8, 4, 96, 2432, 6400, true, 1e-6, false, 0, 0, 0, 64},
      {"minimind-3-moe", 3, 8, 768, 8, 4, 96, 2432, 6400, true, 1e-6, true, 4, 1, 0, 198},
  };
  std::set<std::string> names;
  for (const auto& row : table) {
    CAPTURE(row.name);
    names.insert(row.name);
    const ModelConfig c = preset_config(row.name);
    CHECK(c.generation == row.generation);
    CHECK(c.num_hidden_layers == row.layers);
    CHECK(c.hidden_size == row.hidden);
    CHECK(c.num_attention_heads == row.heads);
    CHECK(c.num_key_value_heads == row.kv_heads);
    CHECK(c.head_dim == row.head_dim);
    CHECK(c.intermediate_size == row.intermediate);
    CHECK(c.vocab_size == row.vocab);
    CHECK(c.use_qk_norm == row.qk_norm);
    CHECK(c.rms_norm_eps == row.eps);
    CHECK(c.rope_theta == 1e6);
    CHECK(c.max_position_embeddings == 32768);
    CHECK(c.tie_word_embeddings);
    CHECK(c.use_moe == row.moe);
    if (row.moe) {
      CHECK(c.num_experts == row.experts);
      CHECK(c.num_experts_per_tok == row.top_k);
      CHECK(c.n_shared_experts == row.shared);
      CHECK(c.expert_intermediate_size() == row.intermediate);
    }
    CHECK(validate_config(c).empty());
    CHECK(c.parameter_count() == count_parameters(c));
    if (row.published_millions > 0) {
      CHECK(double(count_parameters(c)) / 1e6 == Approx(row.published_millions).epsilon(0.03));
    }
  }
  const std::vector<std::string> listed = preset_names();
  REQUIRE(std::set<std::string>(listed.begin(), listed.end()) == names);
  CHECK(preset_config("lab-a").kv_dim() == 32);  // lesson 11: k_proj(x).shape = (2, 5, 32)

  for (const std::string& name : preset_names()) {
    REQUIRE_THROWS_MATCHES(preset_config("minimind-4"), Error, message_contains(name));
  }
  REQUIRE_THROWS_MATCHES(preset_config("minimind-4"), Error, message_contains("unknown preset \"minimind-4\""));
}
