#include "ops/rope.h"

#include <algorithm>
#include <cmath>

#include "util/simd_lanes.h"

namespace minimind {

RotaryEmbedding::RotaryEmbedding(const ModelConfig& c)
    : head_dim_(c.head_dim), attention_factor_(1.0f), inv_freq_(size_t(c.head_dim / 2)) {
  const int64_t half = head_dim_ / 2;
  const float theta = float(c.rope_theta);
  // 1 / theta^(2i / Dh), each step in float32 as torch computes it.
  for (int64_t i = 0; i < half; ++i) {
    inv_freq_[size_t(i)] = 1.0f / std::pow(theta, float(2 * i) / float(head_dim_));
  }
  if (c.inference_rope_scaling) {
    const RopeScaling& s = c.rope_scaling;
    attention_factor_ = float(s.attention_factor);
    const double orig_max = double(s.original_max_position_embeddings);
    if (double(c.max_position_embeddings) / orig_max > 1.0) {
      // YaRN: f'(i) = f(i)((1-γ) + γ/s) with γ a linear ramp between the
      // dimensions that complete beta_fast and beta_slow turns in orig_max.
      const auto inv_dim = [&](double b) {
        return (double(head_dim_) * std::log(orig_max / (b * 2 * M_PI))) / (2 * std::log(c.rope_theta));
      };
      const double low = std::max(std::floor(inv_dim(s.beta_fast)), 0.0);
      const double high = std::min(std::ceil(inv_dim(s.beta_slow)), double(half - 1));
      const float span = float(std::max(high - low, 0.001));
      const float factor = float(s.factor);
      for (int64_t i = 0; i < half; ++i) {
        const float ramp = std::clamp((float(i) - float(low)) / span, 0.0f, 1.0f);
        inv_freq_[size_t(i)] = inv_freq_[size_t(i)] * (1.0f - ramp + ramp / factor);
      }
    }
  }
}

void RotaryEmbedding::cos_sin(int64_t position, float* cos_out, float* sin_out) const {
  const int64_t half = head_dim_ / 2;
  for (int64_t i = 0; i < half; ++i) {
    const float angle = float(position) * inv_freq_[size_t(i)];
    cos_out[i] = cos_out[i + half] = std::cos(angle) * attention_factor_;
    sin_out[i] = sin_out[i + half] = std::sin(angle) * attention_factor_;
  }
}

void apply_rotary(float* x, int64_t heads, int64_t Dh, const float* cos, const float* sin) {
  using simd::Lanes;
  const int64_t half = Dh / 2;
  for (int64_t h = 0; h < heads; ++h) {
    float* v = x + h * Dh;  // [Dh]
    // rotate_half(x) = [-x[Dh/2:], x[:Dh/2]]; first·cos + (-second)·sin is
    // first·cos - second·sin to the bit. Four pairs at a time, then the rest.
    int64_t i = 0;
    for (; i + simd::kLanes <= half; i += simd::kLanes) {
      const Lanes first = simd::load(v + i), second = simd::load(v + i + half);
      simd::store(v + i, simd::sub(simd::mul(first, simd::load(cos + i)), simd::mul(second, simd::load(sin + i))));
      simd::store(v + i + half, simd::add(simd::mul(second, simd::load(cos + i + half)),
                                          simd::mul(first, simd::load(sin + i + half))));
    }
    for (; i < half; ++i) {
      const float first = v[i], second = v[i + half];
      v[i] = first * cos[i] - second * sin[i];
      v[i + half] = second * cos[i + half] + first * sin[i + half];
    }
  }
}

void apply_rotary_backward(float* dx, int64_t heads, int64_t Dh, const float* cos, const float* sin) {
  const int64_t half = Dh / 2;
  for (int64_t h = 0; h < heads; ++h) {
    float* g = dx + h * Dh;  // [Dh]: dy in, dx out
    // y1 = x1·cos1 - x2·sin1 and y2 = x2·cos2 + x1·sin2: the transposed
    // 2×2 rotation per pair (i, i + Dh/2).
    for (int64_t i = 0; i < half; ++i) {
      const float dy1 = g[i], dy2 = g[i + half];
      g[i] = dy1 * cos[i] + dy2 * sin[i + half];
      g[i + half] = dy2 * cos[i + half] - dy1 * sin[i];
    }
  }
}

}  // namespace minimind
