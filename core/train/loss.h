// MiniMind's pretraining loss (MiniMindForCausalLM.forward with labels):
//   F.cross_entropy(logits[:, :-1].reshape(-1, V), labels[:, 1:].reshape(-1),
//                   ignore_index=-100)
// the mean over the positions whose label is not -100, and its gradient.
#pragma once

#include <cstdint>

namespace minimind {

// logits [rows, V]; labels [rows] (the label of row r is the token that row
// r predicts, or -100). Returns Σ over labelled rows of -log softmax(row)[label]
// (in double); writes dlogits [rows, V] = grad_scale · (softmax(row) - onehot)
// for labelled rows and 0 for ignored rows (dlogits may be logits). The
// caller divides by the number of labelled rows: grad_scale is 1 / (that
// count · accumulation_steps).
double cross_entropy_rows(const float* logits, const int32_t* labels, int64_t rows, int64_t V, float grad_scale,
                          float* dlogits);

}  // namespace minimind
