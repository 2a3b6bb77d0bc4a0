#include "model/presets.h"

#include <stdexcept>

#include "util/error.h"

namespace minimind {

namespace {

ModelConfig generation3(int64_t hidden, int64_t layers, int64_t heads, int64_t kv_heads, int64_t vocab) {
  ModelConfig c;  // defaults are generation 3: q/k norm, eps 1e-6
  c.hidden_size = hidden;
  c.num_hidden_layers = layers;
  c.num_attention_heads = heads;
  c.num_key_value_heads = kv_heads;
  c.head_dim = hidden / heads;
  c.vocab_size = vocab;
  c.intermediate_size = default_intermediate_size(3, hidden);
  c.moe_intermediate_size = c.intermediate_size;
  return c;
}

ModelConfig generation2(int64_t hidden, int64_t layers, int64_t heads, int64_t kv_heads) {
  ModelConfig c = generation3(hidden, layers, heads, kv_heads, 6400);
  c.generation = 2;
  c.use_qk_norm = false;
  c.rms_norm_eps = 1e-5;
  c.intermediate_size = default_intermediate_size(2, hidden);
  c.moe_intermediate_size = c.intermediate_size;
  return c;
}

struct Preset {
  const char* name;
  ModelConfig (*make)();
};

const Preset kPresets[] = {
    // Lesson 11, lab A: hidden 64, 4 heads, 2 kv heads -> k_proj(x).shape=(2, 5, 32).
    {"lab-a", [] { return generation3(64, 2, 4, 2, 128); }},
    // Lesson 11, lab B: hidden 96, 6 heads, 3 kv heads -> head_dim=16.
    {"lab-b", [] { return generation3(96, 2, 6, 3, 128); }},
    {"minimind2-small", [] { return generation2(512, 8, 8, 2); }},
    {"minimind2", [] { return generation2(768, 16, 8, 2); }},
    {"minimind2-moe",
     [] {
       ModelConfig c = generation2(640, 8, 8, 2);
       c.use_moe = true;
       c.num_experts = 4;
       c.num_experts_per_tok = 2;
       c.n_shared_experts = 1;
       return c;
     }},
    {"minimind-3", [] { return generation3(768, 8, 8, 4, 6400); }},
    {"minimind-3-moe",
     [] {
       ModelConfig c = generation3(768, 8, 8, 4, 6400);
       c.use_moe = true;
       c.num_experts = 4;
       c.num_experts_per_tok = 1;
       return c;
     }},
};

}  // namespace

std::vector<std::string> preset_names() {
  std::vector<std::string> names;
  for (const Preset& p : kPresets) names.emplace_back(p.name);
  return names;
}

ModelConfig preset_config(const std::string& name) {
  for (const Preset& p : kPresets) {
    if (name == p.name) return p.make();
  }
  std::string known;
  for (const Preset& p : kPresets) known += std::string(known.empty() ? "" : ", ") + p.name;
  throw Error("preset.unknown", {{"name", name}, {"known", known}},
              "unknown preset \"" + name + "\"; known presets: " + known);
}

}  // namespace minimind
