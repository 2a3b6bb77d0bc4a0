#include "ops/attention.h"

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <limits>

#include "ops/exp_approx.h"
#include "ops/linear.h"
#include "ops/rmsnorm.h"
#include "ops/rope.h"
#include "util/simd_lanes.h"
#include "model/trace.h"

namespace minimind {

namespace {

// The shape becomes a Shape only when the trace wants the stage: an untraced
// call allocates nothing here.
void record(const TraceTarget& t, const char* stage_name, std::initializer_list<int64_t> shape, const float* data) {
  if (t.trace && t.trace->wants(t.layer, stage_name)) t.trace->put(t.layer, stage_name, t.batch_index, shape, data);
}

bool wants(const TraceTarget& t, const char* stage_name) { return t.trace && t.trace->wants(t.layer, stage_name); }

}  // namespace

void softmax_inplace(float* row, int64_t n) {
  using simd::Lanes;
  constexpr int64_t kLanes = simd::kLanes;
  const float neg_inf = -std::numeric_limits<float>::infinity();
  // The max is exact in any order; subtracting and dividing are per value:
  // lanes give the bits of a scalar loop. The sum stays one sequential sum,
  // as lesson 11's hand-written softmax adds it.
  Lanes max4 = simd::fill(neg_inf);
  int64_t j = 0;
  for (; j + kLanes <= n; j += kLanes) max4 = simd::max(max4, simd::load(row + j));
  float lanes[kLanes];
  simd::store(lanes, max4);
  float max = neg_inf;
  for (const float v : lanes) max = std::max(max, v);
  for (; j < n; ++j) max = std::max(max, row[j]);
  if (max == neg_inf) {
    std::fill(row, row + n, 0.0f);
    return;
  }
  const Lanes shift = simd::fill(max);
  for (j = 0; j + kLanes <= n; j += kLanes) simd::store(row + j, simd::sub(simd::load(row + j), shift));
  for (; j < n; ++j) row[j] = row[j] - max;
  exp_approx_inplace(row, n);
  float sum = 0.0f;
  for (j = 0; j < n; ++j) sum += row[j];
  const Lanes total = simd::fill(sum);
  for (j = 0; j + kLanes <= n; j += kLanes) simd::store(row + j, simd::div(simd::load(row + j), total));
  for (; j < n; ++j) row[j] /= sum;
}

void AttentionScratch::reserve(const ModelConfig& c, int64_t T, int64_t Tk) {
  const int64_t Dh = c.head_dim;
  minimind::scratch(q, T * c.num_attention_heads * Dh);
  minimind::scratch(k, T * c.num_key_value_heads * Dh);
  minimind::scratch(v, T * c.num_key_value_heads * Dh);
  minimind::scratch(scores, T * Tk);
  minimind::scratch(concat, T * c.num_attention_heads * Dh);
}

void attention_forward(const ModelConfig& c, const LayerWeights& w, const float* a, int64_t T, RopeRows rope,
                       LayerKVCache& cache, const int32_t* key_mask, const AttentionOptions& options,
                       const TraceTarget& target, AttentionScratch& s, float* out) {
  const int64_t D = c.hidden_size, H = c.num_attention_heads, Hkv = c.num_key_value_heads, Dh = c.head_dim;
  const int64_t R = c.n_rep();
  const float eps = float(c.rms_norm_eps);

  // xq, xk, xv = q_proj(x), k_proj(x), v_proj(x)
  float* q = scratch(s.q, T * H * Dh);    // [T, H·Dh] = [T, H, Dh]
  float* k = scratch(s.k, T * Hkv * Dh);  // [T, Hkv·Dh]
  float* v = scratch(s.v, T * Hkv * Dh);  // [T, Hkv·Dh]
  linear_rows(a, T, D, w.q_proj, q, H * Dh);
  linear_rows(a, T, D, w.k_proj, k, Hkv * Dh);
  linear_rows(a, T, D, w.v_proj, v, Hkv * Dh);
  record(target, stage::kQProj, {T, H, Dh}, q);
  record(target, stage::kKProj, {T, Hkv, Dh}, k);
  record(target, stage::kVProj, {T, Hkv, Dh}, v);

  // xq, xk = q_norm(xq), k_norm(xk): per token and head, over Dh (gen 3).
  if (c.use_qk_norm) {
    rms_norm_inplace(q, w.q_norm.data(), T * H, Dh, eps);
    rms_norm_inplace(k, w.k_norm.data(), T * Hkv, Dh, eps);
    record(target, stage::kQNorm, {T, H, Dh}, q);
    record(target, stage::kKNorm, {T, Hkv, Dh}, k);
  }

  // apply_rotary_pos_emb: token t sits at position P + t.
  for (int64_t t = 0; t < T; ++t) {
    apply_rotary(q + t * H * Dh, H, Dh, rope.cos + t * Dh, rope.sin + t * Dh);
    apply_rotary(k + t * Hkv * Dh, Hkv, Dh, rope.cos + t * Dh, rope.sin + t * Dh);
  }
  record(target, stage::kQRope, {T, H, Dh}, q);
  record(target, stage::kKRope, {T, Hkv, Dh}, k);

  // torch.cat([past_key_value, xk], dim=1): the cache keeps k after RoPE, raw v.
  cache.append(k, v, T);
  const int64_t Tk = cache.length();
  const int64_t P = Tk - T;

  // What the trace asked for is written straight into it, head by head.
  const auto traced = [&](const char* stage_name, std::initializer_list<int64_t> shape) -> float* {
    return wants(target, stage_name) ? target.trace->slice(target.layer, stage_name, target.batch_index, shape)
                                     : nullptr;
  };
  float* raw = traced(stage::kScoresRaw, {H, T, Tk});             // [H, T, Tk]
  float* scaled = traced(stage::kScoresScaled, {H, T, Tk});       // [H, T, Tk]
  float* masked = traced(stage::kScoresMasked, {H, T, Tk});       // [H, T, Tk]
  float* weights = traced(stage::kAttnWeights, {H, T, Tk});       // [H, T, Tk]
  float* head_outputs = traced(stage::kHeadOutputs, {H, T, Dh});  // [H, T, Dh]

  const float scale = float(std::sqrt(double(Dh)));  // math.sqrt(self.head_dim)
  const float neg_inf = -std::numeric_limits<float>::infinity();
  float* concat = scratch(s.concat, T * H * Dh);  // [T, H·Dh]
  float* p = scratch(s.scores, T * Tk);           // [T, Tk]
  const int64_t n = T * Tk;
  for (int64_t h = 0; h < H; ++h) {
    const int64_t kv = h / R;  // repeat_kv: q head h reads kv head h / R
    // QKᵀ: q[:, h] against the packed keys of kv head kv. Each score is one
    // sequential sum over d, as a hand-written q·k loop adds it (lesson 11's
    // manual attention matches the module to the bit).
    linear_rows(q + h * Dh, T, H * Dh, cache.keys(kv), p, Tk);
    const int64_t offset = h * n;
    if (raw) std::copy(p, p + n, raw + offset);
    if (options.scale_scores) {
      for (int64_t e = 0; e < n; ++e) p[e] /= scale;
    }
    if (scaled) std::copy(p, p + n, scaled + offset);
    for (int64_t i = 0; i < T; ++i) {
      float* row = p + i * Tk;  // [Tk]
      for (int64_t j = 0; j < Tk; ++j) {
        // Causal: query i sits at P + i and sees keys 0..P+i (triu(1) of -inf).
        if (options.causal_mask && j > P + i) row[j] += neg_inf;
        // Padding: scores += (1 - attention_mask) * -1e9.
        if (key_mask) row[j] += (1.0f - float(key_mask[j])) * -1e9f;
      }
    }
    if (masked) std::copy(p, p + n, masked + offset);
    for (int64_t i = 0; i < T; ++i) softmax_inplace(p + i * Tk, Tk);
    if (weights) std::copy(p, p + n, weights + offset);
    // o[i] = Σ_j P[i, j]·v[j, kv], keys in order: the same sum for a row
    // whether it is computed alone (decoding) or with the whole prefix.
    for (int64_t i = 0; i < T; ++i) {
      float* o = concat + i * H * Dh + h * Dh;  // [Dh]
      std::fill(o, o + Dh, 0.0f);
      for (int64_t j = 0; j < Tk; ++j) {
        const float weight = p[i * Tk + j];
        if (weight == 0.0f) continue;  // masked keys add nothing
        const float* v_j = cache.v() + j * Hkv * Dh + kv * Dh;
        for (int64_t d = 0; d < Dh; ++d) o[d] += weight * v_j[d];
      }
      if (head_outputs) std::copy(o, o + Dh, head_outputs + (h * T + i) * Dh);
    }
  }
  record(target, stage::kAttnConcat, {T, H * Dh}, concat);

  linear_rows(concat, T, H * Dh, w.o_proj, out, D);  // [T, D]
  record(target, stage::kOProj, {T, D}, out);
}

}  // namespace minimind
