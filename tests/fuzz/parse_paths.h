// The parse paths the libFuzzer targets drive (tests/fuzz/fuzz_<name>.cpp),
// shared with tests/test_fuzz_regressions.cpp, which replays every input of
// tests/fuzz/corpus/fuzz_<name>/ and tests/fuzz/regressions/fuzz_<name>/
// through the same function. Each takes untrusted bytes and must either
// succeed or throw the reader's own error type, which it swallows: anything
// else (a crash, a sanitizer report, a hang, another exception type, a
// PropertyViolation) is a finding. The weight readers are here; the
// tokenizer's, the config's and the lessons' paths have their own headers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "checkpoint/infer_config.h"
#include "config_path.h"
#include "formats/pth.h"
#include "formats/safetensors.h"
#include "lesson_path.h"
#include "tensors/weights.h"
#include "tokenizer_paths.h"

namespace minimind::fuzz {

// Reads every floating-point tensor, then infers a config from the shapes and
// loads the weights with it. Many views of one storage would make a small
// input read (and load) a lot: the work is capped, well above what any
// input of the fuzzers' sizes needs for its own data.
inline void exercise(const TensorSource& source) {
  constexpr int64_t kMaxFloats = int64_t{1} << 24;
  int64_t budget = kMaxFloats;
  std::vector<float> buffer;
  for (const std::string& name : source.tensor_names()) {
    const TensorInfo* info = source.tensor_info(name);
    const int64_t numel = shape_numel(info->shape);
    if (info->dtype == DType::I32) continue;
    if (numel > budget) break;
    budget -= numel;
    buffer.resize(size_t(numel));
    source.read_tensor(name, buffer.data());
  }
  try {
    const InferredConfig inferred = infer_config(source);
    if (inferred.config.parameter_count() <= kMaxFloats) load_weights(inferred.config, source);
  } catch (const ConfigError&) {
  }
}

inline void safetensors(const uint8_t* data, size_t size) {
  try {
    const SafetensorsFile file(data, size);
    for (const SafetensorsEntry& e : file.entries()) {
      if (e.dtype == DType::I32) file.read_int32(e);
    }
    exercise(file);
  } catch (const SafetensorsError&) {
  }
}

inline void pth(const uint8_t* data, size_t size) {
  try {
    const PthFile file(data, size);
    exercise(file);
  } catch (const PthError&) {
  }
}

// Fuzz target name (its file name, its regressions folder) -> parse path.
using ParsePath = void (*)(const uint8_t* data, size_t size);
inline const std::map<std::string, ParsePath>& parse_paths() {
  static const std::map<std::string, ParsePath> paths = {
      {"fuzz_safetensors", safetensors},       {"fuzz_pth", pth},       {"fuzz_tokenizer_json", tokenizer_json},
      {"fuzz_tokenizer_text", tokenizer_text}, {"fuzz_config", config}, {"fuzz_lesson", lesson},
  };
  return paths;
}

}  // namespace minimind::fuzz
