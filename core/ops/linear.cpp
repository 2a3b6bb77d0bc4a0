#include "ops/linear.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "ops/linear_avx2.h"
#include "util/simd_lanes.h"
#include "util/thread_pool.h"

namespace minimind {

namespace {

using simd::Lanes;
constexpr int kPanel = WeightMatrix::kPanelRows;  // 8 outputs = 2 vectors
// Element-wise work below this many elements a thread stays on the caller.
constexpr int64_t kMinElementsPerThread = int64_t(1) << 15;

// Where a tile reads one column (8 values) of a panel from.
struct F32Column {
  const float* base;
  void load(int64_t i, Lanes& low, Lanes& high) const {
    low = simd::load(base + i * kPanel);
    high = simd::load(base + i * kPanel + 4);
  }
};
// The float16 widening (simd_lanes.h) leaves a value 2^-112 times too
// small, and W keeps its values 2^f16_shift times too large
// (weight_matrix.h): this undoes both. A power of 2: exact.
float f16_widen_scale(const PanelsView& W) { return std::ldexp(1.0f, 112 - W.f16_shift); }

// 16-bit panels: 8 values per column, in lane-pair order (weight_matrix.h).
struct F16Column {
  const uint16_t* base;
  Lanes scale;  // f16_widen_scale
  void load(int64_t i, Lanes& low, Lanes& high) const {
    simd::widen_f16_unscaled(base + i * kPanel, low, high);
    low = simd::mul(low, scale);
    high = simd::mul(high, scale);
  }
};
// float16 weights widened but not scaled, against rows of x scaled by
// f16_widen_scale instead: the same products, bit for bit (both scalings are
// exact), one multiply less.
struct F16UnscaledColumn {
  const uint16_t* base;
  void load(int64_t i, Lanes& low, Lanes& high) const { simd::widen_f16_unscaled(base + i * kPanel, low, high); }
};
struct BF16Column {
  const uint16_t* base;
  void load(int64_t i, Lanes& low, Lanes& high) const { simd::widen_bf16(base + i * kPanel, low, high); }
};

// Whether linear_rows fuses its multiply-adds: only in the relaxed Wasm
// build, which compiles this file a second time with MINIMIND_RELAXED_FMA
// (wasm/CMakeLists.txt). Elsewhere every product and every sum rounds.
#if defined(MINIMIND_RELAXED_FMA)
constexpr bool kWeightsFused = true;
#else
constexpr bool kWeightsFused = false;
#endif

// acc + a·b: one fused multiply-add (one rounding) when kFuse, else a
// product and a sum, each rounded.
template <bool kFuse>
inline Lanes product_add(Lanes acc, Lanes a, Lanes b) {
#if defined(MINIMIND_RELAXED_FMA)
  if constexpr (kFuse) return simd::fused_mul_add(acc, a, b);
#endif
  return simd::mul_add(acc, a, b);
}

// R rows of x against P panels: R·P·2 vector accumulators, one per output
// element lane, each summed over i in order. Writes `valid[p]` outputs of
// panel p (fewer than 8 only for the last panel) at y + p·gap·8: the panels
// are `gap` panels of W apart.
template <bool kFuse, int R, int P, typename Column>
void tile(const float* x, int64_t x_stride, const Column (&panel)[P], int64_t n, float* y, int64_t y_stride,
          const int (&valid)[P], int64_t gap = 1) {
  Lanes acc[R][P][2];
  for (int r = 0; r < R; ++r) {
    for (int p = 0; p < P; ++p) acc[r][p][0] = acc[r][p][1] = simd::zero();
  }
  for (int64_t i = 0; i < n; ++i) {
    Lanes w[P][2];
    for (int p = 0; p < P; ++p) panel[p].load(i, w[p][0], w[p][1]);
    for (int r = 0; r < R; ++r) {
      const Lanes xr = simd::splat(x + r * x_stride + i);
      for (int p = 0; p < P; ++p) {
        acc[r][p][0] = product_add<kFuse>(acc[r][p][0], xr, w[p][0]);
        acc[r][p][1] = product_add<kFuse>(acc[r][p][1], xr, w[p][1]);
      }
    }
  }
  for (int r = 0; r < R; ++r) {
    for (int p = 0; p < P; ++p) {
      float* to = y + r * y_stride + p * gap * kPanel;
      if (valid[p] == kPanel) {  // a whole panel: two stores, no call
        simd::store(to, acc[r][p][0]);
        simd::store(to + 4, acc[r][p][1]);
        continue;
      }
      float out[kPanel];
      simd::store(out, acc[r][p][0]);
      simd::store(out + 4, acc[r][p][1]);
      for (int j = 0; j < valid[p]; ++j) to[j] = out[j];
    }
  }
}

int valid_rows(const PanelsView& W, int64_t p) { return int(std::min<int64_t>(kPanel, W.rows - p * kPanel)); }

template <typename Column>
Column column_of(const PanelsView& W, int64_t p);
template <>
F32Column column_of<F32Column>(const PanelsView& W, int64_t p) {
  return {W.f32_panel(p)};
}
template <>
F16Column column_of<F16Column>(const PanelsView& W, int64_t p) {
  return {W.half_panel(p), simd::fill(f16_widen_scale(W))};
}
template <>
F16UnscaledColumn column_of<F16UnscaledColumn>(const PanelsView& W, int64_t p) {
  return {W.half_panel(p)};
}
template <>
BF16Column column_of<BF16Column>(const PanelsView& W, int64_t p) {
  return {W.half_panel(p)};
}

// A few rows (decoding: one): one row reads 4 panels at a time, 4 runs of
// memory side by side (one per panel) that the hardware prefetchers follow,
// and 8 independent sums that hide the latency of each add. 4, not 8: 8
// panels' 16 sums, their 16 loaded vectors and x do not fit the 16 vector
// registers V8 (and SSE) have on x86: 4 loses less on an Intel Xeon than 8
// loses on an AMD EPYC. Measured in Wasm, 1 thread, medians of 5
// interleaved rounds, 8 -> 4 panels: on an AMD EPYC a decode step of
// minimind2-small 7.26 -> 6.24 ms (float16), minimind-3 16.7 -> 15.5 ms
// (float16) and 17.8 -> 16.7 ms (float32), the product alone (768 x 32768,
// float16) 9.4-9.9 -> 4.0-5.0 ms; on an Intel Xeon 8 panels had been the
// faster, by 7% (minimind-3, float16 15.2 against 16.4 ms).
//
// The 4 panels of a group are a quarter of W apart (p, p + Q, p + 2Q, p + 3Q
// with Q = panels / 4), not adjacent: each of the 4 runs then goes on
// through its quarter of W from group to group, where adjacent panels would
// make all 4 runs jump every n·8 values. Each output is the same sum either
// way. Measured in Wasm on an AMD EPYC, 1 row against 768 x 65536 float16
// weights (100 MB), medians of 9: 7.8-8.1 G weights/s a quarter apart,
// 6.6-6.8 adjacent.
constexpr int kDecodePanels = 4;
template <bool kFuse, int R, typename Column>
void few_rows(const float* x, int64_t x_stride, const PanelsView& W, float* y, int64_t y_stride) {
  constexpr int kGroup = R == 1 ? kDecodePanels : R == 2 ? 2 : 1;
  const int64_t n = W.cols, panels = W.panels();
  const int64_t gap = panels / kGroup;  // Q: panels between a group's members
  for (int64_t p = 0; p < gap; ++p) {
    Column column[kGroup];
    int valid[kGroup];
    for (int g = 0; g < kGroup; ++g) {
      column[g] = column_of<Column>(W, p + g * gap);
      valid[g] = valid_rows(W, p + g * gap);
    }
    tile<kFuse, R, kGroup>(x, x_stride, column, n, y + p * kPanel, y_stride, valid, gap);
  }
  for (int64_t p = kGroup * gap; p < panels; ++p) {
    const Column column[1] = {column_of<Column>(W, p)};
    const int valid[1] = {valid_rows(W, p)};
    tile<kFuse, R, 1>(x, x_stride, column, n, y + p * kPanel, y_stride, valid);
  }
}

// Rows [t0, t1) against one panel, 4 rows per tile, the rest 3/2/1.
template <bool kFuse, typename Column>
void panel_rows(const float* x, int64_t t0, int64_t t1, int64_t x_stride, const Column (&column)[1],
                const int (&valid)[1], int64_t n, float* y, int64_t y_stride) {
  int64_t t = t0;
  for (; t + 4 <= t1; t += 4)
    tile<kFuse, 4, 1>(x + t * x_stride, x_stride, column, n, y + t * y_stride, y_stride, valid);
  const int64_t rest = t1 - t;
  if (rest == 3) tile<kFuse, 3, 1>(x + t * x_stride, x_stride, column, n, y + t * y_stride, y_stride, valid);
  if (rest == 2) tile<kFuse, 2, 1>(x + t * x_stride, x_stride, column, n, y + t * y_stride, y_stride, valid);
  if (rest == 1) tile<kFuse, 1, 1>(x + t * x_stride, x_stride, column, n, y + t * y_stride, y_stride, valid);
}

// A 16-bit panel's n columns as float32: wide[i * kPanel + lane], [n, 8].
template <typename Column>
void widen_panel(const Column& column, int64_t n, float* wide) {
  for (int64_t i = 0; i < n; ++i) {
    Lanes low, high;
    column.load(i, low, high);
    simd::store(wide + i * kPanel, low);
    simd::store(wide + i * kPanel + 4, high);
  }
}

// Many rows: panel by panel, so each panel is read from memory once per
// block of rows and then served from cache. 16-bit panels are widened once
// into a float32 buffer that every row then reads.
template <bool kFuse>
void many_rows(const float* x, int64_t T, int64_t x_stride, const PanelsView& W, float* y, int64_t y_stride) {
  const int64_t n = W.cols;
  // Rows per block: ~512 KiB of x, which stays in L2 while the panels pass.
  const int64_t block = std::max<int64_t>(8, (int64_t(1) << 17) / std::max<int64_t>(1, n) / 4 * 4);
  // With AVX2 (native x86), two panels at a time in 8-lane registers.
  const int group = avx2_kernel_enabled() ? 2 : 1;
  thread_local std::vector<float> widened;  // `group` panels as float32: [group, n, 8]
  if (W.storage != WeightStorage::F32 && widened.size() < size_t(group * n * kPanel)) {
    widened.resize(size_t(group * n * kPanel));
  }
  for (int64_t t0 = 0; t0 < T; t0 += block) {
    const int64_t t1 = std::min(T, t0 + block);
    for (int64_t p = 0; p < W.panels(); p += group) {
      const int count = int(std::min<int64_t>(group, W.panels() - p));
      int valid[2] = {};
      const float* source[2] = {};
      for (int q = 0; q < count; ++q) {
        valid[q] = valid_rows(W, p + q);
        // Only float32 storage has panels to point at (W.f32 is null otherwise).
        if (W.storage == WeightStorage::F32) {
          source[q] = W.f32_panel(p + q);
          continue;
        }
        float* wide = widened.data() + q * n * kPanel;
        if (W.storage == WeightStorage::F16) {
          widen_panel(column_of<F16Column>(W, p + q), n, wide);
        } else {
          widen_panel(column_of<BF16Column>(W, p + q), n, wide);
        }
        source[q] = wide;
      }
      if (group == 2) {
        panel_rows_avx2(x, t0, t1, x_stride, source, valid, count, n, y + p * kPanel, y_stride);
        continue;
      }
      const F32Column column[1] = {{source[0]}};
      const int valid_one[1] = {valid[0]};
      panel_rows<kFuse>(x, t0, t1, x_stride, column, valid_one, n, y + p * kPanel, y_stride);
    }
  }
}

template <bool kFuse, typename Column>
void small_batch(const float* x, int64_t T, int64_t x_stride, const PanelsView& W, float* y, int64_t y_stride) {
  if (T == 1) few_rows<kFuse, 1, Column>(x, x_stride, W, y, y_stride);
  if (T == 2) few_rows<kFuse, 2, Column>(x, x_stride, W, y, y_stride);
  if (T == 3) few_rows<kFuse, 3, Column>(x, x_stride, W, y, y_stride);
}

template <bool kFuse>
void linear_rows_serial(const float* x, int64_t T, int64_t x_stride, const PanelsView& W, float* y, int64_t y_stride) {
  if (T >= 4) {
    many_rows<kFuse>(x, T, x_stride, W, y, y_stride);
    return;
  }
  switch (W.storage) {
    case WeightStorage::F32:
      return small_batch<kFuse, F32Column>(x, T, x_stride, W, y, y_stride);
    case WeightStorage::F16: {
      // x·scale stays finite (and exact) for |x| < 2^128 / scale; else widen fully.
      const float scale = f16_widen_scale(W), limit = std::ldexp(1.0f, 16 + W.f16_shift);
      float largest = 0.0f;
      for (int64_t t = 0; t < T; ++t) {
        for (int64_t i = 0; i < W.cols; ++i) largest = std::max(largest, std::abs(x[t * x_stride + i]));
      }
      if (!(largest < limit)) return small_batch<kFuse, F16Column>(x, T, x_stride, W, y, y_stride);
      thread_local std::vector<float> scaled;  // [T, in]: x·scale
      scaled.resize(size_t(T * W.cols));
      for (int64_t t = 0; t < T; ++t) {
        for (int64_t i = 0; i < W.cols; ++i) scaled[size_t(t * W.cols + i)] = x[t * x_stride + i] * scale;
      }
      return small_batch<kFuse, F16UnscaledColumn>(scaled.data(), T, W.cols, W, y, y_stride);
    }
    case WeightStorage::BF16:
      return small_batch<kFuse, BF16Column>(x, T, x_stride, W, y, y_stride);
  }
}

// Panels [p0, p1) of W: the outputs 8·p0 .. of the whole product.
PanelsView panel_range(const PanelsView& W, int64_t p0, int64_t p1) {
  PanelsView part = W;
  part.rows = std::min(W.rows, p1 * kPanel) - p0 * kPanel;
  if (W.storage == WeightStorage::F32) {
    part.f32 = W.f32_panel(p0);
  } else {
    part.half = W.half_panel(p0);
  }
  return part;
}

// Below this many multiply-adds a part, waking threads costs more than it saves.
constexpr int64_t kMinProductsPerThread = int64_t(1) << 16;
// Parts are whole groups of kDecodePanels panels (the decoding tile's group), so that no
// part ends in a narrower tile than one thread alone would use.
constexpr int64_t kPanelsPerUnit = kDecodePanels;

template <bool kFuse>
void split_rows(const float* x, int64_t T, int64_t x_stride, const PanelsView& W, float* y, int64_t y_stride) {
  if (T <= 0 || W.rows == 0) return;
  // Split by output rows (panels of W): every output is still the one
  // sequential sum it is on one thread, so any thread count gives the same bits.
  const int64_t units = (W.panels() + kPanelsPerUnit - 1) / kPanelsPerUnit;
  const int64_t by_work = T * W.rows * W.cols / kMinProductsPerThread;
  const int64_t parts = std::min<int64_t>({thread_count(), units, std::max<int64_t>(1, by_work)});
  if (parts <= 1) return linear_rows_serial<kFuse>(x, T, x_stride, W, y, y_stride);
  parallel_for(parts, [&](int64_t part) {
    const Range panels = split_range(W.panels(), parts, part, kPanelsPerUnit);
    if (panels.begin >= panels.end) return;
    linear_rows_serial<kFuse>(x, T, x_stride, panel_range(W, panels.begin, panels.end), y + panels.begin * kPanel,
                              y_stride);
  });
}

}  // namespace

void linear_rows(const float* x, int64_t T, int64_t x_stride, const PanelsView& W, float* y, int64_t y_stride) {
  split_rows<kWeightsFused>(x, T, x_stride, W, y, y_stride);
}

void linear_rows_unfused(const float* x, int64_t T, int64_t x_stride, const PanelsView& W, float* y, int64_t y_stride) {
  split_rows<false>(x, T, x_stride, W, y, y_stride);
}

// ---- backward (training) ------------------------------------------------

// 8×8 blocks, so that both the rows read and the rows written stay in cache;
// the threads take runs of 8 output rows (a copy: any split, the same bits).
// A training batch's output head is [2048, 6400]: one thread alone spent 6%
// of a 2-thread step here.
void transpose(const float* a, int64_t rows, int64_t cols, int64_t a_stride, float* out) {
  constexpr int64_t kBlock = 8;  // columns per unit of work
  const int64_t blocks = (cols + kBlock - 1) / kBlock;
  const int64_t min_blocks = std::max<int64_t>(1, kMinElementsPerThread / std::max<int64_t>(1, rows * kBlock));
  parallel_chunks(blocks, min_blocks, [&](int64_t b0, int64_t b1) {
    const int64_t c_end = std::min(cols, b1 * kBlock);
    // 4 columns at a time down all rows: 4 output rows written in order (a
    // block of rows at a time across thousands of columns touched a page
    // per output row, and ran at a third of this speed), 4x4 blocks turned
    // in registers.
    for (int64_t c0 = b0 * kBlock; c0 < c_end; c0 += simd::kLanes) {
      int64_t r = 0;
      if (c0 + simd::kLanes <= c_end) {
        for (; r + simd::kLanes <= rows; r += simd::kLanes) {
          Lanes v0 = simd::load(a + r * a_stride + c0), v1 = simd::load(a + (r + 1) * a_stride + c0);
          Lanes v2 = simd::load(a + (r + 2) * a_stride + c0), v3 = simd::load(a + (r + 3) * a_stride + c0);
          simd::transpose4(v0, v1, v2, v3);
          simd::store(out + c0 * rows + r, v0);
          simd::store(out + (c0 + 1) * rows + r, v1);
          simd::store(out + (c0 + 2) * rows + r, v2);
          simd::store(out + (c0 + 3) * rows + r, v3);
        }
      }
      for (int64_t c = c0; c < std::min(c_end, c0 + simd::kLanes); ++c) {
        for (int64_t row = r; row < rows; ++row) out[c * rows + row] = a[row * a_stride + c];
      }
    }
  });
}

namespace {

// Panels [p0, p1) of pack_transposed's [⌈cols/8⌉, rows, 8] buffer.
void pack_panels(const float* a, int64_t rows, int64_t cols, int64_t a_stride, float* packed, int64_t p0, int64_t p1) {
  for (int64_t p = p0; p < p1; ++p) {
    const int64_t c0 = p * kPanel, valid = std::min<int64_t>(kPanel, cols - c0);
    float* panel = packed + p * rows * kPanel;
    for (int64_t i = 0; i < rows; ++i) {
      // View element (c0 + j, i) = A[i, c0 + j]: row i's 8 values, then zeros
      // past the last column (the padding rows of the view).
      float* column = panel + i * kPanel;
      const float* from = a + i * a_stride + c0;
      if (valid == kPanel) {  // a fixed-size copy the compiler inlines
        for (int j = 0; j < kPanel; ++j) column[j] = from[j];
        continue;
      }
      for (int64_t j = 0; j < kPanel; ++j) column[j] = j < valid ? from[j] : 0.0f;
    }
  }
}

}  // namespace

PanelsView pack_transposed(const float* a, int64_t rows, int64_t cols, int64_t a_stride, std::vector<float>& storage) {
  const int64_t panels = (cols + kPanel - 1) / kPanel;
  float* packed = scratch(storage, panels * rows * kPanel);  // [⌈cols/8⌉, rows, 8]
  // Panels in parallel (each a copy of its own values) when there are many.
  const int64_t per_panel = rows * kPanel;
  parallel_chunks(panels, std::max<int64_t>(1, kMinElementsPerThread / std::max<int64_t>(1, per_panel)),
                  [&](int64_t p0, int64_t p1) { pack_panels(a, rows, cols, a_stride, packed, p0, p1); });
  return PanelsView{cols, rows, WeightStorage::F32, packed, nullptr};
}

void linear_backward(const float* x, int64_t N, int64_t in, int64_t x_stride, const float* dy, int64_t out,
                     int64_t dy_stride, const PanelsView& W_t, float* dx, float* dw, LinearBackwardScratch& s) {
  if (N <= 0) return;
  // dx [N, in] = dy [N, out] · W [out, in]: row n of dy against W_t's rows.
  if (dx) linear_rows(dy, N, dy_stride, W_t, dx, in);
  // dW [out, in] = dyᵀ [out, N] · x [N, in]: each element one sum over n.
  float* dy_t = scratch(s.dy_t, out * N);  // [out, N]
  transpose(dy, N, out, dy_stride, dy_t);
  const PanelsView x_t = pack_transposed(x, N, in, x_stride, s.x_panels);  // [in, N]
  float* product = scratch(s.dw, out * in);                                // [out, in]
  linear_rows(dy_t, out, N, x_t, product, in);
  parallel_chunks(out * in, kMinElementsPerThread, [&](int64_t e0, int64_t e1) {
    for (int64_t e = e0; e < e1; ++e) dw[e] += product[e];
  });
}

}  // namespace minimind
