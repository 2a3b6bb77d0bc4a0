// Every op of the core against a plain scalar reference written here from
// MINIMIND.md (double accumulation, no code shared with core/): RMSNorm,
// linear, RoPE (+ YaRN), softmax, SiLU/SwiGLU, MoE routing, GQA attention,
// the float16/bfloat16 conversions and the seeded generator.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <random>
#include <set>

#include "compare.h"
#include "lesson/manual_attention.h"
#include "ops/attention.h"
#include "ops/dot_rows.h"
#include "ops/exp_approx.h"
#include "ops/ffn.h"
#include "ops/linear.h"
#include "ops/linear_avx2.h"
#include "ops/moe.h"
#include "ops/rmsnorm.h"
#include "ops/rope.h"
#include "tensors/trace.h"
#include "tensors/weight_matrix.h"
#include "util/half.h"
#include "util/random.h"
#include "util/simd_lanes.h"

using namespace minimind;
using minimind::testing::first_mismatch;
using Doubles = std::vector<double>;

namespace {

const double kInf = std::numeric_limits<double>::infinity();

// Test inputs from mt19937_64, whose output the standard fixes (unlike
// std::uniform_real_distribution's), so a failure reproduces everywhere.
struct Rng {
  std::mt19937_64 gen;
  explicit Rng(uint64_t seed) : gen(seed) {}
  double uniform(double lo, double hi) { return lo + (hi - lo) * double(gen() >> 11) * 0x1p-53; }
  Matrix matrix(int64_t rows, int64_t cols, double scale) {
    Matrix m(rows, cols);
    for (int64_t i = 0; i < m.size(); ++i) m.data()[i] = float(uniform(-scale, scale));
    return m;
  }
  // A packed weight with float32 storage (values are not float16 or
  // bfloat16 values, apart from the odd coincidence).
  WeightMatrix weight(int64_t rows, int64_t cols, double scale) { return WeightMatrix(matrix(rows, cols, scale)); }
  Vector vector(int64_t n, double lo, double hi) {
    Vector v(n);
    for (int64_t i = 0; i < n; ++i) v(i) = float(uniform(lo, hi));
    return v;
  }
};

std::vector<float> flat(const Matrix& m) { return {m.data(), m.data() + m.size()}; }

// The core's buffer APIs on whole matrices.
Matrix linear_of(const Matrix& x, const WeightMatrix& W) {  // [T, in] -> [T, out]
  Matrix y(x.rows(), W.rows());
  linear_rows(x.data(), x.rows(), x.cols(), W, y.data(), y.cols());
  return y;
}
Matrix rms_norm_of(const Matrix& x, const Vector& w, float eps) {
  Matrix y(x.rows(), x.cols());
  rms_norm_rows(x.data(), w.data(), x.rows(), x.cols(), eps, y.data());
  return y;
}
// RoPE of `heads` vectors x: [heads, Dh] at one position, in place.
void rotate_at(const RotaryEmbedding& rope, float* x, int64_t heads, int64_t position) {
  std::vector<float> cos(size_t(rope.head_dim())), sin(size_t(rope.head_dim()));
  rope.cos_sin(position, cos.data(), sin.data());
  apply_rotary(x, heads, rope.head_dim(), cos.data(), sin.data());
}

// ---- scalar references, straight from the spec ----

// RMSNorm(x, w) = w * x / sqrt(mean(x²) + eps) on each row of n values.
template <typename X>
Doubles ref_rms_norm(const X* x, const float* w, int64_t rows, int64_t n, double eps) {
  Doubles y(static_cast<size_t>(rows * n));
  for (int64_t r = 0; r < rows; ++r) {
    double ms = 0;
    for (int64_t i = 0; i < n; ++i) ms += double(x[r * n + i]) * x[r * n + i];
    ms /= double(n);
    for (int64_t i = 0; i < n; ++i) y[size_t(r * n + i)] = w[i] * (x[r * n + i] / std::sqrt(ms + eps));
  }
  return y;
}

// y = x · Wᵀ, x: [T, in] -> [T, out].
Doubles ref_linear(const Doubles& x, int64_t T, const Matrix& W) {
  const int64_t out = W.rows(), in = W.cols();
  Doubles y(size_t(T * out), 0.0);
  for (int64_t t = 0; t < T; ++t)
    for (int64_t o = 0; o < out; ++o)
      for (int64_t i = 0; i < in; ++i) y[size_t(t * out + o)] += x[size_t(t * in + i)] * double(W(o, i));
  return y;
}

Doubles ref_linear(const Doubles& x, int64_t T, const WeightMatrix& W) { return ref_linear(x, T, W.unpacked()); }

Doubles to_doubles(const Matrix& m) { return {m.data(), m.data() + m.size()}; }

// Softmax of one row; an all -inf row gives zeros.
Doubles ref_softmax(Doubles x) {
  const double max = *std::max_element(x.begin(), x.end());
  if (max == -kInf) return Doubles(x.size(), 0.0);
  double sum = 0;
  for (double& v : x) sum += (v = std::exp(v - max));
  for (double& v : x) v /= sum;
  return x;
}

double ref_silu(double x) { return x / (1 + std::exp(-x)); }

// down(silu(gate(x)) * up(x)) for T rows.
Doubles ref_ffn(const FfnWeights& w, const Doubles& x, int64_t T) {
  Doubles g = ref_linear(x, T, w.gate_proj), u = ref_linear(x, T, w.up_proj);
  for (size_t i = 0; i < g.size(); ++i) g[i] = ref_silu(g[i]) * u[i];
  return ref_linear(g, T, w.down_proj);
}

// inv_freq[i] = theta^(-2i/Dh), then YaRN as MiniMind's precompute_freqs_cis.
Doubles ref_inv_freq(const ModelConfig& c) {
  const int64_t half = c.head_dim / 2;
  const double Dh = double(c.head_dim), theta = c.rope_theta;
  Doubles f(static_cast<size_t>(half));
  for (int64_t i = 0; i < half; ++i) f[size_t(i)] = 1.0 / std::pow(theta, 2.0 * double(i) / Dh);
  const RopeScaling& s = c.rope_scaling;
  const double orig = double(s.original_max_position_embeddings);
  if (!c.inference_rope_scaling || double(c.max_position_embeddings) / orig <= 1.0) return f;
  const auto inv_dim = [&](double b) { return Dh * std::log(orig / (b * 2 * M_PI)) / (2 * std::log(theta)); };
  const double low = std::max(std::floor(inv_dim(s.beta_fast)), 0.0);
  const double high = std::min(std::ceil(inv_dim(s.beta_slow)), double(half - 1));
  for (int64_t i = 0; i < half; ++i) {
    const double ramp = std::clamp((double(i) - low) / std::max(high - low, 0.001), 0.0, 1.0);
    f[size_t(i)] *= 1 - ramp + ramp / s.factor;
  }
  return f;
}

// Rotate-half RoPE of one head vector: pairs (i, i + Dh/2), NOT (2i, 2i+1).
// angle: [Dh/2], position * inv_freq.
void ref_rope(double* v, int64_t Dh, const Doubles& angle) {
  for (int64_t i = 0; i < Dh / 2; ++i) {
    const double a = angle[size_t(i)], x1 = v[i], x2 = v[i + Dh / 2];
    v[i] = x1 * std::cos(a) - x2 * std::sin(a);
    v[i + Dh / 2] = x2 * std::cos(a) + x1 * std::sin(a);
  }
}

ModelConfig small_config(int64_t D, int64_t H, int64_t Hkv, int64_t Dh, bool qk_norm) {
  ModelConfig c;
  c.hidden_size = D;
  c.num_attention_heads = H;
  c.num_key_value_heads = Hkv;
  c.head_dim = Dh;
  c.explicit_head_dim = true;
  c.use_qk_norm = qk_norm;
  c.rms_norm_eps = 1e-6;
  return c;
}

}  // namespace

TEST_CASE("rms_norm matches w * x / sqrt(mean(x^2) + eps)", "[ops][rmsnorm]") {
  Rng rng(1);
  for (const auto& [rows, n] :
       std::vector<std::pair<int64_t, int64_t>>{{1, 8}, {5, 64}, {3, 96}, {7, 33}, {2, 5}, {4, 1}}) {
    for (const double eps : {1e-5, 1e-6}) {
      CAPTURE(rows, n, eps);
      const Matrix x = rng.matrix(rows, n, 2.0);
      const Vector w = rng.vector(n, 0.5, 1.5);  // non-unit: a norm that ignores w fails
      const Doubles ref = ref_rms_norm(x.data(), w.data(), rows, n, eps);
      REQUIRE(first_mismatch(flat(rms_norm_of(x, w, float(eps))), ref, 1e-6, 1e-5) == "");
      Matrix y = x;
      rms_norm_inplace(y.data(), w.data(), rows, n, float(eps));
      REQUIRE(first_mismatch(flat(y), ref, 1e-6, 1e-5) == "");
    }
  }
  // Tiny inputs: mean(x²) = 1e-8 is below eps, so eps (and where it sits) shows.
  const Matrix tiny = Matrix::Constant(2, 8, 1e-4f);
  const Vector ones = Vector::Ones(8);
  for (const double eps : {1e-5, 1e-6}) {
    REQUIRE(first_mismatch(flat(rms_norm_of(tiny, ones, float(eps))), ref_rms_norm(tiny.data(), ones.data(), 2, 8, eps),
                           1e-7, 1e-5) == "");
  }
}

// The packed kernel's contract, in scalar form: one float sum per output,
// over i in increasing order, each product and sum rounded (no FMA).
float sequential_dot(const float* x, const Matrix& W, int64_t o) {
  float sum = 0.0f;
  for (int64_t i = 0; i < W.cols(); ++i) sum = sum + x[i] * W(o, i);
  return sum;
}

TEST_CASE("packed weights keep every value in the narrowest exact storage", "[ops][linear]") {
  Rng rng(12);
  Matrix f32 = rng.matrix(19, 37, 1.0);  // 19 rows: 2 panels of 8 and a padded one
  Matrix f16 = f32, bf16 = f32;
  for (int64_t i = 0; i < f32.size(); ++i) {
    f16.data()[i] = f16_to_f32(f32_to_f16(f32.data()[i]));
    bf16.data()[i] = bf16_to_f32(f32_to_bf16(f32.data()[i] * 1e6f));  // beyond float16's range
  }
  f16(0, 0) = -0.0f;
  f16(1, 1) = f16_to_f32(0x0001);  // the smallest float16 subnormal
  f16(2, 2) = -65504.0f;           // the largest float16
  for (const auto& [values, storage] : {std::pair<Matrix, WeightStorage>{f32, WeightStorage::F32},
                                        {f16, WeightStorage::F16},
                                        {bf16, WeightStorage::BF16}}) {
    CAPTURE(weight_storage_name(storage));
    const WeightMatrix W(values);
    REQUIRE(W.storage() == storage);
    REQUIRE(W.rows() == 19);
    REQUIRE(W.cols() == 37);
    REQUIRE(W.bytes() == size_t(24 * 37) * (storage == WeightStorage::F32 ? 4 : 2));
    REQUIRE(W.unpacked() == values);
    std::vector<float> row(37);
    W.row(18, row.data());
    REQUIRE(std::equal(row.begin(), row.end(), values.row(18).data()));
    REQUIRE(W == WeightMatrix(values));
    Matrix other = values;
    other(18, 36) += 1.0f;
    REQUIRE(W != WeightMatrix(other));
  }
  REQUIRE(std::signbit(WeightMatrix(f16).unpacked()(0, 0)));
  // The edges of float16's range decide exactly as a round trip does.
  for (const float v : {0x1p-25f, 0x1.8p-24f, 0x1p-24f * 3, 65504.0f, 65520.0f, 0x1.002p-14f, 0x1.004p-14f,
                        0x1.001p-15f, 0x1.002p-15f, -0x1p-20f, 1e-30f}) {
    CAPTURE(v);
    Matrix one = f16;
    one(5, 5) = v;
    const bool exact = f16_to_f32(f32_to_f16(v)) == v;
    REQUIRE((WeightMatrix(one).storage() == WeightStorage::F16) == exact);
  }
  // Non-finite values stay float32 (the kernel's float16 widening is for finite values).
  Matrix inf = f16;
  inf(3, 3) = std::numeric_limits<float>::infinity();
  REQUIRE(WeightMatrix(inf).storage() == WeightStorage::F32);
}

TEST_CASE("linear equals the sequential scalar sum bit for bit, for every storage and number of rows",
          "[ops][linear]") {
  // Both kernels where the CPU has AVX2 (natively on x86), the 4-lane one elsewhere.
  for (const bool avx2 : {false, true}) {
    set_avx2_kernel(avx2);
    CAPTURE(avx2_kernel_enabled());
    Rng rng(2);
    for (const int64_t in : {37, 2000}) {  // 2000: x [150, 2000] spans several row blocks
      Matrix w32 = rng.matrix(19, in, 1.0 / std::sqrt(double(in)));
      Matrix w16 = w32, wbf = w32, w16_tiny = w32, w16_large = w32;
      for (int64_t i = 0; i < w32.size(); ++i) {
        w16.data()[i] = f16_to_f32(f32_to_f16(w32.data()[i]));
        wbf.data()[i] = bf16_to_f32(f32_to_bf16(w32.data()[i] * 1e-6f));  // below float16's range
        // Mostly float16 subnormals (below 2^-14), kept times 2^10 (weight_matrix.h).
        w16_tiny.data()[i] = f16_to_f32(f32_to_f16(w32.data()[i] * 1e-4f));
      }
      // One value of 64 or more: kept as is, subnormals and all.
      w16_large = w16_tiny;
      w16_large(3, 5) = -64.0f;
      const Matrix x = rng.matrix(150, in, 1.0);
      for (const Matrix* values : {&w32, &w16, &wbf, &w16_tiny, &w16_large}) {
        const WeightMatrix W(*values);
        CAPTURE(in, weight_storage_name(W.storage()), W.view().f16_shift);
        if (values == &w16_tiny) REQUIRE(W.view().f16_shift == WeightMatrix::kF16Shift);
        if (values == &w16_large) REQUIRE(W.view().f16_shift == 0);
        REQUIRE(W.unpacked() == *values);
        for (const int64_t T : {1, 2, 3, 4, 5, 6, 7, 9, 150}) {
          CAPTURE(T);
          const Matrix y = linear_of(x.topRows(T), W);
          REQUIRE(y.rows() == T);
          REQUIRE(y.cols() == 19);
          for (int64_t t = 0; t < T; ++t) {
            for (int64_t o = 0; o < 19; ++o) {
              CAPTURE(t, o);
              REQUIRE(y(t, o) == sequential_dot(x.row(t).data(), *values, o));  // bit for bit
            }
          }
          REQUIRE(first_mismatch(flat(y), ref_linear(to_doubles(x.topRows(T)), T, *values), 1e-5, 1e-4) == "");
        }
        // Inputs of 2^16 and more (2^26 where W keeps float16 values times
        // 2^10) take the float16 path that widens fully (the shortcut would
        // scale them past float32's range).
        Matrix big = x.topRows(3);
        big(0, 0) = 7e7f, big(1, 1) = -1e30f, big(2, 2) = 65536.0f;
        for (const int64_t T : {1, 2, 3}) {
          const Matrix y = linear_of(big.topRows(T), W);
          for (int64_t t = 0; t < T; ++t) {
            for (int64_t o = 0; o < 19; ++o) REQUIRE(y(t, o) == sequential_dot(big.row(t).data(), *values, o));
          }
        }
      }
    }
  }
  set_avx2_kernel(true);
}

TEST_CASE("dot and dot_rows match a scalar loop, and a row's result does not depend on the other rows",
          "[ops][linear]") {
  Rng rng(2);
  const Matrix x = rng.matrix(7, 37, 1.0), W = rng.matrix(11, 37, 1.0);  // 37: lanes plus a tail
  const Matrix y = dot_rows(x, W);
  REQUIRE(first_mismatch(flat(y), ref_linear(to_doubles(x), 7, W), 1e-5, 1e-5) == "");
  for (int64_t t = 0; t < 7; ++t) {
    const Matrix row = dot_rows(x.row(t), W);
    for (int64_t o = 0; o < 11; ++o) {
      CAPTURE(t, o);
      REQUIRE(row(0, o) == y(t, o));  // bit for bit: cached decoding relies on it
      REQUIRE(dot(x.row(t).data(), W.row(o).data(), 37) == y(t, o));
    }
  }
}

// Scalar twins of the lane code: the order of operations each documents,
// written out one float at a time. The lanes must give the same bits.
TEST_CASE("rms_norm_rows, apply_rotary and softmax_inplace compute their scalar twins' bits",
          "[ops][rmsnorm][rope][softmax]") {
  Rng rng(12);
  // softmax over the whole row, one value at a time, in order.
  const auto twin_softmax = [](std::vector<float> twin) {
    float max = -kInf;
    for (const float v : twin) max = std::max(max, v);
    float sum = 0.0f;
    for (float& v : twin) sum += (v = exp_approx(v - max));
    for (float& v : twin) v /= sum;
    return twin;
  };
  for (const int64_t n : {1, 3, 4, 7, 8, 13, 64}) {
    for (const bool masked : {false, true}) {
      CAPTURE(n, masked);
      const Matrix scores = rng.matrix(1, n, 4.0);
      std::vector<float> row(scores.data(), scores.data() + n);
      if (masked) {
        for (int64_t j = n / 2 + 1; j < n; ++j) row[size_t(j)] = -kInf;  // the causal mask's -inf
      }
      const std::vector<float> twin = twin_softmax(row);
      softmax_inplace(row.data(), n);
      REQUIRE(row == twin);
    }
  }
  std::vector<float> all_masked(5, -kInf);
  softmax_inplace(all_masked.data(), 5);
  REQUIRE(all_masked == std::vector<float>(5, 0.0f));
  // A NaN or +inf score before the masked tail: the whole row is NaN, tail
  // included, as the twin (and torch) make it.
  const float inf = std::numeric_limits<float>::infinity();
  for (const float bad : {std::numeric_limits<float>::quiet_NaN(), inf}) {
    std::vector<float> row = {0.5f, bad, 1.0f, -2.0f, 0.25f, -inf, -inf, -inf, -inf};
    const std::vector<float> twin = twin_softmax(row);
    softmax_inplace(row.data(), int64_t(row.size()));
    CAPTURE(bad);
    for (size_t j = 0; j < row.size(); ++j) REQUIRE(std::isnan(row[j]) == std::isnan(twin[j]));
    REQUIRE(std::isnan(row.back()));
  }
  for (const int64_t n : {1, 5, 8, 13, 64, 100}) {
    CAPTURE(n);
    const int64_t rows = 3;
    const Matrix x = rng.matrix(rows, n, 3.0);
    const Vector w = rng.vector(n, 0.5, 1.5);
    Matrix y(rows, n);
    rms_norm_rows(x.data(), w.data(), rows, n, 1e-6f, y.data());
    for (int64_t r = 0; r < rows; ++r) {
      // Lane l sums x[8m + l] (l < 4: the low vector, else the high one).
      float lanes[8] = {0, 0, 0, 0, 0, 0, 0, 0};
      int64_t i = 0;
      for (; i + 8 <= n; i += 8) {
        for (int l = 0; l < 8; ++l) lanes[l] = lanes[l] + x(r, i + l) * x(r, i + l);
      }
      float four[4];
      for (int l = 0; l < 4; ++l) four[l] = lanes[l] + lanes[4 + l];
      float sum = (four[0] + four[1]) + (four[2] + four[3]);
      for (; i < n; ++i) sum += x(r, i) * x(r, i);
      const float inv = 1.0f / std::sqrt(sum / float(n) + 1e-6f);
      for (int64_t j = 0; j < n; ++j) REQUIRE(y(r, j) == w(j) * (x(r, j) * inv));
    }
    // A row alone gives the bits it gives among others.
    Matrix alone(1, n);
    rms_norm_rows(x.data() + n, w.data(), 1, n, 1e-6f, alone.data());
    REQUIRE(flat(alone) == flat(y.middleRows(1, 1)));
  }
  for (const int64_t Dh : {2, 10, 16, 96}) {
    CAPTURE(Dh);
    const int64_t heads = 3, half = Dh / 2;
    const Matrix x = rng.matrix(1, heads * Dh, 1.0);
    const Matrix cos = rng.matrix(1, Dh, 1.0), sin = rng.matrix(1, Dh, 1.0);
    Matrix y = x;
    apply_rotary(y.data(), heads, Dh, cos.data(), sin.data());
    for (int64_t h = 0; h < heads; ++h) {
      for (int64_t i = 0; i < half; ++i) {
        const float first = x(0, h * Dh + i), second = x(0, h * Dh + half + i);
        REQUIRE(y(0, h * Dh + i) == first * cos(0, i) + (-second) * sin(0, i));
        REQUIRE(y(0, h * Dh + half + i) == second * cos(0, half + i) + first * sin(0, half + i));
      }
    }
  }
}

TEST_CASE("RoPE: inv_freq, cos/sin tables and the rotate-half rotation", "[ops][rope]") {
  for (const double theta : {1e6, 1e4}) {
    for (const int64_t Dh : {2, 10, 16, 96}) {  // half = 1, 5 (lanes + rest), 8, 48
      CAPTURE(theta, Dh);
      ModelConfig c = small_config(64, 4, 2, Dh, true);
      c.rope_theta = theta;
      const RotaryEmbedding rope(c);
      const Doubles f = ref_inv_freq(c);
      REQUIRE(first_mismatch(rope.inv_freq(), f, 0.0, 1e-6) == "");

      // Angles: float32(p) * inv_freq in float32, as torch.outer computes
      // them (at p = 1000 that differs from the exact angle by ~3e-5 rad).
      const auto angles = [&](int64_t p) {
        Doubles a;
        for (const float fi : rope.inv_freq()) a.push_back(double(float(p) * fi));
        return a;
      };
      std::vector<float> cos(static_cast<size_t>(Dh)), sin(static_cast<size_t>(Dh));
      for (const int64_t p : {0, 1, 7, 100, 4095, 32767}) {
        CAPTURE(p);
        rope.cos_sin(p, cos.data(), sin.data());
        Doubles ec(static_cast<size_t>(Dh)), es(static_cast<size_t>(Dh));
        for (int64_t i = 0; i < Dh; ++i) {  // both halves hold the same angles
          ec[size_t(i)] = std::cos(angles(p)[size_t(i % (Dh / 2))]);
          es[size_t(i)] = std::sin(angles(p)[size_t(i % (Dh / 2))]);
        }
        REQUIRE(first_mismatch(cos, ec, 2e-6, 0.0) == "");
        REQUIRE(first_mismatch(sin, es, 2e-6, 0.0) == "");
      }

      Rng rng(static_cast<uint64_t>(Dh));
      const int64_t heads = 3;
      const Matrix x = rng.matrix(1, heads * Dh, 1.0);
      for (const int64_t p : {0, 1, 5, 37, 1000}) {
        CAPTURE(p);
        Matrix y = x;
        rotate_at(rope, y.data(), heads, p);
        Doubles ref = to_doubles(x);
        for (int64_t h = 0; h < heads; ++h) ref_rope(&ref[size_t(h * Dh)], Dh, angles(p));
        REQUIRE(first_mismatch(flat(y), ref, 1e-5, 1e-5) == "");
        for (int64_t h = 0; h < heads; ++h) {  // a rotation keeps each head's length
          CHECK(y.block(0, h * Dh, 1, Dh).norm() == Approx(x.block(0, h * Dh, 1, Dh).norm()).epsilon(1e-5));
        }
        if (p == 0) REQUIRE(flat(y) == flat(x));  // position 0 is exactly the identity
      }
      // Why RoPE: q·k after rotation depends only on the distance m - n.
      const auto score = [&](Matrix q, int64_t m, Matrix k, int64_t n) {
        rotate_at(rope, q.data(), 1, m);
        rotate_at(rope, k.data(), 1, n);
        return q.row(0).dot(k.row(0));
      };
      const Matrix q = rng.matrix(1, Dh, 1.0), k = rng.matrix(1, Dh, 1.0);
      CHECK(score(q, 5, k, 3) == Approx(score(q, 12, k, 10)).margin(1e-4));
      CHECK(std::fabs(score(q, 5, k, 3) - score(q, 5, k, 5)) > 1e-3);  // ...and does depend on it
    }
  }
}

TEST_CASE("YaRN rescales inv_freq as MiniMind's precompute_freqs_cis", "[ops][rope][yarn]") {
  for (const int64_t Dh : {16, 96}) {
    CAPTURE(Dh);
    ModelConfig c = small_config(64, 4, 2, Dh, true);
    c.inference_rope_scaling = true;  // MiniMind's defaults: factor 16, orig 2048, beta 32 / 1
    const RotaryEmbedding rope(c);
    const Doubles f = ref_inv_freq(c);
    REQUIRE(first_mismatch(rope.inv_freq(), f, 0.0, 1e-6) == "");

    // Both ends of the ramp must exist for this to test anything.
    const double Dhd = double(Dh), L = 2 * std::log(1e6);
    const double low = std::floor(Dhd * std::log(2048 / (32 * 2 * M_PI)) / L);
    const double high = std::ceil(Dhd * std::log(2048 / (2 * M_PI)) / L);
    REQUIRE(low >= 1);
    REQUIRE(high < double(Dh / 2 - 1));
    ModelConfig plain = c;
    plain.inference_rope_scaling = false;
    const RotaryEmbedding unscaled(plain);
    for (int64_t i = 0; i < Dh / 2; ++i) {
      CAPTURE(i);
      const float base = unscaled.inv_freq()[size_t(i)], scaled = rope.inv_freq()[size_t(i)];
      if (i <= low) CHECK(scaled == base);                              // high frequency: untouched
      if (i >= high) CHECK(scaled == Approx(base / 16).epsilon(1e-6));  // low frequency: divided by factor
    }
    // No extension asked (max_position_embeddings == original): no rescaling.
    c.max_position_embeddings = 2048;
    REQUIRE(RotaryEmbedding(c).inv_freq() == unscaled.inv_freq());
  }
  ModelConfig c = small_config(64, 4, 2, 16, true);  // attention_factor scales cos and sin
  c.inference_rope_scaling = true;
  c.rope_scaling.attention_factor = 0.5;
  std::vector<float> cos(16), sin(16);
  RotaryEmbedding(c).cos_sin(3, cos.data(), sin.data());
  CHECK(cos[0] == Approx(0.5 * std::cos(3.0)).margin(1e-6));
  CHECK(sin[0] == Approx(0.5 * std::sin(3.0)).margin(1e-6));
}

TEST_CASE("exp_approx: within 2e-7 relative of e^x, the vector form equal to the scalar one bit for bit",
          "[ops][exp]") {
  std::vector<float> x;
  for (double v = -90; v <= 90; v += 0.0137) x.push_back(float(v));
  for (const float v : {0.0f, -0.0f, 1e-30f, -1e-30f, 0.5f, -0.5f, 88.37f, 88.38f, -87.33f, -87.34f, -103.0f, 200.0f})
    x.push_back(v);
  const float inf = std::numeric_limits<float>::infinity();
  x.insert(x.end(), {-inf, inf, std::numeric_limits<float>::quiet_NaN()});
  std::vector<float> vec = x;
  exp_approx_inplace(vec.data(), int64_t(vec.size()));
  double worst = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    CAPTURE(x[i]);
    const float scalar = exp_approx(x[i]);
    if (std::isnan(x[i])) {
      REQUIRE(std::isnan(scalar));
      REQUIRE(std::isnan(vec[i]));
      continue;
    }
    REQUIRE(std::memcmp(&scalar, &vec[i], 4) == 0);  // the same bits
    const double exact = std::exp(double(x[i]));
    if (x[i] < -87.336f) {
      REQUIRE(scalar == 0.0f);  // flushed below the smallest normal float
    } else if (x[i] > 88.377f) {
      REQUIRE(scalar == inf);
    } else {
      worst = std::max(worst, std::abs(double(scalar) - exact) / exact);
    }
  }
  INFO("worst relative error " << worst);
  CHECK(worst < 2e-7);
  CHECK(exp_approx(0.0f) == 1.0f);
  CHECK(exp_approx(-inf) == 0.0f);
}

TEST_CASE("softmax_inplace matches the scalar softmax, with -inf handled exactly", "[ops][softmax]") {
  Rng rng(3);
  for (const int64_t n : {1, 2, 5, 64, 1000}) {
    std::vector<float> row(static_cast<size_t>(n));
    for (float& v : row) v = float(rng.uniform(-10, 10));
    const Doubles ref = ref_softmax(Doubles(row.begin(), row.end()));
    softmax_inplace(row.data(), n);
    CAPTURE(n);
    REQUIRE(first_mismatch(row, ref, 1e-7, 1e-5) == "");
    CHECK(std::accumulate(row.begin(), row.end(), 0.0) == Approx(1.0).margin(1e-6));
  }
  std::vector<float> all_masked(4, -INFINITY);
  softmax_inplace(all_masked.data(), 4);
  REQUIRE(all_masked == std::vector<float>(4, 0.0f));  // zeros, not NaN
  std::vector<float> some_masked = {0.5f, -INFINITY, 2.0f, -INFINITY};
  softmax_inplace(some_masked.data(), 4);
  REQUIRE(some_masked[1] == 0.0f);
  REQUIRE(some_masked[3] == 0.0f);
  REQUIRE(first_mismatch(some_masked, ref_softmax({0.5, -kInf, 2.0, -kInf}), 1e-7, 1e-6) == "");
  std::vector<float> large = {1000.0f, 1001.0f};  // max-subtracted: no overflow
  softmax_inplace(large.data(), 2);
  REQUIRE(first_mismatch(large, ref_softmax({0.0, 1.0}), 1e-7, 1e-6) == "");
}

TEST_CASE("silu and the SwiGLU feed-forward match scalar loops", "[ops][ffn]") {
  std::vector<float> x, y;
  Doubles ref;
  for (double v = -30; v <= 30; v += 0.37) x.push_back(float(v));
  for (const float v : {-100.0f, -88.0f, -1e-3f, 0.0f, 1e-3f, 88.0f, 100.0f}) x.push_back(v);
  for (const float v : x) y.push_back(silu(v)), ref.push_back(ref_silu(v));
  REQUIRE(first_mismatch(y, ref, 1e-30, 1e-6) == "");

  Rng rng(4);
  const int64_t T = 6, D = 16, F = 40;
  const FfnWeights w{rng.weight(F, D, 0.5), rng.weight(F, D, 0.5), rng.weight(D, F, 0.3)};
  const Matrix b = rng.matrix(T, D, 2.0);
  Matrix out(T, D);
  FfnScratch scratch;
  swiglu_ffn(w, b.data(), T, out.data(), scratch);
  REQUIRE(first_mismatch(flat(out), ref_ffn(w, to_doubles(b), T), 1e-5, 1e-5) == "");
}

namespace {

struct MoeRef {
  Doubles y;                   // [T, D]
  Doubles probs;               // [T, E]
  std::vector<float> experts;  // [T, k] chosen ids, most probable first
  Doubles weights;             // [T, k]
};

// Router softmax, top-k, optional renormalisation (generation 2: only for
// k > 1), weighted expert sum, plus unweighted shared experts.
MoeRef ref_moe(const ModelConfig& c, const MoeWeights& w, const Matrix& b) {
  const int64_t T = b.rows(), D = b.cols(), E = c.num_experts, K = c.num_experts_per_tok;
  const Doubles x = to_doubles(b), logits = ref_linear(x, T, w.gate);
  MoeRef r{Doubles(size_t(T * D), 0.0), {}, {}, {}};
  for (int64_t t = 0; t < T; ++t) {
    const Doubles p = ref_softmax(Doubles(logits.begin() + t * E, logits.begin() + (t + 1) * E));
    r.probs.insert(r.probs.end(), p.begin(), p.end());
    std::vector<int64_t> order(static_cast<size_t>(E));
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t z) { return p[size_t(a)] > p[size_t(z)]; });
    double sum = 0;
    for (int64_t k = 0; k < K; ++k) sum += p[size_t(order[size_t(k)])];
    const bool renorm = c.norm_topk_prob && (c.generation == 3 || K > 1);
    const Doubles row(x.begin() + t * D, x.begin() + (t + 1) * D);
    for (int64_t k = 0; k < K; ++k) {
      const int64_t e = order[size_t(k)];
      const double weight = renorm ? p[size_t(e)] / (sum + 1e-20) : p[size_t(e)];
      r.experts.push_back(float(e));
      r.weights.push_back(weight);
      const Doubles out = ref_ffn(w.experts[size_t(e)], row, 1);
      for (int64_t d = 0; d < D; ++d) r.y[size_t(t * D + d)] += weight * out[size_t(d)];
    }
    for (const FfnWeights& shared : w.shared_experts) {
      const Doubles out = ref_ffn(shared, row, 1);
      for (int64_t d = 0; d < D; ++d) r.y[size_t(t * D + d)] += out[size_t(d)];
    }
  }
  return r;
}

FfnWeights random_ffn(Rng& rng, int64_t D, int64_t F) {
  return {rng.weight(F, D, 0.5), rng.weight(F, D, 0.5), rng.weight(D, F, 0.3)};
}

}  // namespace

TEST_CASE("moe_ffn matches a scalar router and expert loop, and the router trace is consistent", "[ops][moe]") {
  struct Case {
    const char* name;
    int generation;
    int64_t k, shared;
  };
  for (const Case& cs : {Case{"gen 3 top-1, renormalised", 3, 1, 0}, Case{"gen 2 top-2 + shared", 2, 2, 1},
                         Case{"gen 2 top-1, not renormalised", 2, 1, 0}}) {
    CAPTURE(cs.name);
    ModelConfig c = small_config(16, 4, 2, 4, false);
    c.generation = cs.generation;
    c.use_moe = true;
    c.num_experts = 4;
    c.num_experts_per_tok = cs.k;
    c.norm_topk_prob = true;
    c.n_shared_experts = cs.shared;
    c.intermediate_size = 20;      // gen 2 experts and shared experts
    c.moe_intermediate_size = 12;  // gen 3 experts
    Rng rng(static_cast<uint64_t>(10 + cs.generation * 3 + cs.k));
    MoeWeights w;
    w.gate = rng.weight(4, 16, 1.0);
    for (int e = 0; e < 4; ++e) w.experts.push_back(random_ffn(rng, 16, c.expert_intermediate_size()));
    for (int e = 0; e < cs.shared; ++e) w.shared_experts.push_back(random_ffn(rng, 16, c.intermediate_size));
    const int64_t T = 16;
    const Matrix b = rng.matrix(T, 16, 2.0);

    TraceRequest request;
    request.layers = {0};
    Trace trace(request, 1);
    Matrix y(T, 16);
    MoeScratch scratch;
    moe_ffn(c, w, b.data(), T, y.data(), scratch, TraceTarget{&trace, 0, 0});
    const MoeRef ref = ref_moe(c, w, b);
    REQUIRE(first_mismatch(flat(y), ref.y, 1e-5, 1e-4) == "");

    const Tensor& probs = *trace.get(0, stage::kRouterProbs);
    const Tensor& experts = *trace.get(0, stage::kRouterExperts);
    const Tensor& weights = *trace.get(0, stage::kRouterWeights);
    REQUIRE(probs.shape == Shape{1, T, 4});
    REQUIRE(experts.shape == Shape{1, T, cs.k});
    REQUIRE(first_mismatch(probs.data, ref.probs, 1e-7, 1e-5) == "");
    REQUIRE(experts.data == ref.experts);  // the argmax (top-k) ids
    REQUIRE(first_mismatch(weights.data, ref.weights, 1e-7, 1e-5) == "");
    std::set<float> used(experts.data.begin(), experts.data.end());
    REQUIRE(used.size() >= 3);  // the inputs really exercise routing
    for (int64_t t = 0; t < T; ++t) {
      CHECK(std::accumulate(probs.data.begin() + t * 4, probs.data.begin() + (t + 1) * 4, 0.0) ==
            Approx(1.0).margin(1e-6));
      const float p_top = probs.data[size_t(t * 4 + int64_t(experts.data[size_t(t * cs.k)]))];
      if (cs.generation == 2 && cs.k == 1) CHECK(weights.data[size_t(t)] == p_top);  // not renormalised to 1
      if (cs.generation == 3) CHECK(weights.data[size_t(t)] == Approx(1.0).margin(1e-7));
    }
  }
}

namespace {

struct AttnRef {
  Doubles raw;      // [H, T, T] q·k after q/k norm and RoPE
  Doubles weights;  // [H, T, T]
  Doubles out;      // [T, D] after o_proj
};

// The spec's attention, one query at a time; q head h reads kv head h / R.
AttnRef ref_attention(const ModelConfig& c, const LayerWeights& w, const Matrix& a, bool causal, bool scale,
                      const std::vector<int32_t>& key_mask) {
  const int64_t T = a.rows(), H = c.num_attention_heads, Hkv = c.num_key_value_heads, Dh = c.head_dim;
  const int64_t R = H / Hkv;
  Doubles q = ref_linear(to_doubles(a), T, w.q_proj), k = ref_linear(to_doubles(a), T, w.k_proj);
  const Doubles v = ref_linear(to_doubles(a), T, w.v_proj);
  if (c.use_qk_norm) {
    q = ref_rms_norm(q.data(), w.q_norm.data(), T * H, Dh, c.rms_norm_eps);
    k = ref_rms_norm(k.data(), w.k_norm.data(), T * Hkv, Dh, c.rms_norm_eps);
  }
  const Doubles f = ref_inv_freq(c);
  for (int64_t t = 0; t < T; ++t) {
    Doubles angle = f;
    for (double& a : angle) a *= double(t);
    for (int64_t h = 0; h < H; ++h) ref_rope(&q[size_t((t * H + h) * Dh)], Dh, angle);
    for (int64_t g = 0; g < Hkv; ++g) ref_rope(&k[size_t((t * Hkv + g) * Dh)], Dh, angle);
  }
  AttnRef r;
  Doubles concat(size_t(T * H * Dh), 0.0);
  for (int64_t h = 0; h < H; ++h) {
    const int64_t g = h / R;
    for (int64_t i = 0; i < T; ++i) {
      Doubles s(static_cast<size_t>(T));
      for (int64_t j = 0; j < T; ++j) {
        double dot = 0;
        for (int64_t d = 0; d < Dh; ++d) dot += q[size_t((i * H + h) * Dh + d)] * k[size_t((j * Hkv + g) * Dh + d)];
        r.raw.push_back(dot);
        s[size_t(j)] = scale ? dot / std::sqrt(double(Dh)) : dot;
        if (causal && j > i) s[size_t(j)] = -kInf;
        if (!key_mask.empty() && key_mask[size_t(j)] == 0) s[size_t(j)] -= 1e9;
      }
      const Doubles p = ref_softmax(s);
      r.weights.insert(r.weights.end(), p.begin(), p.end());
      for (int64_t j = 0; j < T; ++j)
        for (int64_t d = 0; d < Dh; ++d)
          concat[size_t(i * H * Dh + h * Dh + d)] += p[size_t(j)] * v[size_t((j * Hkv + g) * Dh + d)];
    }
  }
  r.out = ref_linear(concat, T, w.o_proj);
  return r;
}

LayerWeights random_attention(const ModelConfig& c, Rng& rng) {
  const int64_t D = c.hidden_size;
  LayerWeights w;
  w.q_proj = rng.weight(c.q_dim(), D, 2.0 / std::sqrt(double(D)));
  w.k_proj = rng.weight(c.kv_dim(), D, 2.0 / std::sqrt(double(D)));
  w.v_proj = rng.weight(c.kv_dim(), D, 1.0 / std::sqrt(double(D)));
  w.o_proj = rng.weight(D, c.q_dim(), 1.0 / std::sqrt(double(c.q_dim())));
  if (c.use_qk_norm) w.q_norm = rng.vector(c.head_dim, 0.5, 2.0), w.k_norm = rng.vector(c.head_dim, 0.5, 2.0);
  return w;
}

}  // namespace

TEST_CASE("attention_forward and manual_attention match the scalar GQA attention", "[ops][attention]") {
  const int64_t T = 5, H = 4, Dh = 8, D = 24;  // H·Dh = 32 != D on purpose
  for (const int64_t R : {1, 2, 4}) {
    for (const bool qk_norm : {false, true}) {
      CAPTURE(R, qk_norm);
      const ModelConfig c = small_config(D, H, H / R, Dh, qk_norm);
      Rng rng(static_cast<uint64_t>(100 + R * 2 + qk_norm));
      const LayerWeights w = random_attention(c, rng);
      const Matrix a = rng.matrix(T, D, 1.5);
      const RotaryEmbedding rope(c);

      std::vector<float> cos(size_t(T * Dh)), sin(size_t(T * Dh));  // [T, Dh]
      for (int64_t t = 0; t < T; ++t) rope.cos_sin(t, &cos[size_t(t * Dh)], &sin[size_t(t * Dh)]);
      const auto run = [&](const AttentionOptions& options, const std::vector<int32_t>& mask, Trace& trace) {
        LayerKVCache cache(H / R, Dh);
        AttentionScratch scratch;
        Matrix out(T, D);
        attention_forward(c, w, a.data(), T, {cos.data(), sin.data()}, cache, mask.empty() ? nullptr : mask.data(),
                          options, TraceTarget{&trace, 0, 0}, scratch, out.data());
        REQUIRE(cache.length() == T);
        REQUIRE(cache.kv_dim() == (H / R) * Dh);  // cached before head repetition
        return out;
      };
      TraceRequest request;
      request.layers = {0};
      Trace trace(request, 1);
      const Matrix out = run({}, {}, trace);
      const AttnRef ref = ref_attention(c, w, a, true, true, {});
      REQUIRE(first_mismatch(flat(out), ref.out, 1e-5, 1e-4) == "");
      REQUIRE(first_mismatch(trace.get(0, stage::kScoresRaw)->data, ref.raw, 1e-5, 1e-4) == "");
      REQUIRE(first_mismatch(trace.get(0, stage::kAttnWeights)->data, ref.weights, 1e-6, 1e-4) == "");

      const ManualAttention manual = manual_attention(c, w, rope, flat(a), T);
      REQUIRE(first_mismatch(manual.weights, ref.weights, 1e-6, 1e-4) == "");
      REQUIRE(first_mismatch(manual.output, flat(out), 1e-5, 1e-4) == "");

      SECTION("causal_mask off: the upper triangle gets weight") {
        AttentionOptions options;
        options.causal_mask = false;
        Trace t(request, 1);
        const Matrix leaky = run(options, {}, t);
        const std::vector<float>& p = t.get(0, stage::kAttnWeights)->data;
        for (int64_t h = 0; h < H; ++h)
          for (int64_t i = 0; i + 1 < T; ++i) REQUIRE(p[size_t((h * T + i) * T + T - 1)] > 0.0f);
        REQUIRE(first_mismatch(p, ref_attention(c, w, a, false, true, {}).weights, 1e-6, 1e-4) == "");
        REQUIRE(first_mismatch(flat(leaky), ref_attention(c, w, a, false, true, {}).out, 1e-5, 1e-4) == "");
      }
      SECTION("scale_scores off: the scores are the raw q·k") {
        AttentionOptions options;
        options.scale_scores = false;
        Trace t(request, 1);
        run(options, {}, t);
        REQUIRE(t.get(0, stage::kScoresScaled)->data == t.get(0, stage::kScoresRaw)->data);
        REQUIRE(first_mismatch(t.get(0, stage::kScoresScaled)->data, ref.raw, 1e-5, 1e-4) == "");
        REQUIRE(first_mismatch(t.get(0, stage::kAttnWeights)->data, ref_attention(c, w, a, true, false, {}).weights,
                               1e-6, 1e-4) == "");
      }
      SECTION("padding keys get (almost exactly) no weight") {
        const std::vector<int32_t> mask = {1, 0, 1, 0, 1};  // every query keeps a real key
        Trace t(request, 1);
        const Matrix padded = run({}, mask, t);
        const AttnRef masked = ref_attention(c, w, a, true, true, mask);
        REQUIRE(first_mismatch(t.get(0, stage::kAttnWeights)->data, masked.weights, 1e-6, 1e-4) == "");
        REQUIRE(first_mismatch(flat(padded), masked.out, 1e-5, 1e-4) == "");
      }
    }
  }
}

namespace {

// The float16 value of a bit pattern, decoded with ldexp from the IEEE layout.
double ref_f16(uint16_t h) {
  const int exponent = (h >> 10) & 31, mantissa = h & 1023;
  const double v = exponent == 0    ? std::ldexp(mantissa, -24)
                   : exponent == 31 ? (mantissa ? NAN : kInf)
                                    : std::ldexp(1024 + mantissa, exponent - 25);
  return (h & 0x8000) ? -v : v;
}

double ref_bf16(uint16_t b) {
  const int exponent = (b >> 7) & 255, mantissa = b & 127;
  const double v = exponent == 0     ? std::ldexp(mantissa, -133)
                   : exponent == 255 ? (mantissa ? NAN : kInf)
                                     : std::ldexp(128 + mantissa, exponent - 134);
  return (b & 0x8000) ? -v : v;
}

// Round v to `bits` fraction bits (exponent >= min_exponent, subnormals
// below), ties to even (nearbyint's default mode), inf at overflow_at.
double ref_round(double v, int bits, int min_exponent, double overflow_at) {
  if (std::isnan(v) || std::isinf(v)) return v;
  int e;
  std::frexp(std::fabs(v), &e);  // |v| = m·2^e, m in [0.5, 1)
  const double quantum = std::ldexp(1.0, std::max(e - 1, min_exponent) - bits);
  const double r = std::nearbyint(std::fabs(v) / quantum) * quantum;
  return std::copysign(r >= overflow_at ? kInf : r, v);
}

uint32_t bits_of(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

float float_of(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

// Same value and same sign of zero, or both NaN.
bool same(float a, double b) { return std::isnan(b) ? std::isnan(a) : bits_of(a) == bits_of(float(b)); }

}  // namespace

TEST_CASE("float16: exact decoding, round-to-nearest-even encoding", "[ops][half]") {
  for (uint32_t h = 0; h < 65536; ++h) {
    const float f = f16_to_f32(uint16_t(h));
    if (!same(f, ref_f16(uint16_t(h))))
      FAIL("f16 bits " << h << ": got " << f << ", expected " << ref_f16(uint16_t(h)));
    const uint16_t back = f32_to_f16(f);
    if (std::isnan(f) ? !std::isnan(f16_to_f32(back)) : back != h) FAIL("f16 bits " << h << " came back as " << back);
  }
  CHECK(f32_to_f16(1.0f + 0x1p-11f) == 0x3c00);                        // tie: down to even 1.0
  CHECK(f32_to_f16(1.0f + 3 * 0x1p-11f) == 0x3c02);                    // tie: up to even 1 + 2^-9
  CHECK(f32_to_f16(std::nextafter(1.0f + 0x1p-11f, 2.0f)) == 0x3c01);  // just past the tie
  CHECK(f32_to_f16(65519.0f) == 0x7bff);                               // 65504, the largest f16
  CHECK(f32_to_f16(65520.0f) == 0x7c00);                               // halfway to 65536: inf
  CHECK(f32_to_f16(-1e10f) == 0xfc00);
  CHECK(f32_to_f16(0x1p-24f) == 0x0001);      // smallest subnormal
  CHECK(f32_to_f16(0x1p-25f) == 0x0000);      // tie with 0: even
  CHECK(f32_to_f16(3 * 0x1p-25f) == 0x0002);  // 1.5 units: even
  CHECK(f32_to_f16(-0x1p-24f) == 0x8001);
  CHECK(f32_to_f16(-0.0f) == 0x8000);
  CHECK(f32_to_f16(0x1p-14f - 0x1p-25f) == 0x0400);                  // rounds up into the normals
  CHECK(std::isnan(f16_to_f32(f32_to_f16(float_of(0x7f800001u)))));  // NaN with low payload stays NaN
  // A sweep over float32 bit patterns of both signs against the rounding reference.
  for (uint32_t u = 0; u <= 0x7f800000u; u += 4093) {
    for (const uint32_t sign : {0u, 0x80000000u}) {
      const float x = float_of(u | sign);
      const double expected = ref_round(x, 10, -14, 65536.0);
      if (!same(f16_to_f32(f32_to_f16(x)), expected)) FAIL("f32_to_f16(" << x << ") != " << expected);
    }
  }
}

TEST_CASE("float16 widening in vector lanes: every finite value exact, scaled and unscaled", "[ops][half]") {
  // The matrix kernels widen 8 float16 weights at a time (simd_lanes.h, in
  // WASM SIMD128, SSE or plain C++), stored in lane-pair order: each lane
  // must equal f16_to_f32 of its value, and the
  // unscaled widening f16_to_f32 times 2^-112 (exact in float32, subnormals too).
  std::vector<uint16_t> finite;
  for (uint32_t h = 0; h < 65536; ++h) {
    if ((h & 0x7c00) != 0x7c00) finite.push_back(uint16_t(h));
  }
  REQUIRE(finite.size() % 8 == 0);
  for (size_t i = 0; i < finite.size(); i += 8) {
    uint16_t paired[8];  // the 8 values in lane-pair order
    for (int j = 0; j < 8; ++j) paired[simd::half_slot(j)] = finite[i + j];
    simd::Lanes low, high, low_unscaled, high_unscaled;
    simd::widen_f16(paired, low, high);
    simd::widen_f16_unscaled(paired, low_unscaled, high_unscaled);
    float out[8], unscaled[8];
    simd::store(out, low);
    simd::store(out + 4, high);
    simd::store(unscaled, low_unscaled);
    simd::store(unscaled + 4, high_unscaled);
    for (int j = 0; j < 8; ++j) {
      const float expected = f16_to_f32(finite[i + j]);
      if (bits_of(out[j]) != bits_of(expected))
        FAIL("widen_f16 of bits " << finite[i + j] << ": " << out[j] << ", expected " << expected);
      if (bits_of(unscaled[j]) != bits_of(float(double(expected) * 0x1p-112)))
        FAIL("widen_f16_unscaled of bits " << finite[i + j] << ": " << unscaled[j] << ", expected " << expected
                                           << " * 2^-112");
    }
  }
}

TEST_CASE("bfloat16 widening in vector lanes: every value exact, in lane-pair order", "[ops][half]") {
  for (uint32_t b = 0; b < 65536; b += 8) {
    uint16_t paired[8];
    for (int j = 0; j < 8; ++j) paired[simd::half_slot(j)] = uint16_t(b + j);
    simd::Lanes low, high;
    simd::widen_bf16(paired, low, high);
    float out[8];
    simd::store(out, low);
    simd::store(out + 4, high);
    for (int j = 0; j < 8; ++j) {
      if (bits_of(out[j]) != bits_of(bf16_to_f32(uint16_t(b + j))))
        FAIL("widen_bf16 of bits " << b + j << ": " << out[j] << ", expected " << bf16_to_f32(uint16_t(b + j)));
    }
  }
}

TEST_CASE("bfloat16: exact decoding, round-to-nearest-even encoding", "[ops][half]") {
  for (uint32_t b = 0; b < 65536; ++b) {
    const float f = bf16_to_f32(uint16_t(b));
    if (!same(f, ref_bf16(uint16_t(b)))) FAIL("bf16 bits " << b << ": got " << f);
    const uint16_t back = f32_to_bf16(f);
    if (std::isnan(f) ? !std::isnan(bf16_to_f32(back)) : back != b) FAIL("bf16 bits " << b << " came back as " << back);
  }
  CHECK(f32_to_bf16(1.0f + 0x1p-8f) == 0x3f80);      // tie: down to even 1.0
  CHECK(f32_to_bf16(1.0f + 3 * 0x1p-8f) == 0x3f82);  // tie: up to even 1 + 2^-6
  CHECK(f32_to_bf16(FLT_MAX) == 0x7f80);             // past the largest bf16: inf
  CHECK(f32_to_bf16(float_of(0x7f7f7fffu)) == 0x7f7f);
  CHECK(std::isnan(bf16_to_f32(f32_to_bf16(float_of(0x7f800001u)))));
  CHECK(std::isnan(bf16_to_f32(f32_to_bf16(-NAN))));
  for (uint32_t u = 0; u <= 0x7f800000u; u += 4093) {
    for (const uint32_t sign : {0u, 0x80000000u}) {
      const float x = float_of(u | sign);
      const double expected = ref_round(x, 7, -126, 0x1p128);
      if (!same(bf16_to_f32(f32_to_bf16(x)), expected)) FAIL("f32_to_bf16(" << x << ") != " << expected);
    }
  }
}

TEST_CASE("SplitMix64 and FNV-1a give the published values", "[ops][random]") {
  SplitMix64 rng(0);  // reference outputs of Vigna's splitmix64.c for seed 0
  CHECK(rng.next() == 0xe220a8397b1dcdafull);
  CHECK(rng.next() == 0x6e789e6aa1b965f4ull);
  CHECK(rng.next() == 0x06c45d188009454full);
  CHECK(fnv1a64("") == 0xcbf29ce484222325ull);  // FNV-1a 64 test vectors
  CHECK(fnv1a64("a") == 0xaf63dc4c8601ec8cull);
  CHECK(fnv1a64("foobar") == 0x85944171f73967e8ull);

  SplitMix64 a(42), b(42);
  double sum = 0, lo = 1, hi = -1;
  const int n = 100000;
  for (int i = 0; i < n; ++i) {
    const float u = a.uniform_symmetric();
    const uint64_t top = b.next() >> 40;  // the documented recipe: m * 2^-23 - 1
    REQUIRE(u == float(double(top) * 0x1p-23 - 1.0));
    sum += u, lo = std::min(lo, double(u)), hi = std::max(hi, double(u));
  }
  CHECK(lo >= -1.0);
  CHECK(hi < 1.0);
  CHECK(lo < -0.999);
  CHECK(hi > 0.999);
  CHECK(std::fabs(sum / n) < 0.01);  // 3σ of the mean is ~0.0055
}
