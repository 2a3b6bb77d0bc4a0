#include "ops/linear_avx2.h"

#if defined(__x86_64__) && !defined(__EMSCRIPTEN__)
#include <immintrin.h>
#define MINIMIND_HAVE_AVX2_KERNEL 1
#endif

namespace minimind {

namespace {

bool cpu_has_avx2() {
#if defined(MINIMIND_HAVE_AVX2_KERNEL)
  return __builtin_cpu_supports("avx2");
#else
  return false;
#endif
}

bool& enabled_flag() {
  static bool enabled = cpu_has_avx2();
  return enabled;
}

#if defined(MINIMIND_HAVE_AVX2_KERNEL)
constexpr int kAvxPanel = 8;

// R rows against P panels: R·P accumulators of 8 lanes, acc = acc + x·w per
// i in order. Only this file's functions are compiled for AVX2 (internal
// linkage, no library code inside), so nothing AVX2 leaks into code that
// runs on other CPUs.
// Accumulators as a plain GCC/clang vector type: __m256 carries may_alias,
// which (with GCC 12) keeps every accumulator stored back to the stack on
// each iteration, as if any float load might read it; this type does not.
typedef float Accumulator __attribute__((vector_size(32)));

// R rows against P panels: R·P accumulators of 8 lanes, acc = acc + x·w per
// i in order. Only this file's functions are compiled for AVX2 (internal
// linkage, no library code inside), so nothing AVX2 leaks into code that
// runs on other CPUs.
template <int R, int P>
__attribute__((target("avx2"))) void tile(const float* x, int64_t x_stride, const float* const* panels, int64_t n,
                                          float* y, int64_t y_stride, const int* valid) {
  Accumulator acc[R][P];
  for (int r = 0; r < R; ++r) {
    for (int p = 0; p < P; ++p) acc[r][p] = Accumulator(_mm256_setzero_ps());
  }
  const float* panel[P];
  for (int p = 0; p < P; ++p) panel[p] = panels[p];
  for (int64_t i = 0; i < n; ++i) {
    __m256 w[P];
    for (int p = 0; p < P; ++p) w[p] = _mm256_loadu_ps(panel[p] + i * kAvxPanel);
    for (int r = 0; r < R; ++r) {
      const __m256 xr = _mm256_broadcast_ss(x + r * x_stride + i);
      for (int p = 0; p < P; ++p) acc[r][p] = Accumulator(_mm256_add_ps(__m256(acc[r][p]), _mm256_mul_ps(xr, w[p])));
    }
  }
  for (int r = 0; r < R; ++r) {
    for (int p = 0; p < P; ++p) {
      float* to = y + r * y_stride + p * kAvxPanel;
      if (valid[p] == kAvxPanel) {
        _mm256_storeu_ps(to, __m256(acc[r][p]));
        continue;
      }
      // Through a buffer of its own: indexing acc's elements would keep acc
      // in memory during the loop (its floats may alias x's).
      alignas(32) float out[kAvxPanel];
      _mm256_store_ps(out, __m256(acc[r][p]));
      for (int j = 0; j < valid[p]; ++j) to[j] = out[j];
    }
  }
}

// The hot case, 4 rows × 2 panels, with its 8 accumulators named: GCC 12
// keeps an array of accumulators stored back to the stack on every
// iteration (the generic tile above does), halving the throughput.
__attribute__((target("avx2"))) void tile_4x2(const float* x, int64_t x_stride, const float* const* panels, int64_t n,
                                              float* y, int64_t y_stride, const int* valid) {
  const float* p0 = panels[0];
  const float* p1 = panels[1];
  const float* x0 = x;
  const float* x1 = x + x_stride;
  const float* x2 = x + 2 * x_stride;
  const float* x3 = x + 3 * x_stride;
  __m256 a00 = _mm256_setzero_ps(), a01 = a00, a10 = a00, a11 = a00, a20 = a00, a21 = a00, a30 = a00, a31 = a00;
  for (int64_t i = 0; i < n; ++i) {
    const __m256 w0 = _mm256_loadu_ps(p0 + i * kAvxPanel), w1 = _mm256_loadu_ps(p1 + i * kAvxPanel);
    __m256 xr = _mm256_broadcast_ss(x0 + i);
    a00 = _mm256_add_ps(a00, _mm256_mul_ps(xr, w0));
    a01 = _mm256_add_ps(a01, _mm256_mul_ps(xr, w1));
    xr = _mm256_broadcast_ss(x1 + i);
    a10 = _mm256_add_ps(a10, _mm256_mul_ps(xr, w0));
    a11 = _mm256_add_ps(a11, _mm256_mul_ps(xr, w1));
    xr = _mm256_broadcast_ss(x2 + i);
    a20 = _mm256_add_ps(a20, _mm256_mul_ps(xr, w0));
    a21 = _mm256_add_ps(a21, _mm256_mul_ps(xr, w1));
    xr = _mm256_broadcast_ss(x3 + i);
    a30 = _mm256_add_ps(a30, _mm256_mul_ps(xr, w0));
    a31 = _mm256_add_ps(a31, _mm256_mul_ps(xr, w1));
  }
  const __m256 acc[4][2] = {{a00, a01}, {a10, a11}, {a20, a21}, {a30, a31}};
  for (int r = 0; r < 4; ++r) {
    for (int p = 0; p < 2; ++p) {
      float* to = y + r * y_stride + p * kAvxPanel;
      if (valid[p] == kAvxPanel) {
        _mm256_storeu_ps(to, acc[r][p]);
        continue;
      }
      alignas(32) float out[kAvxPanel];
      _mm256_store_ps(out, acc[r][p]);
      for (int j = 0; j < valid[p]; ++j) to[j] = out[j];
    }
  }
}

template <int P>
__attribute__((target("avx2"))) void rows(const float* x, int64_t t0, int64_t t1, int64_t x_stride,
                                          const float* const* panels, const int* valid, int64_t n, float* y,
                                          int64_t y_stride) {
  int64_t t = t0;
  for (; t + 4 <= t1; t += 4) {
    if (P == 2) {
      tile_4x2(x + t * x_stride, x_stride, panels, n, y + t * y_stride, y_stride, valid);
    } else {
      tile<4, P>(x + t * x_stride, x_stride, panels, n, y + t * y_stride, y_stride, valid);
    }
  }
  const int64_t rest = t1 - t;
  if (rest == 3) tile<3, P>(x + t * x_stride, x_stride, panels, n, y + t * y_stride, y_stride, valid);
  if (rest == 2) tile<2, P>(x + t * x_stride, x_stride, panels, n, y + t * y_stride, y_stride, valid);
  if (rest == 1) tile<1, P>(x + t * x_stride, x_stride, panels, n, y + t * y_stride, y_stride, valid);
}
#endif

}  // namespace

bool avx2_kernel_enabled() { return enabled_flag(); }

void set_avx2_kernel(bool enabled) { enabled_flag() = enabled && cpu_has_avx2(); }

void panel_rows_avx2(const float* x, int64_t t0, int64_t t1, int64_t x_stride, const float* const* panels,
                     const int* valid, int count, int64_t n, float* y, int64_t y_stride) {
#if defined(MINIMIND_HAVE_AVX2_KERNEL)
  if (count == 2) {
    rows<2>(x, t0, t1, x_stride, panels, valid, n, y, y_stride);
  } else {
    rows<1>(x, t0, t1, x_stride, panels, valid, n, y, y_stride);
  }
#else
  (void)x, (void)t0, (void)t1, (void)x_stride, (void)panels, (void)valid, (void)count, (void)n, (void)y, (void)y_stride;
#endif
}

}  // namespace minimind
