// The matrix kernel of linear.h on 8-float AVX2 registers, for native x86
// builds on CPUs that have AVX2 (Intel since Haswell, AMD since Zen): one
// register holds a whole panel column, so each instruction does twice the
// work of the 4-lane kernel. Every output is still one sequential sum over
// i with a separate rounding per product and per sum (no FMA), so the bits
// are those of the 4-lane kernel, the Wasm build and the scalar twin.
#pragma once

#include <cstdint>

namespace minimind {

// Whether linear_rows uses the AVX2 kernel for T >= 4 rows: true on a native
// x86 build running on an AVX2 CPU, unless switched off.
bool avx2_kernel_enabled();
// For tests and benchmarks: switch the AVX2 kernel off (false) or back on
// where the CPU has it (true). Not thread-safe: call before computing.
void set_avx2_kernel(bool enabled);

// Rows [t0, t1) of x (row stride x_stride) against `count` (1 or 2)
// consecutive float32 panels, each [n, 8] column-major as in
// weight_matrix.h: panel q at panels[q], writing valid[q] outputs of panel q
// at y + q·8 (row stride y_stride). Only call when avx2_kernel_enabled().
void panel_rows_avx2(const float* x, int64_t t0, int64_t t1, int64_t x_stride, const float* const* panels,
                     const int* valid, int count, int64_t n, float* y, int64_t y_stride);

}  // namespace minimind
