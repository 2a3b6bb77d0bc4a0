#include "js_options.h"

#include <stdexcept>

#include "checkpoint/model_export.h"

namespace minimind::wasm {

InferHints parse_hints(const std::string& hints_json) {
  const json j = json::parse(hints_json.empty() ? "{}" : hints_json);
  InferHints h;
  if (j.contains("numAttentionHeads")) h.num_attention_heads = j.at("numAttentionHeads").get<int64_t>();
  if (j.contains("numKeyValueHeads")) h.num_key_value_heads = j.at("numKeyValueHeads").get<int64_t>();
  if (j.contains("rmsNormEps")) h.rms_norm_eps = j.at("rmsNormEps").get<double>();
  if (j.contains("ropeTheta")) h.rope_theta = j.at("ropeTheta").get<double>();
  if (j.contains("maxPositionEmbeddings")) h.max_position_embeddings = j.at("maxPositionEmbeddings").get<int64_t>();
  if (j.contains("inferenceRopeScaling")) h.inference_rope_scaling = j.at("inferenceRopeScaling").get<bool>();
  if (j.contains("numExpertsPerTok")) h.num_experts_per_tok = j.at("numExpertsPerTok").get<int64_t>();
  if (j.contains("normTopkProb")) h.norm_topk_prob = j.at("normTopkProb").get<bool>();
  return h;
}

ModelConfig parse_config_warning(const std::string& config_json, std::vector<std::string>& warnings) {
  std::vector<std::string> unknown;
  const ModelConfig config = parse_config_json(config_json, kDefaultMaxWeightBytes, &unknown);
  for (const std::string& key : unknown) warnings.push_back(unknown_config_key_warning(key));
  return config;
}

json inferred_json(const InferredConfig& inferred) {
  json fields = json::array();
  for (const FieldOrigin& f : inferred.fields)
    fields.push_back({{"key", f.key}, {"source", field_source_name(f.source)}});
  return {
      {"config", json::parse(config_to_json(inferred.config))}, {"fields", fields}, {"assumed", inferred.assumed()}};
}

TraceRequest parse_trace_request(const json& j) {
  TraceRequest r;
  if (j.contains("layers")) r.layers = j.at("layers").get<std::vector<int64_t>>();
  if (j.contains("stages")) r.stages = j.at("stages").get<std::vector<std::string>>();
  if (j.contains("maxFloats")) r.max_floats = j.at("maxFloats").get<int64_t>();
  return r;
}

SamplingParams parse_sampling(const json& j) {
  SamplingParams p;
  p.greedy = j.value("greedy", p.greedy);
  p.temperature = j.value("temperature", p.temperature);
  p.top_k = j.value("topK", p.top_k);
  p.top_p = j.value("topP", p.top_p);
  p.repetition_penalty = j.value("repetitionPenalty", p.repetition_penalty);
  p.seed = j.value("seed", p.seed);
  return p;
}

WeightPacking parse_packing(const std::string& packing) {
  if (packing == "narrowest") return WeightPacking::Narrowest;
  if (packing == "float32") return WeightPacking::Float32;
  throw std::invalid_argument("weight storage must be \"narrowest\" or \"float32\", got \"" + packing + "\"");
}

std::vector<HeadId> parse_ablation(const json& options) {
  std::vector<HeadId> heads;
  if (!options.contains("ablate")) return heads;
  for (const json& pair : options.at("ablate")) heads.push_back({pair.at(0).get<int64_t>(), pair.at(1).get<int64_t>()});
  return heads;
}

std::vector<uint8_t> ablation_flags(const ModelConfig& c, const json& options) {
  if (!options.contains("ablate")) return {};
  return head_ablation_flags(c, parse_ablation(options));
}

RandomInit parse_init(const std::string& init) {
  if (init == "playground") return RandomInit::Playground;
  if (init == "minimind") return RandomInit::MiniMind;
  throw std::invalid_argument("init must be \"playground\" or \"minimind\", got \"" + init + "\"");
}

json info_json(const ModelConfig& c) {
  json j = json::parse(config_to_json(c));
  j["generation"] = c.generation;
  j["derived"] = {
      {"head_dim", c.head_dim},
      {"n_rep", c.n_rep()},
      {"q_proj", {c.q_dim(), c.hidden_size}},
      {"k_proj", {c.kv_dim(), c.hidden_size}},
      {"v_proj", {c.kv_dim(), c.hidden_size}},
      {"o_proj", {c.hidden_size, c.q_dim()}},
      {"intermediate_size", c.use_moe ? c.expert_intermediate_size() : c.intermediate_size},
  };
  j["parameters"] = c.parameter_count();
  j["weight_bytes"] = c.weight_bytes();
  return j;
}

TrainerOptions parse_trainer_options(const json& j) {
  TrainerOptions o;
  o.epochs = j.value("epochs", o.epochs);
  o.batch_size = j.value("batchSize", o.batch_size);
  o.accumulation_steps = j.value("accumulationSteps", o.accumulation_steps);
  o.learning_rate = j.value("learningRate", o.learning_rate);
  o.grad_clip = j.value("gradClip", o.grad_clip);
  o.seed = j.value("seed", o.seed);
  const std::string order = j.value("order", std::string("shuffle"));
  if (order != "shuffle" && order != "file") {
    throw std::invalid_argument("order must be \"shuffle\" or \"file\", got \"" + order + "\"");
  }
  o.shuffle = order == "shuffle";
  return o;
}

}  // namespace minimind::wasm
