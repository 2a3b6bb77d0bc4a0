#include "train/loss.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "ops/exp_approx.h"
#include "train/pretrain_data.h"
#include "util/error.h"
#include "util/thread_pool.h"

namespace minimind {

namespace {

// -log softmax(x)[label] of one row, its gradient into d (d may be x);
// NaN-free 0 with a zero gradient for an ignored row.
double row_loss(const float* x, int32_t label, int64_t V, float grad_scale, float* d) {
  if (label == kIgnoreIndex) {
    std::fill(d, d + V, 0.0f);
    return 0.0;
  }
  if (label < 0 || label >= V) {
    throw Error("train.label_out_of_range", {{"label", int64_t(label)}, {"last", int64_t(V - 1)}},
                "label " + std::to_string(label) + " is outside the vocabulary (0.." + std::to_string(V - 1) + ")");
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
  // ∂/∂x of -log softmax(x)[label] = softmax(x) - onehot(label).
  const float scale = float(double(grad_scale) / sum);
  for (v = 0; v < V; ++v) d[v] *= scale;
  d[label] -= grad_scale;
  return std::log(sum) - double(target);
}

constexpr int64_t kRowsPerTask = 16;

}  // namespace

double cross_entropy_rows(const float* logits, const int32_t* labels, int64_t rows, int64_t V, float grad_scale,
                          float* dlogits) {
  // Rows in parallel, their losses then summed in row order: the same total
  // for any thread count.
  thread_local std::vector<double> losses;  // [rows]; only grows
  if (losses.size() < size_t(std::max<int64_t>(rows, 0))) losses.resize(size_t(rows));
  double* loss_of = losses.data();  // the caller's buffer (a task's thread has its own `losses`)
  parallel_for((rows + kRowsPerTask - 1) / kRowsPerTask, [&](int64_t task) {
    const int64_t r1 = std::min(rows, (task + 1) * kRowsPerTask);
    for (int64_t r = task * kRowsPerTask; r < r1; ++r)
      loss_of[r] = row_loss(logits + r * V, labels[r], V, grad_scale, dlogits + r * V);
  });
  double total = 0.0;
  for (int64_t r = 0; r < rows; ++r) {
    if (labels[r] != kIgnoreIndex) total += loss_of[r];
  }
  return total;
}

}  // namespace minimind
