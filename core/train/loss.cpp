#include "train/loss.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "ops/exp_approx.h"
#include "train/pretrain_data.h"

namespace minimind {

double cross_entropy_rows(const float* logits, const int32_t* labels, int64_t rows, int64_t V, float grad_scale,
                          float* dlogits) {
  double total = 0.0;
  for (int64_t r = 0; r < rows; ++r) {
    const float* x = logits + r * V;  // [V]
    float* d = dlogits + r * V;       // [V]
    const int32_t label = labels[r];
    if (label == kIgnoreIndex) {
      std::fill(d, d + V, 0.0f);
      continue;
    }
    if (label < 0 || label >= V) {
      throw std::invalid_argument("label " + std::to_string(label) + " is outside the vocabulary (0.." +
                                  std::to_string(V - 1) + ")");
    }
    // log_softmax as torch computes it: max-subtracted, then log Σ e^(x - max).
    const float max = *std::max_element(x, x + V);
    const float target = x[label] - max;
    for (int64_t v = 0; v < V; ++v) d[v] = x[v] - max;
    exp_approx_inplace(d, V);
    double sum = 0.0;
    for (int64_t v = 0; v < V; ++v) sum += d[v];
    total += std::log(sum) - double(target);
    // ∂/∂x of -log softmax(x)[label] = softmax(x) - onehot(label).
    const float scale = float(double(grad_scale) / sum);
    for (int64_t v = 0; v < V; ++v) d[v] *= scale;
    d[label] -= grad_scale;
  }
  return total;
}

}  // namespace minimind
