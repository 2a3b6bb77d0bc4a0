#include "interp/hooks.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

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
  for (const HeadInputPatch& p : patches.head_inputs) {
    if (p.layer < 0 || p.layer >= L || p.head < 0 || p.head >= H) {
      throw Error("interp.head_out_of_range", {{"layer", p.layer}, {"head", p.head}, {"layers", L}, {"heads", H}},
                  "head input patch (layer " + std::to_string(p.layer) + ", head " + std::to_string(p.head) +
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

// The hook object of every interp run: applies the patches (values indexed
// by absolute position) and fills `capture` (optional; [.., T, ..] as
// run_with_hooks sizes it) with what each point saw.
class InterpHooks final : public ForwardHooks {
 public:
  InterpHooks(const ModelConfig& c, const Patches& patches, Activations* capture)
      : patches_(patches), capture_(capture), D_(c.hidden_size), H_(c.num_attention_heads), Dh_(c.head_dim) {}

  void residual(int64_t layer, int64_t first, float* x, int64_t rows) override {
    for (const ResidualPatch& p : patches_.residual) {
      if (p.layer == layer && p.position >= first && p.position < first + rows) {
        std::copy(p.values, p.values + D_, x + (p.position - first) * D_);
      }
    }
    if (capture_) std::copy(x, x + rows * D_, capture_->residual.begin() + (layer * capture_->T + first) * D_);
  }

  const float* head_input(int64_t layer, int64_t head, int64_t first, int64_t /*rows*/) override {
    const float* values = nullptr;  // the last patch of the head wins
    for (const HeadInputPatch& p : patches_.head_inputs) {
      if (p.layer == layer && p.head == head) values = p.values + first * D_;
    }
    return values;
  }

  const float* head_z(int64_t layer, int64_t head, int64_t first, int64_t /*rows*/) override {
    const float* values = nullptr;
    for (const HeadPatch& p : patches_.heads) {
      if (p.layer == layer && p.head == head) values = p.values + first * Dh_;
    }
    return values;
  }

  // z [rows, H, Dh] -> capture's head_outputs [L, H, T, Dh].
  void head_outputs(int64_t layer, int64_t first, const float* z, int64_t rows) override {
    if (!capture_) return;
    const int64_t T = capture_->T;
    float* out = capture_->head_outputs.data() + layer * H_ * T * Dh_;
    for (int64_t t = 0; t < rows; ++t) {
      for (int64_t head = 0; head < H_; ++head) {
        std::copy_n(z + (t * H_ + head) * Dh_, Dh_, out + (head * T + first + t) * Dh_);
      }
    }
  }

  void ffn_output(int64_t layer, int64_t first, const float* out, int64_t rows) override {
    if (capture_) std::copy(out, out + rows * D_, capture_->ffn_outputs.begin() + (layer * capture_->T + first) * D_);
  }

 private:
  const Patches& patches_;
  Activations* capture_;
  int64_t D_, H_, Dh_;
};

// InterpOptions as the forward takes them (ablate checked and turned into flags).
ForwardOptions forward_options(const Model& model, const InterpOptions& options) {
  ForwardOptions f;
  f.attention.causal_mask = options.causal_mask;
  f.attention.scale_scores = options.scale_scores;
  if (!options.ablate.empty()) f.ablated_heads = head_ablation_flags(model.config(), options.ablate);
  return f;
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
  const int64_t L = model.config().num_hidden_layers;
  const ForwardOptions forward = forward_options(model, options);
  if (s.cache.num_layers() != L) s.cache = model.make_cache();
  if (from.position == 0) {
    for (int64_t l = from.layer; l < L; ++l) s.cache.layer(l).truncate(0);
  }  // else the caller left rows 0..P-1 there (forward_blocks checks)
  InterpHooks hooks(model.config(), patches, capture);
  BlockRun run;
  run.first_layer = from.layer;
  run.position = from.position;
  run.last_row_only = from.last_row_only;
  run.hooks = &hooks;
  model.forward_blocks(h, T, s.cache, s.forward, forward, run);
}

Activations run_with_hooks(const Model& model, const std::vector<int32_t>& ids, const InterpOptions& options,
                           const Patches& patches, HookedScratch* scratch) {
  check_interp_ids(model, ids);
  const ModelConfig& c = model.config();
  const int64_t T = int64_t(ids.size()), L = c.num_hidden_layers, D = c.hidden_size, V = c.vocab_size;
  const int64_t H = c.num_attention_heads, Dh = c.head_dim;
  check_patches(model, T, patches);
  const ForwardOptions forward = forward_options(model, options);
  Activations a;
  a.T = T;
  a.residual.resize(size_t((L + 1) * T * D));
  a.head_outputs.resize(size_t(L * H * T * Dh));
  a.ffn_outputs.resize(size_t(L * T * D));
  a.final_scale.resize(size_t(T));
  a.logits.resize(size_t(T * V));

  // The model's forward, every logit row; the cache keeps every block's keys
  // and values of the run afterwards.
  HookedScratch own;
  HookedScratch& s = scratch ? *scratch : own;
  if (s.cache.num_layers() != L) s.cache = model.make_cache();
  s.cache.clear();
  InterpHooks hooks(c, patches, &a);
  model.forward_into(ids.data(), T, s.cache, s.forward, a.logits.data(), T, nullptr, forward, nullptr, 0, &hooks);
  for (int64_t t = 0; t < T; ++t) a.final_scale[size_t(t)] = final_norm_scale(model, a.residual_at(L, D) + t * D);
  return a;
}

}  // namespace minimind
