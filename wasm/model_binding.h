// The model as JS sees it (NativeModel): built from a preset, a config or a
// weight file; forward passes, traces, head scores, exports, and the
// generators and trainers that keep it alive.
#pragma once

#include <emscripten/val.h>

#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "checkpoint/model_export.h"
#include "formats/safetensors.h"
#include "interp/hooks.h"
#include "js_options.h"
#include "js_values.h"
#include "model/head_scores.h"
#include "model/model.h"
#include "model/presets.h"
#include "train/loss.h"

namespace minimind::wasm {

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
      if (!flat_mask.empty()) check_size("mask", flat.size(), flat_mask.size());
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
  // sequences JSON: [[ids...], ...]. Returns Float32Array [Σ T]: for each
  // sequence in turn, NaN at its first position, then at position t the
  // loss -log softmax(logits[t - 1])[ids[t]] (the training loss's terms, in
  // double, stored as float32): the training timeline's held-out loss and
  // ICL score without copying [T, V] logits out.
  val token_losses_js(const std::string& sequences_json) const {
    return guarded([&] {
      const auto sequences = json::parse(sequences_json).get<std::vector<std::vector<int32_t>>>();
      std::vector<float> out;
      for (const std::vector<int32_t>& ids : sequences) {
        check_interp_ids(*model_, ids);
        Matrix logits = model_->forward(ids);  // [T, V]: row t - 1 predicts token t
        const int64_t V = logits.cols();
        out.push_back(std::numeric_limits<float>::quiet_NaN());
        for (size_t t = 1; t < ids.size(); ++t) {
          float* row = logits.data() + int64_t(t - 1) * V;  // Matrix is row-major
          out.push_back(float(cross_entropy_rows(row, &ids[t], 1, V, 0.0f, row)));
        }
      }
      return typed_copy(out.data(), out.size());
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
  // Counts the trainer's steps on these weights: a run cached for them is
  // stale once it moves.
  const std::shared_ptr<uint64_t>& weights_version() const { return weights_version_; }

  // The last hooked run qk explained, with what it was run on (the page
  // clicks cell after cell of one text: the model runs once for them all).
  struct HookedRun {
    std::vector<int32_t> ids;
    bool causal_mask = true, scale_scores = true;
    std::vector<HeadId> ablate;
    uint64_t weights_version = 0;
    Activations run;
  };
  std::unique_ptr<HookedRun>& hooked_run() { return hooked_run_; }

 private:
  std::shared_ptr<Model> model_;
  std::shared_ptr<uint64_t> weights_version_ = std::make_shared<uint64_t>(0);
  std::unique_ptr<HookedRun> hooked_run_;
  std::vector<std::string> warnings_;
  std::string about_;
  json inferred_;
};

}  // namespace minimind::wasm
