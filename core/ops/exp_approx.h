// e^x for the forward pass (softmax, SiLU), four lanes at a time: Cody-Waite
// range reduction x = n·ln 2 + r, |r| ≤ ln 2 / 2, and Cephes' degree-6
// polynomial for e^r, scaled by 2^n. Relative error below 2e-7 (about one
// float32 ulp). The scalar and the vector forms run the same operations in
// the same order (no FMA), so they give the same bits on every path:
// a row computed in SIMD lanes equals the same row computed one by one.
//   x < -87.336 (where e^x drops below the smallest normal float) -> 0,
//   so e^-inf = 0 exactly (masked attention scores);
//   x > 88.376 -> +inf; NaN -> NaN.
#pragma once

#include <cstdint>

namespace minimind {

float exp_approx(float x);

// x[i] = exp_approx(x[i]) for n floats.
void exp_approx_inplace(float* x, int64_t n);

}  // namespace minimind
