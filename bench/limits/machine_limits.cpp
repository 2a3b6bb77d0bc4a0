// machine_limits: what the cores of this machine can do at the width the
// module computes in (4 float lanes: Wasm SIMD128, or SSE natively), so that
// bench/limits/limits.mjs can say how close each piece of work runs to it.
//
//   arithmetic  the core's matrix-kernel tile (4 rows x 8 columns, as
//               core/ops/linear.cpp's tile<4, 1>) on data in the L1 cache:
//               per k step 2 vector loads, 4 splats and 8 products added into
//               8 accumulators (a multiply and an add: no FMA), GFLOP/s;
//   tiles       the same for other register tiles (R rows x C columns, from
//               2x8 to 8x8 and 1x32): the best of them is what a matrix
//               kernel of this width gets out of one core;
//   stream      reading a float32 array of the given size again and again
//               (as decode steps re-read the weights), 4 runs of it a
//               quarter apart as the 1-row product reads 4 panels, GB/s;
//   widen16     the float16 1-row product's inner work on weights in the L1
//               cache (16 KiB): load 8 float16 values, widen them
//               (util/simd_lanes.h) and multiply-add both halves, G weights/s:
//               what bounds that product when memory does not;
//   widen16Stream  the same on float16 arrays of the given sizes, re-read as
//               decode steps re-read their weights: widening and streaming
//               together, G weights/s.
//
// Built with MINIMIND_RELAXED_FMA (machine_limits_relaxed, Wasm only, the
// relaxed module's flags: bench/CMakeLists.txt), every multiply-add above is
// one f32x4.relaxed_madd, as in the relaxed build's weight products, and the
// JSON says "fused": true.
//
// Usage: machine_limits [--reps N] [--stream-mib M[,M...]] [--widen-mib M[,M...]] [--threads T]
// With --threads T (native builds), T threads run each measurement at once on
// their own data, and the rates reported are their sum: whether two threads
// get twice the arithmetic or the bandwidth of one.
// Prints one JSON object: {"isa", "fused", "threads", "arithmetic": [GFLOP/s per rep],
// "tiles": {"RxC": [GFLOP/s per rep], ...}, "stream": {"MiB": [GB/s per rep],
// ...}, "widen16": [G weights/s per rep], "widen16Stream": {"MiB": [G weights/s
// per rep], ...}}.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "../isa.h"
#include "util/simd_lanes.h"

namespace {

namespace simd = minimind::simd;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// acc + a·b: a product and a sum, or one fused multiply-add in the relaxed twin.
inline simd::Lanes product_add(simd::Lanes acc, simd::Lanes a, simd::Lanes b) {
#if defined(MINIMIND_RELAXED_FMA)
  return simd::fused_mul_add(acc, a, b);
#else
  return simd::mul_add(acc, a, b);
#endif
}

#if defined(MINIMIND_RELAXED_FMA)
constexpr bool kFused = true;
#else
constexpr bool kFused = false;
#endif

// Keeps a result alive so that the compiler cannot drop the loop computing it.
volatile float g_sink;
void keep(simd::Lanes v) {
  float out[simd::kLanes];
  simd::store(out, v);
  g_sink = out[0] + out[1] + out[2] + out[3];
}

// R rows of x against P panels of 8 columns, R·P·2 accumulators, on data in
// L1: GFLOP/s. <4, 1> is core/ops/linear.cpp's prefill tile; the other shapes
// ask whether any register tile of this width would do more arithmetic (with
// 16 vector registers, more accumulators spill, fewer leave the loads and
// splats a larger share of the work).
template <int R, int P>
double tile_gflops() {
  constexpr int64_t K = 256;
  const int64_t passes = 400'000 / (R * P);
  std::vector<float> A(size_t(K) * R), B(size_t(K) * 8 * P);  // A [K, R] (splatted), B [K, 8·P]
  for (size_t i = 0; i < A.size(); ++i) A[i] = float(i % 5) * 0.25f;
  for (size_t i = 0; i < B.size(); ++i) B[i] = float(i % 3) * 0.5f;
  simd::Lanes acc[R][P][2];
  for (auto& row : acc)
    for (auto& panel : row) panel[0] = panel[1] = simd::zero();
  const auto start = Clock::now();
  for (int64_t pass = 0; pass < passes; ++pass) {
    const float* a = A.data();
    const float* b = B.data();
    for (int64_t k = 0; k < K; ++k, a += R, b += 8 * P) {
      simd::Lanes w[P][2];
      for (int p = 0; p < P; ++p) {
        w[p][0] = simd::load(b + 8 * p);
        w[p][1] = simd::load(b + 8 * p + 4);
      }
      for (int r = 0; r < R; ++r) {
        const simd::Lanes ar = simd::splat(a + r);
        for (int p = 0; p < P; ++p) {
          acc[r][p][0] = product_add(acc[r][p][0], ar, w[p][0]);
          acc[r][p][1] = product_add(acc[r][p][1], ar, w[p][1]);
        }
      }
    }
  }
  const double s = seconds_since(start);
  simd::Lanes total = simd::zero();
  for (auto& row : acc)
    for (auto& panel : row) total = simd::add(total, simd::add(panel[0], panel[1]));
  keep(total);
  return 2.0 * R * 8 * P * double(K) * double(passes) / s / 1e9;
}

// The tile shapes measured, "RxC" (rows x columns): the kernel's first.
struct TileShape {
  const char* name;
  double (*gflops)();
};
constexpr TileShape kTiles[] = {{"4x8", tile_gflops<4, 1>},  {"2x8", tile_gflops<2, 1>},  {"6x8", tile_gflops<6, 1>},
                                {"8x8", tile_gflops<8, 1>},  {"1x16", tile_gflops<1, 2>}, {"2x16", tile_gflops<2, 2>},
                                {"3x16", tile_gflops<3, 2>}, {"4x16", tile_gflops<4, 2>}, {"1x32", tile_gflops<1, 4>}};

// 4 runs of the array a quarter apart (its quarters, one accumulator each), as
// the 1-row product reads 4 panels. On an Intel Xeon one core streamed more
// from several runs than from one; on an AMD EPYC less (weight_matrix.h).
double stream_gbs(const std::vector<float>& data) {
  constexpr int kRuns = 4;
  // At least ~1 GB read in all, whatever the size.
  const int passes = int(std::max<size_t>(2, (size_t(1) << 30) / (data.size() * sizeof(float))));
  simd::Lanes acc[kRuns];
  for (auto& v : acc) v = simd::zero();
  const size_t run = data.size() / kRuns / simd::kLanes * simd::kLanes;
  const float* p = data.data();
  const auto start = Clock::now();
  for (int pass = 0; pass < passes; ++pass)
    for (size_t i = 0; i < run; i += simd::kLanes)
      for (int k = 0; k < kRuns; ++k) acc[k] = simd::add(acc[k], simd::load(p + size_t(k) * run + i));
  const double s = seconds_since(start);
  simd::Lanes total = simd::zero();
  for (auto& v : acc) total = simd::add(total, v);
  keep(total);
  return double(passes) * double(run) * kRuns * sizeof(float) / s / 1e9;
}

// The 1-row float16 product's inner work on `weights`, read as the kernel
// reads a group of 4 panels: 4 runs a quarter of the array apart, each step
// loading 8 float16 values from every run, widening them (util/simd_lanes.h)
// and multiply-adding both halves into that run's accumulator pair. On 16 KiB
// (in L1) it says what the widening alone allows; on a decode step's weight
// bytes, what widening and streaming them from memory allow together.
// G weights/s.
double widen16_gweights(const std::vector<uint16_t>& weights) {
  constexpr int kRuns = 4;
  // At least ~320 M weights (640 MB) in all, whatever the size.
  const int64_t passes = std::max<int64_t>(2, int64_t(320'000'000) / int64_t(weights.size()));
  simd::Lanes low_acc[kRuns], high_acc[kRuns];
  for (int g = 0; g < kRuns; ++g) low_acc[g] = high_acc[g] = simd::zero();
  volatile float x_value = 0.5f;
  const float x_scalar = x_value;
  const simd::Lanes x = simd::splat(&x_scalar);
  const uint16_t* w = weights.data();
  const size_t run = weights.size() / kRuns / 8 * 8;
  const auto start = Clock::now();
  for (int64_t pass = 0; pass < passes; ++pass) {
    for (size_t i = 0; i < run; i += 8) {
      for (int g = 0; g < kRuns; ++g) {
        simd::Lanes low, high;
        simd::widen_f16_unscaled(w + size_t(g) * run + i, low, high);
        low_acc[g] = product_add(low_acc[g], low, x);
        high_acc[g] = product_add(high_acc[g], high, x);
      }
    }
  }
  const double s = seconds_since(start);
  simd::Lanes total = simd::zero();
  for (int g = 0; g < kRuns; ++g) total = simd::add(total, simd::add(low_acc[g], high_acc[g]));
  keep(total);
  return double(passes) * double(run) * kRuns / s / 1e9;
}

// Runs measure(t) on `threads` threads at once (t = 0 on this one) and sums
// their rates. Each thread waits until all have started.
double on_threads(int threads, const std::function<double(int)>& measure) {
  if (threads == 1) return measure(0);
  std::atomic<int> ready{0};
  std::vector<double> rates(size_t(threads), 0.0);
  auto body = [&](int t) {
    ready.fetch_add(1);
    while (ready.load() < threads) {
    }
    rates[size_t(t)] = measure(t);
  };
  std::vector<std::thread> others;
  for (int t = 1; t < threads; ++t) others.emplace_back(body, t);
  body(0);
  for (auto& th : others) th.join();
  double sum = 0.0;
  for (double r : rates) sum += r;
  return sum;
}

std::string json_list(const std::vector<double>& values) {
  std::string out = "[";
  char number[32];
  for (size_t i = 0; i < values.size(); ++i) {
    std::snprintf(number, sizeof number, "%s%.4g", i ? "," : "", values[i]);
    out += number;
  }
  return out + "]";
}

const char* option(int argc, char** argv, const char* name, const char* fallback) {
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], name) == 0) return argv[i + 1];
  return fallback;
}

// "M[,M...]" -> sizes in MiB, each 1..1024; empty on anything else.
std::vector<int> mib_list(const char* text) {
  std::vector<int> sizes;
  for (const char* p = text; *p;) {
    char* end = nullptr;
    const long mib = std::strtol(p, &end, 10);
    if (end == p || mib < 1 || mib > 1024 || (*end != ',' && *end != '\0')) return {};
    sizes.push_back(int(mib));
    p = *end == ',' ? end + 1 : end;
  }
  return sizes;
}

// {"M": [rate per rep], ...} for sizes M.
std::string json_by_size(const std::vector<int>& sizes_mib, const std::vector<std::vector<double>>& rates) {
  std::string out = "{";
  for (size_t s = 0; s < sizes_mib.size(); ++s)
    out += (s ? ",\"" : "\"") + std::to_string(sizes_mib[s]) + "\":" + json_list(rates[s]);
  return out + "}";
}

}  // namespace

int main(int argc, char** argv) {
  const int reps = std::atoi(option(argc, argv, "--reps", "5"));
  const int threads = std::atoi(option(argc, argv, "--threads", "1"));
  const std::vector<int> sizes_mib = mib_list(option(argc, argv, "--stream-mib", "64,256"));
  const std::vector<int> widen_mib = mib_list(option(argc, argv, "--widen-mib", "64"));
  if (reps < 1 || reps > 1000 || threads < 1 || threads > 64 || sizes_mib.empty() || widen_mib.empty()) {
    std::fprintf(stderr,
                 "machine_limits: --reps 1..1000, --threads 1..64, --stream-mib M[,M...] and --widen-mib M[,M...] "
                 "with every M in 1..1024\n");
    return 2;
  }
  // Each thread its own data. Finite, normal float16 values: 16 KiB (in L1),
  // and widen_mib[s] MiB of them.
  const auto float16_values = [](size_t count) {
    std::vector<uint16_t> h(count);
    for (size_t i = 0; i < h.size(); ++i) h[i] = uint16_t(0x3c00 + (i % 61));
    return h;
  };
  std::vector<std::vector<uint16_t>> halves(size_t(threads), float16_values(8192));
  std::vector<std::vector<std::vector<uint16_t>>> big_halves(widen_mib.size());
  for (size_t s = 0; s < widen_mib.size(); ++s)
    big_halves[s].assign(size_t(threads), float16_values(size_t(widen_mib[s]) << 19));
  // arrays[s][t]: thread t's array of sizes_mib[s] MiB of float32, made once.
  std::vector<std::vector<std::vector<float>>> arrays(sizes_mib.size());
  for (size_t s = 0; s < sizes_mib.size(); ++s) {
    arrays[s].resize(size_t(threads));
    for (auto& d : arrays[s]) {
      d.resize(size_t(sizes_mib[s]) << 18);
      for (size_t i = 0; i < d.size(); ++i) d[i] = float(i % 7);
    }
  }
  std::vector<std::vector<double>> tiles(std::size(kTiles));
  std::vector<double> widen16;
  std::vector<std::vector<double>> widen16_stream(widen_mib.size());
  std::vector<std::vector<double>> stream(sizes_mib.size());
  for (int r = 0; r < reps; ++r) {
    for (size_t k = 0; k < std::size(kTiles); ++k)
      tiles[k].push_back(on_threads(threads, [&](int) { return kTiles[k].gflops(); }));
    widen16.push_back(on_threads(threads, [&](int t) { return widen16_gweights(halves[size_t(t)]); }));
    for (size_t s = 0; s < widen_mib.size(); ++s)
      widen16_stream[s].push_back(
          on_threads(threads, [&](int t) { return widen16_gweights(big_halves[s][size_t(t)]); }));
    for (size_t s = 0; s < sizes_mib.size(); ++s)
      stream[s].push_back(on_threads(threads, [&](int t) { return stream_gbs(arrays[s][size_t(t)]); }));
  }
  std::string shapes = "{";
  for (size_t k = 0; k < std::size(kTiles); ++k)
    shapes += (k ? ",\"" : "\"") + std::string(kTiles[k].name) + "\":" + json_list(tiles[k]);
  shapes += "}";
  // "arithmetic": the kernel's tile (kTiles[0]), as before; "tiles": every shape.
  std::printf(
      "{\"isa\":\"%s\",\"fused\":%s,\"threads\":%d,\"arithmetic\":%s,\"tiles\":%s,\"stream\":%s,\"widen16\":%s,"
      "\"widen16Stream\":%s}"
      "\n",
      isa(), kFused ? "true" : "false", threads, json_list(tiles[0]).c_str(), shapes.c_str(),
      json_by_size(sizes_mib, stream).c_str(), json_list(widen16).c_str(),
      json_by_size(widen_mib, widen16_stream).c_str());
  return 0;
}
