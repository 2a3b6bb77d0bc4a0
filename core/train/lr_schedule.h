// MiniMind's learning rate (trainer_utils.get_lr), set before every batch:
//   get_lr(s, total, lr) = lr * (0.1 + 0.45 * (1 + cos(pi * s / total)))
// with s = epoch * iters + step (step counting batches from 1 within the
// epoch) and total = epochs * iters. In double, as Python computes it.
#pragma once

#include <cstdint>

namespace minimind {

double minimind_lr(int64_t current_step, int64_t total_steps, double base_lr);

}  // namespace minimind
