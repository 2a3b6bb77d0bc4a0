#include "ops/ffn.h"

#include <algorithm>
#include <cmath>

#include "ops/exp_approx.h"
#include "ops/linear.h"
#include "model/trace.h"

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
  // silu(gate) * up = gate / (1 + e^-gate) * up, with e^-gate computed four
  // lanes at a time (the same bits as silu() one by one), a chunk at a time.
  constexpr int64_t kChunk = 256;
  float e[kChunk];
  for (int64_t start = 0; start < T * F; start += kChunk) {
    const int64_t n = std::min(kChunk, T * F - start);
    for (int64_t i = 0; i < n; ++i) e[i] = -gate[start + i];
    exp_approx_inplace(e, n);
    for (int64_t i = 0; i < n; ++i) gate[start + i] = gate[start + i] / (1.0f + e[i]) * up[start + i];
  }
  if (trace && trace->wants(target.layer, stage::kFfnAct)) {
    trace->put(target.layer, stage::kFfnAct, target.batch_index, {T, F}, gate);
  }
  linear_rows(gate, T, F, w.down_proj, out, D);  // [T, D]
}

}  // namespace minimind
