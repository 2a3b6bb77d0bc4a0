#include "interp/qk_attribution.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "interp/head_weights.h"
#include "interp/qk_projection.h"
#include "ops/attention.h"
#include "ops/linear.h"
#include "ops/rmsnorm.h"
#include "ops/rope.h"
#include "util/error.h"
#include "util/simd_lanes.h"
#include "util/tensor.h"

namespace minimind {

namespace {

constexpr int64_t kRowsPerPanel = PanelsView::kPanelRows;

// Panel p of W [rows, cols] as float32, row 8p + j of W at lane j:
// [cols, 8], either W's own memory (float32 storage) or widened into `buffer`
// as linear.cpp's kernel widens it (exact: float16 and bfloat16 widen to
// float32 without rounding).
const float* widen_panel(const PanelsView& W, int64_t p, std::vector<float>& buffer) {
  if (W.storage == WeightStorage::F32) return W.f32_panel(p);
  float* out = scratch(buffer, W.cols * kRowsPerPanel);
  const uint16_t* base = W.half_panel(p);
  // A float16 value is stored times 2^f16_shift, and widen_f16_unscaled's
  // result is 2^-112 of it: one power of 2 undoes both.
  const simd::Lanes scale = simd::fill(std::ldexp(1.0f, 112 - W.f16_shift));
  for (int64_t i = 0; i < W.cols; ++i) {
    simd::Lanes low, high;
    if (W.storage == WeightStorage::F16) {
      simd::widen_f16_unscaled(base + i * kRowsPerPanel, low, high);
      low = simd::mul(low, scale);
      high = simd::mul(high, scale);
    } else {
      simd::widen_bf16(base + i * kRowsPerPanel, low, high);
    }
    simd::store(out + i * kRowsPerPanel, low);
    simd::store(out + i * kRowsPerPanel + 4, high);
  }
  return out;
}

// 1/sqrt(mean(x²) + eps) summed in order, as rms_norm_inplace sums q and k.
float qk_inverse_rms(const float* x, int64_t n, float eps) {
  float sum = 0.0f;
  for (int64_t i = 0; i < n; ++i) sum += x[i] * x[i];
  return 1.0f / std::sqrt(sum / float(n) + eps);
}

}  // namespace

namespace qk_detail {

// The head's vectors at `positions` from x [T, D] (the residual entering
// the block): normed, projected by W's rows [Dh, D], q/k-normed, rotated.
HeadSide head_side(const Model& model, const LayerWeights& w, const float* x, const std::vector<int64_t>& positions,
                   const PanelsView& W, const Vector& head_norm_weight, const RotaryEmbedding& rope) {
  const ModelConfig& c = model.config();
  const int64_t D = c.hidden_size, Dh = c.head_dim, n = int64_t(positions.size());
  const float eps = float(c.rms_norm_eps);
  std::vector<float> normed(size_t(n * D));  // [n, D]
  for (int64_t r = 0; r < n; ++r) {
    rms_norm_rows(x + positions[size_t(r)] * D, w.input_layernorm.data(), 1, D, eps, normed.data() + r * D);
  }
  HeadSide s;
  s.rms.resize(static_cast<size_t>(n));
  s.head_norm.assign(size_t(n), 1.0f);
  s.unrotated.resize(size_t(n * Dh));
  for (int64_t r = 0; r < n; ++r) s.rms[size_t(r)] = qk_inverse_rms(x + positions[size_t(r)] * D, D, eps);
  linear_rows(normed.data(), n, D, W, s.unrotated.data(), Dh);
  if (c.use_qk_norm) {
    for (int64_t r = 0; r < n; ++r) {
      float* v = s.unrotated.data() + r * Dh;  // [Dh]
      s.head_norm[size_t(r)] = qk_inverse_rms(v, Dh, eps);
      rms_norm_inplace(v, head_norm_weight.data(), 1, Dh, eps);
    }
  }
  s.rotated = s.unrotated;
  std::vector<float> cos(static_cast<size_t>(Dh)), sin(static_cast<size_t>(Dh));
  for (int64_t r = 0; r < n; ++r) {
    rope.cos_sin(positions[size_t(r)], cos.data(), sin.data());
    apply_rotary(s.rotated.data() + r * Dh, 1, Dh, cos.data(), sin.data());
  }
  return s;
}

}  // namespace qk_detail

std::vector<std::string> qk_component_names(const ModelConfig& c, int64_t layer) {
  std::vector<std::string> names{"embed"};
  for (int64_t k = 0; k < layer; ++k) {
    for (int64_t h = 0; h < c.num_attention_heads; ++h) {
      names.push_back("L" + std::to_string(k) + "H" + std::to_string(h));
    }
    names.push_back("L" + std::to_string(k) + "ffn");
  }
  return names;
}

std::vector<float> qk_components(const Model& model, const std::vector<int32_t>& ids, const Activations& run,
                                 int64_t layer, const std::vector<int64_t>& positions, const InterpOptions& options) {
  const ModelConfig& c = model.config();
  const std::vector<uint8_t> ablated =
      options.ablate.empty() ? std::vector<uint8_t>{} : head_ablation_flags(c, options.ablate);  // [L, H]
  const int64_t D = c.hidden_size, H = c.num_attention_heads, Dh = c.head_dim;
  const int64_t n = int64_t(positions.size()), C = 1 + layer * (H + 1);
  std::vector<float> out(size_t(n * C * D), 0.0f);  // [n, C, D]
  for (int64_t r = 0; r < n; ++r)
    model.weights().embed_tokens.row(ids[size_t(positions[size_t(r)])], out.data() + r * C * D);
  std::vector<float> widened;  // one panel of o_proj as float32: [H·Dh, 8]
  for (int64_t k = 0; k < layer; ++k) {
    // Head h's write is o_proj[:, h·Dh .. (h+1)·Dh] · z_h: panel by panel of
    // 8 output rows, whose columns of head h are Dh consecutive [8] lanes.
    const PanelsView O = model.weights().layers[size_t(k)].o_proj.view();  // [D, H·Dh]
    for (int64_t p = 0; p < O.panels(); ++p) {
      const float* w = widen_panel(O, p, widened);  // [H·Dh, 8]
      const int64_t rows = std::min<int64_t>(kRowsPerPanel, D - p * kRowsPerPanel);
      for (int64_t h = 0; h < H; ++h) {
        if (!ablated.empty() && ablated[size_t(k * H + h)]) continue;  // switched off: wrote nothing
        const float* head_columns = w + h * Dh * kRowsPerPanel;        // [Dh, 8]
        for (int64_t r = 0; r < n; ++r) {
          const float* z = run.head_at(k, h, H, Dh) + positions[size_t(r)] * Dh;  // [Dh]
          simd::Lanes low = simd::zero(), high = simd::zero();
          for (int64_t d = 0; d < Dh; ++d) {
            const simd::Lanes zd = simd::fill(z[d]);
            low = simd::mul_add(low, zd, simd::load(head_columns + d * kRowsPerPanel));
            high = simd::mul_add(high, zd, simd::load(head_columns + d * kRowsPerPanel + 4));
          }
          float lanes[kRowsPerPanel];
          simd::store(lanes, low);
          simd::store(lanes + 4, high);
          float* written = out.data() + (r * C + 1 + k * (H + 1) + h) * D + p * kRowsPerPanel;
          std::copy(lanes, lanes + rows, written);
        }
      }
    }
    const int64_t f = 1 + k * (H + 1) + H;
    const float* ffn = run.ffn_outputs.data() + k * run.T * D;  // [T, D]
    for (int64_t r = 0; r < n; ++r)
      std::copy(ffn + positions[size_t(r)] * D, ffn + (positions[size_t(r)] + 1) * D, out.data() + (r * C + f) * D);
  }
  return out;
}

namespace qk_detail {

// The components comps [n, C, D] at `positions` as the head reads them:
// input_layernorm with each position's frozen scale, W's rows [Dh, D], the
// frozen q_norm (k_norm) scale, then RoPE at the position. rotated gets
// [n, C, Dh]; unrotated (optional) the same before RoPE.
void project_components(const Model& model, const LayerWeights& w, const std::vector<float>& comps, int64_t C,
                        const std::vector<int64_t>& positions, const HeadSide& side, const PanelsView& W,
                        const Vector& head_norm_weight, const RotaryEmbedding& rope, std::vector<float>& rotated,
                        std::vector<float>* unrotated) {
  const ModelConfig& c = model.config();
  const int64_t D = c.hidden_size, Dh = c.head_dim, n = int64_t(positions.size());
  std::vector<float> scaled(size_t(n * C * D));  // [n, C, D] = g ⊙ (component · r)
  for (int64_t r = 0; r < n; ++r) {
    const float rms = side.rms[size_t(r)];
    for (int64_t a = 0; a < C; ++a) {
      const float* x = comps.data() + (r * C + a) * D;
      float* y = scaled.data() + (r * C + a) * D;
      for (int64_t i = 0; i < D; ++i) y[i] = w.input_layernorm[i] * (x[i] * rms);
    }
  }
  rotated.resize(size_t(n * C * Dh));
  linear_rows(scaled.data(), n * C, D, W, rotated.data(), Dh);
  if (c.use_qk_norm) {
    for (int64_t r = 0; r < n; ++r) {
      const float scale = side.head_norm[size_t(r)];
      for (int64_t a = 0; a < C; ++a) {
        float* y = rotated.data() + (r * C + a) * Dh;
        for (int64_t d = 0; d < Dh; ++d) y[d] = head_norm_weight[d] * (y[d] * scale);
      }
    }
  }
  if (unrotated) *unrotated = rotated;
  std::vector<float> cos(static_cast<size_t>(Dh)), sin(static_cast<size_t>(Dh));
  for (int64_t r = 0; r < n; ++r) {
    rope.cos_sin(positions[size_t(r)], cos.data(), sin.data());
    apply_rotary(rotated.data() + r * C * Dh, C, Dh, cos.data(), sin.data());
  }
}

// out [A, B] = a [A, Dh] · b [B, Dh]ᵀ, each a sequential sum, then ÷√Dh
// as the forward scales its scores (unless scaling is off).
void score_products(const float* a, int64_t A, const float* b, int64_t B, int64_t Dh, bool scale_scores, float* out) {
  const float scale = float(std::sqrt(double(Dh)));  // math.sqrt(self.head_dim)
  for (int64_t x = 0; x < A; ++x) {
    for (int64_t y = 0; y < B; ++y) {
      float sum = 0.0f;
      for (int64_t d = 0; d < Dh; ++d) sum += a[x * Dh + d] * b[y * Dh + d];
      out[x * B + y] = scale_scores ? sum / scale : sum;
    }
  }
}

}  // namespace qk_detail

namespace {

using qk_detail::head_side;
using qk_detail::HeadSide;
using qk_detail::project_components;
using qk_detail::score_products;

// The vocabulary's keys at position `key` of block 0 against the query
// q̂ [Dh] (after q norm and RoPE): each id v's key is k_proj's kv rows of
// input_layernorm(embed(v)), k-normed, rotated at `key`. q̂ · R k = Rᵀq̂ · k,
// so the rotation moves to the query (a = Rᵀq̂, one vector) and the
// vocabulary passes through one matrix product with embed_tokens:
//   no k norm:  score(v) = r_v · (g ⊙ Wkᵀa) · e_v · s        ([1, D] × [V, D]ᵀ)
//   k norm:     y_v = Wk (g ⊙ e_v), k = r_v·y_v normed      ([Dh, D] × [V, D]ᵀ)
std::vector<RankedKey> rank_vocabulary(const Model& model, const float* query, int64_t kv, int64_t key, int64_t top,
                                       bool scale_scores) {
  const ModelConfig& c = model.config();
  const int64_t D = c.hidden_size, Dh = c.head_dim, V = c.vocab_size;
  const float eps = float(c.rms_norm_eps);
  const LayerWeights& w = model.weights().layers[0];
  const WeightMatrix& E = model.weights().embed_tokens;  // [V, D]
  const RotaryEmbedding rope(c);
  std::vector<float> a(query, query + Dh), cos(static_cast<size_t>(Dh)), sin(static_cast<size_t>(Dh));  // [Dh]
  rope.cos_sin(key, cos.data(), sin.data());
  apply_rotary_backward(a.data(), 1, Dh, cos.data(), sin.data());  // Rᵀq̂
  std::vector<float> wk(size_t(Dh * D));                           // [Dh, D]: kv head's k_proj rows ⊙ g
  for (int64_t d = 0; d < Dh; ++d) {
    w.k_proj.row(kv * Dh + d, wk.data() + d * D);
    for (int64_t i = 0; i < D; ++i) wk[size_t(d * D + i)] *= w.input_layernorm[i];
  }
  // input_layernorm's scale of every embedding row, from E's panels: lane j
  // of a panel sums the squares of row 8p + j.
  std::vector<float> rms(static_cast<size_t>(V)), widened;  // [V]
  const PanelsView Ev = E.view();
  for (int64_t p = 0; p < Ev.panels(); ++p) {
    const float* panel = widen_panel(Ev, p, widened);  // [D, 8]
    simd::Lanes low = simd::zero(), high = simd::zero();
    for (int64_t i = 0; i < D; ++i) {
      const simd::Lanes a0 = simd::load(panel + i * kRowsPerPanel), a1 = simd::load(panel + i * kRowsPerPanel + 4);
      low = simd::mul_add(low, a0, a0);
      high = simd::mul_add(high, a1, a1);
    }
    float squares[kRowsPerPanel];
    simd::store(squares, low);
    simd::store(squares + 4, high);
    for (int64_t j = 0; j < kRowsPerPanel && p * kRowsPerPanel + j < V; ++j) {
      rms[size_t(p * kRowsPerPanel + j)] = 1.0f / std::sqrt(squares[j] / float(D) + eps);
    }
  }
  const float scale = scale_scores ? float(std::sqrt(double(Dh))) : 1.0f;
  std::vector<float> scores(static_cast<size_t>(V));  // [V]
  if (!c.use_qk_norm) {
    std::vector<float> u(size_t(D), 0.0f);  // [D] = Wk_gᵀ a
    for (int64_t d = 0; d < Dh; ++d) {
      for (int64_t i = 0; i < D; ++i) u[size_t(i)] += wk[size_t(d * D + i)] * a[size_t(d)];
    }
    linear_rows(u.data(), 1, D, E, scores.data(), V);
    for (int64_t v = 0; v < V; ++v) scores[size_t(v)] = scores[size_t(v)] * rms[size_t(v)] / scale;
  } else {
    std::vector<float> y(size_t(Dh * V));  // [Dh, V]: Wk_g · e_vᵀ
    linear_rows(wk.data(), Dh, D, E, y.data(), V);
    for (int64_t v = 0; v < V; ++v) {
      float squares = 0.0f, dot = 0.0f;
      for (int64_t d = 0; d < Dh; ++d) {
        const float k = y[size_t(d * V + v)] * rms[size_t(v)];
        squares += k * k;
        dot += a[size_t(d)] * w.k_norm[d] * k;
      }
      scores[size_t(v)] = dot / std::sqrt(squares / float(Dh) + eps) / scale;
    }
  }
  std::vector<int32_t> order(static_cast<size_t>(V));
  for (int64_t v = 0; v < V; ++v) order[size_t(v)] = int32_t(v);
  const int64_t k = std::min(top, V);
  std::partial_sort(order.begin(), order.begin() + k, order.end(), [&](int32_t x, int32_t y) {
    return scores[size_t(x)] != scores[size_t(y)] ? scores[size_t(x)] > scores[size_t(y)] : x < y;
  });
  std::vector<RankedKey> ranked(static_cast<size_t>(k));
  for (int64_t r = 0; r < k; ++r) ranked[size_t(r)] = {order[size_t(r)], scores[size_t(order[size_t(r)])]};
  return ranked;
}

void check_request(const Model& model, int64_t T, const QKRequest& q, const InterpOptions& options) {
  const ModelConfig& c = model.config();
  const int64_t L = c.num_hidden_layers, H = c.num_attention_heads;
  if (q.layer < 0 || q.layer >= L) {
    throw Error("qk.layer_out_of_range", {{"layer", q.layer}, {"layers", L}},
                "layer " + std::to_string(q.layer) + " is outside the model's blocks 0.." + std::to_string(L - 1));
  }
  if (q.head < 0 || q.head >= H) {
    throw Error("qk.head_out_of_range", {{"head", q.head}, {"heads", H}},
                "head " + std::to_string(q.head) + " is outside the block's heads 0.." + std::to_string(H - 1));
  }
  const auto position = [&](const char* which, int64_t p) {
    if (p >= 0 && p < T) return;
    throw Error("qk.position_out_of_range", {{"which", std::string(which)}, {"position", p}, {"tokens", T}},
                std::string(which) + " position " + std::to_string(p) + " is outside the " + std::to_string(T) +
                    " tokens (0.." + std::to_string(T - 1) + ")");
  };
  position("query", q.query);
  position("key", q.key);
  if (q.versus.kind == QKVersus::Kind::position) position("versus", q.versus.position);
  if (q.rank_keys > 0 && q.layer > 0) {
    throw Error("qk.rank_needs_block0", {{"layer", q.layer}},
                "ranking the vocabulary's keys needs block 0: in block " + std::to_string(q.layer) +
                    " a key depends on more than its token (the blocks before wrote into it)");
  }
  if (!options.ablate.empty()) head_ablation_flags(c, options.ablate);  // throws on a head outside the model
}

}  // namespace

QKAttribution qk_attribution(const Model& model, const std::vector<int32_t>& ids, const QKRequest& request,
                             const InterpOptions& options) {
  check_interp_ids(model, ids);
  check_request(model, int64_t(ids.size()), request, options);
  const Activations run = run_with_hooks(model, ids, options);
  return qk_attribution(model, ids, run, request, options);
}

QKAttribution qk_attribution(const Model& model, const std::vector<int32_t>& ids, const Activations& run,
                             const QKRequest& request, const InterpOptions& options) {
  check_interp_ids(model, ids);
  const ModelConfig& c = model.config();
  const int64_t T = int64_t(ids.size()), D = c.hidden_size, H = c.num_attention_heads, Dh = c.head_dim;
  if (run.T != T)
    throw Error("qk.other_text", {{"tokens", T}, {"run_tokens", run.T}}, "qk_attribution: the run is of another text");
  check_request(model, T, request, options);
  const int64_t l = request.layer, i = request.query, j = request.key, C = 1 + l * (H + 1);
  const int64_t kv = request.head / c.n_rep();  // repeat_kv: q head h reads kv head h / R
  const LayerWeights& w = model.weights().layers[size_t(l)];
  WeightMatrix q_rows, k_rows;
  const PanelsView Wq = head_rows(w.q_proj, request.head * Dh, Dh, q_rows);  // [Dh, D]
  const PanelsView Wk = head_rows(w.k_proj, kv * Dh, Dh, k_rows);            // [Dh, D]
  const RotaryEmbedding rope(c);
  const float* x = run.residual_at(l, D);  // [T, D]: the residual stream entering block l

  QKAttribution r;
  r.layer = l;
  r.head = request.head;
  r.query = i;
  r.key = j;
  r.components = qk_component_names(c, l);

  // The row of the run: every key as the forward computes it, the scores
  // (one sequential sum each, as linear_rows_unfused adds QKᵀ), the mask and
  // the softmax, so score and weight are the forward's own.
  std::vector<int64_t> all(static_cast<size_t>(T));
  for (int64_t t = 0; t < T; ++t) all[size_t(t)] = t;
  const HeadSide query = head_side(model, w, x, {i}, Wq, w.q_norm, rope);
  const HeadSide keys = head_side(model, w, x, all, Wk, w.k_norm, rope);
  const WeightMatrix packed_keys(keys.rotated.data(), T, Dh, WeightPacking::Float32);  // [T, Dh]
  std::vector<float> scores(static_cast<size_t>(T)), weights(static_cast<size_t>(T));  // [T]
  linear_rows_unfused(query.rotated.data(), 1, Dh, packed_keys.view(), scores.data(), T);
  if (options.scale_scores) {
    const float scale = float(std::sqrt(double(Dh)));
    for (float& s : scores) s /= scale;
  }
  weights = scores;
  if (options.causal_mask) {
    for (int64_t t = i + 1; t < T; ++t) weights[size_t(t)] += -std::numeric_limits<float>::infinity();
  }
  softmax_inplace(weights.data(), T);
  r.score = scores[size_t(j)];
  r.weight = weights[size_t(j)];
  r.masked = options.causal_mask && j > i;

  // The table: q-side components at i × k-side components at j.
  std::vector<float> q_parts, k_parts;  // [C, Dh] each, rotated
  const HeadSide key = head_side(model, w, x, {j}, Wk, w.k_norm, rope);
  // Both positions' components in one pass over the earlier blocks' o_proj: [2, C, D].
  const std::vector<float> both = qk_components(model, ids, run, l, {i, j}, options);
  const std::vector<float> at_query(both.begin(), both.begin() + C * D), at_key(both.begin() + C * D, both.end());
  project_components(model, w, at_query, C, {i}, query, Wq, w.q_norm, rope, q_parts, nullptr);
  project_components(model, w, at_key, C, {j}, key, Wk, w.k_norm, rope, k_parts, nullptr);
  r.table.resize(size_t(C * C));
  score_products(q_parts.data(), C, k_parts.data(), C, Dh, options.scale_scores, r.table.data());

  // RoPE's pairs: dims p and p + Dh/2 turn together (rotate_half).
  const int64_t half = Dh / 2;
  const auto pairs = [&](const float* q, const float* k) {
    std::vector<float> out(static_cast<size_t>(half));  // [Dh/2]
    const float scale = float(std::sqrt(double(Dh)));
    for (int64_t p = 0; p < half; ++p) {
      const float sum = q[p] * k[p] + q[p + half] * k[p + half];
      out[size_t(p)] = options.scale_scores ? sum / scale : sum;
    }
    return out;
  };
  r.rope_pairs = pairs(query.rotated.data(), keys.rotated.data() + j * Dh);
  r.rope_pairs_unrotated = pairs(query.unrotated.data(), keys.unrotated.data() + j * Dh);

  // The contrast with another key, or with the row's weighted mean over
  // its keys: Σ_j' w_ij' k_j'(b) per component, one product with the query side.
  if (request.versus.kind != QKVersus::Kind::none) {
    r.has_versus = true;
    std::vector<float> other(size_t(C * Dh), 0.0f);  // [C, Dh]: the other key's components (or their mean)
    if (request.versus.kind == QKVersus::Kind::position) {
      const int64_t j2 = request.versus.position;
      r.versus_key = j2;
      r.versus_score = r.score - scores[size_t(j2)];
      const HeadSide side = head_side(model, w, x, {j2}, Wk, w.k_norm, rope);
      project_components(model, w, qk_components(model, ids, run, l, {j2}, options), C, {j2}, side, Wk, w.k_norm, rope,
                         other, nullptr);
    } else {
      r.versus_key = -1;
      float mean = 0.0f;
      std::vector<int64_t> chunk;
      std::vector<float> parts;  // [n, C, Dh]
      // Keys 32 at a time: memory stays [32, C, D] whatever T is, and each
      // pass widens the earlier blocks' o_proj once for 32 keys. The frozen
      // scales are the row's own (keys, computed above for every position).
      constexpr size_t kChunk = 32;
      const auto flush = [&] {
        if (chunk.empty()) return;
        HeadSide side;
        for (const int64_t t : chunk) {
          side.rms.push_back(keys.rms[size_t(t)]);
          side.head_norm.push_back(keys.head_norm[size_t(t)]);
        }
        project_components(model, w, qk_components(model, ids, run, l, chunk, options), C, chunk, side, Wk, w.k_norm,
                           rope, parts, nullptr);
        for (size_t n = 0; n < chunk.size(); ++n) {
          const float weight = weights[size_t(chunk[n])];
          for (int64_t e = 0; e < C * Dh; ++e) other[size_t(e)] += weight * parts[n * size_t(C * Dh) + size_t(e)];
        }
        chunk.clear();
      };
      for (int64_t t = 0; t < T; ++t) {
        if (weights[size_t(t)] == 0.0f) continue;  // masked (or underflowed): adds nothing
        mean += weights[size_t(t)] * scores[size_t(t)];
        chunk.push_back(t);
        if (chunk.size() == kChunk) flush();
      }
      flush();
      r.versus_score = r.score - mean;
    }
    std::vector<float> difference(size_t(C * Dh));  // [C, Dh]
    for (size_t e = 0; e < difference.size(); ++e) difference[e] = k_parts[e] - other[e];
    r.versus_table.resize(size_t(C * C));
    score_products(q_parts.data(), C, difference.data(), C, Dh, options.scale_scores, r.versus_table.data());
  }

  if (request.rank_keys > 0) {
    r.ranked = rank_vocabulary(model, query.rotated.data(), kv, j, request.rank_keys, options.scale_scores);
  }
  return r;
}

}  // namespace minimind
