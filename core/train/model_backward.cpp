#include "train/model_backward.h"

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "ops/embedding.h"
#include "ops/ffn.h"
#include "ops/rmsnorm.h"
#include "train/loss.h"
#include "train/pretrain_data.h"
#include "util/error.h"
#include "util/thread_pool.h"

namespace minimind {

namespace {

constexpr size_t kNone = SIZE_MAX;
constexpr int64_t kHeadChunkRows = 256;

void add_into(float* y, const float* x, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] += x[i];
}

}  // namespace

template <typename Task>
void ModelBackward::for_sequences(int64_t B, const Task& task) {
  const int64_t parts = std::min<int64_t>(thread_count(), B);
  if (int64_t(attention_.size()) < parts) attention_.resize(size_t(parts));
  parallel_for(parts, [&](int64_t part) {
    const Range sequences = split_range(B, parts, part);
    for (int64_t b = sequences.begin; b < sequences.end; ++b) task(b, attention_[size_t(part)]);
  });
}

ModelBackward::ModelBackward(const Model& model, const std::vector<Parameter>& params) : rope_(model.config()) {
  const ModelConfig& c = model.config();
  embed_ = parameter_index(params, "model.embed_tokens.weight");
  norm_ = parameter_index(params, "model.norm.weight");
  head_ = c.tie_word_embeddings ? embed_ : parameter_index(params, "lm_head.weight");
  for (int64_t l = 0; l < c.num_hidden_layers; ++l) {
    const std::string p = "model.layers." + std::to_string(l);
    const auto at = [&](const char* suffix) { return parameter_index(params, p + suffix); };
    LayerParams lp{};
    lp.input_layernorm = at(".input_layernorm.weight");
    lp.q_proj = at(".self_attn.q_proj.weight");
    lp.k_proj = at(".self_attn.k_proj.weight");
    lp.v_proj = at(".self_attn.v_proj.weight");
    lp.o_proj = at(".self_attn.o_proj.weight");
    if (c.use_qk_norm) {
      lp.q_norm = at(".self_attn.q_norm.weight");
      lp.k_norm = at(".self_attn.k_norm.weight");
    }
    lp.post_attention_layernorm = at(".post_attention_layernorm.weight");
    if (c.use_moe) {
      lp.router = at(".mlp.gate.weight");
      const auto swiglu = [&](const std::string& name, std::vector<size_t>& into) {
        for (const char* proj : {".gate_proj.weight", ".up_proj.weight", ".down_proj.weight"}) {
          into.push_back(parameter_index(params, p + name + proj));
        }
      };
      const WeightMatrix& router = model.weights().layers[size_t(l)].moe.gate;
      for (int64_t e = 0; e < router.rows(); ++e) swiglu(".mlp.experts." + std::to_string(e), lp.experts);
      for (size_t e = 0; e < model.weights().layers[size_t(l)].moe.shared_experts.size(); ++e) {
        swiglu(".mlp.shared_experts." + std::to_string(e), lp.shared);
      }
    } else {
      lp.gate_proj = at(".mlp.gate_proj.weight");
      lp.up_proj = at(".mlp.up_proj.weight");
      lp.down_proj = at(".mlp.down_proj.weight");
    }
    layer_params_.push_back(lp);
  }
  layers_.resize(size_t(c.num_hidden_layers));
  // Every weight the backward multiplies a gradient by: the linears and the
  // output head (the embedding itself only when tied).
  transposed_of_.assign(params.size(), kNone);
  const auto want = [&](size_t param) {
    if (transposed_of_[param] != kNone) return;
    transposed_of_[param] = transposed_.size();
    transposed_.push_back({param, {}, {}});
  };
  // (MoE blocks pack their own from the model's weights, ffn_block.h.)
  for (const LayerParams& lp : layer_params_) {
    for (size_t p : {lp.q_proj, lp.k_proj, lp.v_proj, lp.o_proj}) want(p);
    if (!c.use_moe) {
      for (size_t p : {lp.gate_proj, lp.up_proj, lp.down_proj}) want(p);
    }
  }
  want(head_);
  weights_changed(params);
}

void ModelBackward::weights_changed(const std::vector<Parameter>& params) {
  for (TransposedWeight& t : transposed_) {
    const Parameter& p = params[t.param];
    // W [out, in] -> Wᵀ [in, out] in panels.
    t.view = pack_transposed(p.value.data(), p.shape[0], p.shape[1], p.shape[1], t.storage);
  }
}

const PanelsView& ModelBackward::transposed(size_t param) const { return transposed_[transposed_of_[param]].view; }

FfnGradients ModelBackward::moe_gradients(const LayerParams& p, std::vector<Parameter>& params) const {
  FfnGradients g;
  g.router = params[p.router].grad.data();
  const auto swiglu = [&](const std::vector<size_t>& list, size_t e) {
    return SwigluGradients{params[list[3 * e]].grad.data(), params[list[3 * e + 1]].grad.data(),
                           params[list[3 * e + 2]].grad.data()};
  };
  for (size_t e = 0; e < p.experts.size() / 3; ++e) g.experts.push_back(swiglu(p.experts, e));
  for (size_t e = 0; e < p.shared.size() / 3; ++e) g.shared_experts.push_back(swiglu(p.shared, e));
  return g;
}

size_t ModelBackward::activation_bytes() const {
  size_t floats = 0;
  for (const LayerActivations& a : layers_) {
    for (const std::vector<float>* v : {&a.input, &a.attn_norm, &a.q_proj, &a.k_proj, &a.q, &a.k, &a.v, &a.probs,
                                        &a.concat, &a.attn_residual, &a.ffn_norm, &a.gate, &a.up, &a.act}) {
      floats += v->capacity();
    }
  }
  size_t bytes = moe_.bytes();
  for (const LayerActivations& a : layers_) bytes += a.moe.bytes();
  for (const std::vector<float>* v :
       {&cos_, &sin_, &final_input_, &final_norm_, &logits_, &d_hidden_, &d_branch_, &d_other_, &d_ffn_, &d_up_,
        &d_concat_, &d_q_, &d_k_, &d_v_, &linear_.dy_t, &linear_.x_panels, &linear_.dw}) {
    floats += v->capacity();
  }
  for (const AttentionCoreScratch& a : attention_) {
    floats += a.panels.capacity() + a.row_major.capacity() + a.dscores.capacity() + a.product.capacity();
  }
  return bytes + floats * sizeof(float) + targets_.capacity() * sizeof(int32_t);
}

size_t ModelBackward::transposed_weight_bytes() const {
  size_t floats = 0;
  for (const TransposedWeight& t : transposed_) floats += t.storage.capacity();
  return floats * sizeof(float);
}

// One MiniMindBlock on N = B·T rows h [N, D] -> out [N, D], keeping what the
// backward needs. The ops and their order are Model::forward_into's.
void ModelBackward::forward_layer(const ModelConfig& c, const LayerWeights& w, LayerActivations& a, const float* h,
                                  int64_t B, int64_t T, float* out) {
  const int64_t N = B * T, D = c.hidden_size, H = c.num_attention_heads, Hkv = c.num_key_value_heads;
  const int64_t Dh = c.head_dim, F = c.intermediate_size, qd = c.q_dim(), kvd = c.kv_dim();
  const float eps = float(c.rms_norm_eps);
  float* input = scratch(a.input, N * D);
  std::copy(h, h + N * D, input);
  float* attn_norm = scratch(a.attn_norm, N * D);
  rms_norm_rows(input, w.input_layernorm.data(), N, D, eps, attn_norm);

  // xq, xk, xv = q_proj(x), k_proj(x), v_proj(x)
  float* q = scratch(a.q, N * qd);
  float* k = scratch(a.k, N * kvd);
  float* v = scratch(a.v, N * kvd);
  linear_rows(attn_norm, N, D, w.q_proj, q, qd);
  linear_rows(attn_norm, N, D, w.k_proj, k, kvd);
  linear_rows(attn_norm, N, D, w.v_proj, v, kvd);
  if (c.use_qk_norm) {
    // q_norm / k_norm per token and head; their backward needs the input.
    std::copy(q, q + N * qd, scratch(a.q_proj, N * qd));
    std::copy(k, k + N * kvd, scratch(a.k_proj, N * kvd));
    rms_norm_inplace(q, w.q_norm.data(), N * H, Dh, eps);
    rms_norm_inplace(k, w.k_norm.data(), N * Hkv, Dh, eps);
  }
  // RoPE: every sequence starts at position 0.
  for (int64_t b = 0; b < B; ++b) {
    for (int64_t t = 0; t < T; ++t) {
      const int64_t row = b * T + t;
      apply_rotary(q + row * qd, H, Dh, cos_.data() + t * Dh, sin_.data() + t * Dh);
      apply_rotary(k + row * kvd, Hkv, Dh, cos_.data() + t * Dh, sin_.data() + t * Dh);
    }
  }
  float* probs = scratch(a.probs, B * H * T * T);
  float* concat = scratch(a.concat, N * qd);
  // Sequences in parallel (each writes its own rows), each on its thread's scratch.
  for_sequences(B, [&](int64_t b, AttentionCoreScratch& scratch) {
    attention_core_forward(q + b * T * qd, k + b * T * kvd, v + b * T * kvd, T, H, Hkv, Dh, true, probs + b * H * T * T,
                           concat + b * T * qd, scratch);
  });
  // h = h + o_proj(concat)
  float* attn_residual = scratch(a.attn_residual, N * D);
  linear_rows(concat, N, qd, w.o_proj, attn_residual, D);
  for (int64_t i = 0; i < N * D; ++i) attn_residual[i] = input[i] + attn_residual[i];

  // h = h + down(silu(gate(b)) * up(b)), b = post_attention_layernorm(h)
  float* ffn_norm = scratch(a.ffn_norm, N * D);
  rms_norm_rows(attn_residual, w.post_attention_layernorm.data(), N, D, eps, ffn_norm);
  if (c.use_moe) {  // h = h + MOEFeedForward(b): token by token, so all N rows at once
    ffn_block_forward(c, w, ffn_norm, N, out, a.moe);
    for (int64_t i = 0; i < N * D; ++i) out[i] = attn_residual[i] + out[i];
    return;
  }
  float* gate = scratch(a.gate, N * F);
  float* up = scratch(a.up, N * F);
  float* act = scratch(a.act, N * F);
  linear_rows(ffn_norm, N, D, w.mlp.gate_proj, gate, F);
  linear_rows(ffn_norm, N, D, w.mlp.up_proj, up, F);
  swiglu_act(gate, up, N * F, act);
  linear_rows(act, N, F, w.mlp.down_proj, out, D);
  for (int64_t i = 0; i < N * D; ++i) out[i] = attn_residual[i] + out[i];
}

// d_hidden_ holds ∂loss/∂(block output) [N, D]; leaves ∂loss/∂(block input)
// there and adds the block's weight gradients.
void ModelBackward::backward_layer(const ModelConfig& c, const LayerWeights& w, const LayerParams& p,
                                   LayerActivations& a, int64_t B, int64_t T, std::vector<Parameter>& params) {
  const int64_t N = B * T, D = c.hidden_size, H = c.num_attention_heads, Hkv = c.num_key_value_heads;
  const int64_t Dh = c.head_dim, F = c.intermediate_size, qd = c.q_dim(), kvd = c.kv_dim();
  const float eps = float(c.rms_norm_eps);
  const auto grad = [&](size_t i) { return params[i].grad.data(); };
  float* dh = d_hidden_.data();
  float* d_branch = scratch(d_branch_, N * D);
  float* d_other = scratch(d_other_, N * D);

  if (c.use_moe) {
    // out = attn_residual + MOEFeedForward(ffn_norm), the routing fixed.
    const FfnGradients g = moe_gradients(p, params);
    ffn_block_backward(c, w, a.moe, dh, d_branch, &g, moe_);
  } else {
    // FFN: out = attn_residual + down(act); act = silu(gate)·up.
    float* d_act = scratch(d_ffn_, N * F);
    float* d_up = scratch(d_up_, N * F);
    linear_backward(a.act.data(), N, F, F, dh, D, D, transposed(p.down_proj), d_act, grad(p.down_proj), linear_);
    swiglu_act_backward(a.gate.data(), a.up.data(), d_act, N * F, d_act, d_up);  // d_act now holds d gate
    linear_backward(a.ffn_norm.data(), N, D, D, d_act, F, F, transposed(p.gate_proj), d_branch, grad(p.gate_proj),
                    linear_);
    linear_backward(a.ffn_norm.data(), N, D, D, d_up, F, F, transposed(p.up_proj), d_other, grad(p.up_proj), linear_);
    add_into(d_branch, d_other, N * D);
  }
  rms_norm_backward(a.attn_residual.data(), w.post_attention_layernorm.data(), d_branch, N, D, eps, d_branch,
                    grad(p.post_attention_layernorm));
  add_into(dh, d_branch, N * D);  // ∂loss/∂attn_residual

  // Attention: attn_residual = input + o_proj(concat).
  float* d_concat = scratch(d_concat_, N * qd);
  float* dq = scratch(d_q_, N * qd);
  float* dk = scratch(d_k_, N * kvd);
  float* dv = scratch(d_v_, N * kvd);
  linear_backward(a.concat.data(), N, qd, qd, dh, D, D, transposed(p.o_proj), d_concat, grad(p.o_proj), linear_);
  for_sequences(B, [&](int64_t b, AttentionCoreScratch& scratch) {
    attention_core_backward(a.q.data() + b * T * qd, a.k.data() + b * T * kvd, a.v.data() + b * T * kvd,
                            a.probs.data() + b * H * T * T, d_concat + b * T * qd, T, H, Hkv, Dh, true, dq + b * T * qd,
                            dk + b * T * kvd, dv + b * T * kvd, scratch);
  });
  for (int64_t b = 0; b < B; ++b) {
    for (int64_t t = 0; t < T; ++t) {
      const int64_t row = b * T + t;
      apply_rotary_backward(dq + row * qd, H, Dh, cos_.data() + t * Dh, sin_.data() + t * Dh);
      apply_rotary_backward(dk + row * kvd, Hkv, Dh, cos_.data() + t * Dh, sin_.data() + t * Dh);
    }
  }
  if (c.use_qk_norm) {
    rms_norm_backward(a.q_proj.data(), w.q_norm.data(), dq, N * H, Dh, eps, dq, grad(p.q_norm));
    rms_norm_backward(a.k_proj.data(), w.k_norm.data(), dk, N * Hkv, Dh, eps, dk, grad(p.k_norm));
  }
  linear_backward(a.attn_norm.data(), N, D, D, dq, qd, qd, transposed(p.q_proj), d_branch, grad(p.q_proj), linear_);
  linear_backward(a.attn_norm.data(), N, D, D, dk, kvd, kvd, transposed(p.k_proj), d_other, grad(p.k_proj), linear_);
  add_into(d_branch, d_other, N * D);
  linear_backward(a.attn_norm.data(), N, D, D, dv, kvd, kvd, transposed(p.v_proj), d_other, grad(p.v_proj), linear_);
  add_into(d_branch, d_other, N * D);
  rms_norm_backward(a.input.data(), w.input_layernorm.data(), d_branch, N, D, eps, d_branch, grad(p.input_layernorm));
  add_into(dh, d_branch, N * D);  // ∂loss/∂input
}

// The final norm, the lm_head and the loss, a few sequences at a time (the
// logits are the largest buffer; they never exist for the whole batch),
// then their backward into d_hidden_.
double ModelBackward::loss_and_head_backward(const Model& model, const int32_t* labels, int64_t B, int64_t T,
                                             int64_t tokens, int64_t loss_divisor, std::vector<Parameter>& params) {
  const ModelConfig& c = model.config();
  const int64_t N = B * T, D = c.hidden_size, V = c.vocab_size;
  const float eps = float(c.rms_norm_eps);
  const WeightMatrix& head = model.weights().output_head();
  float* final_norm = scratch(final_norm_, N * D);
  rms_norm_rows(final_input_.data(), model.weights().norm.data(), N, D, eps, final_norm);
  // Row t of a sequence predicts token t + 1: logits[:, :-1] against labels[:, 1:].
  int32_t* targets = scratch(targets_, N);
  for (int64_t b = 0; b < B; ++b) {
    for (int64_t t = 0; t < T; ++t) targets[b * T + t] = t + 1 < T ? labels[b * T + t + 1] : kIgnoreIndex;
  }
  const float grad_scale = float(1.0 / (double(tokens) * double(loss_divisor)));
  // Whole sequences per chunk, about kHeadChunkRows rows: long enough for the
  // matrix kernel, short enough that [rows, V] stays a few MiB.
  const int64_t chunk = std::max<int64_t>(1, kHeadChunkRows / T) * T;
  float* logits = scratch(logits_, std::min(chunk, N) * V);  // [rows, V]
  float* d_norm = scratch(d_branch_, N * D);
  double total = 0.0;
  for (int64_t r0 = 0; r0 < N; r0 += chunk) {
    const int64_t rows = std::min(chunk, N - r0);
    const float* x = final_norm + r0 * D;  // [rows, D]
    linear_rows(x, rows, D, head, logits, V);
    total += cross_entropy_rows(logits, targets + r0, rows, V, grad_scale, logits);  // logits -> d logits
    linear_backward(x, rows, D, D, logits, V, V, transposed(head_), d_norm + r0 * D, params[head_].grad.data(),
                    linear_);
  }
  float* dh = scratch(d_hidden_, N * D);
  rms_norm_backward(final_input_.data(), model.weights().norm.data(), d_norm, N, D, eps, dh, params[norm_].grad.data());
  return total / double(tokens);
}

BatchLoss ModelBackward::run(const Model& model, const int32_t* ids, const int32_t* labels, int64_t B, int64_t T,
                             int64_t loss_divisor, std::vector<Parameter>& params) {
  const ModelConfig& c = model.config();
  if (B < 1 || T < 2)
    throw Error("train.batch_too_small", {{"sequences", B}, {"tokens", T}},
                "a training batch needs at least 1 sequence of 2 tokens");
  if (T > c.max_position_embeddings) {
    throw Error("train.seq_len_too_long", {{"max_seq_len", T}, {"limit", c.max_position_embeddings}},
                "max_seq_len " + std::to_string(T) + " exceeds max_position_embeddings " +
                    std::to_string(c.max_position_embeddings));
  }
  const int64_t N = B * T, D = c.hidden_size, Dh = c.head_dim;
  for (int64_t i = 0; i < N; ++i) {
    if (ids[i] < 0 || ids[i] >= c.vocab_size) {
      throw Error("token_id.out_of_range", {{"id", int64_t(ids[i])}, {"last", c.vocab_size - 1}},
                  "token id " + std::to_string(ids[i]) + " is outside the vocabulary (0.." +
                      std::to_string(c.vocab_size - 1) + ")");
    }
  }
  int64_t tokens = 0;
  for (int64_t b = 0; b < B; ++b) {
    for (int64_t t = 1; t < T; ++t) tokens += labels[b * T + t] != kIgnoreIndex;
  }
  if (tokens == 0) {
    throw Error("train.no_labels", {},
                "the batch has no token to predict: every label after the first is -100 (padding)");
  }

  float* cos = scratch(cos_, T * Dh);
  float* sin = scratch(sin_, T * Dh);
  for (int64_t t = 0; t < T; ++t) rope_.cos_sin(t, cos + t * Dh, sin + t * Dh);

  // Forward: h = embed_tokens[ids], then the blocks; each block's output is
  // the next one's input (kept by that block), the last one's in final_input_.
  float* h = scratch(final_input_, N * D);
  embedding_forward(model.weights().embed_tokens, ids, N, h);
  for (int64_t l = 0; l < c.num_hidden_layers; ++l) {
    forward_layer(c, model.weights().layers[size_t(l)], layers_[size_t(l)], h, B, T, h);
  }
  const double loss = loss_and_head_backward(model, labels, B, T, tokens, loss_divisor, params);
  for (int64_t l = c.num_hidden_layers - 1; l >= 0; --l) {
    backward_layer(c, model.weights().layers[size_t(l)], layer_params_[size_t(l)], layers_[size_t(l)], B, T, params);
  }
  embedding_backward(ids, N, d_hidden_.data(), D, params[embed_].grad.data());
  return {loss, tokens};
}

}  // namespace minimind
