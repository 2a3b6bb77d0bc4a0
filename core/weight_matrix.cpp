#include "weight_matrix.h"

#include <cmath>

#include "half.h"

namespace minimind {

namespace {

// The narrowest storage that holds every value exactly (non-finite values
// stay float32: the kernel's float16 widening handles finite values only).
WeightStorage narrowest_storage(const float* values, int64_t n) {
  bool f16 = true, bf16 = true;
  for (int64_t i = 0; i < n && (f16 || bf16); ++i) {
    const float v = values[i];
    if (!std::isfinite(v)) return WeightStorage::F32;
    if (f16 && f16_to_f32(f32_to_f16(v)) != v) f16 = false;
    if (bf16 && bf16_to_f32(f32_to_bf16(v)) != v) bf16 = false;
  }
  return f16 ? WeightStorage::F16 : bf16 ? WeightStorage::BF16 : WeightStorage::F32;
}

}  // namespace

const char* weight_storage_name(WeightStorage storage) {
  switch (storage) {
    case WeightStorage::F32:
      return "F32";
    case WeightStorage::F16:
      return "F16";
    case WeightStorage::BF16:
      return "BF16";
  }
  return "?";
}

WeightMatrix::WeightMatrix(const float* values, int64_t rows, int64_t cols, WeightPacking packing)
    : rows_(rows),
      cols_(cols),
      storage_(packing == WeightPacking::Float32 ? WeightStorage::F32 : narrowest_storage(values, rows * cols)) {
  const size_t padded = size_t(panels() * cols * kPanelRows);
  if (storage_ == WeightStorage::F32) {
    f32_.assign(padded, 0.0f);
  } else {
    half_.assign(padded, 0);
  }
  for (int64_t r = 0; r < rows; ++r) {
    const size_t base = size_t((r / kPanelRows) * cols * kPanelRows + r % kPanelRows);
    const float* row = values + r * cols;
    for (int64_t i = 0; i < cols; ++i) {
      const size_t at = base + size_t(i * kPanelRows);
      switch (storage_) {
        case WeightStorage::F32:
          f32_[at] = row[i];
          break;
        case WeightStorage::F16:
          half_[at] = f32_to_f16(row[i]);
          break;
        case WeightStorage::BF16:
          half_[at] = f32_to_bf16(row[i]);
          break;
      }
    }
  }
}

float WeightMatrix::value(int64_t r, int64_t i) const {
  const size_t at = size_t((r / kPanelRows) * cols_ * kPanelRows + i * kPanelRows + r % kPanelRows);
  switch (storage_) {
    case WeightStorage::F16:
      return f16_to_f32(half_[at]);
    case WeightStorage::BF16:
      return bf16_to_f32(half_[at]);
    case WeightStorage::F32:
      break;
  }
  return f32_[at];
}

void WeightMatrix::row(int64_t r, float* out) const {
  for (int64_t i = 0; i < cols_; ++i) out[i] = value(r, i);
}

Matrix WeightMatrix::unpacked() const {
  Matrix m(rows_, cols_);
  for (int64_t r = 0; r < rows_; ++r) row(r, m.row(r).data());
  return m;
}

bool WeightMatrix::operator==(const WeightMatrix& other) const {
  if (rows_ != other.rows_ || cols_ != other.cols_) return false;
  for (int64_t r = 0; r < rows_; ++r) {
    for (int64_t i = 0; i < cols_; ++i) {
      if (value(r, i) != other.value(r, i)) return false;
    }
  }
  return true;
}

}  // namespace minimind
