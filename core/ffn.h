// SwiGLU feed-forward (MiniMind's FeedForward): down(silu(gate(x)) * up(x)).
#pragma once

#include "attention.h"
#include "tensor.h"
#include "weights.h"

namespace minimind {

float silu(float x);  // x / (1 + e^-x)

// b: [T, D] -> [T, D]. Traces ffn_gate, ffn_up, ffn_act when asked.
Matrix swiglu_ffn(const FfnWeights& w, const Matrix& b, const TraceTarget& target = {});

}  // namespace minimind
