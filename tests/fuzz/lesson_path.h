// What a learner types into the lessons (fuzz_lesson): the small Q, K, V or
// score matrices of lesson 2.5's worked attention, and lesson 11's lab
// record (a preset name and a seed). The page sends the matrices as JSON;
// the core receives them as float matrices of any shape and any float
// value, which is what this path builds from the bytes:
//
//   byte 0      bits 0-1: 0 or 3 attention, 1 softmax of scores, 2 lab record
//               bit 2: causal mask, bit 3: ÷√d, bit 4: with V
//   attention / softmax: for Q (or the scores), K, V in turn, a row count
//               (1 byte) and a column count (2 bytes little-endian, mod 300),
//               past the lesson's limits of 64 × 256; then float32 values,
//               reused from the start when the matrices need more
//   lab record: byte 1 bit 0 picks lab-a or lab-b, bit 1 asks for the name
//               in bytes 3.. instead; byte 2 the seed
//
// Accepted matrices must give rows of weights that are finite, in [0, 1],
// zero where masked and summing to 1 (or all zero: a row of typed −∞).
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>

#include "lesson/lab_record.h"
#include "lesson/lesson_attention.h"
#include "model/presets.h"
#include "property.h"
#include "util/error.h"

namespace minimind::fuzz {

namespace lesson_detail {

struct Bytes {
  const uint8_t* data;
  size_t size;
  size_t at = 0;
  uint8_t byte() { return at < size ? data[at++] : 0; }
};

// [rows, cols] filled from `floats` (4 bytes each), wrapping around.
inline Matrix matrix(Bytes& header, const uint8_t* floats, size_t float_count, size_t& next) {
  const int64_t rows = header.byte();
  const int64_t cols = (header.byte() | int64_t(header.byte()) << 8) % 300;
  Matrix m = Matrix::Zero(rows, cols);
  // The lesson refuses a matrix past its limits whatever it holds: only
  // matrices it may accept take the (slow, sanitized) copy of values.
  if (rows > kMaxLessonTokens || cols > kMaxLessonDim) return m;
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j) {
      float x = 0;
      if (float_count) std::memcpy(&x, floats + 4 * (next++ % float_count), 4);
      m(i, j) = x;
    }
  }
  return m;
}

// The weights' promises; `allow_zero_rows` for typed scores, where a row
// may be all −∞. With a causal mask, query i is key offset + i.
inline void check_weights(const LessonAttention& a, bool causal, bool allow_zero_rows) {
  const Matrix& w = a.weights;
  expect(w.rows() == a.raw.rows() && w.cols() == a.raw.cols(), "weights and scores differ in shape");
  const int64_t offset = w.cols() - w.rows();
  for (int64_t i = 0; i < w.rows(); ++i) {
    double sum = 0;
    for (int64_t j = 0; j < w.cols(); ++j) {
      const float x = w(i, j);
      expect(std::isfinite(x) && x >= 0 && x <= 1, "a weight outside [0, 1] at row " + std::to_string(i));
      if (causal && j > offset + i) expect(x == 0, "a masked key has weight at row " + std::to_string(i));
      sum += x;
    }
    expect(std::fabs(sum - 1) <= 1e-4 || (allow_zero_rows && sum == 0),
           "weights of row " + std::to_string(i) + " sum to " + std::to_string(sum));
  }
  for (int64_t i = 0; i < a.output.size(); ++i) expect(std::isfinite(a.output(i)), "weights·V is not finite");
}

inline void lab_record(const uint8_t* data, size_t size) {
  Bytes header{data, size, 1};
  const uint8_t choice = header.byte();
  // One byte of seed: each seed is a whole random model and forward pass
  // (tens of milliseconds under the sanitizers), and no seed is special.
  const uint64_t seed = header.byte();
  std::string preset = choice & 1 ? "lab-b" : "lab-a";
  if (choice & 2) {
    preset = size > 3 ? std::string(reinterpret_cast<const char*>(data) + 3, size - 3) : std::string();
    // The lab offers its own two presets; the released shapes are known
    // names too, but a random model of them is too slow to fuzz.
    for (const std::string& name : preset_names()) {
      if (name == preset && name.rfind("lab-", 0) != 0) return;
    }
  }
  try {
    const std::string record = lesson11_lab_record(preset, seed);
    expect(record.find("manual_vs_module_max_abs_diff=") != std::string::npos, "the lab record lacks its comparison");
  } catch (const Error&) {
  }
}

}  // namespace lesson_detail

inline void lesson(const uint8_t* data, size_t size) {
  if (size == 0) return;
  const uint8_t mode = data[0] & 3, flags = data[0];
  if (mode == 2) return lesson_detail::lab_record(data, size);
  const bool causal = flags & 4, scale = flags & 8, with_v = flags & 16;
  constexpr size_t kHeaderBytes = 1 + 3 * 3;
  lesson_detail::Bytes header{data, size, 1};
  const uint8_t* floats = data + std::min(size, kHeaderBytes);
  const size_t float_count = size > kHeaderBytes ? (size - kHeaderBytes) / 4 : 0;
  size_t next = 0;
  const Matrix q = lesson_detail::matrix(header, floats, float_count, next);
  const Matrix k = lesson_detail::matrix(header, floats, float_count, next);
  const Matrix v = with_v ? lesson_detail::matrix(header, floats, float_count, next) : Matrix();
  try {
    if (mode == 1) {
      lesson_detail::check_weights(lesson_softmax(q, causal), causal, /*allow_zero_rows=*/true);
    } else {
      const LessonAttention a = lesson_attention(q, k, v, causal, scale);
      lesson_detail::check_weights(a, causal, /*allow_zero_rows=*/false);
      expect(a.output.rows() == (v.size() ? q.rows() : 0), "weights·V has the wrong number of rows");
    }
  } catch (const Error&) {
  }
}

}  // namespace minimind::fuzz
