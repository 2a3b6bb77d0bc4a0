#include "ffn.h"

#include <cmath>

#include "linear.h"
#include "trace.h"

namespace minimind {

float silu(float x) { return x / (1.0f + std::exp(-x)); }

Matrix swiglu_ffn(const FfnWeights& w, const Matrix& b, const TraceTarget& target) {
  const int64_t T = b.rows(), F = w.gate_proj.rows();
  Matrix gate = linear(b, w.gate_proj);    // [T, F]
  const Matrix up = linear(b, w.up_proj);  // [T, F]
  Trace* trace = target.trace;
  if (trace && trace->wants(target.layer, stage::kFfnGate)) {
    trace->put(target.layer, stage::kFfnGate, target.batch_index, {T, F}, gate.data());
  }
  if (trace && trace->wants(target.layer, stage::kFfnUp)) {
    trace->put(target.layer, stage::kFfnUp, target.batch_index, {T, F}, up.data());
  }
  gate = gate.unaryExpr([](float x) { return silu(x); }).cwiseProduct(up);  // [T, F]
  if (trace && trace->wants(target.layer, stage::kFfnAct)) {
    trace->put(target.layer, stage::kFfnAct, target.batch_index, {T, F}, gate.data());
  }
  return linear(gate, w.down_proj);  // [T, D]
}

}  // namespace minimind
