#include "model/forward_workspace.h"

namespace minimind {

void ForwardWorkspace::reserve(const ModelConfig& c, int64_t T, int64_t Tk) {
  scratch(hidden, T * c.hidden_size);
  scratch(normed, T * c.hidden_size);
  scratch(branch, T * c.hidden_size);
  scratch(cos, T * c.head_dim);
  scratch(sin, T * c.head_dim);
  attention.reserve(c, T, Tk);
  if (c.use_moe) {
    moe.reserve(c, T);
  } else {
    ffn.reserve(T, c.intermediate_size);
  }
}

}  // namespace minimind
