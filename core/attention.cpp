#include "attention.h"

#include <cmath>
#include <limits>

#include "exp_approx.h"
#include "linear.h"
#include "rmsnorm.h"
#include "trace.h"

namespace minimind {

namespace {

void record(const TraceTarget& t, const char* stage_name, const Shape& shape, const float* data) {
  if (t.trace && t.trace->wants(t.layer, stage_name)) t.trace->put(t.layer, stage_name, t.batch_index, shape, data);
}

bool wants(const TraceTarget& t, const char* stage_name) { return t.trace && t.trace->wants(t.layer, stage_name); }

}  // namespace

void softmax_inplace(float* row, int64_t n) {
  float max = -std::numeric_limits<float>::infinity();
  for (int64_t j = 0; j < n; ++j) max = std::max(max, row[j]);
  if (max == -std::numeric_limits<float>::infinity()) {
    for (int64_t j = 0; j < n; ++j) row[j] = 0.0f;
    return;
  }
  for (int64_t j = 0; j < n; ++j) row[j] = row[j] - max;
  exp_approx_inplace(row, n);
  float sum = 0.0f;
  for (int64_t j = 0; j < n; ++j) sum += row[j];
  for (int64_t j = 0; j < n; ++j) row[j] /= sum;
}

Matrix attention_forward(const ModelConfig& c, const LayerWeights& w, const RotaryEmbedding& rope, const Matrix& a,
                         int64_t start_position, LayerKVCache& cache, const std::vector<int32_t>& key_mask,
                         const AttentionOptions& options, const TraceTarget& target) {
  const int64_t T = a.rows(), H = c.num_attention_heads, Hkv = c.num_key_value_heads, Dh = c.head_dim;
  const int64_t R = c.n_rep();
  const float eps = float(c.rms_norm_eps);

  // xq, xk, xv = q_proj(x), k_proj(x), v_proj(x)
  Matrix q = linear(a, w.q_proj);  // [T, H·Dh] = [T, H, Dh]
  Matrix k = linear(a, w.k_proj);  // [T, Hkv·Dh]
  Matrix v = linear(a, w.v_proj);  // [T, Hkv·Dh]
  record(target, stage::kQProj, {T, H, Dh}, q.data());
  record(target, stage::kKProj, {T, Hkv, Dh}, k.data());
  record(target, stage::kVProj, {T, Hkv, Dh}, v.data());

  // xq, xk = q_norm(xq), k_norm(xk): per token and head, over Dh (gen 3).
  if (c.use_qk_norm) {
    rms_norm_inplace(q.data(), w.q_norm.data(), T * H, Dh, eps);
    rms_norm_inplace(k.data(), w.k_norm.data(), T * Hkv, Dh, eps);
    record(target, stage::kQNorm, {T, H, Dh}, q.data());
    record(target, stage::kKNorm, {T, Hkv, Dh}, k.data());
  }

  // apply_rotary_pos_emb: token t sits at position start_position + t.
  for (int64_t t = 0; t < T; ++t) {
    rope.apply(q.row(t).data(), H, start_position + t);
    rope.apply(k.row(t).data(), Hkv, start_position + t);
  }
  record(target, stage::kQRope, {T, H, Dh}, q.data());
  record(target, stage::kKRope, {T, Hkv, Dh}, k.data());

  // torch.cat([past_key_value, xk], dim=1): the cache keeps k after RoPE, raw v.
  cache.k.insert(cache.k.end(), k.data(), k.data() + k.size());
  cache.v.insert(cache.v.end(), v.data(), v.data() + v.size());
  const int64_t Tk = int64_t(cache.k.size()) / (Hkv * Dh);
  const int64_t P = Tk - T;

  const bool keep_scores = wants(target, stage::kScoresRaw) || wants(target, stage::kScoresScaled) ||
                           wants(target, stage::kScoresMasked) || wants(target, stage::kAttnWeights);
  std::vector<float> raw, scaled, masked, weights, head_outputs;
  if (keep_scores) {
    raw.resize(size_t(H * T * Tk));
    scaled.resize(raw.size());
    masked.resize(raw.size());
    weights.resize(raw.size());
  }
  if (wants(target, stage::kHeadOutputs)) head_outputs.resize(size_t(H * T * Dh));

  const float scale = float(std::sqrt(double(Dh)));  // math.sqrt(self.head_dim)
  const float neg_inf = -std::numeric_limits<float>::infinity();
  Matrix concat(T, H * Dh);  // [T, H·Dh]
  WeightMatrix packed_keys;  // the keys of the current kv head
  for (int64_t h = 0; h < H; ++h) {
    const int64_t kv = h / R;  // repeat_kv: q head h reads kv head h / R
    Matrix s(T, Tk);           // [T, Tk] = QKᵀ: q[:, h] against k[:, kv]
    if (h % R == 0) {
      // Kv head kv's keys [Tk, Dh], packed for the matrix kernel: each score
      // is then one sequential sum over d, as a hand-written q·k loop adds
      // it (lesson 11's manual attention matches the module to the bit).
      Matrix keys(Tk, Dh);
      for (int64_t j = 0; j < Tk; ++j) std::copy_n(cache.k.data() + j * Hkv * Dh + kv * Dh, Dh, keys.row(j).data());
      packed_keys = WeightMatrix(keys);
    }
    linear_rows(q.data() + h * Dh, T, H * Dh, packed_keys, s.data(), Tk);
    const size_t offset = size_t(h * T * Tk);
    if (keep_scores) std::copy(s.data(), s.data() + s.size(), raw.begin() + offset);
    if (options.scale_scores) s /= scale;
    if (keep_scores) std::copy(s.data(), s.data() + s.size(), scaled.begin() + offset);
    for (int64_t i = 0; i < T; ++i) {
      for (int64_t j = 0; j < Tk; ++j) {
        // Causal: query i sits at P + i and sees keys 0..P+i (triu(1) of -inf).
        if (options.causal_mask && j > P + i) s(i, j) += neg_inf;
        // Padding: scores += (1 - attention_mask) * -1e9.
        if (!key_mask.empty()) s(i, j) += (1.0f - float(key_mask[size_t(j)])) * -1e9f;
      }
    }
    if (keep_scores) std::copy(s.data(), s.data() + s.size(), masked.begin() + offset);
    for (int64_t i = 0; i < T; ++i) softmax_inplace(s.row(i).data(), Tk);
    if (keep_scores) std::copy(s.data(), s.data() + s.size(), weights.begin() + offset);
    // o[i] = Σ_j P[i, j]·v[j, kv], keys in order: the same sum for a row
    // whether it is computed alone (decoding) or with the whole prefix.
    for (int64_t i = 0; i < T; ++i) {
      float* o = concat.row(i).data() + h * Dh;  // [Dh]
      std::fill(o, o + Dh, 0.0f);
      for (int64_t j = 0; j < Tk; ++j) {
        const float p = s(i, j);
        if (p == 0.0f) continue;  // masked keys add nothing
        const float* v_j = cache.v.data() + j * Hkv * Dh + kv * Dh;
        for (int64_t d = 0; d < Dh; ++d) o[d] += p * v_j[d];
      }
      if (!head_outputs.empty()) std::copy(o, o + Dh, head_outputs.begin() + (h * T + i) * Dh);
    }
  }
  if (keep_scores) {
    record(target, stage::kScoresRaw, {H, T, Tk}, raw.data());
    record(target, stage::kScoresScaled, {H, T, Tk}, scaled.data());
    record(target, stage::kScoresMasked, {H, T, Tk}, masked.data());
    record(target, stage::kAttnWeights, {H, T, Tk}, weights.data());
  }
  if (!head_outputs.empty()) record(target, stage::kHeadOutputs, {H, T, Dh}, head_outputs.data());
  record(target, stage::kAttnConcat, {T, H * Dh}, concat.data());

  Matrix out = linear(concat, w.o_proj);  // [T, D]
  record(target, stage::kOProj, {T, c.hidden_size}, out.data());
  return out;
}

}  // namespace minimind
