#include "ops/ffn_block.h"

#include <algorithm>
#include <initializer_list>

#include "ops/ffn.h"
#include "ops/moe_backward.h"

namespace minimind {

namespace {
size_t floats_of(std::initializer_list<const std::vector<float>*> list) {
  size_t n = 0;
  for (const std::vector<float>* v : list) n += v->capacity();
  return n;
}
size_t floats_of(const SwigluActivations& a) { return floats_of({&a.gate, &a.up, &a.act}); }
}  // namespace

size_t FfnActivations::bytes() const {
  size_t floats = floats_of({&input, &probs, &chosen, &chosen_weight, &routed_in, &routed_out, &shared_out}) +
                  floats_of(dense) + floats_of(routed);
  for (const SwigluActivations& s : shared) floats += floats_of(s);
  return floats * sizeof(float) + (expert_rows.capacity() + row_slot.capacity() + order.capacity()) * sizeof(int64_t);
}

size_t FfnBackwardScratch::bytes() const {
  return sizeof(float) * floats_of({&w_rows, &w_t, &d_act, &d_up, &dy_rows, &dx_rows, &d_other, &d_weight, &d_probs,
                                    &linear.dy_t, &linear.x_panels, &linear.dw});
}

void linear_backward_of(const WeightMatrix& W, const float* x, int64_t n, const float* dy, float* dx, float* dw,
                        FfnBackwardScratch& s) {
  if (n <= 0) return;
  const int64_t out = W.rows(), in = W.cols();
  // W [out, in] row-major (any storage widens exactly), then Wᵀ as panels.
  float* rows = scratch(s.w_rows, out * in);
  for (int64_t r = 0; r < out; ++r) W.row(r, rows + r * in);
  const PanelsView w_t = pack_transposed(rows, out, in, in, s.w_t);  // [in, out]
  if (dw) {
    linear_backward(x, n, in, in, dy, out, out, w_t, dx, dw, s.linear);
  } else {
    linear_rows(dy, n, out, w_t, dx, in);  // dx = dy · W: linear_backward's own product
  }
}

void swiglu_forward_rows(const FfnWeights& w, const float* x, int64_t n, float* gate, float* up, float* act,
                         float* out) {
  const int64_t D = w.gate_proj.cols(), F = w.gate_proj.rows();
  // swiglu_ffn's steps: down_proj(act_fn(gate_proj(x)) * up_proj(x)).
  linear_rows(x, n, D, w.gate_proj, gate, F);
  linear_rows(x, n, D, w.up_proj, up, F);
  swiglu_act(gate, up, n * F, act);
  linear_rows(act, n, F, w.down_proj, out, D);
}

void swiglu_backward_rows(const FfnWeights& w, const float* x, int64_t n, const float* gate, const float* up,
                          const float* act, const float* dy, float* dx, const SwigluGradients& g,
                          FfnBackwardScratch& s) {
  const int64_t D = w.gate_proj.cols(), F = w.gate_proj.rows();
  float* d_act = scratch(s.d_act, n * F);  // [n, F] d act, then d gate
  float* d_up = scratch(s.d_up, n * F);    // [n, F]
  float* d_other = scratch(s.d_other, n * D);
  linear_backward_of(w.down_proj, act, n, dy, d_act, g.down_proj, s);
  swiglu_act_backward(gate, up, d_act, n * F, d_act, d_up);
  linear_backward_of(w.gate_proj, x, n, d_act, dx, g.gate_proj, s);
  linear_backward_of(w.up_proj, x, n, d_up, d_other, g.up_proj, s);
  for (int64_t i = 0; i < n * D; ++i) dx[i] += d_other[i];
}

void ffn_block_forward(const ModelConfig& c, const LayerWeights& w, const float* b, int64_t T, float* out,
                       FfnActivations& saved) {
  saved.T = T;
  std::copy(b, b + T * c.hidden_size, scratch(saved.input, T * c.hidden_size));
  if (c.use_moe) {
    moe_forward_saved(c, w.moe, saved.input.data(), T, out, saved);
  } else {
    const int64_t F = w.mlp.gate_proj.rows();
    SwigluActivations& a = saved.dense;
    swiglu_forward_rows(w.mlp, saved.input.data(), T, scratch(a.gate, T * F), scratch(a.up, T * F),
                        scratch(a.act, T * F), out);
  }
}

void ffn_block_backward(const ModelConfig& c, const LayerWeights& w, const FfnActivations& saved, const float* d_out,
                        float* d_in, const FfnGradients* grads, FfnBackwardScratch& s) {
  if (c.use_moe) {
    moe_backward(c, w.moe, saved, d_out, d_in, grads, s);
  } else {
    const SwigluActivations& a = saved.dense;
    swiglu_backward_rows(w.mlp, saved.input.data(), saved.T, a.gate.data(), a.up.data(), a.act.data(), d_out, d_in,
                         grads ? grads->mlp : SwigluGradients{}, s);
  }
}

}  // namespace minimind
