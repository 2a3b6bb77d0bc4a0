// embind registration of the core's bindings (one file per bound class:
// model_binding.h, pth_binding.h, generator_binding.h, tokenizer_binding.h,
// trainer_binding.h; free functions in config_functions.h and
// lesson_functions.h; the model's interpretability methods in interp_binding.h):
// registration only, no math. Every bound call runs
// inside guarded() (js_values.h), so a C++ exception becomes a JS Error and
// the module stays usable.
#include <emscripten/bind.h>

#include "circuit_binding.h"
#include "config_functions.h"
#include "generator_binding.h"
#include "interp_binding.h"
#include "lesson_functions.h"
#include "model_binding.h"
#include "pth_binding.h"
#include "tokenizer_binding.h"
#include "trainer_binding.h"
#include "util/thread_pool.h"

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
      .function("attentionEntropy", &WasmModel::attention_entropy_js)
      .function("tokenLosses", &WasmModel::token_losses_js)
      .function("lens", &interp_lens)
      .function("patch", &interp_patch)
      .function("attribute", &interp_attribute)
      .function("qk", &interp_qk)
      .function("keyComposition", &interp_key_composition)
      .function("circuit", &interp_circuit);
  emscripten::class_<WasmPth>("NativePth")
      .class_function("fromBytes", &WasmPth::from_bytes, emscripten::allow_raw_pointers())
      .function("inferConfig", &WasmPth::infer)
      .function("trainingState", &WasmPth::training_state)
      .function("load", &WasmPth::load, emscripten::allow_raw_pointers());
  emscripten::class_<WasmTrainer>("NativeTrainer")
      .function("step", &WasmTrainer::step)
      .function("lossAndGradients", &WasmTrainer::loss_and_gradients)
      .function("parameters", &WasmTrainer::parameters)
      .function("state", &WasmTrainer::state)
      .function("restore", &WasmTrainer::restore)
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
  emscripten::function("errorKinds", &error_kinds_json);
  emscripten::function("heapBytesInUse", &heap_bytes_in_use);
  // Threads (the pthreads build; elsewhere 1): set between calls.
  emscripten::function("threadCount", &minimind::thread_count);
  emscripten::function("setThreadCount", &minimind::set_thread_count);
}
