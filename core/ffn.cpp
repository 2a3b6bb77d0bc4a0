#include "ffn.h"

#include <cmath>

#include "trace.h"

namespace minimind {

float silu(float x) { return x / (1.0f + std::exp(-x)); }

Matrix swiglu_ffn(const FfnWeights& w, const Matrix& b, const TraceTarget& target) {
  const int64_t T = b.rows(), F = w.gate_proj.rows();
  Matrix gate = b * w.gate_proj.transpose();  // [T, F]
  const Matrix up = b * w.up_proj.transpose();  // [T, F]
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
  return gate * w.down_proj.transpose();  // [T, D]
}

}  // namespace minimind
