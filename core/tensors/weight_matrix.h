// A linear or embedding weight W [rows, cols] (PyTorch's [out, in]) kept in
// the layout and precision the matrix kernel (linear.h) wants:
//
//   panels of 8 rows: panel p holds rows 8p..8p+7 column by column; the
//   last panel is padded with zero rows. One column of a panel is 8
//   consecutive values: two 4-lane vectors (float32) or one 128-bit load
//   (16-bit storage).
//   float32: panel after panel, element (8p + j, i) at p·cols·8 + i·8 + j.
//   16-bit: panel after panel too, element (8p + j, i) at
//   p·cols·8 + i·8 + half_slot(j), the 8 values of a column in simd_lanes.h's
//   lane-pair order. The 1-row product reads 4 panels at once: 4 runs of
//   memory, which the hardware prefetchers follow side by side. One run (the
//   4 panels interleaved column by column) made a decode step of minimind-3
//   with float16 weights take 1.9x as long natively on an Intel Xeon (28.5
//   against 14.6 ms; one core streamed ~11 GB/s from one run, ~14 from 4).
//   On an AMD EPYC it goes the other way in a single large product (Wasm,
//   768 x 33792 float32: one interleaved run of 4 panels streamed 1.10-1.46x
//   what 4 runs did, in 10 side-by-side measurements), but a whole decode
//   step reading 1 panel (one run) or 4 at a time took the same time within
//   7% either way (minimind2-small and minimind-3, float16 and float32), so
//   the layout stays.
//
// Storage is the narrowest type that holds every value exactly: float16
// (MiniMind's released checkpoints, and the seeded presets, whose values are
// rounded to float16), else bfloat16, else float32. Widening is exact, so
// the storage never changes a result; it halves the bytes a forward reads.
#pragma once

#include <cstdint>
#include <vector>

#include "util/tensor.h"

namespace minimind {

enum class WeightStorage { F32, F16, BF16 };

// How to choose the storage: the narrowest exact one, or always float32
// (twice the memory of float16; for comparing the two).
enum class WeightPacking { Narrowest, Float32 };

const char* weight_storage_name(WeightStorage storage);  // "F32", "F16", "BF16"

// What the matrix kernel reads: [rows, cols] packed in panels as above, in
// memory someone else owns (a WeightMatrix, or the keys of a KV cache).
struct PanelsView {
  static constexpr int kPanelRows = 8;

  int64_t rows = 0, cols = 0;
  WeightStorage storage = WeightStorage::F32;
  const float* f32 = nullptr;      // F32 storage: panels() · cols · 8 values
  const uint16_t* half = nullptr;  // F16 or BF16 storage
  // F16 storage: the float16 values kept times 2^f16_shift (see WeightMatrix).
  int f16_shift = 0;

  int64_t panels() const { return (rows + kPanelRows - 1) / kPanelRows; }
  // Panel p: cols·8 values, column-major within the panel.
  const float* f32_panel(int64_t p) const { return f32 + p * cols * kPanelRows; }
  // 16-bit storage: panel p, cols·8 values, column-major within the panel.
  const uint16_t* half_panel(int64_t p) const { return half + p * cols * kPanelRows; }
};

class WeightMatrix {
 public:
  static constexpr int kPanelRows = PanelsView::kPanelRows;

  WeightMatrix() = default;
  // Packs a row-major [rows, cols] matrix.
  WeightMatrix(const float* values, int64_t rows, int64_t cols, WeightPacking packing = WeightPacking::Narrowest);
  explicit WeightMatrix(const Matrix& m, WeightPacking packing = WeightPacking::Narrowest)
      : WeightMatrix(m.data(), m.rows(), m.cols(), packing) {}

  int64_t rows() const { return rows_; }
  int64_t cols() const { return cols_; }
  int64_t size() const { return rows_ * cols_; }
  int64_t panels() const { return (rows_ + kPanelRows - 1) / kPanelRows; }
  WeightStorage storage() const { return storage_; }
  size_t bytes() const { return f32_.size() * sizeof(float) + half_.size() * sizeof(uint16_t); }

  PanelsView view() const { return {rows_, cols_, storage_, f32_.data(), half_.data(), f16_shift_}; }
  // F16 storage keeps each value times 2^10 where every |value| < 64 (else
  // times 1): exact both ways, and then no float16 subnormal remains. The
  // kernel widens float16 to float32 by moving bits, and a float16
  // subnormal (0.24% of MiniMind-scale weights, N(0, 0.02)) becomes a
  // float32 subnormal that x86 multiplies far more slowly: the 1-row
  // product with such weights took 1.20x as long (Wasm, 1 thread, AMD EPYC,
  // 768 x 32768).
  static constexpr int kF16Shift = 10;

  // Replaces the values by row-major float32 ones of the same shape, stored
  // as float32 (training updates weights that are no longer float16
  // values). Reuses the storage once it is float32: allocates nothing then.
  void assign_f32(const float* values);

  void row(int64_t r, float* out) const;  // W[r, :] -> out[cols]
  Matrix unpacked() const;                // the row-major [rows, cols] matrix

  // Same shape and the same values (whatever the storage).
  bool operator==(const WeightMatrix& other) const;
  bool operator!=(const WeightMatrix& other) const { return !(*this == other); }

 private:
  float value(int64_t r, int64_t i) const;
  float stored(size_t at) const;              // the value stored at `at`, as float32
  size_t offset(int64_t r, int64_t i) const;  // where element (r, i) is stored

  int64_t rows_ = 0, cols_ = 0;
  WeightStorage storage_ = WeightStorage::F32;
  int f16_shift_ = 0;           // F16 storage: 0 or kF16Shift
  std::vector<float> f32_;      // F32 storage
  std::vector<uint16_t> half_;  // F16 or BF16 storage
};

}  // namespace minimind
