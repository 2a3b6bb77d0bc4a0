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
    // Four partial maxima and sums: one dependent chain over V values would
    // cost V add latencies per row (the max is exact in any order; the sum
    // is in double, its order fixed).
    float max4[4] = {x[0], x[0], x[0], x[0]};
    int64_t v = 0;
    for (; v + 4 <= V; v += 4) {
      for (int k = 0; k < 4; ++k) max4[k] = std::max(max4[k], x[v + k]);
    }
    float max = std::max(std::max(max4[0], max4[1]), std::max(max4[2], max4[3]));
    for (; v < V; ++v) max = std::max(max, x[v]);
    const float target = x[label] - max;
    for (v = 0; v < V; ++v) d[v] = x[v] - max;
    exp_approx_inplace(d, V);
    double sum4[4] = {0.0, 0.0, 0.0, 0.0};
    for (v = 0; v + 4 <= V; v += 4) {
      for (int k = 0; k < 4; ++k) sum4[k] += double(d[v + k]);
    }
    double sum = (sum4[0] + sum4[1]) + (sum4[2] + sum4[3]);
    for (; v < V; ++v) sum += d[v];
    total += std::log(sum) - double(target);
    // ∂/∂x of -log softmax(x)[label] = softmax(x) - onehot(label).
    const float scale = float(double(grad_scale) / sum);
    for (v = 0; v < V; ++v) d[v] *= scale;
    d[label] -= grad_scale;
  }
  return total;
}

}  // namespace minimind
