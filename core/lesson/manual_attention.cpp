#include "lesson/manual_attention.h"

#include <cmath>

#include "ops/exp_approx.h"
#include "ops/linear.h"

namespace minimind {

namespace {

// y [T, out] = x [T, in] · Wᵀ: nn.Linear without bias, through the module's
// own product (ops/linear.h), so that the record compares the attention
// formula, not two ways of summing a product: in the relaxed Wasm build
// that product's multiply-adds are fused, which a plain loop would not
// reproduce. tests/test_ops.cpp checks the product against scalar loops.
std::vector<float> linear(const std::vector<float>& x, int64_t T, const WeightMatrix& W) {
  const int64_t out = W.rows(), in = W.cols();
  std::vector<float> y(size_t(T * out), 0.0f);
  linear_rows(x.data(), T, in, W, y.data(), out);
  return y;
}

void norm_heads(std::vector<float>& x, const Vector& w, int64_t vectors, int64_t Dh, float eps) {
  for (int64_t r = 0; r < vectors; ++r) {
    float sum = 0.0f;
    for (int64_t i = 0; i < Dh; ++i) sum += x[size_t(r * Dh + i)] * x[size_t(r * Dh + i)];
    const float inv = 1.0f / std::sqrt(sum / float(Dh) + eps);
    for (int64_t i = 0; i < Dh; ++i) x[size_t(r * Dh + i)] = w(i) * (x[size_t(r * Dh + i)] * inv);
  }
}

void rotate(std::vector<float>& x, int64_t T, int64_t heads, int64_t Dh, const RotaryEmbedding& rope) {
  std::vector<float> cos(static_cast<size_t>(Dh)), sin(static_cast<size_t>(Dh)), rotated(static_cast<size_t>(Dh));
  for (int64_t t = 0; t < T; ++t) {
    rope.cos_sin(t, cos.data(), sin.data());
    for (int64_t h = 0; h < heads; ++h) {
      float* v = &x[size_t((t * heads + h) * Dh)];
      for (int64_t i = 0; i < Dh; ++i) rotated[size_t(i)] = i < Dh / 2 ? -v[i + Dh / 2] : v[i - Dh / 2];
      for (int64_t i = 0; i < Dh; ++i) v[i] = v[i] * cos[size_t(i)] + rotated[size_t(i)] * sin[size_t(i)];
    }
  }
}

}  // namespace

ManualAttention manual_attention(const ModelConfig& c, const LayerWeights& w, const RotaryEmbedding& rope,
                                 const std::vector<float>& x, int64_t T) {
  const int64_t H = c.num_attention_heads, Hkv = c.num_key_value_heads, Dh = c.head_dim, R = c.n_rep();
  std::vector<float> q = linear(x, T, w.q_proj);        // [T, H, Dh]
  std::vector<float> k = linear(x, T, w.k_proj);        // [T, Hkv, Dh]
  const std::vector<float> v = linear(x, T, w.v_proj);  // [T, Hkv, Dh]
  if (c.use_qk_norm) {
    norm_heads(q, w.q_norm, T * H, Dh, float(c.rms_norm_eps));
    norm_heads(k, w.k_norm, T * Hkv, Dh, float(c.rms_norm_eps));
  }
  rotate(q, T, H, Dh, rope);
  rotate(k, T, Hkv, Dh, rope);

  ManualAttention out;
  out.weights.assign(size_t(H * T * T), 0.0f);
  std::vector<float> concat(size_t(T * H * Dh), 0.0f);  // [T, H·Dh]
  const float scale = std::sqrt(float(Dh));
  for (int64_t h = 0; h < H; ++h) {
    const int64_t g = h / R;
    for (int64_t i = 0; i < T; ++i) {
      float* row = &out.weights[size_t((h * T + i) * T)];
      float max = -INFINITY;
      for (int64_t j = 0; j <= i; ++j) {  // keys after i are masked: weight 0
        float dot = 0.0f;
        for (int64_t d = 0; d < Dh; ++d) dot += q[size_t((i * H + h) * Dh + d)] * k[size_t((j * Hkv + g) * Dh + d)];
        row[j] = dot / scale;
        max = std::fmax(max, row[j]);
      }
      float sum = 0.0f;
      for (int64_t j = 0; j <= i; ++j) sum += (row[j] = exp_approx(row[j] - max));
      for (int64_t j = 0; j <= i; ++j) row[j] /= sum;
      for (int64_t d = 0; d < Dh; ++d) {
        float acc = 0.0f;
        for (int64_t j = 0; j <= i; ++j) acc += row[j] * v[size_t((j * Hkv + g) * Dh + d)];
        concat[size_t(i * H * Dh + h * Dh + d)] = acc;
      }
    }
  }
  out.output = linear(concat, T, w.o_proj);  // [T, D]
  return out;
}

}  // namespace minimind
