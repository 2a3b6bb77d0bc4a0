#include "interp/hooks.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "ops/attention.h"
#include "ops/ffn.h"
#include "ops/linear.h"
#include "ops/moe.h"
#include "ops/rmsnorm.h"
#include "ops/rope.h"
#include "util/error.h"

namespace minimind {

void check_interp_ids(const Model& model, const std::vector<int32_t>& ids) {
  const ModelConfig& c = model.config();
  if (ids.empty()) throw Error("input.empty", {}, "no tokens to run: the input is empty");
  for (size_t i = 0; i < ids.size(); ++i) {
    if (ids[i] < 0 || ids[i] >= c.vocab_size) {
      throw Error("token_id.out_of_range",
                  {{"id", int64_t(ids[i])}, {"position", int64_t(i)}, {"last", c.vocab_size - 1}},
                  "token id " + std::to_string(ids[i]) + " at position " + std::to_string(i) +
                      " is outside the vocabulary (0.." + std::to_string(c.vocab_size - 1) + ")");
    }
  }
  if (int64_t(ids.size()) > c.max_position_embeddings) {
    throw Error("input.too_long", {{"tokens", int64_t(ids.size())}, {"limit", c.max_position_embeddings}},
                std::to_string(ids.size()) + " tokens exceed max_position_embeddings " +
                    std::to_string(c.max_position_embeddings));
  }
}

void check_patches(const Model& model, int64_t T, const Patches& patches) {
  const ModelConfig& c = model.config();
  const int64_t L = c.num_hidden_layers, H = c.num_attention_heads;
  for (const HeadPatch& p : patches.heads) {
    if (p.layer < 0 || p.layer >= L || p.head < 0 || p.head >= H) {
      throw Error("interp.head_out_of_range", {{"layer", p.layer}, {"head", p.head}, {"layers", L}, {"heads", H}},
                  "head patch (layer " + std::to_string(p.layer) + ", head " + std::to_string(p.head) +
                      ") is outside the model's " + std::to_string(L) + " layers × " + std::to_string(H) + " heads");
    }
  }
  for (const ResidualPatch& p : patches.residual) {
    if (p.layer < 0 || p.layer > L || p.position < 0 || p.position >= T) {
      throw Error("interp.residual_out_of_range",
                  {{"layer", p.layer}, {"position", p.position}, {"layers", L}, {"tokens", T}},
                  "residual patch (layer " + std::to_string(p.layer) + ", position " + std::to_string(p.position) +
                      ") is outside layers 0.." + std::to_string(L) + " × positions 0.." + std::to_string(T - 1));
    }
  }
}

namespace {

// The residual patches of residual layer `layer`, applied to h [rows, D]
// holding positions first..first+rows-1.
void patch_residual(const Patches& patches, int64_t layer, float* h, int64_t first, int64_t rows, int64_t D) {
  for (const ResidualPatch& p : patches.residual) {
    if (p.layer == layer && p.position >= first && p.position < first + rows) {
      std::copy(p.values, p.values + D, h + (p.position - first) * D);
    }
  }
}

}  // namespace

float final_norm_scale(const Model& model, const float* x) {
  const int64_t D = model.config().hidden_size;
  double sum = 0.0;
  for (int64_t i = 0; i < D; ++i) sum += double(x[i]) * double(x[i]);
  return float(1.0 / std::sqrt(sum / double(D) + model.config().rms_norm_eps));
}

void run_blocks(const Model& model, float* h, int64_t T, const Resume& from, const InterpOptions& options,
                const Patches& patches, HookedScratch& s, Activations* capture) {
  const ModelConfig& c = model.config();
  const int64_t L = c.num_hidden_layers, D = c.hidden_size, H = c.num_attention_heads, Dh = c.head_dim;
  const int64_t P = from.position;
  const float eps = float(c.rms_norm_eps);
  if (s.cache.num_layers() != L) s.cache = model.make_cache();
  // RoPE rows of positions P..P+T-1, as Model::forward_into makes them.
  const RotaryEmbedding rope(c);
  float* cos = scratch(s.cos, T * Dh);  // [T, Dh]
  float* sin = scratch(s.sin, T * Dh);  // [T, Dh]
  for (int64_t t = 0; t < T; ++t) rope.cos_sin(P + t, cos + t * Dh, sin + t * Dh);
  float* normed = scratch(s.forward.normed, T * D);  // [T, D]
  float* branch = scratch(s.forward.branch, T * D);  // [T, D]
  s.head_values.assign(size_t(H), nullptr);
  // [L, H] flags, or empty (nothing switched off: no work added).
  const std::vector<uint8_t> ablated =
      options.ablate.empty() ? std::vector<uint8_t>{} : head_ablation_flags(c, options.ablate);
  const auto off = [&](int64_t layer, int64_t head) { return !ablated.empty() && ablated[size_t(layer * H + head)]; };

  patch_residual(patches, from.layer, h, P, T, D);
  if (capture) std::copy(h, h + T * D, capture->residual.begin() + from.layer * T * D);
  for (int64_t l = from.layer; l < L; ++l) {
    const LayerWeights& w = model.weights().layers[size_t(l)];
    std::fill(s.head_values.begin(), s.head_values.end(), nullptr);
    for (const HeadPatch& p : patches.heads) {
      if (p.layer == l && !off(l, p.head)) s.head_values[size_t(p.head)] = p.values + P * Dh;
    }
    AttentionOptions attention;
    attention.causal_mask = options.causal_mask;
    attention.scale_scores = options.scale_scores;
    attention.ablated_heads = ablated.empty() ? nullptr : ablated.data() + l * H;
    attention.patched_heads = s.head_values.data();
    LayerKVCache& layer_cache = s.cache.layer(l);
    if (P == 0) layer_cache.truncate(0);  // else the caller left rows 0..P-1 there
    if (layer_cache.length() != P) throw std::logic_error("run_blocks: the cache does not hold the rows before P");

    // The last block of a metric-only run: every row's keys and values, but
    // o_proj and the FFN on the last row alone (the others' are discarded).
    const bool last_only = from.last_row_only && l == L - 1 && T > 1;
    const int64_t out_row = last_only ? T - 1 : 0, out_rows = last_only ? 1 : T;
    float* h_out = h + out_row * D;  // [out_rows, D]

    // h = h + self_attn(input_layernorm(h)); z is o_proj's input, [T, H·Dh].
    rms_norm_rows(h, w.input_layernorm.data(), T, D, eps, normed);
    if (last_only) {
      attention_forward(c, w, normed, T - 1, {cos, sin}, layer_cache, nullptr, attention, {}, s.forward.attention,
                        branch);
      for (const float*& values : s.head_values) {
        if (values) values += (T - 1) * Dh;
      }
    }
    attention_forward(c, w, normed + out_row * D, out_rows, {cos + out_row * Dh, sin + out_row * Dh}, layer_cache,
                      nullptr, attention, {}, s.forward.attention, branch);
    if (capture) {
      const float* concat = s.forward.attention.concat.data();   // [T, H, Dh]
      float* z = capture->head_outputs.data() + l * H * T * Dh;  // [H, T, Dh]
      for (int64_t t = 0; t < T; ++t) {
        for (int64_t head = 0; head < H; ++head) {
          std::copy(concat + (t * H + head) * Dh, concat + (t * H + head + 1) * Dh, z + (head * T + t) * Dh);
        }
      }
    }
    for (int64_t i = 0; i < out_rows * D; ++i) h_out[i] += branch[i];

    // h = h + mlp(post_attention_layernorm(h))
    rms_norm_rows(h_out, w.post_attention_layernorm.data(), out_rows, D, eps, normed);
    if (c.use_moe) {
      moe_ffn(c, w.moe, normed, out_rows, branch, s.forward.moe);
    } else {
      swiglu_ffn(w.mlp, normed, out_rows, branch, s.forward.ffn);
    }
    if (capture) std::copy(branch, branch + T * D, capture->ffn_outputs.begin() + l * T * D);
    for (int64_t i = 0; i < out_rows * D; ++i) h_out[i] += branch[i];

    patch_residual(patches, l + 1, h, P, T, D);
    if (capture) std::copy(h, h + T * D, capture->residual.begin() + (l + 1) * T * D);
  }
}

Activations run_with_hooks(const Model& model, const std::vector<int32_t>& ids, const InterpOptions& options,
                           const Patches& patches, HookedScratch* scratch) {
  check_interp_ids(model, ids);
  const ModelConfig& c = model.config();
  const int64_t T = int64_t(ids.size()), L = c.num_hidden_layers, D = c.hidden_size, V = c.vocab_size;
  const int64_t H = c.num_attention_heads, Dh = c.head_dim;
  check_patches(model, T, patches);
  Activations a;
  a.T = T;
  a.residual.resize(size_t((L + 1) * T * D));
  a.head_outputs.resize(size_t(L * H * T * Dh));
  a.ffn_outputs.resize(size_t(L * T * D));
  a.final_scale.resize(size_t(T));
  a.logits.resize(size_t(T * V));

  HookedScratch own;
  std::vector<float> h(size_t(T * D));  // [T, D] = embed_tokens[ids]
  for (int64_t t = 0; t < T; ++t) model.weights().embed_tokens.row(ids[size_t(t)], h.data() + t * D);
  run_blocks(model, h.data(), T, {}, options, patches, scratch ? *scratch : own, &a);

  // logits = lm_head(norm(h))
  std::vector<float> normed(size_t(T * D));  // [T, D]
  rms_norm_rows(h.data(), model.weights().norm.data(), T, D, float(c.rms_norm_eps), normed.data());
  linear_rows(normed.data(), T, D, model.weights().output_head(), a.logits.data(), V);
  for (int64_t t = 0; t < T; ++t) a.final_scale[size_t(t)] = final_norm_scale(model, h.data() + t * D);
  return a;
}

}  // namespace minimind
