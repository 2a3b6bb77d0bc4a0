// embind bindings of the core: registration and conversion only, no math.
// Every bound call runs inside guarded(): a C++ exception becomes a JS Error
// carrying what() (thrown after the catch block has ended, so the C++ side
// is fully unwound and the module stays usable).
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <functional>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "io/infer_config.h"
#include "io/model_export.h"
#include "io/pth.h"
#include "io/safetensors.h"
#include "lesson/lab_record.h"
#include "lesson/lesson_attention.h"
#include "model/generation.h"
#include "model/head_scores.h"
#include "model/model.h"
#include "model/presets.h"
#include "tokenizer/tokenizer.h"
#include "train/trainer.h"
#include "util/thread_pool.h"

using emscripten::val;
using nlohmann::json;

namespace minimind::wasm {

namespace {

template <typename F>
auto guarded(F&& body) -> decltype(body()) {
  std::string message;
  try {
    return body();
  } catch (const std::bad_alloc&) {
    message = "out of memory: the model or the text is too large for this browser tab";
  } catch (const std::exception& e) {
    message = e.what();
  }
  val::global("Error").new_(val(message)).throw_();
}

template <typename T>
val typed_copy(const T* data, size_t n) {
  return val(emscripten::typed_memory_view(n, data)).call<val>("slice");
}

val shape_array(const Shape& shape) {
  val out = val::array();
  for (int64_t d : shape) out.call<void>("push", double(d));
  return out;
}

// Trace tensors as [{layer, stage, shape, data: Float32Array}], layer -1 for
// model-level stages.
val trace_entries(const Trace& trace) {
  val out = val::array();
  for (const auto& [key, tensor] : trace.tensors()) {
    val entry = val::object();
    entry.set("layer", double(key.first));
    entry.set("stage", key.second);
    entry.set("shape", shape_array(tensor.shape));
    entry.set("data", typed_copy(tensor.data.data(), tensor.data.size()));
    out.call<void>("push", entry);
  }
  return out;
}

// {"numAttentionHeads": 8, "ropeTheta": 1e6, ...} as the JS API writes it.
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

// config.json text and the warnings for its unknown keys.
ModelConfig parse_config_warning(const std::string& config_json, std::vector<std::string>& warnings) {
  std::vector<std::string> unknown;
  const ModelConfig config = parse_config_json(config_json, kDefaultMaxWeightBytes, &unknown);
  for (const std::string& key : unknown) warnings.push_back(unknown_config_key_warning(key));
  return config;
}

// {"config": {...}, "fields": [{key, source}], "assumed": [...]}
json inferred_json(const InferredConfig& inferred) {
  json fields = json::array();
  for (const FieldOrigin& f : inferred.fields)
    fields.push_back({{"key", f.key}, {"source", field_source_name(f.source)}});
  return {
      {"config", json::parse(config_to_json(inferred.config))}, {"fields", fields}, {"assumed", inferred.assumed()}};
}

// {"layers": [...], "stages": [...], "maxFloats": n} as the JS API writes it.
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

std::function<void(double)> reporter(const val& callback) {
  if (callback.typeOf().as<std::string>() != "function") return {};
  return [callback](double fraction) { callback(fraction); };
}

WeightPacking parse_packing(const std::string& packing) {
  if (packing == "narrowest") return WeightPacking::Narrowest;
  if (packing == "float32") return WeightPacking::Float32;
  throw std::invalid_argument("weight storage must be \"narrowest\" or \"float32\", got \"" + packing + "\"");
}

// {"ablate": [[layer, head], ...]} -> ForwardOptions::ablated_heads [L·H].
std::vector<uint8_t> ablation_flags(const ModelConfig& c, const json& options) {
  if (!options.contains("ablate")) return {};
  std::vector<uint8_t> flags(size_t(c.num_hidden_layers * c.num_attention_heads), 0);
  for (const json& pair : options.at("ablate")) {
    const int64_t layer = pair.at(0).get<int64_t>(), head = pair.at(1).get<int64_t>();
    if (layer < 0 || layer >= c.num_hidden_layers || head < 0 || head >= c.num_attention_heads) {
      throw std::invalid_argument("cannot ablate layer " + std::to_string(layer) + " head " + std::to_string(head) +
                                  ": the model has " + std::to_string(c.num_hidden_layers) + " layers of " +
                                  std::to_string(c.num_attention_heads) + " heads");
    }
    flags[size_t(layer * c.num_attention_heads + head)] = 1;
  }
  return flags;
}

// A [L, H] matrix as rows of numbers.
val layer_head_rows(const Matrix& m) {
  val rows = val::array();
  for (int64_t l = 0; l < m.rows(); ++l) {
    val row = val::array();
    for (int64_t h = 0; h < m.cols(); ++h) row.call<void>("push", double(m(l, h)));
    rows.call<void>("push", row);
  }
  return rows;
}

RandomInit parse_init(const std::string& init) {
  if (init == "playground") return RandomInit::Playground;
  if (init == "minimind") return RandomInit::MiniMind;
  throw std::invalid_argument("init must be \"playground\" or \"minimind\", got \"" + init + "\"");
}

std::vector<int32_t> to_ids(const val& typed) { return emscripten::convertJSArrayToNumberVector<int32_t>(typed); }

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

}  // namespace

class WasmGenerator;
class WasmTokenizer;
class WasmTrainer;

// One model instance owned by JS (call .delete() to free it).
class WasmModel {
 public:
  // warnings: what loading noticed (unknown config.json keys, a tied head
  // that differs); about: what the weight file is, when it says; inferred:
  // inferred_json() when the config came from the tensors.
  explicit WasmModel(Model model, std::vector<std::string> warnings = {}, std::string about = {},
                     json inferred = nullptr)
      : model_(std::make_shared<Model>(std::move(model))),
        warnings_(std::move(warnings)),
        about_(std::move(about)),
        inferred_(std::move(inferred)) {}

  // progress: a JS function called with the fraction of weights initialised
  // (undefined: no progress reports).
  // packing: "narrowest" (float16 for the seeded weights) or "float32".
  // init: "playground" (the presets' recipe) or "minimind" (MiniMind's
  // from-scratch scale of the embedding, for training).
  static WasmModel* from_preset(const std::string& name, double seed, const val& progress, const std::string& packing,
                                const std::string& init) {
    return guarded([&] {
      return new WasmModel(Model::random(preset_config(name), uint64_t(seed), reporter(progress),
                                         parse_packing(packing), parse_init(init)));
    });
  }
  static WasmModel* from_config(const std::string& config_json, double seed, const val& progress,
                                const std::string& packing, const std::string& init) {
    return guarded([&] {
      std::vector<std::string> warnings;
      const ModelConfig config = parse_config_warning(config_json, warnings);
      return new WasmModel(
          Model::random(config, uint64_t(seed), reporter(progress), parse_packing(packing), parse_init(init)),
          warnings);
    });
  }
  static WasmModel* from_safetensors(const std::string& config_json, const val& bytes) {
    return guarded([&] {
      std::vector<std::string> warnings, load_warnings;
      const ModelConfig config = parse_config_warning(config_json, warnings);
      const std::vector<uint8_t> data = emscripten::convertJSArrayToNumberVector<uint8_t>(bytes);
      Model model = Model::from_source(config, SafetensorsFile(data.data(), data.size()), &load_warnings);
      warnings.insert(warnings.end(), load_warnings.begin(), load_warnings.end());
      return new WasmModel(std::move(model), warnings);
    });
  }

  // The same without copying the whole file into Wasm memory: `head` is the
  // file's start (the header), `size` its length, and read(offset, n) a JS
  // function returning those n bytes as a Uint8Array; each tensor is copied
  // in, converted and packed in turn. Peak memory: the packed weights plus
  // one tensor, instead of the file plus the weights.
  static WasmModel* from_safetensors_reader(const std::string& config_json, const val& head, double size,
                                            const val& read) {
    return guarded([&] {
      std::vector<std::string> warnings, load_warnings;
      const ModelConfig config = parse_config_warning(config_json, warnings);
      const std::vector<uint8_t> start = emscripten::convertJSArrayToNumberVector<uint8_t>(head);
      const SafetensorsFile file(start.data(), start.size(), size_t(size), [&](size_t offset, size_t n, uint8_t* out) {
        const val chunk = read(double(offset), double(n));
        if (chunk["length"].as<double>() != double(n)) {
          throw std::runtime_error("the file returned " + chunk["length"].as<std::string>() + " bytes at offset " +
                                   std::to_string(offset) + ", expected " + std::to_string(n) + " (truncated?)");
        }
        val(emscripten::typed_memory_view(n, out)).call<void>("set", chunk);
      });
      Model model = Model::from_source(config, file, &load_warnings);
      warnings.insert(warnings.end(), load_warnings.begin(), load_warnings.end());
      return new WasmModel(std::move(model), warnings);
    });
  }

  std::string info() const {
    return guarded([&] {
      json j = info_json(model_->config());
      const StoredWeights stored = stored_weights(model_->config(), model_->weights());
      j["stored_weights"] = {{"bytes", stored.bytes}, {"tensors_by_storage", stored.tensors_by_storage}};
      j["warnings"] = warnings_;
      if (!about_.empty()) j["file"] = about_;
      if (!inferred_.is_null()) j["inferred"] = inferred_;
      return j.dump();
    });
  }

  // ids: Int32Array [B·T]; mask: Int32Array [B·T] or empty; options JSON:
  // {"trace": {...}, "causalMask": bool, "scaleScores": bool}.
  val forward(const val& ids, int batch, const val& mask, const std::string& options_json) const {
    return guarded([&] {
      const json options = json::parse(options_json);
      const std::vector<int32_t> flat = to_ids(ids), flat_mask = to_ids(mask);
      if (batch <= 0 || flat.size() % size_t(batch) != 0) {
        throw std::invalid_argument("ids do not split into " + std::to_string(batch) + " equal sequences");
      }
      const size_t T = flat.size() / size_t(batch);
      std::vector<std::vector<int32_t>> rows, mask_rows;
      for (size_t b = 0; b < size_t(batch); ++b) {
        rows.emplace_back(flat.begin() + long(b * T), flat.begin() + long((b + 1) * T));
        if (!flat_mask.empty())
          mask_rows.emplace_back(flat_mask.begin() + long(b * T), flat_mask.begin() + long((b + 1) * T));
      }
      ForwardOptions forward_options;
      forward_options.attention.causal_mask = options.value("causalMask", true);
      forward_options.attention.scale_scores = options.value("scaleScores", true);
      forward_options.ablated_heads = ablation_flags(model_->config(), options);
      Trace trace(parse_trace_request(options.value("trace", json::object())), batch);
      const Tensor logits = model_->forward_batch(rows, mask_rows, forward_options, &trace);
      val out = val::object();
      out.set("logits", typed_copy(logits.data.data(), logits.data.size()));
      out.set("logitsShape", shape_array(logits.shape));
      out.set("trace", trace_entries(trace));
      return out;
    });
  }

  WasmGenerator* generator(const val& prompt, const std::string& sampling_json, const std::string& trace_json) const;

  // A trainer over this model (see WasmTrainer); the data is MiniMind
  // pretraining JSONL or plain text, tokenized now.
  WasmTrainer* trainer(const std::string& data, const std::string& format, const WasmTokenizer* tokenizer,
                       const std::string& options_json);

  // model.safetensors bytes ("F32" or "F16") with MiniMind's tensor names.
  val safetensors(const std::string& dtype) const {
    return guarded([&] {
      if (dtype != "F32" && dtype != "F16")
        throw std::invalid_argument("dtype must be \"F32\" or \"F16\", got \"" + dtype + "\"");
      const std::vector<uint8_t> bytes = model_safetensors(*model_, dtype == "F16" ? DType::F16 : DType::F32);
      return typed_copy(bytes.data(), bytes.size());
    });
  }
  // probes JSON: [{"ids": [...], "query": i, "keys": [...]}, ...], options
  // JSON: {"ablate": [[layer, head], ...]}. Returns [L][H] mean masses.
  val attention_mass_js(const std::string& probes_json, const std::string& options_json) const {
    return guarded([&] {
      std::vector<AttentionProbe> probes;
      for (const json& p : json::parse(probes_json)) {
        probes.push_back({p.at("ids").get<std::vector<int32_t>>(), p.at("query").get<int64_t>(),
                          p.at("keys").get<std::vector<int64_t>>()});
      }
      ForwardOptions options;
      options.ablated_heads = ablation_flags(model_->config(), json::parse(options_json));
      return layer_head_rows(attention_mass(*model_, probes, options));
    });
  }
  // sequences JSON: [[ids...], ...]. Returns [L][H] mean row entropies (nats).
  val attention_entropy_js(const std::string& sequences_json) const {
    return guarded([&] {
      return layer_head_rows(
          attention_entropy(*model_, json::parse(sequences_json).get<std::vector<std::vector<int32_t>>>()));
    });
  }

  std::string config_json() const {
    return guarded([&] { return config_to_json(model_->config()); });
  }

  const std::shared_ptr<Model>& model() const { return model_; }

 private:
  std::shared_ptr<Model> model_;
  std::vector<std::string> warnings_;
  std::string about_;
  json inferred_;
};

// A PyTorch .pth (a state dict, or MiniMind's resume checkpoint) copied into
// Wasm memory once, so that inferring its config and loading its weights
// read the same bytes (JS: mm.loadModel and mm.inferConfig on a .pth).
class WasmPth {
 public:
  // label: the file's name, as messages start with it.
  static WasmPth* from_bytes(const val& bytes, const std::string& label) {
    return guarded([&] {
      auto pth = std::make_unique<WasmPth>();
      pth->bytes_ = emscripten::convertJSArrayToNumberVector<uint8_t>(bytes);
      pth->file_ = std::make_unique<PthFile>(pth->bytes_.data(), pth->bytes_.size(), label);
      return pth.release();
    });
  }

  // inferred_json() of the tensors and `hints_json`, plus "file" (what it is).
  std::string infer(const std::string& hints_json) const {
    return guarded([&] {
      json j = inferred_json(infer_config(*file_, parse_hints(hints_json)));
      if (!file_->description().empty()) j["file"] = file_->description();
      return j.dump();
    });
  }

  // A model of config.json text, or (empty text) of the config inferred from
  // the tensor shapes and `hints_json` (its info() then says what was assumed).
  WasmModel* load(const std::string& config_json, const std::string& hints_json) const {
    return guarded([&] {
      std::vector<std::string> warnings, load_warnings;
      json inferred = nullptr;
      ModelConfig config;
      if (config_json.empty()) {
        const InferredConfig result = infer_config(*file_, parse_hints(hints_json));
        config = result.config;
        inferred = inferred_json(result);
      } else {
        config = parse_config_warning(config_json, warnings);
      }
      Model model = Model::from_source(config, *file_, &load_warnings);
      warnings.insert(warnings.end(), load_warnings.begin(), load_warnings.end());
      return new WasmModel(std::move(model), warnings, file_->description(), inferred);
    });
  }

 private:
  std::vector<uint8_t> bytes_;
  std::unique_ptr<PthFile> file_;  // views bytes_
};

// Step-by-step generation with the KV cache; keeps its model alive.
class WasmGenerator {
 public:
  WasmGenerator(std::shared_ptr<const Model> model, std::vector<int32_t> prompt, const SamplingParams& params,
                const TraceRequest& prefill_request)
      : model_(std::move(model)), prefill_trace_(prefill_request, 1) {
    generator_ = std::make_unique<Generator>(*model_, std::move(prompt), params, &prefill_trace_);
  }

  val prefill_trace() const {
    return guarded([&] { return trace_entries(prefill_trace_); });
  }

  // Chooses the next token and runs it through the model, tracing that
  // one-token step: its attention rows are [1, H, 1, Tk].
  val step(const std::string& trace_json) {
    return guarded([&] {
      Trace trace(parse_trace_request(json::parse(trace_json)), 1);
      const std::vector<float> probabilities = generator_->next_probabilities();
      const GenerationStep s = generator_->step(&trace);
      val out = val::object();
      out.set("token", s.token);
      out.set("isEos", s.is_eos);
      out.set("logits", typed_copy(generator_->chosen_logits().data(), generator_->chosen_logits().size()));
      out.set("probabilities", typed_copy(probabilities.data(), probabilities.size()));
      out.set("trace", trace_entries(trace));
      return out;
    });
  }

  val ids() const {
    return guarded([&] { return typed_copy(generator_->ids().data(), generator_->ids().size()); });
  }
  // [V] the distribution the next step draws from.
  val next_probabilities() const {
    return guarded([&] {
      const std::vector<float> p = generator_->next_probabilities();
      return typed_copy(p.data(), p.size());
    });
  }
  bool finished() const { return generator_->finished(); }

  std::string cache_info() const {
    return guarded([&] {
      const KVCache& cache = generator_->cache();
      const ModelConfig& c = model_->config();
      return json{{"tokens", cache.length()},
                  {"layers", cache.num_layers()},
                  {"shapePerLayer", {cache.length(), c.num_key_value_heads, c.head_dim}},
                  {"bytes", cache.bytes()}}
          .dump();
    });
  }

 private:
  std::shared_ptr<const Model> model_;
  Trace prefill_trace_;
  std::unique_ptr<Generator> generator_;
};

WasmGenerator* WasmModel::generator(const val& prompt, const std::string& sampling_json,
                                    const std::string& trace_json) const {
  return guarded([&] {
    return new WasmGenerator(model_, to_ids(prompt), parse_sampling(json::parse(sampling_json)),
                             parse_trace_request(json::parse(trace_json)));
  });
}

// A Hugging Face tokenizer.json (byte-level BPE, as MiniMind's).
class WasmTokenizer {
 public:
  explicit WasmTokenizer(Tokenizer tokenizer) : tokenizer_(std::move(tokenizer)) {}

  const Tokenizer& tokenizer() const { return tokenizer_; }

  static WasmTokenizer* from_json(const std::string& text) {
    return guarded([&] { return new WasmTokenizer(Tokenizer::from_json(text)); });
  }
  val encode(const std::string& text) const {
    return guarded([&] {
      const std::vector<int32_t> ids = tokenizer_.encode(text);
      return typed_copy(ids.data(), ids.size());
    });
  }
  std::string decode(const val& ids, bool skip_special_tokens) const {
    return guarded([&] { return tokenizer_.decode(to_ids(ids), skip_special_tokens); });
  }
  // [{text, partial, special, group, groupText}] per token.
  val display_sequence(const val& ids) const {
    return guarded([&] {
      val out = val::array();
      for (const Tokenizer::SequenceToken& t : tokenizer_.display_sequence(to_ids(ids))) {
        val entry = val::object();
        entry.set("text", t.token.text);
        entry.set("partial", t.token.partial_utf8);
        entry.set("special", t.token.special);
        entry.set("group", t.group);
        entry.set("groupText", t.group_text);
        out.call<void>("push", entry);
      }
      return out;
    });
  }
  double vocab_size() const { return double(tokenizer_.vocab_size()); }
  int token_to_id(const std::string& token) const { return tokenizer_.token_to_id(token); }

 private:
  Tokenizer tokenizer_;
};

val preset_names_array() {
  val out = val::array();
  for (const std::string& name : preset_names()) out.call<void>("push", name);
  return out;
}

std::string preset_config_json(const std::string& name) {
  return guarded([&] { return config_to_json(preset_config(name)); });
}

// One sentence per unknown key of a usable config.json text (empty when it
// has none, or is not usable: configProblems says why).
val config_warnings(const std::string& config_json) {
  return guarded([&] {
    val out = val::array();
    try {
      std::vector<std::string> warnings;
      parse_config_warning(config_json, warnings);
      for (const std::string& w : warnings) out.call<void>("push", w);
    } catch (const ConfigError&) {
    }
    return out;
  });
}

// Every problem of a config.json text (empty array when usable).
val config_problems(const std::string& config_json) {
  return guarded([&] {
    val out = val::array();
    try {
      parse_config_json(config_json);
    } catch (const ConfigError& e) {
      for (const std::string& p : e.problems()) out.call<void>("push", p);
    }
    return out;
  });
}

// A config's derived shapes and sizes without building weights (throws the
// config's problems).
std::string describe_config(const std::string& config_json) {
  return guarded([&] { return info_json(parse_config_json(config_json)).dump(); });
}

// A matrix from JSON [[...], ...] (rows of equal length); empty for "[]".
Matrix matrix_from_json(const std::string& text, const char* what) {
  const json j = json::parse(text);
  if (!j.is_array()) throw std::invalid_argument(std::string(what) + " must be a list of rows");
  if (j.empty()) return Matrix();
  const size_t cols = j.at(0).is_array() ? j.at(0).size() : 0;
  Matrix m(int64_t(j.size()), int64_t(cols));
  for (size_t i = 0; i < j.size(); ++i) {
    if (!j[i].is_array() || j[i].size() != cols) {
      throw std::invalid_argument(std::string(what) + " row " + std::to_string(i) + " does not have " +
                                  std::to_string(cols) + " numbers like row 0");
    }
    for (size_t c = 0; c < cols; ++c) {
      // JSON has no -Infinity: null stands for a masked (−∞) score.
      m(int64_t(i), int64_t(c)) = j[i][c].is_null() ? -std::numeric_limits<float>::infinity() : j[i][c].get<float>();
    }
  }
  return m;
}

val matrix_value(const Matrix& m) {
  val out = val::object();
  out.set("shape", shape_array({m.rows(), m.cols()}));
  out.set("data", typed_copy(m.data(), size_t(m.size())));
  return out;
}

val lesson_value(const LessonAttention& a) {
  val out = val::object();
  out.set("raw", matrix_value(a.raw));
  out.set("scaled", matrix_value(a.scaled));
  out.set("masked", matrix_value(a.masked));
  out.set("weights", matrix_value(a.weights));
  if (a.output.size()) out.set("output", matrix_value(a.output));
  return out;
}

// Lesson 2.5's hand-worked attention on typed Q, K (and V) matrices.
val lesson_attention_js(const std::string& q, const std::string& k, const std::string& v, bool causal, bool scale) {
  return guarded([&] {
    return lesson_value(
        lesson_attention(matrix_from_json(q, "Q"), matrix_from_json(k, "K"), matrix_from_json(v, "V"), causal, scale));
  });
}

val lesson_softmax_js(const std::string& scores, bool causal) {
  return guarded([&] { return lesson_value(lesson_softmax(matrix_from_json(scores, "scores"), causal)); });
}

// MiniMind's pretraining loop over a model, one batch per step(); keeps the
// model alive, and writes each optimizer step into it.
class WasmTrainer {
 public:
  WasmTrainer(std::shared_ptr<Model> model, PretrainDataset data, const TrainerOptions& options)
      : model_(std::move(model)), trainer_(std::make_unique<Trainer>(*model_, std::move(data), options)) {}

  // {epoch, batch, loss, lr, gradNorm (null when the optimizer did not
  // step), tokens, optimizerStep, optimizerSteps, ms}
  val step() {
    return guarded([&] {
      const TrainStep s = trainer_->step();
      val out = val::object();
      out.set("epoch", double(s.epoch));
      out.set("batch", double(s.batch));
      out.set("loss", s.loss);
      out.set("lr", s.lr);
      out.set("gradNorm", s.grad_norm ? val(*s.grad_norm) : val::null());
      out.set("tokens", double(s.tokens));
      out.set("optimizerStep", s.optimizer_step);
      out.set("optimizerSteps", double(s.optimizer_steps));
      out.set("ms", s.ms);
      return out;
    });
  }

  // samples: Int32Array of sample indices. {loss, tokens, gradients:
  // [{name, shape, data: Float32Array}], safetensors: Uint8Array (F32,
  // gradients keyed by parameter name)}.
  val loss_and_gradients(const val& samples) {
    return guarded([&] {
      std::vector<int64_t> indices;
      for (const int32_t i : to_ids(samples)) indices.push_back(i);
      std::vector<Parameter> grads;
      const BatchLoss loss = trainer_->loss_and_gradients(indices, grads);
      val out = val::object();
      out.set("loss", loss.loss);
      out.set("tokens", double(loss.tokens));
      val list = val::array();
      std::vector<NamedTensor> tensors;
      for (const Parameter& p : grads) {
        val entry = val::object();
        entry.set("name", p.name);
        entry.set("shape", shape_array(p.shape));
        entry.set("data", typed_copy(p.grad.data(), p.grad.size()));
        list.call<void>("push", entry);
        tensors.push_back({p.name, DType::F32, p.shape, p.grad});
      }
      out.set("gradients", list);
      const std::vector<uint8_t> file = write_safetensors(tensors, {{"format", "pt"}});
      out.set("safetensors", typed_copy(file.data(), file.size()));
      return out;
    });
  }

  std::string info() const {
    return guarded([&] {
      const TrainingMemory m = trainer_->memory();
      return json{{"samples", trainer_->data().size()},
                  {"maxSeqLen", trainer_->data().options().max_seq_len},
                  {"batchesPerEpoch", trainer_->batches_per_epoch()},
                  {"totalBatches", trainer_->total_batches()},
                  {"batchesDone", trainer_->batches_done()},
                  {"optimizerSteps", trainer_->optimizer().steps()},
                  {"done", trainer_->done()},
                  {"memory",
                   {{"weights", m.weights},
                    {"gradients", m.gradients},
                    {"adam", m.adam},
                    {"activations", m.activations},
                    {"transposedWeights", m.transposed_weights},
                    {"modelWeights", m.model_weights},
                    {"total", m.total()}}}}
          .dump();
    });
  }

 private:
  std::shared_ptr<Model> model_;
  std::unique_ptr<Trainer> trainer_;
};

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

WasmTrainer* WasmModel::trainer(const std::string& data, const std::string& format, const WasmTokenizer* tokenizer,
                                const std::string& options_json) {
  return guarded([&] {
    const json options = json::parse(options_json);
    if (format != "jsonl" && format != "text") {
      throw std::invalid_argument("data format must be \"jsonl\" or \"text\", got \"" + format + "\"");
    }
    DataOptions data_options;
    data_options.max_seq_len = options.value("maxSeqLen", data_options.max_seq_len);
    data_options.bos_id = int32_t(model_->config().bos_token_id);
    data_options.eos_id = int32_t(model_->config().eos_token_id);
    PretrainDataset dataset = PretrainDataset::parse(data, format == "jsonl" ? DataFormat::Jsonl : DataFormat::Text,
                                                     tokenizer ? &tokenizer->tokenizer() : nullptr, data_options);
    return new WasmTrainer(model_, std::move(dataset), parse_trainer_options(options));
  });
}

std::string lab_record(const std::string& preset, double seed) {
  return guarded([&] { return lesson11_lab_record(preset, uint64_t(seed)); });
}

std::string stage_names_json() { return json(all_stage_names()).dump(); }

}  // namespace minimind::wasm

EMSCRIPTEN_BINDINGS(minimind) {
  using namespace minimind::wasm;
  emscripten::class_<WasmModel>("NativeModel")
      .class_function("fromPreset", &WasmModel::from_preset, emscripten::allow_raw_pointers())
      .class_function("fromSafetensorsReader", &WasmModel::from_safetensors_reader, emscripten::allow_raw_pointers())
      .class_function("fromConfig", &WasmModel::from_config, emscripten::allow_raw_pointers())
      .class_function("fromSafetensors", &WasmModel::from_safetensors, emscripten::allow_raw_pointers())
      .function("info", &WasmModel::info)
      .function("forward", &WasmModel::forward)
      .function("generator", &WasmModel::generator, emscripten::allow_raw_pointers())
      .function("trainer", &WasmModel::trainer, emscripten::allow_raw_pointers())
      .function("safetensors", &WasmModel::safetensors)
      .function("configJson", &WasmModel::config_json)
      .function("attentionMass", &WasmModel::attention_mass_js)
      .function("attentionEntropy", &WasmModel::attention_entropy_js);
  emscripten::class_<WasmPth>("NativePth")
      .class_function("fromBytes", &WasmPth::from_bytes, emscripten::allow_raw_pointers())
      .function("inferConfig", &WasmPth::infer)
      .function("load", &WasmPth::load, emscripten::allow_raw_pointers());
  emscripten::class_<WasmTrainer>("NativeTrainer")
      .function("step", &WasmTrainer::step)
      .function("lossAndGradients", &WasmTrainer::loss_and_gradients)
      .function("info", &WasmTrainer::info);
  emscripten::class_<WasmGenerator>("NativeGenerator")
      .function("step", &WasmGenerator::step)
      .function("prefillTrace", &WasmGenerator::prefill_trace)
      .function("ids", &WasmGenerator::ids)
      .function("nextProbabilities", &WasmGenerator::next_probabilities)
      .function("finished", &WasmGenerator::finished)
      .function("cacheInfo", &WasmGenerator::cache_info);
  emscripten::class_<WasmTokenizer>("NativeTokenizer")
      .class_function("fromJson", &WasmTokenizer::from_json, emscripten::allow_raw_pointers())
      .function("encode", &WasmTokenizer::encode)
      .function("decode", &WasmTokenizer::decode)
      .function("displaySequence", &WasmTokenizer::display_sequence)
      .function("vocabSize", &WasmTokenizer::vocab_size)
      .function("tokenToId", &WasmTokenizer::token_to_id);
  emscripten::function("presetNames", &preset_names_array);
  emscripten::function("presetConfig", &preset_config_json);
  emscripten::function("configProblems", &config_problems);
  emscripten::function("configWarnings", &config_warnings);
  emscripten::function("labRecord", &lab_record);
  emscripten::function("lessonAttention", &lesson_attention_js);
  emscripten::function("lessonSoftmax", &lesson_softmax_js);
  emscripten::function("describeConfig", &describe_config);
  emscripten::function("stageNames", &stage_names_json);
  // Threads (the pthreads build; elsewhere 1): set between calls.
  emscripten::function("threadCount", &minimind::thread_count);
  emscripten::function("setThreadCount", &minimind::set_thread_count);
}
