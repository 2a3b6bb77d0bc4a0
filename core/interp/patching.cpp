#include "interp/patching.h"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

#include "ops/rmsnorm.h"
#include "util/error.h"
#include "util/thread_pool.h"

namespace minimind {

namespace {

void check_token(const Model& model, int32_t id, const char* what) {
  const int64_t V = model.config().vocab_size;
  if (id < 0 || id >= V) {
    throw Error("token_id.out_of_range", {{"id", int64_t(id)}, {"last", V - 1}},
                std::string(what) + " token id " + std::to_string(id) + " is outside the vocabulary (0.." +
                    std::to_string(V - 1) + ")");
  }
}

}  // namespace

float logit_difference(const Model& model, const float* x, int32_t answer, int32_t wrong) {
  const ModelConfig& c = model.config();
  const int64_t D = c.hidden_size;
  std::vector<float> normed(static_cast<size_t>(D)), row_a(static_cast<size_t>(D)),
      row_w(static_cast<size_t>(D));  // [D] each
  rms_norm_rows(x, model.weights().norm.data(), 1, D, float(c.rms_norm_eps), normed.data());
  model.weights().output_head().row(answer, row_a.data());
  model.weights().output_head().row(wrong, row_w.data());
  double a = 0.0, w = 0.0;
  for (int64_t i = 0; i < D; ++i) {
    a += double(normed[size_t(i)]) * row_a[size_t(i)];
    w += double(normed[size_t(i)]) * row_w[size_t(i)];
  }
  return float(a) - float(w);
}

PatchingResult activation_patching(const Model& model, const std::vector<int32_t>& clean,
                                   const std::vector<int32_t>& corrupt, int32_t answer, int32_t wrong,
                                   const InterpOptions& options, const PatchingSweeps& sweeps) {
  if (clean.size() != corrupt.size()) {
    throw Error("interp.length_mismatch", {{"clean", int64_t(clean.size())}, {"corrupt", int64_t(corrupt.size())}},
                "the clean text has " + std::to_string(clean.size()) + " tokens and the corrupt one " +
                    std::to_string(corrupt.size()) +
                    ": patching needs the same number of tokens, position by position");
  }
  check_token(model, answer, "answer");
  check_token(model, wrong, "wrong");
  const ModelConfig& c = model.config();
  const int64_t L = c.num_hidden_layers, D = c.hidden_size, H = c.num_attention_heads, Dh = c.head_dim;
  const Activations cl = run_with_hooks(model, clean, options);
  HookedScratch corrupt_run;  // its cache keeps the corrupt run's keys and values
  const Activations co = run_with_hooks(model, corrupt, options, {}, &corrupt_run);
  const int64_t T = cl.T;

  PatchingResult r;
  r.layers = L;
  r.heads_per_layer = H;
  r.T = T;
  r.clean = logit_difference(model, cl.residual_at(L, D) + (T - 1) * D, answer, wrong);
  r.corrupt = logit_difference(model, co.residual_at(L, D) + (T - 1) * D, answer, wrong);
  if (sweeps.heads) r.heads.resize(size_t(L * H));
  if (sweeps.residual) r.residual.resize(size_t((L + 1) * T));

  // One scratch and one residual buffer per task of a layer: the tasks of a
  // layer (its heads, or its positions) run in parallel where threads exist.
  const int64_t tasks = std::max(H, T);
  std::vector<HookedScratch> scratches(static_cast<size_t>(tasks));
  std::vector<std::vector<float>> streams(static_cast<size_t>(tasks), std::vector<float>(size_t(T * D)));  // [T, D]
  // Resumes the corrupt run at block `layer`, token `position` (the cached
  // residual entering it), with `patches`, and returns the metric. From a
  // position P > 0 (causal runs only) rows 0..P-1 are the corrupt run's, so
  // their keys and values come from its cache instead of being recomputed.
  const auto resumed = [&](int64_t task, int64_t layer, int64_t position, const Patches& patches) {
    HookedScratch& s = scratches[size_t(task)];
    if (position > 0) {
      if (s.cache.num_layers() != L) s.cache = model.make_cache();
      for (int64_t l = layer; l < L; ++l) {
        s.cache.layer(l) = corrupt_run.cache.layer(l);
        s.cache.layer(l).truncate(position);
      }
    }
    float* h = streams[size_t(task)].data();  // [T - position, D]
    const float* from = co.residual_at(layer, D) + position * D;
    std::copy(from, from + (T - position) * D, h);
    run_blocks(model, h, T - position, {layer, position, true}, options, patches, s);
    return logit_difference(model, h + (T - position - 1) * D, answer, wrong);
  };
  // With the causal mask the two runs agree up to the first position where
  // the ids differ, so a patch changes nothing before it: every patched run
  // starts there (at the last position, the pronoun of a pronoun pair, a
  // patched run is one row per block).
  int64_t first_difference = 0;
  while (first_difference < T && clean[size_t(first_difference)] == corrupt[size_t(first_difference)]) {
    ++first_difference;
  }
  const int64_t start = options.causal_mask ? std::min(first_difference, T - 1) : 0;
  // A switched-off head is zero in both runs: there is nothing to patch.
  const std::vector<uint8_t> ablated =
      options.ablate.empty() ? std::vector<uint8_t>{} : head_ablation_flags(c, options.ablate);  // [L, H]
  for (int64_t l = 0; l < L && sweeps.heads; ++l) {
    parallel_for(H, [&](int64_t head) {
      if (!ablated.empty() && ablated[size_t(l * H + head)]) {
        r.heads[size_t(l * H + head)] = std::numeric_limits<float>::quiet_NaN();
        return;
      }
      Patches patches;
      patches.heads.push_back({l, head, cl.head_at(l, head, H, Dh)});
      r.heads[size_t(l * H + head)] = resumed(head, l, start, patches);
    });
  }
  for (int64_t l = 0; l <= L && sweeps.residual; ++l) {
    parallel_for(T, [&](int64_t t) {
      Patches patches;
      patches.residual.push_back({l, t, cl.residual_at(l, D) + t * D});
      r.residual[size_t(l * T + t)] = resumed(t, l, options.causal_mask ? std::max(t, start) : 0, patches);
    });
  }
  return r;
}

}  // namespace minimind
