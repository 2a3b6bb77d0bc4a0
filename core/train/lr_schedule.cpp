#include "train/lr_schedule.h"

#include <cmath>
#include <stdexcept>

#include "util/error.h"

namespace minimind {

double minimind_lr(int64_t current_step, int64_t total_steps, double base_lr) {
  if (total_steps <= 0)
    throw Error("train.total_steps", {{"value", total_steps}}, "minimind_lr: total_steps must be positive");
  // trainer_utils.get_lr: lr * (0.1 + 0.45 * (1 + math.cos(math.pi * current_step / total_steps))),
  // evaluated left to right as Python does: (pi * s) / total.
  const double kPi = 3.141592653589793;  // math.pi
  return base_lr * (0.1 + 0.45 * (1 + std::cos(kPi * double(current_step) / double(total_steps))));
}

}  // namespace minimind
