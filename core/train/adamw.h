// torch.optim.AdamW with torch's defaults, as MiniMind's trainer builds it
// (`optim.AdamW(model.parameters(), lr)`): the single-tensor path of
// torch/optim/adamw.py, in float32 per element, weight decay decoupled and
// applied first, on every parameter (norms and embeddings included).
#pragma once

#include <cstdint>
#include <vector>

#include "train/parameter.h"

namespace minimind {

struct AdamWOptions {
  double beta1 = 0.9;
  double beta2 = 0.999;
  double eps = 1e-8;
  double weight_decay = 0.01;
};

class AdamW {
 public:
  // Zeroed first and second moments for every parameter (same order, same sizes).
  AdamW(const std::vector<Parameter>& params, AdamWOptions options = {});

  // One optimizer.step() at learning rate lr, over every parameter's grad:
  // step t += 1; p *= 1 - lr·wd; m = b1·m + (1-b1)·g; v = b2·v + (1-b2)·g²;
  // p -= lr / (1 - b1^t) · m / (sqrt(v) / sqrt(1 - b2^t) + eps).
  // Allocates nothing.
  void step(std::vector<Parameter>& params, double lr);

  int64_t steps() const { return steps_; }  // optimizer steps taken (torch's state['step'])
  const AdamWOptions& options() const { return options_; }
  size_t state_bytes() const;  // the moments' memory: 2 floats per parameter element

  const std::vector<std::vector<float>>& exp_avg() const { return m_; }     // per parameter, [numel]
  const std::vector<std::vector<float>>& exp_avg_sq() const { return v_; }  // per parameter, [numel]

  // optimizer.load_state_dict(): the step count and both moments of a saved
  // run, per parameter in the order this optimizer was built for. Throws
  // minimind::Error (and changes nothing) when a count or size differs
  // or steps is negative.
  void restore(int64_t steps, std::vector<std::vector<float>> exp_avg, std::vector<std::vector<float>> exp_avg_sq);

 private:
  AdamWOptions options_;
  int64_t steps_ = 0;
  std::vector<std::vector<float>> m_, v_;
};

// torch.nn.utils.clip_grad_norm_(parameters, max_norm): the global L2 norm of
// every gradient (the norm of the per-tensor norms), then every gradient
// multiplied by min(1, max_norm / (norm + 1e-6)). Returns the norm before
// clipping. Allocates nothing.
double clip_grad_norm(std::vector<Parameter>& params, double max_norm);

// optimizer.zero_grad(): every gradient back to 0.
void zero_grad(std::vector<Parameter>& params);

}  // namespace minimind
