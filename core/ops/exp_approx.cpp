#include "ops/exp_approx.h"

#include <cmath>
#include <limits>

#include "util/half.h"
#include "util/simd_lanes.h"

namespace minimind {

namespace {

constexpr float kLowest = -87.33654f;  // below: e^x < FLT_MIN, flushed to 0
constexpr float kHighest = 88.37626f;  // above: 2^n would leave float32's exponents
constexpr float kLog2e = 1.44269504088896341f;
constexpr float kLn2High = 0.693359375f;  // ln 2 = kLn2High + kLn2Low, kLn2High exact in 9 bits
constexpr float kLn2Low = -2.12194440e-4f;
// Cephes expf: e^r ≈ 1 + r + r²·P(r).
constexpr float kP0 = 1.9875691500e-4f, kP1 = 1.3981999507e-3f, kP2 = 8.3334519073e-3f, kP3 = 4.1665795894e-2f,
                kP4 = 1.6666665459e-1f, kP5 = 5.0000001201e-1f;

// e^x for x in [kLowest, kHighest], on scalars and on 4 lanes alike (the
// same operations in the same order).
template <typename V, typename Ops>
V exp_in_range(V x, const Ops& o) {
  const V n = o.nearest(o.mul(x, o.fill(kLog2e)));
  V r = o.sub(x, o.mul(n, o.fill(kLn2High)));
  r = o.sub(r, o.mul(n, o.fill(kLn2Low)));
  V p = o.add(o.mul(o.fill(kP0), r), o.fill(kP1));
  p = o.add(o.mul(p, r), o.fill(kP2));
  p = o.add(o.mul(p, r), o.fill(kP3));
  p = o.add(o.mul(p, r), o.fill(kP4));
  p = o.add(o.mul(p, r), o.fill(kP5));
  p = o.add(o.mul(p, o.mul(r, r)), r);
  p = o.add(p, o.fill(1.0f));
  return o.mul(p, o.pow2(n));
}

struct ScalarOps {
  float fill(float v) const { return v; }
  float add(float a, float b) const { return a + b; }
  float sub(float a, float b) const { return a - b; }
  float mul(float a, float b) const { return a * b; }
  float nearest(float v) const { return std::nearbyint(v); }  // ties to even, as the lanes
  float pow2(float k) const { return bits_float(uint32_t(int32_t(k) + 127) << 23); }
};

struct LaneOps {
  simd::Lanes fill(float v) const { return simd::fill(v); }
  simd::Lanes add(simd::Lanes a, simd::Lanes b) const { return simd::add(a, b); }
  simd::Lanes sub(simd::Lanes a, simd::Lanes b) const { return simd::sub(a, b); }
  simd::Lanes mul(simd::Lanes a, simd::Lanes b) const { return simd::mul(a, b); }
  simd::Lanes nearest(simd::Lanes v) const { return simd::nearest(v); }
  simd::Lanes pow2(simd::Lanes k) const { return simd::pow2(k); }
};

}  // namespace

float exp_approx(float x) {
  if (std::isnan(x)) return x;
  if (x < kLowest) return 0.0f;
  if (x > kHighest) return std::numeric_limits<float>::infinity();
  return exp_in_range(x, ScalarOps{});
}

void exp_approx_inplace(float* x, int64_t n) {
  int64_t i = 0;
  for (; i + simd::kLanes <= n; i += simd::kLanes) {
    const simd::Lanes v = simd::load(x + i);
    if (simd::all_within(v, kLowest, kHighest)) {
      simd::store(x + i, exp_in_range(v, LaneOps{}));
      continue;
    }
    // A lane out of range (a masked -inf score, a NaN): the group one by one,
    // the same operations on each value that lanes apply.
    for (int l = 0; l < simd::kLanes; ++l) x[i + l] = exp_approx(x[i + l]);
  }
  for (; i < n; ++i) x[i] = exp_approx(x[i]);
}

}  // namespace minimind
