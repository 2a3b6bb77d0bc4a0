// Generation as JS sees it (NativeGenerator).
#pragma once

#include <emscripten/val.h>

#include <memory>
#include <string>
#include <vector>

#include "js_options.h"
#include "js_values.h"
#include "model/generation.h"
#include "model/model.h"

namespace minimind::wasm {

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

}  // namespace minimind::wasm
