// SwiGLU feed-forward (MiniMind's FeedForward): down(silu(gate(x)) * up(x)).
#pragma once

#include "ops/attention.h"
#include "tensors/weights.h"
#include "util/tensor.h"

namespace minimind {

float silu(float x);  // x / (1 + e^-x)

// Scratch memory of swiglu_ffn, kept by the caller between calls.
struct FfnScratch {
  std::vector<float> gate, up;  // [T, F]; gate then holds silu(gate) * up

  // Grows both buffers to what T tokens need with intermediate size F.
  void reserve(int64_t T, int64_t F);
};

// b: [T, D] -> out [T, D]. Traces ffn_gate, ffn_up, ffn_act when asked.
void swiglu_ffn(const FfnWeights& w, const float* b, int64_t T, float* out, FfnScratch& scratch,
                const TraceTarget& target = {});

// act = silu(gate) · up elementwise over n values (the SwiGLU product, the
// same bits as swiglu_ffn computes it); act may be gate.
void swiglu_act(const float* gate, const float* up, int64_t n, float* act);

// ---- backward (training) ------------------------------------------------
// d act -> d gate, d up, elementwise over n values:
//   dup = dact · silu(gate),  dgate = dact · up · σ(gate)·(1 + gate·(1 - σ(gate))).
// dgate / dup may alias dact.
void swiglu_act_backward(const float* gate, const float* up, const float* dact, int64_t n, float* dgate, float* dup);

}  // namespace minimind
