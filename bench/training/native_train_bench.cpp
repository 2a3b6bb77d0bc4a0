// native_train_bench: MiniMind's pretraining loop (core/train/trainer.h) run
// natively, one batch per request, for bench/run.mjs, which builds it twice
// (-march=native, and 128-bit SSE only) and interleaves its batches with the
// Wasm module's (the JS API's model.trainer) and PyTorch's (bench/training/torch_train.py).
//
// Usage:
//   native_train_bench --config FILE --data FILE --seq T [--batch B] [--lr X]
//                      [--clip X] [--accumulation K] [--seed N] [--init minimind|playground]
//   FILE config: config.json text (Hugging Face key names); the model gets
//   the core's seeded random weights (Model::random with --seed and --init,
//   default minimind: MiniMind's from-scratch scale, as the JS API's
//   createModel({config, seed, init}) does). FILE data: MiniMind pretraining
//   JSONL ({"ids": [...]} lines), read with max_seq_len T, in file order.
// Built without AVX (the native-sse flavour), it switches the AVX2 matrix
// kernel off, so that it runs the 4-lane kernel: Wasm SIMD's width.
// Requests on stdin, one per line, one JSON line each on stdout:
//   step    one batch: {"loss", "lr", "gradNorm", "tokens", "ms", "isa", "kernel"}
//   memory  Trainer::memory(): {"weights", "gradients", "adam", "activations",
//           "transposedWeights", "modelWeights", "total"} (bytes)
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "../isa.h"
#include "model/model.h"
#include "ops/linear_avx2.h"
#include "tensors/model_config.h"
#include "train/pretrain_data.h"
#include "train/trainer.h"

namespace {

using Clock = std::chrono::steady_clock;

std::string arg(int argc, char** argv, const std::string& name, const std::string& fallback) {
  for (int i = 1; i + 1 < argc; ++i)
    if (argv[i] == name) return argv[i + 1];
  if (fallback.empty()) throw std::invalid_argument(name + " is required");
  return fallback;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

}  // namespace

int main(int argc, char** argv) {
  try {
    using namespace minimind;
    const auto start = Clock::now();
    const ModelConfig config = parse_config_json(read_file(arg(argc, argv, "--config", "")));
#if !defined(__AVX__)
    set_avx2_kernel(false);
#endif
    const uint64_t seed = std::strtoull(arg(argc, argv, "--seed", "0").c_str(), nullptr, 10);
    const std::string init = arg(argc, argv, "--init", "minimind");
    if (init != "minimind" && init != "playground") throw std::invalid_argument("--init takes minimind or playground");
    Model model = Model::random(config, seed, {}, WeightPacking::Narrowest,
                                init == "minimind" ? RandomInit::MiniMind : RandomInit::Playground);
    DataOptions data_options;
    data_options.max_seq_len = std::stoll(arg(argc, argv, "--seq", ""));
    data_options.bos_id = int32_t(config.bos_token_id);
    data_options.eos_id = int32_t(config.eos_token_id);
    PretrainDataset data =
        PretrainDataset::parse(read_file(arg(argc, argv, "--data", "")), DataFormat::Jsonl, nullptr, data_options);
    TrainerOptions options;
    options.epochs = 1;
    options.batch_size = std::stoll(arg(argc, argv, "--batch", "32"));
    options.accumulation_steps = std::stoll(arg(argc, argv, "--accumulation", "1"));
    options.learning_rate = std::stod(arg(argc, argv, "--lr", "5e-4"));
    options.grad_clip = std::stod(arg(argc, argv, "--clip", "1.0"));
    options.shuffle = false;
    Trainer trainer(model, std::move(data), options);
    std::fprintf(stderr, "native_train_bench: %lld samples (%s) ready in %.0f ms\n",
                 static_cast<long long>(trainer.data().size()), isa(),
                 std::chrono::duration<double, std::milli>(Clock::now() - start).count());
    std::string line;
    while (std::getline(std::cin, line)) {
      std::ostringstream out;
      out.precision(17);
      try {
        if (line == "step") {
          const TrainStep s = trainer.step();
          out << "{\"loss\":" << s.loss << ",\"lr\":" << s.lr << ",\"gradNorm\":";
          if (s.grad_norm) {
            out << *s.grad_norm;
          } else {
            out << "null";
          }
          out << ",\"tokens\":" << s.tokens << ",\"ms\":" << s.ms << ",\"isa\":\"" << isa() << "\",\"kernel\":\""
              << (avx2_kernel_enabled() ? "avx2" : "4-lane") << "\"}";
        } else if (line == "memory") {
          const TrainingMemory m = trainer.memory();
          out << "{\"weights\":" << m.weights << ",\"gradients\":" << m.gradients << ",\"adam\":" << m.adam
              << ",\"activations\":" << m.activations << ",\"transposedWeights\":" << m.transposed_weights
              << ",\"modelWeights\":" << m.model_weights << ",\"total\":" << m.total() << "}";
        } else {
          throw std::invalid_argument("unknown request '" + line + "' (step, memory)");
        }
      } catch (const std::exception& e) {
        std::string message = e.what();
        for (char& ch : message)
          if (ch == '"' || ch == '\\' || ch == '\n') ch = '\'';
        out.str("");
        out << "{\"error\":\"" << message << "\"}";
      }
      std::cout << out.str() << std::endl;
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "native_train_bench: %s\n", e.what());
    return 1;
  }
}
