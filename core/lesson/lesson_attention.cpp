#include "lesson/lesson_attention.h"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "ops/attention.h"
#include "ops/dot_rows.h"
#include "util/error.h"

namespace minimind {

namespace {

void check_size(const char* what, const Matrix& m, int64_t max_rows, int64_t max_cols) {
  if (m.rows() < 1 || m.cols() < 1)
    throw Error("lesson.empty", {{"matrix", std::string(what)}}, std::string(what) + " is empty");
  if (m.rows() > max_rows || m.cols() > max_cols) {
    throw Error("lesson.too_large",
                {{"matrix", std::string(what)},
                 {"rows", int64_t(m.rows())},
                 {"cols", int64_t(m.cols())},
                 {"max_rows", max_rows},
                 {"max_cols", max_cols}},
                std::string(what) + " is " + std::to_string(m.rows()) + "×" + std::to_string(m.cols()) + "; at most " +
                    std::to_string(max_rows) + "×" + std::to_string(max_cols) + " for a worked example");
  }
}

void check_finite(const char* what, const Matrix& m, bool allow_minus_infinity = false) {
  for (int64_t i = 0; i < m.rows(); ++i) {
    for (int64_t j = 0; j < m.cols(); ++j) {
      const float x = m(i, j);
      if (std::isfinite(x) || (allow_minus_infinity && x == -std::numeric_limits<float>::infinity())) continue;
      throw Error("lesson.not_finite", {{"matrix", std::string(what)}, {"row", i}, {"col", j}},
                  std::string(what) + "[" + std::to_string(i) + "][" + std::to_string(j) + "] is not a finite number");
    }
  }
}

// Finite entries can still give a product beyond float32 (1e20 · 1e20), whose
// softmax would be NaN: refuse the input rather than show NaN weights.
void check_no_overflow(const char* what, const Matrix& m) {
  for (int64_t i = 0; i < m.rows(); ++i) {
    for (int64_t j = 0; j < m.cols(); ++j) {
      if (std::isfinite(m(i, j))) continue;
      throw Error("lesson.overflow", {{"matrix", std::string(what)}, {"row", i}, {"col", j}},
                  std::string(what) + "[" + std::to_string(i) + "][" + std::to_string(j) +
                      "] overflows float32 (beyond ±3.4e38): use smaller numbers");
    }
  }
}

// −∞ above the diagonal, with the queries as the last rows of the keys.
Matrix causal_masked(const Matrix& scores, bool causal) {
  Matrix out = scores;
  if (!causal) return out;
  const int64_t offset = scores.cols() - scores.rows();
  for (int64_t i = 0; i < out.rows(); ++i) {
    for (int64_t j = offset + i + 1; j < out.cols(); ++j) out(i, j) = -std::numeric_limits<float>::infinity();
  }
  return out;
}

Matrix row_softmax(const Matrix& scores) {
  Matrix out = scores;
  for (int64_t i = 0; i < out.rows(); ++i) softmax_inplace(out.row(i).data(), out.cols());
  return out;
}

}  // namespace

LessonAttention lesson_attention(const Matrix& q, const Matrix& k, const Matrix& v, bool causal, bool scale) {
  check_size("Q", q, kMaxLessonTokens, kMaxLessonDim);
  check_size("K", k, kMaxLessonTokens, kMaxLessonDim);
  if (q.cols() != k.cols()) {
    throw Error("lesson.qk_columns", {{"q", int64_t(q.cols())}, {"k", int64_t(k.cols())}},
                "Q has " + std::to_string(q.cols()) + " columns and K " + std::to_string(k.cols()) +
                    ": q·k needs vectors of the same length");
  }
  if (causal && q.rows() > k.rows()) {
    throw Error("lesson.causal_rows", {{"q", int64_t(q.rows())}, {"k", int64_t(k.rows())}},
                "with the causal mask Q cannot have more rows (" + std::to_string(q.rows()) + ") than K (" +
                    std::to_string(k.rows()) + ")");
  }
  check_finite("Q", q);
  check_finite("K", k);
  if (v.size()) {
    check_size("V", v, kMaxLessonTokens, kMaxLessonDim);
    if (v.rows() != k.rows()) {
      throw Error("lesson.v_rows", {{"v", int64_t(v.rows())}, {"k", int64_t(k.rows())}},
                  "V has " + std::to_string(v.rows()) + " rows and K " + std::to_string(k.rows()) +
                      ": every key needs its value");
    }
    check_finite("V", v);
  }
  LessonAttention out;
  out.raw = dot_rows(q, k);  // [Tq, Tk]: row i, column j = q_i · k_j
  check_no_overflow("Q·Kᵀ", out.raw);
  out.scaled = scale ? Matrix(out.raw / std::sqrt(float(q.cols()))) : out.raw;
  out.masked = causal_masked(out.scaled, causal);
  out.weights = row_softmax(out.masked);
  if (v.size()) {
    out.output = out.weights * v;  // [Tq, dv]
    check_no_overflow("weights·V", out.output);
  }
  return out;
}

LessonAttention lesson_softmax(const Matrix& scores, bool causal) {
  check_size("scores", scores, kMaxLessonTokens, kMaxLessonDim);
  check_finite("scores", scores, /*allow_minus_infinity=*/true);
  if (causal && scores.rows() > scores.cols()) {
    throw Error("lesson.causal_columns", {{"rows", int64_t(scores.rows())}, {"cols", int64_t(scores.cols())}},
                "a causal mask needs at least as many keys (columns) as queries (rows)");
  }
  LessonAttention out;
  out.raw = scores;
  out.scaled = scores;
  out.masked = causal_masked(scores, causal);
  out.weights = row_softmax(out.masked);
  return out;
}

}  // namespace minimind
