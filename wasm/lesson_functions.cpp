#include "lesson_functions.h"

#include <limits>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "js_values.h"
#include "lesson/lab_record.h"
#include "lesson/lesson_attention.h"

namespace minimind::wasm {

using nlohmann::json;

namespace {

// A matrix from JSON [[...], ...] (rows of equal length); empty for "[]".
Matrix matrix_from_json(const std::string& text, const char* what) {
  const json j = json::parse(text);
  if (!j.is_array()) throw std::invalid_argument(std::string(what) + " must be a list of rows");
  if (j.empty()) return Matrix();
  const size_t cols = j.at(0).is_array() ? j.at(0).size() : 0;
  Matrix m(int64_t(j.size()), int64_t(cols));
  for (size_t i = 0; i < j.size(); ++i) {
    if (!j[i].is_array() || j[i].size() != cols) {
      throw std::invalid_argument(std::string(what) + " row " + std::to_string(i) + " does not have " +
                                  std::to_string(cols) + " numbers like row 0");
    }
    for (size_t c = 0; c < cols; ++c) {
      // JSON has no -Infinity: null stands for a masked (−∞) score.
      m(int64_t(i), int64_t(c)) = j[i][c].is_null() ? -std::numeric_limits<float>::infinity() : j[i][c].get<float>();
    }
  }
  return m;
}

val matrix_value(const Matrix& m) {
  val out = val::object();
  out.set("shape", shape_array({m.rows(), m.cols()}));
  out.set("data", typed_copy(m.data(), size_t(m.size())));
  return out;
}

val lesson_value(const LessonAttention& a) {
  val out = val::object();
  out.set("raw", matrix_value(a.raw));
  out.set("scaled", matrix_value(a.scaled));
  out.set("masked", matrix_value(a.masked));
  out.set("weights", matrix_value(a.weights));
  if (a.output.size()) out.set("output", matrix_value(a.output));
  return out;
}

}  // namespace

val lesson_attention_js(const std::string& q, const std::string& k, const std::string& v, bool causal, bool scale) {
  return guarded([&] {
    return lesson_value(
        lesson_attention(matrix_from_json(q, "Q"), matrix_from_json(k, "K"), matrix_from_json(v, "V"), causal, scale));
  });
}

val lesson_softmax_js(const std::string& scores, bool causal) {
  return guarded([&] { return lesson_value(lesson_softmax(matrix_from_json(scores, "scores"), causal)); });
}

std::string lab_record(const std::string& preset, double seed) {
  return guarded([&] { return lesson11_lab_record(preset, uint64_t(seed)); });
}

}  // namespace minimind::wasm
