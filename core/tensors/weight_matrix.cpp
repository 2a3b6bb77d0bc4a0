#include "tensors/weight_matrix.h"

#include <algorithm>
#include <cmath>

#include "util/half.h"
#include "util/simd_lanes.h"

namespace minimind {

namespace {

// Whether a finite float32 is exactly a float16 value: zero, or an exponent
// within float16's range (subnormals included) and no mantissa bits below
// float16's last one.
bool is_float16_value(float v) {
  const uint32_t u = float_bits(v) & 0x7fffffffu;
  if (u == 0) return true;
  const int exponent = int(u >> 23) - 127;
  if (exponent > 15 || exponent < -24) return false;
  // Bits float16 cannot keep: 13 for normals, more for subnormals (2^-15..2^-24).
  const int dropped = exponent >= -14 ? 13 : 13 + (-14 - exponent);
  return (u & ((1u << dropped) - 1)) == 0;
}

// Whether a finite float32 is exactly a bfloat16 value: its low 16 bits are zero.
bool is_bfloat16_value(float v) { return (float_bits(v) & 0xffffu) == 0; }

struct StorageChoice {
  WeightStorage storage;
  float largest;  // the largest |value| (read when storage is F16)
};

// Float32 packing: float32. Narrowest: the narrowest storage that holds every
// value exactly (non-finite values stay float32: the kernel's float16 widening
// handles finite values only).
StorageChoice choose_storage(const float* values, int64_t n, WeightPacking packing) {
  if (packing == WeightPacking::Float32) return {WeightStorage::F32, 0.0f};
  bool f16 = true, bf16 = true;
  float largest = 0.0f;
  for (int64_t i = 0; i < n && (f16 || bf16); ++i) {
    const float v = values[i];
    if (!std::isfinite(v)) return {WeightStorage::F32, 0.0f};
    f16 = f16 && is_float16_value(v);
    bf16 = bf16 && is_bfloat16_value(v);
    largest = std::max(largest, std::abs(v));
  }
  return {f16 ? WeightStorage::F16 : bf16 ? WeightStorage::BF16 : WeightStorage::F32, largest};
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
    : rows_(rows), cols_(cols) {
  const StorageChoice choice = choose_storage(values, rows * cols, packing);
  storage_ = choice.storage;
  const size_t padded = size_t(panels() * cols * kPanelRows);
  float f16_scale = 1.0f;
  if (storage_ == WeightStorage::F16) {
    // Times 2^kF16Shift the largest value must stay below float16's 65504.
    if (choice.largest < std::ldexp(1.0f, 16 - kF16Shift)) f16_shift_ = kF16Shift;
    f16_scale = std::ldexp(1.0f, f16_shift_);
  }
  if (storage_ == WeightStorage::F32) {
    f32_.assign(padded, 0.0f);
  } else {
    half_.assign(padded, 0);
  }
  for (int64_t r = 0; r < rows; ++r) {
    const float* row = values + r * cols;
    const size_t base = offset(r, 0);
    for (int64_t i = 0; i < cols; ++i) {
      const size_t at = base + size_t(i) * kPanelRows;
      switch (storage_) {
        case WeightStorage::F32:
          f32_[at] = row[i];
          break;
        case WeightStorage::F16:
          half_[at] = f32_to_f16(row[i] * f16_scale);  // exact: a power of 2 within range
          break;
        case WeightStorage::BF16:
          half_[at] = f32_to_bf16(row[i]);
          break;
      }
    }
  }
}

void WeightMatrix::assign_f32(const float* values) {
  if (storage_ != WeightStorage::F32) {
    std::vector<uint16_t>().swap(half_);
    f32_.assign(size_t(panels() * cols_ * kPanelRows), 0.0f);  // padding rows stay 0
    storage_ = WeightStorage::F32;
    f16_shift_ = 0;
  }
  for (int64_t r = 0; r < rows_; ++r) {
    float* base = f32_.data() + offset(r, 0);
    const float* row = values + r * cols_;
    for (int64_t i = 0; i < cols_; ++i) base[i * kPanelRows] = row[i];
  }
}

size_t WeightMatrix::offset(int64_t r, int64_t i) const {
  const int64_t p = r / kPanelRows;
  const int j = int(r % kPanelRows);
  const size_t column = size_t(p * cols_ * kPanelRows + i * kPanelRows);
  return column + size_t(storage_ == WeightStorage::F32 ? j : simd::half_slot(j));
}

float WeightMatrix::stored(size_t at) const {
  switch (storage_) {
    case WeightStorage::F16:
      return std::ldexp(f16_to_f32(half_[at]), -f16_shift_);
    case WeightStorage::BF16:
      return bf16_to_f32(half_[at]);
    case WeightStorage::F32:
      break;
  }
  return f32_[at];
}

float WeightMatrix::value(int64_t r, int64_t i) const { return stored(offset(r, i)); }

void WeightMatrix::row(int64_t r, float* out) const {
  const size_t base = offset(r, 0);
  for (int64_t i = 0; i < cols_; ++i) out[i] = stored(base + size_t(i) * kPanelRows);
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
