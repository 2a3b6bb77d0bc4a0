// A PyTorch .pth file as JS sees it (NativePth).
#pragma once

#include <emscripten/val.h>

#include <memory>
#include <string>
#include <vector>

#include "io/pth.h"
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
