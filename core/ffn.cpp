#include "ffn.h"

#include <cmath>

#include "exp_approx.h"
#include "linear.h"
#include "trace.h"

namespace minimind {

float silu(float x) { return x / (1.0f + exp_approx(-x)); }

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
  // silu(gate) * up, with e^-gate computed four lanes at a time (the same
  // bits as silu() one by one).
  Matrix e = -gate;  // [T, F]
  exp_approx_inplace(e.data(), e.size());
  gate = (gate.array() / (1.0f + e.array())).matrix().cwiseProduct(up);  // [T, F]
  if (trace && trace->wants(target.layer, stage::kFfnAct)) {
    trace->put(target.layer, stage::kFfnAct, target.batch_index, {T, F}, gate.data());
  }
  return linear(gate, w.down_proj);  // [T, D]
}

}  // namespace minimind
