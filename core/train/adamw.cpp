#include "train/adamw.h"

#include <cmath>
#include <stdexcept>
#include <string>

#include "util/error.h"
#include "util/thread_pool.h"

namespace minimind {

namespace {

constexpr int64_t kMinUpdatesPerThread = int64_t(1) << 15;

void check_shapes(const std::vector<Parameter>& params, const std::vector<std::vector<float>>& m) {
  if (params.size() != m.size()) {
    throw Error(
        "adamw.parameter_count", {{"expected", int64_t(m.size())}, {"got", int64_t(params.size())}},
        "AdamW: built for " + std::to_string(m.size()) + " parameters, stepped with " + std::to_string(params.size()));
  }
  for (size_t i = 0; i < params.size(); ++i) {
    const Parameter& p = params[i];
    if (p.value.size() != m[i].size() || p.grad.size() != p.value.size()) {
      throw Error("adamw.state_size",
                  {{"parameter", p.name},
                   {"values", int64_t(p.value.size())},
                   {"gradients", int64_t(p.grad.size())},
                   {"state", int64_t(m[i].size())}},
                  "AdamW: " + p.name + " has " + std::to_string(p.value.size()) + " values and " +
                      std::to_string(p.grad.size()) + " gradients, the optimizer state " + std::to_string(m[i].size()));
    }
  }
}

}  // namespace

AdamW::AdamW(const std::vector<Parameter>& params, AdamWOptions options) : options_(options) {
  m_.reserve(params.size());
  v_.reserve(params.size());
  for (const Parameter& p : params) {
    // torch: state['exp_avg'] = torch.zeros_like(p, memory_format=torch.preserve_format), same for exp_avg_sq.
    m_.emplace_back(p.value.size(), 0.0f);
    v_.emplace_back(p.value.size(), 0.0f);
  }
}

void AdamW::restore(int64_t steps, std::vector<std::vector<float>> exp_avg,
                    std::vector<std::vector<float>> exp_avg_sq) {
  if (steps < 0)
    throw Error("adamw.negative_steps", {{"steps", steps}}, "AdamW: a negative step count " + std::to_string(steps));
  for (const auto* moments : {&exp_avg, &exp_avg_sq}) {
    if (moments->size() != m_.size()) {
      throw Error("adamw.parameter_count", {{"expected", int64_t(m_.size())}, {"got", int64_t(moments->size())}},
                  "AdamW: built for " + std::to_string(m_.size()) + " parameters, restored with " +
                      std::to_string(moments->size()));
    }
    for (size_t i = 0; i < m_.size(); ++i) {
      if ((*moments)[i].size() != m_[i].size()) {
        throw Error(
            "adamw.restore_size",
            {{"index", int64_t(i)}, {"expected", int64_t(m_[i].size())}, {"got", int64_t((*moments)[i].size())}},
            "AdamW: parameter " + std::to_string(i) + " has " + std::to_string(m_[i].size()) +
                " elements, its restored state " + std::to_string((*moments)[i].size()));
      }
    }
  }
  steps_ = steps;
  m_ = std::move(exp_avg);
  v_ = std::move(exp_avg_sq);
}

size_t AdamW::state_bytes() const {
  size_t n = 0;
  for (const auto& m : m_) n += m.size();
  return 2 * n * sizeof(float);
}

// Mirrors torch 1.13 torch/optim/adamw.py `_single_tensor_adamw` (the path
// `AdamW(params, lr)` takes on CPU: foreach=None becomes False, capturable,
// amsgrad and maximize are False).
//
// The Python scalars (1 - lr*wd, 1 - beta1, lr / bias_correction1, ...) are
// doubles, computed here in double in Python's order. Each then reaches a
// float32 tensor op as a wrapped CPU scalar, which TensorIterator casts to
// the tensor's dtype: every scalar below is float(double). The per-element
// arithmetic is then ATen's CPU kernels in float32:
//   mul_(s)                 a * s
//   add_(b, alpha=s)        ufunc::add, vectorised as vec::fmadd(b, s, a): fma(b, s, a)
//   addcmul_(b, c, value=s) `self + value * t1 * t2`, which the compiler of
//                           torch's CPU kernels contracts to fma(s * b, c, a)
//   sqrt()                  correctly rounded float sqrt
//   / s                     div_true_kernel: a / s (a real division)
//   add_(s)                 fmadd(s, 1, a) = a + s
//   addcdiv_(b, c, value=s) a + (s * b) / c (a division: nothing to fuse)
// Checked bit for bit against the installed torch 1.13 (CPU) on tensors of
// 5 to 4099 elements, vectorised body and scalar tail alike: the two FMAs
// are what torch does, and an unfused addcmul differs in ~15% of elements.
// The project builds with -ffp-contract=off, so the fusions are spelled
// out with std::fma and nothing else is fused.
void AdamW::step(std::vector<Parameter>& params, double lr) {
  check_shapes(params, m_);
  const double beta1 = options_.beta1, beta2 = options_.beta2, eps = options_.eps, wd = options_.weight_decay;

  // step_t += 1 (a float32 tensor in torch, exact up to 2^24 steps), then step = step_t.item().
  ++steps_;
  const double step = double(steps_);
  const double bias_correction1 = 1 - std::pow(beta1, step);  // 1 - beta1 ** step
  const double bias_correction2 = 1 - std::pow(beta2, step);  // 1 - beta2 ** step
  const double step_size = lr / bias_correction1;
  const double bias_correction2_sqrt = std::sqrt(bias_correction2);  // math.sqrt(bias_correction2)

  const float decay = float(1 - lr * wd);               // param.mul_(1 - lr * weight_decay)
  const float b1 = float(beta1);                        // exp_avg.mul_(beta1)
  const float one_minus_b1 = float(1 - beta1);          // .add_(grad, alpha=1 - beta1)
  const float b2 = float(beta2);                        // exp_avg_sq.mul_(beta2)
  const float one_minus_b2 = float(1 - beta2);          // .addcmul_(grad, grad, value=1 - beta2)
  const float bc2_sqrt = float(bias_correction2_sqrt);  // exp_avg_sq.sqrt() / bias_correction2_sqrt
  const float eps_f = float(eps);                       // .add_(eps)
  const float neg_step_size = float(-step_size);        // param.addcdiv_(exp_avg, denom, value=-step_size)

  for (size_t i = 0; i < params.size(); ++i) {
    float* p = params[i].value.data();  // [numel]
    const float* g = params[i].grad.data();
    float* m = m_[i].data();
    float* v = v_[i].data();
    const size_t n = params[i].value.size();
    // torch runs each statement over the whole tensor before the next; per
    // element the statements do not interact, so one fused loop gives the
    // same numbers (and so does any split of it across threads).
    parallel_chunks(int64_t(n), kMinUpdatesPerThread, [&](int64_t k0, int64_t k1) {
      for (int64_t k = k0; k < k1; ++k) {
        p[k] = p[k] * decay;
        m[k] = std::fma(g[k], one_minus_b1, m[k] * b1);
        v[k] = std::fma(one_minus_b2 * g[k], g[k], v[k] * b2);
        const float denom = std::sqrt(v[k]) / bc2_sqrt + eps_f;
        p[k] = p[k] + (neg_step_size * m[k]) / denom;
      }
    });
  }
}

// Mirrors torch 1.13 torch/nn/utils/clip_grad.py `clip_grad_norm_` with
// norm_type 2:
//   total_norm = torch.norm(torch.stack([torch.norm(g, 2) for g in grads]), 2)
//   clip_coef = max_norm / (total_norm + 1e-6)
//   clip_coef_clamped = torch.clamp(clip_coef, max=1.0)
//   for g in grads: g.mul_(clip_coef_clamped)      # always, even when the coef is 1
// torch reduces each norm in float32, in lanes as wide as the CPU's vectors
// (so its own result depends on the machine); here each sum of squares is
// accumulated in double and the norm rounded once to float32. Measured on
// random gradients, torch's float32 norm differs from that correctly rounded
// one in its last bit about half the time, and the clipped gradients then
// differ by an ulp of the coefficient: clipping, unlike AdamW, is not bit
// for bit torch's. From the norm on, the arithmetic is torch's, on float32
// 0-dim tensors:
// (total_norm + 1e-6) in float32, then Tensor.__rdiv__, which is
// `self.reciprocal() * other`, then clamp, then the multiply (checked: from
// torch's own norm, these give torch's clipped gradients to the bit).
double clip_grad_norm(std::vector<Parameter>& params, double max_norm) {
  double sum_of_norms_squared = 0;
  for (const Parameter& p : params) {
    double sum_squares = 0;
    for (float g : p.grad) sum_squares += double(g) * double(g);
    const double tensor_norm = std::sqrt(sum_squares);  // torch.norm(g, 2)
    sum_of_norms_squared += tensor_norm * tensor_norm;
  }
  const double total_norm = std::sqrt(sum_of_norms_squared);

  const float norm_plus_eps = float(total_norm) + float(1e-6);
  const float clip_coef = (1.0f / norm_plus_eps) * float(max_norm);
  // torch.clamp(x, max=1.0) keeps a NaN (min(NaN, 1) is NaN), so a
  // non-finite norm poisons the gradients as it does in torch.
  const float clamped = std::isnan(clip_coef) ? clip_coef : (clip_coef > 1.0f ? 1.0f : clip_coef);
  for (Parameter& p : params) {
    for (float& g : p.grad) g = g * clamped;
  }
  return total_norm;
}

void zero_grad(std::vector<Parameter>& params) {
  // MiniMind calls optimizer.zero_grad(set_to_none=True): the next backward
  // then writes the grads afresh. Zeros give the same sums (0 + g == g). In a
  // dense model every parameter receives a gradient in every backward; an MoE
  // expert that no token reached between two steps would keep grad None in
  // torch and be skipped by AdamW, where here it steps with a zero gradient.
  for (Parameter& p : params) {
    for (float& g : p.grad) g = 0.0f;
  }
}

}  // namespace minimind
