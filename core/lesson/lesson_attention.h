// Attention on small matrices a learner types, as lesson 2.5 works it by
// hand: scores = Q·Kᵀ, ÷√d (optional), + causal mask (optional), softmax,
// then weights·V when V is given. Also the softmax of typed scores alone
// (the lesson's [1, 2, 3] against [10, 20, 30]).
#pragma once

#include "util/tensor.h"

namespace minimind {

struct LessonAttention {
  Matrix raw;      // [Tq, Tk] Q·Kᵀ
  Matrix scaled;   // [Tq, Tk] ÷ √d, or equal to raw when not scaling
  Matrix masked;   // [Tq, Tk] −∞ where a key is after its query (causal)
  Matrix weights;  // [Tq, Tk] softmax over each row
  Matrix output;   // [Tq, dv] weights·V; empty without V
};

// Bounds on what a learner types; larger inputs are refused with a message.
constexpr int64_t kMaxLessonTokens = 64;
constexpr int64_t kMaxLessonDim = 256;

// q: [Tq, d], k: [Tk, d], v: [Tk, dv] or empty. With a causal mask the
// queries are the last Tq positions of the Tk keys (Tq <= Tk). Throws
// minimind::Error naming a shape mismatch, a non-finite entry or a
// product that overflows float32 (Q·Kᵀ, weights·V).
LessonAttention lesson_attention(const Matrix& q, const Matrix& k, const Matrix& v, bool causal, bool scale);

// scores: [T, n] typed directly; softmax over each row, after a causal mask
// when asked (query i sees keys 0..i of a square matrix). Entries may be −∞
// (already masked); +∞ and NaN are refused.
LessonAttention lesson_softmax(const Matrix& scores, bool causal);

}  // namespace minimind
