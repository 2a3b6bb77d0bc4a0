#include "ops/attention.h"

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <limits>

#include "ops/exp_approx.h"
#include "ops/linear.h"
#include "ops/rmsnorm.h"
#include "ops/rope.h"
#include "tensors/trace.h"
#include "util/simd_lanes.h"
#include "util/thread_pool.h"

namespace minimind {

namespace {

// Below this many multiply-adds in a call's scores, heads run on the caller alone.
constexpr int64_t kMinParallelProducts = int64_t(1) << 17;

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
  // A causal row ends in -inf (the mask). Those give exp(-inf - max) = 0
  // whatever the max, add +0 to the sum and become 0 / sum: so only the
  // first m values go through max, exp and the sum, and the tail is set to
  // 0 / sum, the bits the whole row would give it (0, or NaN where the sum is).
  int64_t m = n;
  while (m > 0 && row[m - 1] == neg_inf) --m;
  // The max is exact in any order; subtracting and dividing are per value:
  // lanes give the bits of a scalar loop. The sum stays one sequential sum,
  // as lesson 11's hand-written softmax adds it.
  Lanes max4 = simd::fill(neg_inf);
  int64_t j = 0;
  for (; j + kLanes <= m; j += kLanes) max4 = simd::max(max4, simd::load(row + j));
  float lanes[kLanes];
  simd::store(lanes, max4);
  float max = neg_inf;
  for (const float v : lanes) max = std::max(max, v);
  for (; j < m; ++j) max = std::max(max, row[j]);
  if (max == neg_inf) {
    std::fill(row, row + n, 0.0f);
    return;
  }
  const Lanes shift = simd::fill(max);
  for (j = 0; j + kLanes <= m; j += kLanes) simd::store(row + j, simd::sub(simd::load(row + j), shift));
  for (; j < m; ++j) row[j] = row[j] - max;
  exp_approx_inplace(row, m);
  float sum = 0.0f;
  for (j = 0; j < m; ++j) sum += row[j];
  const Lanes total = simd::fill(sum);
  for (j = 0; j + kLanes <= m; j += kLanes) simd::store(row + j, simd::div(simd::load(row + j), total));
  for (; j < m; ++j) row[j] /= sum;
  std::fill(row + m, row + n, 0.0f / sum);
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
  const int64_t n = T * Tk;
  // Heads in parallel when there is enough work (a long prompt), each on its
  // thread's scores buffer; every head writes only its own outputs.
  const bool in_parallel = thread_count() > 1 && H > 1 && n * Dh * H >= kMinParallelProducts;
  const auto one_head = [&](int64_t h) {
    thread_local std::vector<float> own_scores;
    float* p = in_parallel ? scratch(own_scores, n) : scratch(s.scores, n);  // [T, Tk]
    const int64_t kv = h / R;                                                // repeat_kv: q head h reads kv head h / R
    // QKᵀ: q[:, h] against the packed keys of kv head kv. Each score is one
    // sequential sum over d, as a hand-written q·k loop adds it (lesson 11's
    // manual attention matches the module to the bit).
    linear_rows_unfused(q + h * Dh, T, H * Dh, cache.keys(kv), p, Tk);
    const int64_t offset = h * n;
    if (raw) std::copy(p, p + n, raw + offset);
    if (options.scale_scores) {
      for (int64_t e = 0; e < n; ++e) p[e] /= scale;
    }
    if (scaled) std::copy(p, p + n, scaled + offset);
    for (int64_t i = 0; i < T; ++i) {
      float* row = p + i * Tk;  // [Tk]
      // Causal: query i sits at P + i and sees keys 0..P+i (triu(1) of -inf).
      if (options.causal_mask) {
        for (int64_t j = P + i + 1; j < Tk; ++j) row[j] += neg_inf;
      }
      // Padding: scores += (1 - attention_mask) * -1e9, after the causal mask.
      if (key_mask) {
        for (int64_t j = 0; j < Tk; ++j) row[j] += (1.0f - float(key_mask[j])) * -1e9f;
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
      if (options.ablated_heads && options.ablated_heads[h]) std::fill(o, o + Dh, 0.0f);
      if (options.patched_heads && options.patched_heads[h]) {
        std::copy(options.patched_heads[h] + i * Dh, options.patched_heads[h] + (i + 1) * Dh, o);
      }
    }
  };
  if (in_parallel) {
    parallel_for(H, one_head);
  } else {
    for (int64_t h = 0; h < H; ++h) one_head(h);
  }
  record(target, stage::kAttnConcat, {T, H * Dh}, concat);

  linear_rows(concat, T, H * Dh, w.o_proj, out, D);  // [T, D]
  record(target, stage::kOProj, {T, D}, out);
}

// ---- training: one sequence, no cache, causal mask, no padding mask -------

namespace {

constexpr int64_t kKeyPanel = PanelsView::kPanelRows;

// A [rows, cols] (row stride a_stride) packed as a [rows, cols] view, zero-
// padded: the layout LayerKVCache::append gives the keys, so the score
// kernel sums the same products in the same order as attention_forward.
PanelsView pack_rows(const float* a, int64_t rows, int64_t cols, int64_t a_stride, std::vector<float>& storage) {
  const int64_t panels = (rows + kKeyPanel - 1) / kKeyPanel;
  float* packed = scratch(storage, panels * cols * kKeyPanel);  // [⌈rows/8⌉, cols, 8]
  // The last panel's padding lanes (the buffer holds whatever came before).
  std::fill(packed + (rows / kKeyPanel) * cols * kKeyPanel, packed + panels * cols * kKeyPanel, 0.0f);
  for (int64_t r = 0; r < rows; ++r) {
    float* lane = packed + (r / kKeyPanel) * cols * kKeyPanel + r % kKeyPanel;  // row r: panel r/8, lane r%8
    const float* row = a + r * a_stride;
    for (int64_t i = 0; i < cols; ++i) lane[i * kKeyPanel] = row[i];
  }
  return PanelsView{rows, cols, WeightStorage::F32, packed, nullptr};
}

// to [T, Dh] (row stride to_stride: one kv head's columns of [T, Hkv·Dh]) += from [T, Dh].
void add_head(const float* from, int64_t T, int64_t Dh, float* to, int64_t to_stride) {
  for (int64_t t = 0; t < T; ++t) {
    for (int64_t d = 0; d < Dh; ++d) to[t * to_stride + d] += from[t * Dh + d];
  }
}

}  // namespace

void attention_core_forward(const float* q, const float* k, const float* v, int64_t T, int64_t H, int64_t Hkv,
                            int64_t Dh, bool scale_scores, float* probs, float* concat, AttentionCoreScratch& s) {
  const int64_t R = H / Hkv, n = T * T;
  const float scale = float(std::sqrt(double(Dh)));  // math.sqrt(self.head_dim)
  const float neg_inf = -std::numeric_limits<float>::infinity();
  PanelsView keys;  // kv head h/R's keys [T, Dh], packed
  for (int64_t h = 0; h < H; ++h) {
    const int64_t kv = h / R;  // repeat_kv: q head h reads kv head h / R
    if (h % R == 0) keys = pack_rows(k + kv * Dh, T, Dh, Hkv * Dh, s.panels);
    // Each step exactly as attention_forward takes it, for the same bits.
    float* p = probs + h * n;  // [T, T]
    linear_rows_unfused(q + h * Dh, T, H * Dh, keys, p, T);
    if (scale_scores) {
      for (int64_t e = 0; e < n; ++e) p[e] /= scale;
    }
    for (int64_t i = 0; i < T; ++i) {
      for (int64_t j = i + 1; j < T; ++j) p[i * T + j] += neg_inf;  // triu(1) of -inf
    }
    for (int64_t i = 0; i < T; ++i) softmax_inplace(p + i * T, T);
    for (int64_t i = 0; i < T; ++i) {
      float* o = concat + i * H * Dh + h * Dh;  // [Dh]
      std::fill(o, o + Dh, 0.0f);
      for (int64_t j = 0; j < T; ++j) {
        const float weight = p[i * T + j];
        if (weight == 0.0f) continue;
        const float* v_j = v + j * Hkv * Dh + kv * Dh;
        for (int64_t d = 0; d < Dh; ++d) o[d] += weight * v_j[d];
      }
    }
  }
}

void attention_core_backward(const float* q, const float* k, const float* v, const float* probs, const float* dconcat,
                             int64_t T, int64_t H, int64_t Hkv, int64_t Dh, bool scale_scores, float* dq, float* dk,
                             float* dv, AttentionCoreScratch& s) {
  const int64_t R = H / Hkv, q_stride = H * Dh, kv_stride = Hkv * Dh;
  const float scale = float(std::sqrt(double(Dh)));
  std::fill(dk, dk + T * kv_stride, 0.0f);
  std::fill(dv, dv + T * kv_stride, 0.0f);
  float* ds = scratch(s.dscores, T * T);            // [T, T]: dP, then dS
  float* transposed = scratch(s.row_major, T * T);  // [T, T]: Pᵀ, then dSᵀ
  float* product = scratch(s.product, T * Dh);      // [T, Dh]: one head's dV or dK
  // Each product below runs through linear_rows_unfused (the attention's
  // products round as the forward's do, in every build), one row of its left
  // operand against the panels of the right one (packed, or packed
  // transposed, into s.panels just before).
  for (int64_t h = 0; h < H; ++h) {
    const int64_t kv = h / R;
    const float* p = probs + h * T * T;    // [T, T]
    const float* dout = dconcat + h * Dh;  // [T, Dh], row stride H·Dh
    const float* q_h = q + h * Dh;         // [T, Dh], row stride H·Dh
    const float* k_kv = k + kv * Dh;       // [T, Dh], row stride Hkv·Dh
    const float* v_kv = v + kv * Dh;       // [T, Dh], row stride Hkv·Dh

    // o = P·v: dP [T, T] = dO·vᵀ, dv [T, Dh] += Pᵀ·dO.
    linear_rows_unfused(dout, T, q_stride, pack_rows(v_kv, T, Dh, kv_stride, s.panels), ds, T);
    transpose(p, T, T, T, transposed);
    linear_rows_unfused(transposed, T, T, pack_transposed(dout, T, Dh, q_stride, s.panels), product, Dh);
    add_head(product, T, Dh, dv + kv * Dh, kv_stride);

    // P = softmax(S) row by row; query i's masked keys j > i have P = 0 and
    // so dS = 0 (the -inf added to them passes no gradient either).
    for (int64_t i = 0; i < T; ++i) {
      softmax_backward(p + i * T, ds + i * T, i + 1, ds + i * T);
      std::fill(ds + i * T + i + 1, ds + (i + 1) * T, 0.0f);
    }
    if (scale_scores) {  // S = q·kᵀ / √Dh
      for (int64_t e = 0; e < T * T; ++e) ds[e] /= scale;
    }

    // S = q·kᵀ: dq [T, Dh] = dS·k (this head's own columns), dk += dSᵀ·q.
    linear_rows_unfused(ds, T, T, pack_transposed(k_kv, T, Dh, kv_stride, s.panels), dq + h * Dh, q_stride);
    transpose(ds, T, T, T, transposed);
    linear_rows_unfused(transposed, T, T, pack_transposed(q_h, T, Dh, q_stride, s.panels), product, Dh);
    add_head(product, T, Dh, dk + kv * Dh, kv_stride);
  }
}

void softmax_backward(const float* p, const float* dp, int64_t n, float* ds) {
  // p = softmax(s): ds_j = p_j·(dp_j - Σ_k p_k·dp_k), the sum read before ds
  // (which may be dp) is written.
  float dot = 0.0f;
  for (int64_t j = 0; j < n; ++j) dot += p[j] * dp[j];
  for (int64_t j = 0; j < n; ++j) ds[j] = p[j] * (dp[j] - dot);
}

}  // namespace minimind
