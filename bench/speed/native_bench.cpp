// native_bench: times the core's forward pass natively, for bench/run.mjs,
// which builds it twice (-march=native, and 128-bit SSE only) and compares
// it with the WebAssembly module and ONNX Runtime Web.
//
// Usage:
//   native_bench --preset NAME [--seed N] [--init playground|minimind] [--storage narrowest|float32]
//                --work KIND --tokens T[,T...] [--reps N]
//       runs each token count, prints one JSON object per line;
//   native_bench --preset NAME [--seed N] [--init playground|minimind] [--storage narrowest|float32] --serve
//       keeps the model and answers requests read from stdin, one per line:
//       "KIND TOKENS REPS", one JSON line each (run.mjs interleaves these
//       with the other runtimes, repetition by repetition).
// Work kinds (T = TOKENS):
//   prefill  forward of T tokens, no cache, no trace;
//   trace    the same with every stage of every layer traced;
//   decode   prefill of a T-token prompt, then T greedy steps with the cache:
//            only the steps are timed;
//   matmul   linear_rows on x [M, K] and packed W [N, K], TOKENS written
//            MxKxN (float32 weights) or MxKxN:f16 (float16 weights); the
//            preset is then only loaded, not used;
//   products a decode step's 1-row products alone: every layer's q, k, v,
//            o, gate, up and down projections and the output head, in the
//            order a step runs them, on the model's own weights (dense
//            models); each repetition runs T such steps: ms per step;
//   backward a training linear's products on x [N, IN], W [OUT, IN] (float32,
//            as training keeps it), dy [N, OUT], TOKENS written NxINxOUT:
//            each repetition times the forward y = x·Wᵀ (linear_rows), then
//            linear_backward (dx = dy·W and dW += dyᵀ·x, ms), and its two
//            halves apart: dx alone (linear_rows on the packed Wᵀ) and dW
//            alone (linear_backward without dx); the preset is not used.
// Output: {"work", "tokens", "reps", "isa", "kernel", "ms": [one per
// repetition], ...} (backward adds "forward", "dx" and "dw": [ms per
// repetition]). Built without AVX (the native-sse flavour), it switches the
// AVX2 matrix kernel off (kernel "4-lane"): 128-bit vectors, Wasm SIMD's width.
#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "../isa.h"
#include "model/generation.h"
#include "model/model.h"
#include "model/presets.h"
#include "ops/linear.h"
#include "ops/linear_avx2.h"
#include "tensors/trace.h"

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// The benchmark's token ids (bench/run.mjs computes the same): a fixed
// scramble of 0, 1, 2, ... into [3, V), past MiniMind's special tokens.
std::vector<int32_t> bench_ids(int64_t n, int64_t vocab) {
  std::vector<int32_t> ids;
  for (int64_t i = 0; i < n; ++i) ids.push_back(int32_t(3 + (uint32_t(i) * 2654435761u) % uint32_t(vocab - 3)));
  return ids;
}

std::string json_ms(const std::vector<double>& ms) {
  std::ostringstream out;
  out << "[";
  for (size_t i = 0; i < ms.size(); ++i) out << (i ? "," : "") << ms[i];
  return out.str() + "]";
}

// One request: KIND TOKENS REPS. Returns the JSON line.
std::string run(const minimind::Model& model, const std::string& kind, const std::string& tokens, int reps) {
  using namespace minimind;
  const ModelConfig& c = model.config();
  std::vector<double> ms;
  std::ostringstream extra;
  if (kind == "matmul") {
    int64_t M = 0, K = 0, N = 0;
    if (std::sscanf(tokens.c_str(), "%" SCNd64 "x%" SCNd64 "x%" SCNd64, &M, &K, &N) != 3)
      throw std::invalid_argument("matmul wants MxKxN");
    const bool f16 = tokens.size() > 4 && tokens.substr(tokens.size() - 4) == ":f16";
    std::vector<float> x(size_t(M * K)), w(size_t(N * K)), y(size_t(M * N));
    for (size_t i = 0; i < x.size(); ++i) x[i] = float(int(i % 17) - 8) / 8.0f;
    // Multiples of 1/64 are float16 values; the small offsets make them not.
    for (size_t i = 0; i < w.size(); ++i)
      w[i] = float(int(i % 13) - 6) / 64.0f + (f16 ? 0.0f : 1e-5f * float(1 + i % 5));
    const WeightMatrix W(w.data(), N, K);
    if (W.storage() != (f16 ? WeightStorage::F16 : WeightStorage::F32)) throw std::logic_error("unexpected storage");
    for (int r = 0; r < reps; ++r) {
      const auto start = Clock::now();
      linear_rows(x.data(), M, K, W, y.data(), N);
      ms.push_back(ms_since(start));
    }
    extra << ",\"checksum\":" << double(y[0]) + double(y[y.size() - 1]);
  } else if (kind == "products") {
    if (c.use_moe) throw std::invalid_argument("products: dense models only");
    const int64_t steps = std::stoll(tokens);
    const ModelWeights& weights = model.weights();
    std::vector<const WeightMatrix*> order;  // a step's products, in its order
    for (const LayerWeights& layer : weights.layers) {
      for (const WeightMatrix* W : {&layer.q_proj, &layer.k_proj, &layer.v_proj, &layer.o_proj, &layer.mlp.gate_proj,
                                    &layer.mlp.up_proj, &layer.mlp.down_proj})
        order.push_back(W);
    }
    order.push_back(&weights.output_head());
    int64_t widest = 0;
    for (const WeightMatrix* W : order) widest = std::max({widest, W->rows(), W->cols()});
    // Activations of a normal size, as RMSNorm's outputs are.
    std::vector<float> x(static_cast<size_t>(widest)), y(static_cast<size_t>(widest));
    for (size_t i = 0; i < x.size(); ++i) x[i] = float(int(i % 17) - 8) / 8.0f;
    double checksum = 0.0;
    for (int r = 0; r < reps; ++r) {
      const auto start = Clock::now();
      for (int64_t s = 0; s < steps; ++s) {
        for (const WeightMatrix* W : order) {
          linear_rows(x.data(), 1, W->cols(), *W, y.data(), W->rows());
          checksum += double(y[0]);
        }
      }
      ms.push_back(ms_since(start) / double(steps));
    }
    extra << ",\"checksum\":" << checksum << ",\"storage\":\"" << weight_storage_name(order[0]->storage()) << "\"";
  } else if (kind == "backward") {
    int64_t N = 0, in = 0, out = 0;
    if (std::sscanf(tokens.c_str(), "%" SCNd64 "x%" SCNd64 "x%" SCNd64, &N, &in, &out) != 3)
      throw std::invalid_argument("backward wants NxINxOUT");
    std::vector<float> x(size_t(N * in)), w(size_t(out * in)), dy(size_t(N * out)), y(size_t(N * out));
    std::vector<float> dx(size_t(N * in)), dw(size_t(out * in), 0.0f);
    for (size_t i = 0; i < x.size(); ++i) x[i] = float(int(i % 17) - 8) / 8.0f;
    for (size_t i = 0; i < dy.size(); ++i) dy[i] = float(int(i % 11) - 5) / 1024.0f;
    // The offsets keep W float32 (not float16 values), as after an optimizer step.
    for (size_t i = 0; i < w.size(); ++i) w[i] = float(int(i % 13) - 6) / 64.0f + 1e-5f * float(1 + i % 5);
    const WeightMatrix W(w.data(), out, in);
    if (W.storage() != WeightStorage::F32) throw std::logic_error("unexpected storage");
    std::vector<float> w_t_storage;
    const PanelsView W_t = pack_transposed(w.data(), out, in, in, w_t_storage);  // [in, out]
    LinearBackwardScratch scratch;
    std::vector<double> forward, dx_ms, dw_ms;
    for (int r = 0; r < reps; ++r) {
      auto start = Clock::now();
      linear_rows(x.data(), N, in, W, y.data(), out);
      forward.push_back(ms_since(start));
      start = Clock::now();
      linear_backward(x.data(), N, in, in, dy.data(), out, out, W_t, dx.data(), dw.data(), scratch);
      ms.push_back(ms_since(start));
      start = Clock::now();
      linear_rows(dy.data(), N, out, W_t, dx.data(), in);
      dx_ms.push_back(ms_since(start));
      start = Clock::now();
      linear_backward(x.data(), N, in, in, dy.data(), out, out, W_t, nullptr, dw.data(), scratch);
      dw_ms.push_back(ms_since(start));
    }
    extra << ",\"forward\":" << json_ms(forward) << ",\"dx\":" << json_ms(dx_ms) << ",\"dw\":" << json_ms(dw_ms)
          << ",\"checksum\":" << double(y[0]) + double(dx[dx.size() - 1]) + double(dw[0]);
  } else {
    const int64_t T = std::stoll(tokens);
    const std::vector<int32_t> ids = bench_ids(T, c.vocab_size);
    std::vector<int32_t> generated;
    for (int r = 0; r < reps; ++r) {
      if (kind == "prefill") {
        const auto start = Clock::now();
        const Matrix logits = model.forward(ids);
        ms.push_back(ms_since(start));
        if (r == 0) extra << ",\"logit0\":" << logits(T - 1, 0);
      } else if (kind == "trace") {
        TraceRequest request;
        for (int64_t l = 0; l < c.num_hidden_layers; ++l) request.layers.push_back(l);
        const auto start = Clock::now();
        Trace trace(request, 1);
        model.forward(ids, nullptr, {}, {}, &trace, 0);
        ms.push_back(ms_since(start));
      } else if (kind == "decode") {
        SamplingParams greedy;
        greedy.greedy = true;
        Generator generator(model, ids, greedy);
        generated.clear();
        const auto start = Clock::now();
        for (int64_t s = 0; s < T && !generator.finished(); ++s) generated.push_back(generator.step().token);
        ms.push_back(ms_since(start));
      } else {
        throw std::invalid_argument("unknown work kind '" + kind +
                                    "' (prefill, trace, decode, matmul, products, backward)");
      }
    }
    if (kind == "decode")
      extra << ",\"generated\":" << json_ms(std::vector<double>(generated.begin(), generated.end()));
  }
  std::ostringstream out;
  out << "{\"work\":\"" << kind << "\",\"tokens\":\"" << tokens << "\",\"reps\":" << reps << ",\"isa\":\"" << isa()
      << "\",\"kernel\":\"" << (avx2_kernel_enabled() ? "avx2" : "4-lane") << "\",\"ms\":" << json_ms(ms) << extra.str()
      << "}";
  return out.str();
}

std::string arg(int argc, char** argv, const std::string& name, const std::string& fallback) {
  for (int i = 1; i + 1 < argc; ++i)
    if (argv[i] == name) return argv[i + 1];
  return fallback;
}

bool flag(int argc, char** argv, const std::string& name) {
  for (int i = 1; i < argc; ++i)
    if (argv[i] == name) return true;
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  try {
#if !defined(__AVX__)
    minimind::set_avx2_kernel(false);
#endif
    const std::string preset = arg(argc, argv, "--preset", "lab-a");
    const uint64_t seed = std::strtoull(arg(argc, argv, "--seed", "0").c_str(), nullptr, 10);
    // The seeded embedding's scale (RandomInit): run.mjs compares logits with
    // the Wasm module and ONNX Runtime at MiniMind's scale.
    const std::string init_name = arg(argc, argv, "--init", "playground");
    if (init_name != "playground" && init_name != "minimind")
      throw std::invalid_argument("--init must be playground or minimind, got " + init_name);
    const minimind::RandomInit init =
        init_name == "minimind" ? minimind::RandomInit::MiniMind : minimind::RandomInit::Playground;
    const auto start = Clock::now();
    // narrowest: the seeded weights are float16 values and stay float16.
    const std::string storage = arg(argc, argv, "--storage", "narrowest");
    if (storage != "narrowest" && storage != "float32")
      throw std::invalid_argument("--storage must be narrowest or float32, got " + storage);
    const minimind::WeightPacking packing =
        storage == "float32" ? minimind::WeightPacking::Float32 : minimind::WeightPacking::Narrowest;
    const minimind::Model model = minimind::Model::random(minimind::preset_config(preset), seed, {}, packing, init);
    std::fprintf(stderr, "native_bench: %s (seed %llu, init %s, %s) built in %.0f ms\n", preset.c_str(),
                 static_cast<unsigned long long>(seed), init_name.c_str(), isa(), ms_since(start));
    if (flag(argc, argv, "--serve")) {
      std::string line;
      while (std::getline(std::cin, line)) {
        std::istringstream request(line);
        std::string kind, tokens;
        int reps = 1;
        if (!(request >> kind >> tokens >> reps)) continue;
        try {
          std::cout << run(model, kind, tokens, reps) << std::endl;
        } catch (const std::exception& e) {
          std::string message = e.what();
          for (char& ch : message)
            if (ch == '"' || ch == '\\' || ch == '\n') ch = '\'';
          std::cout << "{\"error\":\"" << message << "\"}" << std::endl;
        }
      }
      return 0;
    }
    const std::string kind = arg(argc, argv, "--work", "prefill");
    const int reps = std::atoi(arg(argc, argv, "--reps", "10").c_str());
    std::istringstream list(arg(argc, argv, "--tokens", "64"));
    std::string tokens;
    while (std::getline(list, tokens, ',')) std::cout << run(model, kind, tokens, reps) << std::endl;
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "native_bench: %s\n", e.what());
    return 1;
  }
}
