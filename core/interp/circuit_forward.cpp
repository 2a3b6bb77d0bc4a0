#include "interp/circuit_forward.h"

#include <algorithm>
#include <utility>

#include "ops/ffn.h"
#include "ops/linear.h"
#include "ops/rmsnorm.h"
#include "ops/rope.h"
#include "util/tensor.h"

namespace minimind {

CircuitForward::CircuitForward(const Model& model, int32_t answer, int32_t wrong, int64_t T,
                               std::vector<uint8_t> ablated)
    : model_(model), graph_(model.config()), T_(T), ablated_(std::move(ablated)) {
  const ModelConfig& c = model.config();
  const int64_t D = c.hidden_size, Dh = c.head_dim;
  for (const LayerWeights& w : model.weights().layers) heads_.push_back(block_head_weights(c, w));
  const RotaryEmbedding rope(c);
  cos_.resize(size_t(T * Dh));
  sin_.resize(size_t(T * Dh));
  for (int64_t t = 0; t < T; ++t) rope.cos_sin(t, cos_.data() + t * Dh, sin_.data() + t * Dh);
  answer_row_.resize(size_t(D));
  wrong_row_.resize(size_t(D));
  model.weights().output_head().row(answer, answer_row_.data());
  model.weights().output_head().row(wrong, wrong_row_.data());
  direction_.resize(size_t(D));
  for (int64_t i = 0; i < D; ++i) direction_[size_t(i)] = answer_row_[size_t(i)] - wrong_row_[size_t(i)];
}

float CircuitForward::metric(const float* x) const {
  const ModelConfig& c = config();
  const int64_t D = c.hidden_size;
  std::vector<float> normed(static_cast<size_t>(D));  // [D]
  rms_norm_rows(x, model_.weights().norm.data(), 1, D, float(c.rms_norm_eps), normed.data());
  // logits[answer] - logits[wrong], each logit one sequential sum as linear_rows sums it.
  float answer = 0.0f, wrong = 0.0f;
  for (int64_t i = 0; i < D; ++i) answer += normed[size_t(i)] * answer_row_[size_t(i)];
  for (int64_t i = 0; i < D; ++i) wrong += normed[size_t(i)] * wrong_row_[size_t(i)];
  return answer - wrong;
}

void CircuitForward::attn_norm(int64_t l, const float* x, float* out) const {
  const ModelConfig& c = config();
  rms_norm_rows(x, model_.weights().layers[size_t(l)].input_layernorm.data(), T_, c.hidden_size, float(c.rms_norm_eps),
                out);
}

void CircuitForward::head_q(int64_t l, int64_t h, const float* normed, float* q) const {
  const ModelConfig& c = config();
  const int64_t D = c.hidden_size, Dh = c.head_dim;
  linear_rows(normed, T_, D, heads_[size_t(l)].q[size_t(h)], q, Dh);
  if (c.use_qk_norm) {
    rms_norm_inplace(q, model_.weights().layers[size_t(l)].q_norm.data(), T_, Dh, float(c.rms_norm_eps));
  }
  for (int64_t t = 0; t < T_; ++t) apply_rotary(q + t * Dh, 1, Dh, cos(t), sin(t));
}

void CircuitForward::head_k(int64_t l, int64_t h, const float* normed, float* k) const {
  const ModelConfig& c = config();
  const int64_t D = c.hidden_size, Dh = c.head_dim, R = c.num_attention_heads / c.num_key_value_heads;
  linear_rows(normed, T_, D, heads_[size_t(l)].k[size_t(h / R)], k, Dh);
  if (c.use_qk_norm) {
    rms_norm_inplace(k, model_.weights().layers[size_t(l)].k_norm.data(), T_, Dh, float(c.rms_norm_eps));
  }
  for (int64_t t = 0; t < T_; ++t) apply_rotary(k + t * Dh, 1, Dh, cos(t), sin(t));
}

void CircuitForward::head_v(int64_t l, int64_t h, const float* normed, float* v) const {
  const ModelConfig& c = config();
  const int64_t R = c.num_attention_heads / c.num_key_value_heads;
  linear_rows(normed, T_, c.hidden_size, heads_[size_t(l)].v[size_t(h / R)], v, c.head_dim);
}

void CircuitForward::attend(const float* q, const float* k, const float* v, float* z, CircuitScratch& s) const {
  float* probs = scratch(s.probs, T_ * T_);  // [1, T, T]
  attention_core_forward(q, k, v, T_, 1, 1, config().head_dim, true, probs, z, s.attention);
}

void CircuitForward::ffn_half(int64_t l, const float* resid, const float* ffn_in, int64_t first, CircuitBlock& b,
                              float* out, CircuitScratch& /*s*/) const {
  const ModelConfig& c = config();
  const LayerWeights& w = model_.weights().layers[size_t(l)];
  const int64_t T = T_, D = c.hidden_size, rows = T - first;
  float* ffn_norm = scratch(b.ffn_norm, T * D) + first * D;  // [rows, D]
  float* ffn_out = scratch(b.ffn_out, T * D) + first * D;    // [rows, D]
  rms_norm_rows(ffn_in + first * D, w.post_attention_layernorm.data(), rows, D, float(c.rms_norm_eps), ffn_norm);
  // MiniMind's FeedForward or MOEFeedForward (the routing chosen here, kept for the backward).
  ffn_block_forward(c, w, ffn_norm, rows, ffn_out, b.ffn);
  for (int64_t i = 0; i < rows * D; ++i) out[first * D + i] = resid[first * D + i] + ffn_out[i];
}

void CircuitForward::block(int64_t l, const float* input, CircuitBlock& b, float* out, bool last_row_only,
                           CircuitScratch& s, const CircuitBlock* clean, int64_t same) const {
  const ModelConfig& c = config();
  const LayerWeights& w = model_.weights().layers[size_t(l)];
  const int64_t T = T_, D = c.hidden_size, H = c.num_attention_heads, Hkv = c.num_key_value_heads;
  const int64_t Dh = c.head_dim, qd = c.q_dim(), kvd = c.kv_dim();
  const float eps = float(c.rms_norm_eps);
  const int64_t p = clean ? same : 0, n = T - p;  // rows p..T-1 are computed
  float* x = scratch(b.input, T * D);             // [T, D]; out may be input
  std::copy(input, input + T * D, x);
  float* normed = scratch(b.attn_norm, T * D);
  rms_norm_rows(x + p * D, w.input_layernorm.data(), n, D, eps, normed + p * D);
  float* q = scratch(b.q, T * qd);  // [T, H·Dh]
  float* k = scratch(b.k, T * kvd);
  float* v = scratch(b.v, T * kvd);
  if (p > 0) {  // the clean run's queries, keys and values of the unchanged rows
    std::copy_n(clean->q.data(), p * qd, q);
    std::copy_n(clean->k.data(), p * kvd, k);
    std::copy_n(clean->v.data(), p * kvd, v);
  }
  linear_rows(normed + p * D, n, D, w.q_proj, q + p * qd, qd);
  linear_rows(normed + p * D, n, D, w.k_proj, k + p * kvd, kvd);
  linear_rows(normed + p * D, n, D, w.v_proj, v + p * kvd, kvd);
  if (c.use_qk_norm) {
    // The backward needs q and k before q_norm / k_norm (clean runs start at row 0).
    std::copy(q + p * qd, q + T * qd, scratch(b.q_pre, T * qd) + p * qd);
    std::copy(k + p * kvd, k + T * kvd, scratch(b.k_pre, T * kvd) + p * kvd);
    rms_norm_inplace(q + p * qd, w.q_norm.data(), n * H, Dh, eps);
    rms_norm_inplace(k + p * kvd, w.k_norm.data(), n * Hkv, Dh, eps);
  }
  for (int64_t t = p; t < T; ++t) {
    apply_rotary(q + t * qd, H, Dh, cos(t), sin(t));
    apply_rotary(k + t * kvd, Hkv, Dh, cos(t), sin(t));
  }
  float* probs = scratch(b.probs, H * T * T);  // [H, T, T]
  float* concat = scratch(b.concat, T * qd);   // [T, H·Dh]
  attention_core_forward(q, k, v, T, H, Hkv, Dh, true, probs, concat, s.attention);
  for (int64_t hd = 0; hd < H; ++hd) {  // a switched-off head writes nothing
    if (!ablated(l, hd)) continue;
    for (int64_t t = 0; t < T; ++t) std::fill_n(concat + t * qd + hd * Dh, Dh, 0.0f);
  }
  // h = h + o_proj(concat); a last-row-only block needs the last row alone.
  const int64_t first = std::max(p, last_row_only ? T - 1 : int64_t{0});
  float* resid = scratch(b.attn_residual, T * D);
  linear_rows(concat + first * qd, T - first, qd, w.o_proj, resid + first * D, D);
  for (int64_t i = first * D; i < T * D; ++i) resid[i] += x[i];
  ffn_half(l, resid, resid, first, b, out, s);
}

float CircuitForward::metric_from(int64_t first, float* h, CircuitScratch& s, const CircuitRun* clean,
                                  int64_t same) const {
  const int64_t L = config().num_hidden_layers, D = config().hidden_size;
  for (int64_t l = first; l < L; ++l) {
    block(l, h, s.block, h, l == L - 1, s, clean ? &clean->blocks[size_t(l)] : nullptr, same);
    if (clean && same > 0 && l + 1 < L) {
      // Rows before `same` leave the block as they left it in the clean run.
      std::copy_n(clean->blocks[size_t(l + 1)].input.data(), same * D, h);
    }
  }
  return metric(h + (T_ - 1) * D);
}

void CircuitForward::run(const std::vector<int32_t>& ids, CircuitRun& r) const {
  const ModelConfig& c = config();
  const int64_t T = T_, D = c.hidden_size, L = c.num_hidden_layers, H = c.num_attention_heads;
  const int64_t Dh = c.head_dim, qd = c.q_dim();
  r.T = T;
  r.blocks.resize(size_t(L));
  float* senders = scratch(r.senders, graph_.senders() * T * D);  // [S, T, D]
  for (int64_t t = 0; t < T; ++t) model_.weights().embed_tokens.row(ids[size_t(t)], senders + t * D);
  float* h = scratch(r.final_input, T * D);
  std::copy(senders, senders + T * D, h);
  CircuitScratch s;
  for (int64_t l = 0; l < L; ++l) {
    CircuitBlock& b = r.blocks[size_t(l)];
    block(l, h, b, h, false, s);
    // Each head's write: z_h through o_proj's columns of head h.
    for (int64_t hd = 0; hd < H; ++hd) {
      linear_rows(b.concat.data() + hd * Dh, T, qd, heads_[size_t(l)].o[size_t(hd)],
                  senders + graph_.head_sender(l, hd) * T * D, D);
    }
    std::copy(b.ffn_out.begin(), b.ffn_out.begin() + T * D, senders + graph_.ffn_sender(l) * T * D);
  }
  r.metric = metric(h + (T - 1) * D);
}

}  // namespace minimind
