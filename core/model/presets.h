// Presets: the lesson-11 lab shapes and the released MiniMind shapes
// (see the generation table in MiniMind's README).
#pragma once

#include <string>
#include <vector>

#include "tensors/model_config.h"

namespace minimind {

std::vector<std::string> preset_names();

// Throws minimind::Error listing the known names for an unknown one.
ModelConfig preset_config(const std::string& name);

}  // namespace minimind
