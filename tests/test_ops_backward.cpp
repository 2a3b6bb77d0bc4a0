// The training backward of every dense op against finite differences of a
// plain forward written here in double precision (no code shared with
// core/): linear, RMSNorm, RoPE, the SwiGLU product, softmax, the attention
// core, the embedding, and the feed-forward block (dense and MoE). Each check draws a random linear functional
// L = Σ c·y of the op's output y, hands c = dL/dy to the float32 backward,
// and compares what it returns with the central differences of L.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <utility>

#include "allocation_counter.h"
#include "compare.h"
#include "ops/attention.h"
#include "ops/embedding.h"
#include "ops/ffn.h"
#include "ops/ffn_block.h"
#include "ops/linear.h"
#include "ops/moe.h"
#include "ops/rmsnorm.h"
#include "ops/rope.h"
#include "tensors/trace.h"

using namespace minimind;
using Doubles = std::vector<double>;
using Floats = std::vector<float>;

namespace {

// Test inputs from mt19937_64, whose output the standard fixes, so a
// failure reproduces everywhere.
struct Rng {
  std::mt19937_64 gen;
  explicit Rng(uint64_t seed) : gen(seed) {}
  double uniform(double lo, double hi) { return lo + (hi - lo) * double(gen() >> 11) * 0x1p-53; }
  Floats floats(int64_t n, double lo, double hi) {
    Floats v(static_cast<size_t>(n));
    for (float& x : v) x = float(uniform(lo, hi));
    return v;
  }
};

Doubles to_doubles(const Floats& v) { return {v.begin(), v.end()}; }

double dot(const Doubles& c, const Doubles& y) {
  double sum = 0;
  for (size_t i = 0; i < c.size(); ++i) sum += c[i] * y[i];
  return sum;
}

// dL/dx by central differences of L (double in, double out), with a step
// of 1e-6·max(1, |x_i|): the truncation error (~step²·L''') and the
// rounding error (~1e-16·|L|/step) both stay near 1e-10, far below the
// float32 backward's own error, so the result serves as the exact gradient.
template <typename Loss>
Doubles numeric_gradient(const Loss& loss, Doubles x) {
  Doubles g(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    const double x0 = x[i], step = 1e-6 * std::max(1.0, std::fabs(x0));
    const double above = x0 + step, below = x0 - step;
    x[i] = above;
    const double l_above = loss(x);
    x[i] = below;
    const double l_below = loss(x);
    x[i] = x0;
    g[i] = (l_above - l_below) / (above - below);
  }
  return g;
}

// Tolerances of a float32 gradient. Each element is a sum of K ≤ 64
// float32 products, each rounded, plus exp_approx's ~2e-7 relative error:
// its error stays below ~K·2^-24 ≈ 4e-6 of the sum of the terms' sizes,
// which here are of the size of the largest gradient. Cancellation can
// leave an element far smaller than its terms, so the absolute part is
// relative to the largest gradient (1e-5 of it); rtol 1e-4 bounds the rest.
// (The errors seen are below 4e-7 of the largest gradient.) A sign error, a
// missing term or a wrong factor moves elements by a good fraction of it.
constexpr double kRtol = 1e-4, kAtolOfLargest = 1e-5;

double largest_of(const Doubles& g) {
  double m = 0;
  for (const double v : g) m = std::max(m, std::fabs(v));
  return m;
}

// actual against expected, the atol above taken of `scale` (by default the
// largest expected element; an accumulated gradient is checked as start +
// increment, with the increment's scale).
void check_gradient(const Floats& actual, const Doubles& expected, double scale) {
  CHECK_CLOSE(actual, expected, kAtolOfLargest * scale + 1e-30, kRtol);
}
void check_gradient(const Floats& actual, const Doubles& expected) {
  check_gradient(actual, expected, largest_of(expected));
}

Doubles plus(const Floats& a, const Doubles& b) {
  Doubles sum(b.size());
  for (size_t i = 0; i < b.size(); ++i) sum[i] = double(a[i]) + b[i];
  return sum;
}

bool same_bits(const Floats& a, const Floats& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

// ---- plain forwards, from MINIMIND.md ----

// y [N, out] = x [N, in] (row stride x_stride) · Wᵀ, W [out, in].
Doubles ref_linear(const Doubles& x, int64_t N, int64_t in, int64_t x_stride, const Doubles& W, int64_t out) {
  Doubles y(size_t(N * out), 0.0);
  for (int64_t n = 0; n < N; ++n)
    for (int64_t o = 0; o < out; ++o)
      for (int64_t i = 0; i < in; ++i) y[size_t(n * out + o)] += x[size_t(n * x_stride + i)] * W[size_t(o * in + i)];
  return y;
}

// w * x / sqrt(mean(x²) + eps) per row of n.
Doubles ref_rms_norm(const Doubles& x, const Doubles& w, int64_t rows, int64_t n, double eps) {
  Doubles y(x.size());
  for (int64_t r = 0; r < rows; ++r) {
    double mean = 0;
    for (int64_t i = 0; i < n; ++i) mean += x[size_t(r * n + i)] * x[size_t(r * n + i)] / double(n);
    for (int64_t i = 0; i < n; ++i) y[size_t(r * n + i)] = w[size_t(i)] * x[size_t(r * n + i)] / std::sqrt(mean + eps);
  }
  return y;
}

// x·cos + rotate_half(x)·sin per head, rotate_half(x) = [-x2, x1].
Doubles ref_rope(const Doubles& x, int64_t heads, int64_t Dh, const Floats& cos, const Floats& sin) {
  Doubles y(x.size());
  const int64_t half = Dh / 2;
  for (int64_t h = 0; h < heads; ++h)
    for (int64_t i = 0; i < Dh; ++i) {
      const double rotated = i < half ? -x[size_t(h * Dh + i + half)] : x[size_t(h * Dh + i - half)];
      y[size_t(h * Dh + i)] = x[size_t(h * Dh + i)] * double(cos[size_t(i)]) + rotated * double(sin[size_t(i)]);
    }
  return y;
}

double ref_silu(double x) { return x / (1.0 + std::exp(-x)); }

Doubles ref_softmax(const Doubles& s) {
  const double max = *std::max_element(s.begin(), s.end());
  Doubles p(s.size());
  double sum = 0;
  for (size_t j = 0; j < s.size(); ++j) sum += (p[j] = std::exp(s[j] - max));
  for (double& v : p) v /= sum;
  return p;
}

// The attention core: q [T, H·Dh], k, v [T, Hkv·Dh] -> concat [T, H·Dh],
// q head h reading kv head h / R, key j visible to query i when j ≤ i.
Doubles ref_attention(const Doubles& q, const Doubles& k, const Doubles& v, int64_t T, int64_t H, int64_t Hkv,
                      int64_t Dh, bool scale, Doubles* probs = nullptr) {
  const int64_t R = H / Hkv;
  Doubles concat(size_t(T * H * Dh), 0.0);
  if (probs) probs->assign(size_t(H * T * T), 0.0);
  for (int64_t h = 0; h < H; ++h) {
    const int64_t g = h / R;
    for (int64_t i = 0; i < T; ++i) {
      Doubles s(size_t(i + 1));
      for (int64_t j = 0; j <= i; ++j) {
        double sum = 0;
        for (int64_t d = 0; d < Dh; ++d)
          sum += q[size_t(i * H * Dh + h * Dh + d)] * k[size_t(j * Hkv * Dh + g * Dh + d)];
        s[size_t(j)] = scale ? sum / std::sqrt(double(Dh)) : sum;
      }
      const Doubles p = ref_softmax(s);
      for (int64_t j = 0; j <= i; ++j) {
        if (probs) (*probs)[size_t((h * T + i) * T + j)] = p[size_t(j)];
        for (int64_t d = 0; d < Dh; ++d)
          concat[size_t(i * H * Dh + h * Dh + d)] += p[size_t(j)] * v[size_t(j * Hkv * Dh + g * Dh + d)];
      }
    }
  }
  return concat;
}

ModelConfig attention_config(int64_t D, int64_t H, int64_t Hkv, int64_t Dh) {
  ModelConfig c;
  c.hidden_size = D;
  c.num_attention_heads = H;
  c.num_key_value_heads = Hkv;
  c.head_dim = Dh;
  c.explicit_head_dim = true;
  c.use_qk_norm = true;  // q and k pass through a norm before RoPE, as in generation 3
  c.rms_norm_eps = 1e-6;
  return c;
}

}  // namespace

TEST_CASE("pack_transposed lays out Aᵀ in zero-padded panels", "[backward][linear]") {
  Rng rng(1);
  for (const int64_t rows : {1, 5, 9}) {
    for (const int64_t cols : {1, 7, 8, 13}) {
      CAPTURE(rows, cols);
      const int64_t stride = cols + 2;
      const Floats a = rng.floats(rows * stride, -1, 1);
      std::vector<float> storage(1000, NAN);  // stale contents must not stay in the padding
      const PanelsView view = pack_transposed(a.data(), rows, cols, stride, storage);
      REQUIRE(view.rows == cols);
      REQUIRE(view.cols == rows);
      REQUIRE(view.storage == WeightStorage::F32);
      for (int64_t r = 0; r < view.panels() * 8; ++r) {
        for (int64_t c = 0; c < rows; ++c) {
          const float packed = view.f32_panel(r / 8)[c * 8 + r % 8];  // view element (r, c)
          REQUIRE(packed == (r < cols ? a[size_t(c * stride + r)] : 0.0f));
        }
      }
    }
  }
}

TEST_CASE("transpose writes Aᵀ, whole 4x4 blocks and ragged edges alike", "[backward][linear]") {
  Rng rng(7);
  // 1031 x 70: more work than one thread gets, so the columns are split.
  for (const auto& [rows, cols] :
       {std::pair<int64_t, int64_t>{1, 1}, {3, 5}, {4, 4}, {5, 9}, {9, 13}, {17, 8}, {1031, 70}}) {
    CAPTURE(rows, cols);
    const int64_t stride = cols + 3;
    const Floats a = rng.floats(rows * stride, -1, 1);
    Floats out(size_t(rows * cols), NAN);
    transpose(a.data(), rows, cols, stride, out.data());
    int64_t wrong = 0;
    for (int64_t c = 0; c < cols; ++c) {
      for (int64_t r = 0; r < rows; ++r) wrong += out[size_t(c * rows + r)] != a[size_t(r * stride + c)];
    }
    REQUIRE(wrong == 0);
  }
}

TEST_CASE("linear_backward: dx = dy·W and dW += dyᵀ·x match finite differences", "[backward][linear]") {
  Rng rng(2);
  struct Sizes {
    int64_t N, in, out;
  };
  for (const Sizes z : {Sizes{1, 1, 1}, Sizes{2, 7, 5}, Sizes{3, 9, 3}, Sizes{5, 13, 9}, Sizes{13, 20, 17},
                        Sizes{8, 16, 8}, Sizes{9, 33, 4}}) {
    CAPTURE(z.N, z.in, z.out);
    // Strided rows whose padding is NaN: reading it would poison the result.
    const int64_t x_stride = z.in + 3, dy_stride = z.out + 2;
    Floats x = rng.floats(z.N * x_stride, -1.5, 1.5), dy = rng.floats(z.N * dy_stride, -1, 1);
    for (int64_t n = 0; n < z.N; ++n) {
      std::fill(x.begin() + n * x_stride + z.in, x.begin() + (n + 1) * x_stride, NAN);
      std::fill(dy.begin() + n * dy_stride + z.out, dy.begin() + (n + 1) * dy_stride, NAN);
    }
    const Floats W = rng.floats(z.out * z.in, -1, 1);  // [out, in]
    const Floats dw0 = rng.floats(z.out * z.in, -0.5, 0.5);

    // L = Σ c·y with c = dy (its stride dropped).
    Doubles c;
    for (int64_t n = 0; n < z.N; ++n)
      for (int64_t o = 0; o < z.out; ++o) c.push_back(dy[size_t(n * dy_stride + o)]);
    const Doubles xd = to_doubles(x), Wd = to_doubles(W);
    Doubles g_x =
        numeric_gradient([&](const Doubles& xx) { return dot(c, ref_linear(xx, z.N, z.in, x_stride, Wd, z.out)); }, xd);
    const Doubles g_w =
        numeric_gradient([&](const Doubles& ww) { return dot(c, ref_linear(xd, z.N, z.in, x_stride, ww, z.out)); }, Wd);
    Doubles g_x_rows;  // [N, in]: the stride dropped
    for (int64_t n = 0; n < z.N; ++n)
      for (int64_t i = 0; i < z.in; ++i) g_x_rows.push_back(g_x[size_t(n * x_stride + i)]);

    std::vector<float> w_t_storage;
    const PanelsView W_t = pack_transposed(W.data(), z.out, z.in, z.in, w_t_storage);  // [in, out]
    LinearBackwardScratch scratch;
    Floats dx(size_t(z.N * z.in)), dw = dw0;
    linear_backward(x.data(), z.N, z.in, x_stride, dy.data(), z.out, dy_stride, W_t, dx.data(), dw.data(), scratch);
    check_gradient(dx, g_x_rows);
    check_gradient(dw, plus(dw0, g_w), largest_of(g_w));

    // A second call with dx skipped adds dW again, and allocates nothing.
    int64_t allocations = 0;
    {
      const minimind::testing::AllocationCounter counter;
      linear_backward(x.data(), z.N, z.in, x_stride, dy.data(), z.out, dy_stride, W_t, nullptr, dw.data(), scratch);
      allocations = counter.count();
    }
    CHECK(allocations == 0);
    Doubles twice = g_w;
    for (double& g : twice) g *= 2;
    check_gradient(dw, plus(dw0, twice), largest_of(g_w));
  }
}

TEST_CASE("rms_norm_backward matches finite differences for dx and dw", "[backward][rmsnorm]") {
  Rng rng(3);
  const int64_t rows = 3;
  const double eps = 1e-5;
  for (const int64_t n : {1, 2, 3, 4, 7, 8, 13, 64}) {
    CAPTURE(n);
    const Floats x = rng.floats(rows * n, -2, 2), w = rng.floats(n, 0.5, 1.5), dy = rng.floats(rows * n, -1, 1);
    const Floats dw0 = rng.floats(n, -0.5, 0.5);
    const Doubles c = to_doubles(dy), xd = to_doubles(x), wd = to_doubles(w);
    const Doubles g_x =
        numeric_gradient([&](const Doubles& xx) { return dot(c, ref_rms_norm(xx, wd, rows, n, eps)); }, xd);
    const Doubles g_w =
        numeric_gradient([&](const Doubles& ww) { return dot(c, ref_rms_norm(xd, ww, rows, n, eps)); }, wd);

    Floats dx(size_t(rows * n)), dw = dw0;
    rms_norm_backward(x.data(), w.data(), dy.data(), rows, n, float(eps), dx.data(), dw.data());
    // dx is the difference of two terms of size r·|dy·w| (r = 1/rms); at
    // n = 1 the output is almost flat (w·x/|x|), dx ~ eps/x² is nearly all
    // cancellation, and float32's absolute error follows the terms' size.
    double terms = largest_of(g_x);
    for (int64_t r = 0; r < rows; ++r) {
      double mean = 0;
      for (int64_t i = 0; i < n; ++i) mean += xd[size_t(r * n + i)] * xd[size_t(r * n + i)] / double(n);
      for (int64_t i = 0; i < n; ++i)
        terms = std::max(terms, std::fabs(c[size_t(r * n + i)] * wd[size_t(i)]) / std::sqrt(mean + eps));
    }
    check_gradient(dx, g_x, terms);
    check_gradient(dw, plus(dw0, g_w), largest_of(g_w));

    // In place on dy: the same bits.
    Floats in_place = dy, dw_again = dw0;
    rms_norm_backward(x.data(), w.data(), in_place.data(), rows, n, float(eps), in_place.data(), dw_again.data());
    CHECK(same_bits(in_place, dx));
    CHECK(same_bits(dw_again, dw));
  }
}

TEST_CASE("apply_rotary_backward is the transpose of apply_rotary", "[backward][rope]") {
  Rng rng(4);
  for (const int64_t heads : {1, 2, 3}) {
    for (const int64_t Dh : {2, 10, 16}) {
      CAPTURE(heads, Dh);
      // Rows as cos_sin gives them (both halves equal), scaled by a YaRN-
      // style attention factor of 1.2: no longer a pure rotation, so the
      // inverse rotation would not pass for the transpose.
      const int64_t half = Dh / 2;
      Floats cos(static_cast<size_t>(Dh)), sin(static_cast<size_t>(Dh));
      for (int64_t i = 0; i < half; ++i) {
        const double angle = rng.uniform(-10, 10);
        cos[size_t(i)] = cos[size_t(i + half)] = float(1.2 * std::cos(angle));
        sin[size_t(i)] = sin[size_t(i + half)] = float(1.2 * std::sin(angle));
      }
      const Floats x = rng.floats(heads * Dh, -2, 2), dy = rng.floats(heads * Dh, -1, 1);
      const Doubles c = to_doubles(dy);
      const Doubles g =
          numeric_gradient([&](const Doubles& xx) { return dot(c, ref_rope(xx, heads, Dh, cos, sin)); }, to_doubles(x));
      Floats dx = dy;
      apply_rotary_backward(dx.data(), heads, Dh, cos.data(), sin.data());
      check_gradient(dx, g);
    }
  }
}

TEST_CASE("swiglu_act gives silu(gate)·up's bits, and swiglu_act_backward matches finite differences",
          "[backward][ffn]") {
  Rng rng(5);
  for (const int64_t n : {1, 5, 256, 300}) {  // 300: past one chunk of exponentials
    CAPTURE(n);
    Floats gate = rng.floats(n, -8, 8);
    const Floats up = rng.floats(n, -2, 2), dact = rng.floats(n, -1, 1);
    if (n >= 5) gate[0] = 0.0f, gate[1] = 90.0f, gate[2] = -90.0f;  // e^-g underflows, overflows

    Floats act(static_cast<size_t>(n));
    swiglu_act(gate.data(), up.data(), n, act.data());
    for (int64_t i = 0; i < n; ++i) REQUIRE(act[size_t(i)] == silu(gate[size_t(i)]) * up[size_t(i)]);
    Doubles ref_act(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) ref_act[size_t(i)] = ref_silu(gate[size_t(i)]) * double(up[size_t(i)]);
    CHECK_CLOSE(act, ref_act, 1e-7, 1e-6);

    const Doubles c = to_doubles(dact), gd = to_doubles(gate), ud = to_doubles(up);
    const auto loss = [&](const Doubles& g, const Doubles& u) {
      double sum = 0;
      for (int64_t i = 0; i < n; ++i) sum += c[size_t(i)] * ref_silu(g[size_t(i)]) * u[size_t(i)];
      return sum;
    };
    const Doubles g_gate = numeric_gradient([&](const Doubles& g) { return loss(g, ud); }, gd);
    const Doubles g_up = numeric_gradient([&](const Doubles& u) { return loss(gd, u); }, ud);

    Floats dgate(static_cast<size_t>(n)), dup(static_cast<size_t>(n));
    swiglu_act_backward(gate.data(), up.data(), dact.data(), n, dgate.data(), dup.data());
    check_gradient(dgate, g_gate);
    check_gradient(dup, g_up);

    // dgate written over dact, then dup over dact: the same bits.
    Floats over = dact, other(static_cast<size_t>(n));
    swiglu_act_backward(gate.data(), up.data(), over.data(), n, over.data(), other.data());
    CHECK(same_bits(over, dgate));
    CHECK(same_bits(other, dup));
    over = dact;
    swiglu_act_backward(gate.data(), up.data(), over.data(), n, other.data(), over.data());
    CHECK(same_bits(over, dup));
  }
}

TEST_CASE("softmax_backward matches finite differences of softmax", "[backward][softmax]") {
  Rng rng(6);
  for (const int64_t n : {1, 2, 7, 16, 33}) {
    CAPTURE(n);
    const Doubles s = to_doubles(rng.floats(n, -3, 3));
    const Floats dp = rng.floats(n, -1, 1);
    const Doubles c = to_doubles(dp);
    const Doubles g = numeric_gradient([&](const Doubles& ss) { return dot(c, ref_softmax(ss)); }, s);
    Floats p;
    for (const double v : ref_softmax(s)) p.push_back(float(v));
    Floats ds(static_cast<size_t>(n));
    softmax_backward(p.data(), dp.data(), n, ds.data());
    // n = 1: softmax is constant (1), so the gradient is 0 exactly.
    check_gradient(ds, g);
    Floats in_place = dp;
    softmax_backward(p.data(), in_place.data(), n, in_place.data());
    CHECK(same_bits(in_place, ds));
  }
}

TEST_CASE("attention_core_forward computes attention_forward's bits for one uncached sequence",
          "[backward][attention]") {
  const int64_t H = 4, D = 24;
  for (const int64_t R : {1, 2, 4}) {
    for (const int64_t Dh : {4, 8, 16}) {
      for (const int64_t T : {1, 3, 5, 13, 37}) {  // 37: several key panels, the last one partial
        for (const bool scale : {true, false}) {
          CAPTURE(R, Dh, T, scale);
          const int64_t Hkv = H / R;
          const ModelConfig c = attention_config(D, H, Hkv, Dh);
          Rng rng(uint64_t(1000 + R * 100 + Dh * 10 + T));
          LayerWeights w;
          const auto weight = [&](int64_t rows, int64_t cols, double bound) {
            const Floats values = rng.floats(rows * cols, -bound, bound);
            return WeightMatrix(values.data(), rows, cols);
          };
          w.q_proj = weight(H * Dh, D, 2.0 / std::sqrt(double(D)));
          w.k_proj = weight(Hkv * Dh, D, 2.0 / std::sqrt(double(D)));
          w.v_proj = weight(Hkv * Dh, D, 1.0 / std::sqrt(double(D)));
          w.o_proj = weight(D, H * Dh, 1.0 / std::sqrt(double(H * Dh)));
          const Floats q_norm = rng.floats(Dh, 0.5, 2.0), k_norm = rng.floats(Dh, 0.5, 2.0);
          w.q_norm = Eigen::Map<const Vector>(q_norm.data(), Dh);
          w.k_norm = Eigen::Map<const Vector>(k_norm.data(), Dh);
          const Floats a = rng.floats(T * D, -1.5, 1.5);

          const RotaryEmbedding rope(c);
          Floats cos(size_t(T * Dh)), sin(size_t(T * Dh));  // [T, Dh]
          for (int64_t t = 0; t < T; ++t) rope.cos_sin(t, &cos[size_t(t * Dh)], &sin[size_t(t * Dh)]);
          TraceRequest request;
          request.layers = {0};
          Trace trace(request, 1);
          LayerKVCache cache(Hkv, Dh);
          AttentionScratch attention_scratch;
          AttentionOptions options;
          options.scale_scores = scale;
          Floats out(size_t(T * D));
          attention_forward(c, w, a.data(), T, {cos.data(), sin.data()}, cache, nullptr, options,
                            TraceTarget{&trace, 0, 0}, attention_scratch, out.data());

          // The core on attention_forward's own q, k (after norm and RoPE), v.
          const Floats& q = trace.get(0, stage::kQRope)->data;  // [T, H, Dh]
          const Floats& k = trace.get(0, stage::kKRope)->data;  // [T, Hkv, Dh]
          const Floats& v = trace.get(0, stage::kVProj)->data;  // [T, Hkv, Dh]
          AttentionCoreScratch core_scratch;
          core_scratch.panels.assign(4096, NAN);  // stale contents must not reach a result
          Floats probs(size_t(H * T * T)), concat(size_t(T * H * Dh));
          attention_core_forward(q.data(), k.data(), v.data(), T, H, Hkv, Dh, scale, probs.data(), concat.data(),
                                 core_scratch);
          REQUIRE(same_bits(probs, trace.get(0, stage::kAttnWeights)->data));
          REQUIRE(same_bits(concat, trace.get(0, stage::kAttnConcat)->data));
        }
      }
    }
  }
}

TEST_CASE("attention_core_backward matches finite differences for dq, dk and dv (GQA, causal)",
          "[backward][attention]") {
  const int64_t H = 4;
  for (const int64_t R : {1, 2, 4}) {
    for (const int64_t T : {1, 5, 13}) {
      for (const int64_t Dh : {4, 8}) {
        for (const bool scale : {true, false}) {
          CAPTURE(R, T, Dh, scale);
          const int64_t Hkv = H / R;
          Rng rng(uint64_t(2000 + R * 100 + T * 10 + Dh + scale));
          const Floats q = rng.floats(T * H * Dh, -1, 1), k = rng.floats(T * Hkv * Dh, -1, 1),
                       v = rng.floats(T * Hkv * Dh, -1, 1), dconcat = rng.floats(T * H * Dh, -1, 1);
          const Doubles qd = to_doubles(q), kd = to_doubles(k), vd = to_doubles(v), c = to_doubles(dconcat);

          AttentionCoreScratch scratch;
          Floats probs(size_t(H * T * T)), concat(size_t(T * H * Dh));
          attention_core_forward(q.data(), k.data(), v.data(), T, H, Hkv, Dh, scale, probs.data(), concat.data(),
                                 scratch);
          Doubles ref_probs;
          const Doubles ref_concat = ref_attention(qd, kd, vd, T, H, Hkv, Dh, scale, &ref_probs);
          CHECK_CLOSE(probs, ref_probs, 1e-7, 1e-5);
          CHECK_CLOSE(concat, ref_concat, 1e-6, 1e-5);
          for (int64_t h = 0; h < H; ++h)  // the upper triangle exactly 0
            for (int64_t i = 0; i < T; ++i)
              for (int64_t j = i + 1; j < T; ++j) REQUIRE(probs[size_t((h * T + i) * T + j)] == 0.0f);

          const auto loss = [&](const Doubles& qq, const Doubles& kk, const Doubles& vv) {
            return dot(c, ref_attention(qq, kk, vv, T, H, Hkv, Dh, scale));
          };
          const Doubles g_q = numeric_gradient([&](const Doubles& x) { return loss(x, kd, vd); }, qd);
          const Doubles g_k = numeric_gradient([&](const Doubles& x) { return loss(qd, x, vd); }, kd);
          const Doubles g_v = numeric_gradient([&](const Doubles& x) { return loss(qd, kd, x); }, vd);

          Floats dq(q.size(), NAN), dk(k.size(), NAN), dv(v.size(), NAN);  // overwritten, not accumulated
          attention_core_backward(q.data(), k.data(), v.data(), probs.data(), dconcat.data(), T, H, Hkv, Dh, scale,
                                  dq.data(), dk.data(), dv.data(), scratch);
          check_gradient(dq, g_q);  // T = 1: one key, softmax constant, dq = dk = 0
          check_gradient(dk, g_k);
          check_gradient(dv, g_v);

          // A repeat call allocates nothing and gives the same bits.
          Floats dq2(q.size()), dk2(k.size()), dv2(v.size());
          int64_t allocations = 0;
          {
            const minimind::testing::AllocationCounter counter;
            attention_core_backward(q.data(), k.data(), v.data(), probs.data(), dconcat.data(), T, H, Hkv, Dh, scale,
                                    dq2.data(), dk2.data(), dv2.data(), scratch);
            allocations = counter.count();
          }
          CHECK(allocations == 0);
          CHECK((same_bits(dq2, dq) && same_bits(dk2, dk) && same_bits(dv2, dv)));
        }
      }
    }
  }
}

TEST_CASE("attention_core_backward: a key only gets gradient from the queries at or after it",
          "[backward][attention]") {
  const int64_t T = 13, H = 4, Hkv = 2, Dh = 8, m = 6;
  Rng rng(7);
  const Floats q = rng.floats(T * H * Dh, -1, 1), k = rng.floats(T * Hkv * Dh, -1, 1),
               v = rng.floats(T * Hkv * Dh, -1, 1);
  AttentionCoreScratch scratch;
  Floats probs(size_t(H * T * T)), concat(size_t(T * H * Dh));
  attention_core_forward(q.data(), k.data(), v.data(), T, H, Hkv, Dh, true, probs.data(), concat.data(), scratch);
  // d concat nonzero on the first m queries only.
  Floats dconcat = rng.floats(T * H * Dh, -1, 1);
  std::fill(dconcat.begin() + m * H * Dh, dconcat.end(), 0.0f);
  Floats dq(q.size()), dk(k.size()), dv(v.size());
  attention_core_backward(q.data(), k.data(), v.data(), probs.data(), dconcat.data(), T, H, Hkv, Dh, true, dq.data(),
                          dk.data(), dv.data(), scratch);
  for (int64_t j = 0; j < T; ++j) {
    for (int64_t e = 0; e < Hkv * Dh; ++e) {
      CAPTURE(j, e);
      const size_t at = size_t(j * Hkv * Dh + e);
      if (j >= m) {  // seen only by the silent queries
        REQUIRE(dk[at] == 0.0f);
        REQUIRE(dv[at] == 0.0f);
      } else {
        REQUIRE(dv[at] != 0.0f);
      }
    }
  }
  for (int64_t e = m * H * Dh; e < T * H * Dh; ++e) REQUIRE(dq[size_t(e)] == 0.0f);
}

TEST_CASE("embedding: rows looked up forward, scatter-added backward (repeated ids sum)", "[backward][embedding]") {
  Rng rng(8);
  const int64_t V = 11, D = 5;
  const std::vector<int32_t> ids = {3, 0, 3, 10, 3, 7, 0, 3};
  const int64_t N = int64_t(ids.size());
  const Floats values = rng.floats(V * D, -1, 1);
  const WeightMatrix table(values.data(), V, D, WeightPacking::Float32);
  Floats h(size_t(N * D));
  embedding_forward(table, ids.data(), N, h.data());
  for (int64_t n = 0; n < N; ++n)
    for (int64_t d = 0; d < D; ++d) REQUIRE(h[size_t(n * D + d)] == values[size_t(ids[size_t(n)] * D + d)]);

  const Floats dh = rng.floats(N * D, -1, 1), dtable0 = rng.floats(V * D, -0.5, 0.5);
  const Doubles c = to_doubles(dh);
  const Doubles g = numeric_gradient(
      [&](const Doubles& t) {
        double sum = 0;
        for (int64_t n = 0; n < N; ++n)
          for (int64_t d = 0; d < D; ++d) sum += c[size_t(n * D + d)] * t[size_t(ids[size_t(n)] * D + d)];
        return sum;
      },
      to_doubles(values));
  Floats dtable = dtable0;
  embedding_backward(ids.data(), N, dh.data(), D, dtable.data());
  check_gradient(dtable, plus(dtable0, g), largest_of(g));
  for (const int64_t unused : {1, 2, 4, 5, 6, 8, 9})  // rows no id names keep their gradient
    for (int64_t d = 0; d < D; ++d) REQUIRE(dtable[size_t(unused * D + d)] == dtable0[size_t(unused * D + d)]);
}

namespace {

// A feed-forward block's parameters and input in one flat vector, so that
// one numeric_gradient covers them all: x [T, D], then (MoE) router [E, D]
// and each expert's gate_proj [F, D], up_proj [F, D], down_proj [D, F], then
// each shared expert's (dense: just the one SwiGLU).
struct FfnLayout {
  int64_t T, D, E, K, Fe, shared, Fs;
  bool renormalise;
  int64_t swiglu_size(int64_t F) const { return 3 * F * D; }
  int64_t router_at() const { return T * D; }
  int64_t expert_at(int64_t e) const { return router_at() + E * D + e * swiglu_size(Fe); }
  int64_t shared_at(int64_t s) const { return expert_at(E) + s * swiglu_size(Fs); }
  int64_t size() const { return E == 0 ? router_at() + swiglu_size(Fe) : shared_at(shared); }  // dense: one SwiGLU
};

// down(silu(gate·x) * (up·x)) of one row x [D], the SwiGLU's three weights at w.
Doubles ref_swiglu_row(const double* x, const double* w, int64_t D, int64_t F) {
  const double *gate = w, *up = w + F * D, *down = w + 2 * F * D;
  Doubles act(static_cast<size_t>(F)), y(static_cast<size_t>(D), 0.0);
  for (int64_t f = 0; f < F; ++f) {
    double g = 0, u = 0;
    for (int64_t d = 0; d < D; ++d) g += gate[f * D + d] * x[d], u += up[f * D + d] * x[d];
    act[size_t(f)] = ref_silu(g) * u;
  }
  for (int64_t d = 0; d < D; ++d)
    for (int64_t f = 0; f < F; ++f) y[size_t(d)] += down[d * F + f] * act[size_t(f)];
  return y;
}

// MOEFeedForward (MINIMIND.md) on theta's x -> [T, D], with the experts of
// each token fixed to `chosen` [T, k] (empty: a dense SwiGLU).
Doubles ref_ffn_block(const FfnLayout& l, const Doubles& theta, const std::vector<int64_t>& chosen) {
  const int64_t T = l.T, D = l.D;
  Doubles out(size_t(T * D), 0.0);
  for (int64_t t = 0; t < T; ++t) {
    const double* x = theta.data() + t * D;
    double* y = out.data() + t * D;
    if (l.E == 0) {  // dense
      const Doubles f = ref_swiglu_row(x, theta.data() + l.router_at(), D, l.Fe);
      for (int64_t d = 0; d < D; ++d) y[d] += f[size_t(d)];
      continue;
    }
    Doubles logits(size_t(l.E), 0.0);
    for (int64_t e = 0; e < l.E; ++e)
      for (int64_t d = 0; d < D; ++d) logits[size_t(e)] += theta[size_t(l.router_at() + e * D + d)] * x[d];
    const Doubles p = ref_softmax(logits);
    double sum = 0;
    for (int64_t k = 0; k < l.K; ++k) sum += p[size_t(chosen[size_t(t * l.K + k)])];
    for (int64_t k = 0; k < l.K; ++k) {
      const int64_t e = chosen[size_t(t * l.K + k)];
      const double weight = l.renormalise ? p[size_t(e)] / (sum + 1e-20) : p[size_t(e)];
      const Doubles f = ref_swiglu_row(x, theta.data() + l.expert_at(e), D, l.Fe);
      for (int64_t d = 0; d < D; ++d) y[d] += weight * f[size_t(d)];
    }
    for (int64_t s = 0; s < l.shared; ++s) {
      const Doubles f = ref_swiglu_row(x, theta.data() + l.shared_at(s), D, l.Fs);
      for (int64_t d = 0; d < D; ++d) y[d] += f[size_t(d)];
    }
  }
  return out;
}

// torch.topk of the reference router's softmax: [T, k] expert ids.
std::vector<int64_t> ref_top_k(const FfnLayout& l, const Doubles& theta) {
  std::vector<int64_t> chosen;
  for (int64_t t = 0; t < l.T; ++t) {
    Doubles logits(size_t(l.E), 0.0);
    for (int64_t e = 0; e < l.E; ++e)
      for (int64_t d = 0; d < l.D; ++d)
        logits[size_t(e)] += theta[size_t(l.router_at() + e * l.D + d)] * theta[size_t(t * l.D + d)];
    std::vector<int64_t> order(size_t(l.E));
    for (int64_t e = 0; e < l.E; ++e) order[size_t(e)] = e;
    std::stable_sort(order.begin(), order.end(),
                     [&](int64_t a, int64_t b) { return logits[size_t(a)] > logits[size_t(b)]; });
    chosen.insert(chosen.end(), order.begin(), order.begin() + l.K);
  }
  return chosen;
}

Floats slice(const Doubles& theta, int64_t at, int64_t n) { return Floats(theta.begin() + at, theta.begin() + at + n); }

FfnWeights swiglu_weights(const Doubles& theta, int64_t at, int64_t D, int64_t F) {
  return {WeightMatrix(slice(theta, at, F * D).data(), F, D),
          WeightMatrix(slice(theta, at + F * D, F * D).data(), F, D),
          WeightMatrix(slice(theta, at + 2 * F * D, D * F).data(), D, F)};
}

struct SwigluGradBuffers {
  Floats gate, up, down;
  SwigluGradients targets() { return {gate.data(), up.data(), down.data()}; }
};

}  // namespace

TEST_CASE("ffn_block_backward matches finite differences, MoE with the routing fixed and dense",
          "[backward][ffn][moe]") {
  struct Case {
    const char* what;
    int generation;
    int64_t E, K;
    bool norm_topk_prob;
    int64_t shared;
  };
  const Case cases[] = {
      {"dense", 3, 0, 0, false, 0},
      {"gen 3, top-2 renormalised", 3, 4, 2, true, 0},
      {"gen 3, top-1 renormalised (weights 1: no router gradient but the 1e-20)", 3, 4, 1, true, 0},
      {"gen 2, top-2 renormalised + 1 shared expert", 2, 4, 2, true, 1},
      {"gen 2, top-1 (not renormalised) + 2 shared experts", 2, 3, 1, true, 2},
      {"gen 3, top-3 of 5 without norm_topk_prob", 3, 5, 3, false, 0},
  };
  Rng rng(50);
  for (const Case& k : cases) {
    CAPTURE(k.what);
    const bool moe = k.E > 0;
    FfnLayout l{5, 8, k.E, k.K, 6, k.shared, 7, false};
    ModelConfig c;
    c.generation = k.generation;
    c.hidden_size = l.D;
    c.use_moe = moe;
    c.num_experts = k.E;
    c.num_experts_per_tok = k.K;
    c.norm_topk_prob = k.norm_topk_prob;
    c.n_shared_experts = k.shared;
    // Routed experts use moe_intermediate_size (gen 3) or intermediate_size (gen 2).
    if (k.generation == 2) l.Fs = l.Fe;
    c.intermediate_size = moe ? l.Fs : l.Fe;
    c.moe_intermediate_size = l.Fe;
    l.renormalise = moe && moe_renormalises(c);

    // Router weights large enough that the softmax is far from uniform.
    Doubles theta;
    for (const double v : rng.floats(l.T * l.D, -1, 1)) theta.push_back(v);
    if (moe) {
      for (const double v : rng.floats(l.E * l.D, -1.5, 1.5)) theta.push_back(v);
    }
    for (const double v : rng.floats(l.size() - int64_t(theta.size()), -0.6, 0.6)) theta.push_back(v);
    LayerWeights w;
    if (moe) {
      w.moe.gate = WeightMatrix(slice(theta, l.router_at(), l.E * l.D).data(), l.E, l.D);
      for (int64_t e = 0; e < l.E; ++e) w.moe.experts.push_back(swiglu_weights(theta, l.expert_at(e), l.D, l.Fe));
      for (int64_t s = 0; s < l.shared; ++s)
        w.moe.shared_experts.push_back(swiglu_weights(theta, l.shared_at(s), l.D, l.Fs));
    } else {
      w.mlp = swiglu_weights(theta, l.router_at(), l.D, l.Fe);
    }
    const Floats x = slice(theta, 0, l.T * l.D);

    // The forward: moe_ffn's / swiglu_ffn's bits.
    FfnActivations saved;
    Floats out(size_t(l.T * l.D)), model_out(out.size());
    ffn_block_forward(c, w, x.data(), l.T, out.data(), saved);
    if (moe) {
      MoeScratch scratch;
      moe_ffn(c, w.moe, x.data(), l.T, model_out.data(), scratch);
    } else {
      FfnScratch scratch;
      swiglu_ffn(w.mlp, x.data(), l.T, model_out.data(), scratch);
    }
    REQUIRE(same_bits(out, model_out));

    // The routing the reference holds fixed is the float forward's.
    const std::vector<int64_t> chosen = moe ? ref_top_k(l, theta) : std::vector<int64_t>{};
    for (size_t i = 0; i < chosen.size(); ++i) REQUIRE(int64_t(saved.chosen[i]) == chosen[i]);
    CHECK_CLOSE(out, ref_ffn_block(l, theta, chosen), 1e-5, 1e-5);

    const Floats d_out = rng.floats(l.T * l.D, -1, 1);
    const Doubles cd = to_doubles(d_out);
    const Doubles g = numeric_gradient([&](const Doubles& th) { return dot(cd, ref_ffn_block(l, th, chosen)); }, theta);

    std::vector<SwigluGradBuffers> experts(size_t(std::max<int64_t>(l.E, 1))), shared(size_t(l.shared));
    for (auto& b : experts) b = {Floats(size_t(l.Fe * l.D)), Floats(size_t(l.Fe * l.D)), Floats(size_t(l.D * l.Fe))};
    for (auto& b : shared) b = {Floats(size_t(l.Fs * l.D)), Floats(size_t(l.Fs * l.D)), Floats(size_t(l.D * l.Fs))};
    Floats router(size_t(l.E * l.D), 0.0f);
    FfnGradients grads;
    if (moe) {
      grads.router = router.data();
      for (int64_t e = 0; e < l.E; ++e) grads.experts.push_back(experts[size_t(e)].targets());
      for (auto& b : shared) grads.shared_experts.push_back(b.targets());
    } else {
      grads.mlp = experts[0].targets();
    }
    FfnBackwardScratch scratch;
    Floats d_in(size_t(l.T * l.D));
    ffn_block_backward(c, w, saved, d_out.data(), d_in.data(), &grads, scratch);

    // Each tensor against its own slice of the numeric gradient, scaled by
    // the largest gradient of the whole block (the top-1 router's is ~0).
    const double scale = largest_of(g);
    const auto expect = [&](const Floats& actual, int64_t at) {
      check_gradient(actual, Doubles(g.begin() + at, g.begin() + at + int64_t(actual.size())), scale);
    };
    expect(d_in, 0);
    const auto expect_swiglu = [&](const SwigluGradBuffers& b, int64_t at) {
      expect(b.gate, at);
      expect(b.up, at + int64_t(b.gate.size()));
      expect(b.down, at + 2 * int64_t(b.gate.size()));
    };
    if (moe) {
      expect(router, l.router_at());
      for (int64_t e = 0; e < l.E; ++e) expect_swiglu(experts[size_t(e)], l.expert_at(e));
      for (int64_t s = 0; s < l.shared; ++s) expect_swiglu(shared[size_t(s)], l.shared_at(s));
      if (l.K > 1 || !l.renormalise) CHECK(largest_of(to_doubles(router)) > 1e-2 * scale);  // the router learns
    } else {
      expect_swiglu(experts[0], l.router_at());
    }

    // Without weight gradients: the same input gradient, to the bit.
    Floats d_in_only(d_in.size());
    ffn_block_backward(c, w, saved, d_out.data(), d_in_only.data(), nullptr, scratch);
    CHECK(same_bits(d_in_only, d_in));
  }
}
