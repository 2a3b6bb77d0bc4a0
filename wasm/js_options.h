// The JS API's options, as JSON text, read into the core's types, and the
// core's descriptions written back as JSON. Each throws std::invalid_argument
// (or a json error) naming what is wrong.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "checkpoint/infer_config.h"
#include "model/generation.h"
#include "model/model.h"
#include "train/trainer.h"

namespace minimind::wasm {

using nlohmann::json;

// {"numAttentionHeads": 8, "ropeTheta": 1e6, ...} as the JS API writes it.
InferHints parse_hints(const std::string& hints_json);
// config.json text and the warnings for its unknown keys.
ModelConfig parse_config_warning(const std::string& config_json, std::vector<std::string>& warnings);
// {"config": {...}, "fields": [{key, source}], "assumed": [...]}
json inferred_json(const InferredConfig& inferred);
// {"layers": [...], "stages": [...], "maxFloats": n} as the JS API writes it.
TraceRequest parse_trace_request(const json& j);
SamplingParams parse_sampling(const json& j);
// "narrowest" or "float32".
WeightPacking parse_packing(const std::string& packing);
// {"ablate": [[layer, head], ...]} -> the heads switched off (none without "ablate").
std::vector<HeadId> parse_ablation(const json& options);
// The same as ForwardOptions::ablated_heads [L·H] (empty without "ablate");
// a head outside the model throws head_ablation_flags' error.
std::vector<uint8_t> ablation_flags(const ModelConfig& c, const json& options);
// "playground" or "minimind".
RandomInit parse_init(const std::string& init);
// A config with its derived shapes and sizes (model.info()).
json info_json(const ModelConfig& c);
// {epochs, batchSize, accumulationSteps, learningRate, gradClip, seed, order}.
TrainerOptions parse_trainer_options(const json& j);

}  // namespace minimind::wasm
