#include "ops/ffn.h"

#include <algorithm>
#include <cmath>

#include "ops/exp_approx.h"
#include "ops/linear.h"
#include "tensors/trace.h"
#include "util/thread_pool.h"

namespace minimind {

float silu(float x) { return x / (1.0f + exp_approx(-x)); }

void FfnScratch::reserve(int64_t T, int64_t F) {
  scratch(gate, T * F);
  scratch(up, T * F);
}

void swiglu_ffn(const FfnWeights& w, const float* b, int64_t T, float* out, FfnScratch& s, const TraceTarget& target) {
  const int64_t D = w.gate_proj.cols(), F = w.gate_proj.rows();
  float* gate = scratch(s.gate, T * F);  // [T, F]
  float* up = scratch(s.up, T * F);      // [T, F]
  linear_rows(b, T, D, w.gate_proj, gate, F);
  linear_rows(b, T, D, w.up_proj, up, F);
  Trace* trace = target.trace;
  if (trace && trace->wants(target.layer, stage::kFfnGate)) {
    trace->put(target.layer, stage::kFfnGate, target.batch_index, {T, F}, gate);
  }
  if (trace && trace->wants(target.layer, stage::kFfnUp)) {
    trace->put(target.layer, stage::kFfnUp, target.batch_index, {T, F}, up);
  }
  swiglu_act(gate, up, T * F, gate);  // act_fn(gate_proj(x)) * up_proj(x)
  if (trace && trace->wants(target.layer, stage::kFfnAct)) {
    trace->put(target.layer, stage::kFfnAct, target.batch_index, {T, F}, gate);
  }
  linear_rows(gate, T, F, w.down_proj, out, D);  // [T, D]
}

namespace {
// e^-gate four lanes at a time (the same bits as exp_approx one by one), a
// chunk at a time so that the exponentials stay on the stack.
constexpr int64_t kChunk = 256;
// Below this many chunks a thread, the elements stay on the caller.
constexpr int64_t kMinChunksPerThread = 32;

// body(start, m) for every chunk [start, start + m) of [0, n), the threads
// taking runs of whole chunks: each element is computed alone, so the same bits.
template <typename Body>
void for_chunks(int64_t n, const Body& body) {
  parallel_chunks((n + kChunk - 1) / kChunk, kMinChunksPerThread, [&](int64_t c0, int64_t c1) {
    for (int64_t c = c0; c < c1; ++c) body(c * kChunk, std::min(kChunk, n - c * kChunk));
  });
}
}  // namespace

void swiglu_act(const float* gate, const float* up, int64_t n, float* act) {
  // silu(gate) * up = gate / (1 + e^-gate) * up: silu()'s bits, times up.
  for_chunks(n, [&](int64_t start, int64_t m) {
    float e[kChunk];
    for (int64_t i = 0; i < m; ++i) e[i] = -gate[start + i];
    exp_approx_inplace(e, m);
    for (int64_t i = 0; i < m; ++i) act[start + i] = gate[start + i] / (1.0f + e[i]) * up[start + i];
  });
}

void swiglu_act_backward(const float* gate, const float* up, const float* dact, int64_t n, float* dgate, float* dup) {
  for_chunks(n, [&](int64_t start, int64_t m) {
    float e[kChunk];
    for (int64_t i = 0; i < m; ++i) e[i] = -gate[start + i];
    exp_approx_inplace(e, m);
    for (int64_t i = 0; i < m; ++i) {
      const int64_t at = start + i;
      const float g = gate[at], u = up[at], d = dact[at];  // read before dgate/dup (may be dact) are written
      // σ and silu from the forward's e^-g: silu(g) = g·σ(g) = g / (1 + e^-g),
      // silu'(g) = σ(g)·(1 + g·(1 - σ(g))).
      const float sigmoid = 1.0f / (1.0f + e[i]);
      const float silu_g = g / (1.0f + e[i]);
      dup[at] = d * silu_g;
      dgate[at] = d * u * (sigmoid * (1.0f + g * (1.0f - sigmoid)));
    }
  });
}

}  // namespace minimind
