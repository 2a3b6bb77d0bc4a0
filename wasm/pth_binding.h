// A PyTorch .pth file as JS sees it (NativePth).
#pragma once

#include <emscripten/val.h>

#include <memory>
#include <string>
#include <vector>

#include "formats/pth.h"
#include "js_options.h"
#include "js_values.h"
#include "model_binding.h"

namespace minimind::wasm {

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

  // A training checkpoint's counters and AdamW state: {epoch, step,
  // worldSize (each a number or null), optimizer: null or {groups: [{lr,
  // betas: [b1, b2], eps, weightDecay, amsgrad, params: [index]}], state:
  // [{index, step, shape, expAvg, expAvgSq: Float32Array}]}, optimizerProblem:
  // why the optimizer could not be read, or null}.
  val training_state() const {
    return guarded([&] {
      const auto count = [](const std::optional<int64_t>& v) { return v ? val(double(*v)) : val::null(); };
      val out = val::object();
      out.set("epoch", count(file_->epoch()));
      out.set("step", count(file_->step()));
      out.set("worldSize", count(file_->world_size()));
      out.set("optimizerProblem", file_->optimizer_problem().empty() ? val::null() : val(file_->optimizer_problem()));
      if (!file_->optimizer()) {
        out.set("optimizer", val::null());
        return out;
      }
      const PthOptimizer& o = *file_->optimizer();
      val groups = val::array();
      for (const PickledParamGroup& g : o.groups) {
        val group = val::object();
        group.set("lr", g.lr);
        val betas = val::array();
        betas.call<void>("push", g.beta1);
        betas.call<void>("push", g.beta2);
        group.set("betas", betas);
        group.set("eps", g.eps);
        group.set("weightDecay", g.weight_decay);
        group.set("amsgrad", g.amsgrad);
        val params = val::array();
        for (int64_t i : g.params) params.call<void>("push", double(i));
        group.set("params", params);
        groups.call<void>("push", group);
      }
      val state = val::array();
      for (const PthAdamEntry& e : o.state) {
        const size_t n = e.exp_avg.nbytes / sizeof(float);
        std::vector<float> m(n), v(n);
        file_->read_floats(e.exp_avg, m.data());
        file_->read_floats(e.exp_avg_sq, v.data());
        val entry = val::object();
        entry.set("index", double(e.index));
        entry.set("step", e.step);
        entry.set("shape", shape_array(e.exp_avg.shape));
        entry.set("expAvg", typed_copy(m.data(), n));
        entry.set("expAvgSq", typed_copy(v.data(), n));
        state.call<void>("push", entry);
      }
      val optimizer = val::object();
      optimizer.set("groups", groups);
      optimizer.set("state", state);
      out.set("optimizer", optimizer);
      return out;
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

}  // namespace minimind::wasm
