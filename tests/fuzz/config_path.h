// config.json text a user loads or edits (fuzz_config): parsed and
// validated by the core; what is accepted must survive a write and a reread
// unchanged, and a small enough model of that config must run a forward pass
// (prefill, then one cached step) without a crash.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "model/model.h"
#include "property.h"
#include "tensors/model_config.h"

namespace minimind::fuzz {

inline void config(const uint8_t* data, size_t size) {
  // A limit as small as the page's smallest makes the weight-size check
  // bite on inputs of a few bytes too.
  const int64_t max_weight_bytes = size % 2 ? kDefaultMaxWeightBytes : int64_t{1} << 20;
  ModelConfig parsed;
  try {
    std::vector<std::string> unknown;
    parsed = parse_config_json(std::string(reinterpret_cast<const char*>(data), size), max_weight_bytes, &unknown);
    for (const std::string& key : unknown) unknown_config_key_warning(key);
  } catch (const ConfigError& e) {
    expect(!e.problems().empty(), "a ConfigError without a problem");
    return;
  }
  expect(validate_config(parsed, max_weight_bytes).empty(),
         "parse_config_json accepted a config validate_config refuses");
  const std::string written = config_to_json(parsed);
  ModelConfig reread;
  try {
    reread = parse_config_json(written, max_weight_bytes);
  } catch (const ConfigError& e) {
    throw PropertyViolation(std::string("config_to_json wrote a config that does not parse again: ") + e.what());
  }
  expect(config_to_json(reread) == written, "config_to_json then parse_config_json changed the config");

  // Random weights cost parameter_count floats: only small models run, on
  // as many tokens as max_position_embeddings allows (up to 3 + 1).
  if (parsed.parameter_count() > (int64_t{1} << 16)) return;
  const Model model = Model::random(parsed, /*seed=*/size);
  const int32_t V = int32_t(parsed.vocab_size);
  const std::vector<int32_t> prompt = {0, 3 % V, V - 1};
  const int64_t T = std::min<int64_t>(3, parsed.max_position_embeddings);
  KVCache cache = model.make_cache();
  model.forward(std::vector<int32_t>(prompt.begin(), prompt.begin() + T), &cache);
  if (parsed.max_position_embeddings > T) model.forward({5 % V}, &cache);
}

}  // namespace minimind::fuzz
