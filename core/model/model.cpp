#include "model/model.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "ops/ffn.h"
#include "ops/linear.h"
#include "ops/moe.h"
#include "ops/rmsnorm.h"
#include "util/error.h"

namespace minimind {

namespace {

// x: [rows, cols].
void record(Trace* trace, int64_t layer, const char* stage_name, int64_t batch_index, const float* x, int64_t rows,
            int64_t cols) {
  if (trace && trace->wants(layer, stage_name)) trace->put(layer, stage_name, batch_index, {rows, cols}, x);
}

}  // namespace

std::vector<uint8_t> head_ablation_flags(const ModelConfig& c, const std::vector<HeadId>& heads) {
  const int64_t L = c.num_hidden_layers, H = c.num_attention_heads;
  std::vector<uint8_t> flags(size_t(L * H), 0);  // [L, H]
  for (const HeadId& id : heads) {
    if (id.layer < 0 || id.layer >= L || id.head < 0 || id.head >= H) {
      throw Error("ablate.head_out_of_range", {{"layer", id.layer}, {"head", id.head}, {"layers", L}, {"heads", H}},
                  "cannot ablate layer " + std::to_string(id.layer) + " head " + std::to_string(id.head) +
                      ": the model has " + std::to_string(L) + " layers of " + std::to_string(H) + " heads");
    }
    flags[size_t(id.layer * H + id.head)] = 1;
  }
  return flags;
}

Model::Model(ModelConfig config, ModelWeights weights)
    : config_(std::move(config)), weights_(std::move(weights)), rope_(config_) {
  std::vector<Problem> problems = validate_config_problems(config_);
  if (problems.empty()) {
    // The weights must have the shapes the config calls for (compared
    // without allocating a second set of weights).
    const std::vector<WeightSlot> slots = weight_slots(config_, weights_);
    for (const WeightSlot& slot : slots) {
      if (slot.shape != slot.actual) problems.push_back(shape_problem(slot.name, slot.actual, slot.shape));
    }
    if (!problems.empty()) {
      const Problem misfit = config_misfit(config_, [&](const std::string& name) -> const Shape* {
        for (const WeightSlot& slot : slots) {
          if (slot.name == name) return &slot.actual;
        }
        return nullptr;
      });
      if (!misfit.kind.empty()) problems.insert(problems.begin(), misfit);
    }
  }
  if (!problems.empty()) throw ConfigError(problems);
}

Model Model::random(const ModelConfig& config, uint64_t seed, const std::function<void(double)>& progress,
                    WeightPacking packing, RandomInit init) {
  const auto problems = validate_config_problems(config);
  if (!problems.empty()) throw ConfigError(problems);
  return Model(config, random_weights(config, seed, progress, packing, init));
}

Model Model::from_source(const ModelConfig& config, const TensorSource& source, std::vector<std::string>* warnings) {
  LoadedWeights loaded = load_weights(config, source);
  if (warnings) *warnings = loaded.warnings;
  return Model(std::move(loaded.config), std::move(loaded.weights));
}

void Model::check_ids(const int32_t* ids, int64_t T, int64_t cached) const {
  if (T <= 0) throw Error("input.empty", {}, "no tokens to run: the input is empty");
  for (int64_t i = 0; i < T; ++i) {
    if (ids[i] < 0 || ids[i] >= config_.vocab_size) {
      throw Error("token_id.out_of_range", {{"id", int64_t(ids[i])}, {"position", i}, {"last", config_.vocab_size - 1}},
                  "token id " + std::to_string(ids[i]) + " at position " + std::to_string(i) +
                      " is outside the vocabulary (0.." + std::to_string(config_.vocab_size - 1) + ")");
    }
  }
  if (cached + T > config_.max_position_embeddings) {
    throw Error("input.too_long", {{"tokens", cached + T}, {"limit", config_.max_position_embeddings}},
                std::to_string(cached + T) + " tokens exceed max_position_embeddings " +
                    std::to_string(config_.max_position_embeddings));
  }
}

Matrix Model::forward(const std::vector<int32_t>& ids, KVCache* cache, const std::vector<int32_t>& key_mask,
                      const ForwardOptions& options, Trace* trace, int64_t batch_index) const {
  KVCache local_cache = cache ? KVCache(0, 0, 0) : make_cache();
  KVCache& kv = cache ? *cache : local_cache;
  const int64_t P = kv.length(), T = int64_t(ids.size());
  if (!key_mask.empty() && int64_t(key_mask.size()) != P + T) {
    throw Error("input.mask_length", {{"entries", int64_t(key_mask.size())}, {"expected", P + T}},
                "attention_mask has " + std::to_string(key_mask.size()) + " entries, expected " +
                    std::to_string(P + T) + " (cached + new tokens)");
  }
  ForwardWorkspace workspace;
  Matrix logits(T, config_.vocab_size);  // [T, V]
  forward_into(ids.data(), T, kv, workspace, logits.data(), T, key_mask.empty() ? nullptr : key_mask.data(), options,
               trace, batch_index);
  return logits;
}

void Model::forward_into(const int32_t* ids, int64_t T, KVCache& kv, ForwardWorkspace& ws, float* logits,
                         int64_t logit_rows, const int32_t* key_mask, const ForwardOptions& options, Trace* trace,
                         int64_t batch_index, ForwardHooks* hooks) const {
  const ModelConfig& c = config_;
  const int64_t P = kv.length(), D = c.hidden_size, V = c.vocab_size;
  check_ids(ids, T, P);
  if (logit_rows < 1 || logit_rows > T) {
    throw Error(
        "forward.logit_rows", {{"rows", logit_rows}, {"tokens", T}},
        "logit_rows must be between 1 and the " + std::to_string(T) + " tokens, got " + std::to_string(logit_rows));
  }
  if (trace) validate_trace_request(trace->request(), c.num_hidden_layers);
  const float eps = float(c.rms_norm_eps);

  float* h = scratch(ws.hidden, T * D);  // [T, D] = embed_tokens[ids]
  for (int64_t t = 0; t < T; ++t) weights_.embed_tokens.row(ids[t], h + t * D);

  // A failure half-way (e.g. a trace over its bound) must leave the cache as
  // it was, so the caller can go on with it.
  struct CacheRollback {
    KVCache& kv;
    int64_t rows;
    bool done = false;
    ~CacheRollback() {
      if (!done) kv.truncate(rows);
    }
  } rollback{kv, P};

  BlockRun run;
  run.position = P;
  run.key_mask = key_mask;
  run.trace = trace;
  run.batch_index = batch_index;
  run.hooks = hooks;
  forward_blocks(h, T, kv, ws, options, run);
  kv.advance(T);
  rollback.done = true;

  float* normed = scratch(ws.normed, T * D);  // [T, D]
  rms_norm_rows(h, weights_.norm.data(), T, D, eps, normed);
  record(trace, kModelLevel, stage::kFinalNorm, batch_index, normed, T, D);
  const WeightMatrix& head = weights_.output_head();
  if (logit_rows < T && trace && trace->wants(kModelLevel, stage::kLogits)) {
    // The trace shows every row: compute them all, hand out the last ones.
    std::vector<float> all(size_t(T * V));  // [T, V]
    linear_rows(normed, T, D, head, all.data(), V);
    record(trace, kModelLevel, stage::kLogits, batch_index, all.data(), T, V);
    std::copy(all.end() - logit_rows * V, all.end(), logits);
    return;
  }
  linear_rows(normed + (T - logit_rows) * D, logit_rows, D, head, logits, V);  // [logit_rows, V]
  if (logit_rows == T) record(trace, kModelLevel, stage::kLogits, batch_index, logits, T, V);
}

void Model::check_ablation(const ForwardOptions& options) const {
  const int64_t flags = config_.num_hidden_layers * config_.num_attention_heads;
  if (!options.ablated_heads.empty() && int64_t(options.ablated_heads.size()) != flags) {
    throw Error("ablate.flag_count", {{"expected", flags}, {"got", int64_t(options.ablated_heads.size())}},
                "head ablation needs " + std::to_string(flags) + " flags (layers × heads), got " +
                    std::to_string(options.ablated_heads.size()));
  }
}

namespace {

// The z replacing each head's output in block `l` for its rows P..P+T-1,
// from the hooks' head_input and head_z: ws.heads.rows, [H] pointers to
// [T, Dh] (nullptr: the head as computed), or nullptr when no head is
// written. A switched-off head is left alone (it stays zero).
const float* const* head_writes(const ModelConfig& c, const LayerWeights& w, int64_t l, int64_t T, int64_t P,
                                RopeRows rope, const LayerKVCache& cache, const int32_t* key_mask,
                                const AttentionOptions& attention, ForwardHooks& hooks, ForwardWorkspace& ws,
                                float* out) {
  const int64_t H = c.num_attention_heads, D = c.hidden_size, Dh = c.head_dim;
  ForwardWorkspace::HeadWrites& hw = ws.heads;
  hw.rows.assign(size_t(H), nullptr);
  bool written = false;
  for (int64_t head = 0; head < H; ++head) {
    if (attention.ablated_heads && attention.ablated_heads[head]) continue;
    const float* x = hooks.head_input(l, head, P, T);  // [T, D]
    if (x) {
      // The head's z from its own input: the block's attention on that
      // input, over the cached rows before P. Heads meet only in o_proj, so
      // head `head`'s columns of o_proj's input are its output.
      float* normed = scratch(hw.normed, T * D);  // [T, D]
      rms_norm_rows(x, w.input_layernorm.data(), T, D, float(c.rms_norm_eps), normed);
      hw.cache = cache;
      AttentionOptions plain = attention;
      plain.ablated_heads = nullptr;
      plain.patched_heads = nullptr;
      attention_forward(c, w, normed, T, rope, hw.cache, key_mask, plain, {}, ws.attention, out);
      float* z = scratch(hw.z, H * T * Dh) + head * T * Dh;  // [T, Dh]
      const float* concat = ws.attention.concat.data();      // [T, H, Dh]
      for (int64_t t = 0; t < T; ++t) std::copy_n(concat + (t * H + head) * Dh, Dh, z + t * Dh);
      hw.rows[size_t(head)] = z;
      written = true;
    }
    if (const float* z = hooks.head_z(l, head, P, T)) {
      hw.rows[size_t(head)] = z;
      written = true;
    }
  }
  return written ? hw.rows.data() : nullptr;
}

}  // namespace

void Model::forward_blocks(float* h, int64_t T, KVCache& kv, ForwardWorkspace& ws, const ForwardOptions& options,
                           const BlockRun& run) const {
  const ModelConfig& c = config_;
  const int64_t L = c.num_hidden_layers, D = c.hidden_size, H = c.num_attention_heads, Dh = c.head_dim;
  const int64_t P = run.position, b = run.batch_index;
  check_ablation(options);
  if (run.trace && run.last_row_only) {
    throw Error("trace.needs_every_row", {}, "a trace needs every row: last_row_only runs untraced");
  }
  const float eps = float(c.rms_norm_eps);
  Trace* trace = run.trace;
  ForwardHooks* hooks = run.hooks;
  float* normed = scratch(ws.normed, T * D);  // [T, D]
  float* branch = scratch(ws.branch, T * D);  // [T, D]

  // RoPE's cos and sin of positions P .. P+T-1, once for every layer and head.
  float* cos = scratch(ws.cos, T * Dh);  // [T, Dh]
  float* sin = scratch(ws.sin, T * Dh);  // [T, Dh]
  for (int64_t t = 0; t < T; ++t) rope_.cos_sin(P + t, cos + t * Dh, sin + t * Dh);

  if (hooks) hooks->residual(run.first_layer, P, h, T);
  for (int64_t l = run.first_layer; l < L; ++l) {
    const LayerWeights& w = weights_.layers[size_t(l)];
    const TraceTarget target{trace, l, b};
    LayerKVCache& cache = kv.layer(l);
    if (cache.length() != P) {
      throw Error("cache.out_of_step", {{"layer", l}, {"rows", cache.length()}, {"expected", P}},
                  "block " + std::to_string(l) + "'s cache holds " + std::to_string(cache.length()) +
                      " rows, not the " + std::to_string(P) + " before the first");
    }
    // The last block of a last-row-only run: every row's keys and values,
    // o_proj and the FFN on the last row (the others' would be discarded).
    const int64_t out_row = run.last_row_only && l == L - 1 ? T - 1 : 0, rows = T - out_row;
    float* h_out = h + out_row * D;  // [rows, D]

    // h = h + self_attn(input_layernorm(h))
    record(trace, l, stage::kBlockInput, b, h, T, D);
    rms_norm_rows(h, w.input_layernorm.data(), T, D, eps, normed);
    record(trace, l, stage::kAttnNorm, b, normed, T, D);
    AttentionOptions attention = options.attention;
    attention.ablated_heads = options.ablated_heads.empty() ? nullptr : options.ablated_heads.data() + l * H;
    if (hooks) {
      hooks->attention_input(l, P, normed, T);
      attention.patched_heads =
          head_writes(c, w, l, T, P, {cos, sin}, cache, run.key_mask, attention, *hooks, ws, branch);
    }
    if (out_row > 0) {
      attention_forward(c, w, normed, out_row, {cos, sin}, cache, run.key_mask, attention, target, ws.attention,
                        branch);
      if (hooks) hooks->head_outputs(l, P, ws.attention.concat.data(), out_row);
      if (attention.patched_heads) {
        for (const float*& z : ws.heads.rows) z = z ? z + out_row * Dh : nullptr;
      }
    }
    attention_forward(c, w, normed + out_row * D, rows, {cos + out_row * Dh, sin + out_row * Dh}, cache, run.key_mask,
                      attention, target, ws.attention, branch);
    if (hooks) hooks->head_outputs(l, P + out_row, ws.attention.concat.data(), rows);
    for (int64_t i = 0; i < rows * D; ++i) h_out[i] += branch[i];
    record(trace, l, stage::kAttnResidual, b, h, T, D);

    // h = h + mlp(post_attention_layernorm(h))
    rms_norm_rows(h_out, w.post_attention_layernorm.data(), rows, D, eps, normed);
    record(trace, l, stage::kFfnNorm, b, normed, T, D);
    if (hooks) hooks->ffn_input(l, P + out_row, normed, rows);
    if (c.use_moe) {
      moe_ffn(c, w.moe, normed, rows, branch, ws.moe, target);
    } else {
      swiglu_ffn(w.mlp, normed, rows, branch, ws.ffn, target);
    }
    record(trace, l, stage::kFfnDown, b, branch, T, D);
    if (hooks) hooks->ffn_output(l, P + out_row, branch, rows);
    for (int64_t i = 0; i < rows * D; ++i) h_out[i] += branch[i];
    record(trace, l, stage::kBlockOutput, b, h, T, D);
    if (hooks) hooks->residual(l + 1, P + out_row, h_out, rows);
  }
}

Tensor Model::forward_batch(const std::vector<std::vector<int32_t>>& ids,
                            const std::vector<std::vector<int32_t>>& attention_mask, const ForwardOptions& options,
                            Trace* trace) const {
  if (ids.empty()) throw Error("input.empty_batch", {}, "the batch is empty");
  const int64_t B = int64_t(ids.size()), T = int64_t(ids[0].size());
  for (const auto& row : ids) {
    if (int64_t(row.size()) != T) {
      throw Error("input.ragged_batch", {},
                  "every sequence of a batch needs the same length (pad and pass an attention_mask)");
    }
  }
  if (!attention_mask.empty() && int64_t(attention_mask.size()) != B) {
    throw Error("input.mask_rows", {{"rows", int64_t(attention_mask.size())}, {"sequences", B}},
                "attention_mask has " + std::to_string(attention_mask.size()) + " rows for " + std::to_string(B) +
                    " sequences");
  }
  Tensor logits({B, T, config_.vocab_size});
  for (int64_t b = 0; b < B; ++b) {
    const std::vector<int32_t> no_mask;
    const Matrix row_logits = forward(ids[size_t(b)], nullptr,
                                      attention_mask.empty() ? no_mask : attention_mask[size_t(b)], options, trace, b);
    std::copy(row_logits.data(), row_logits.data() + row_logits.size(),
              logits.data.begin() + b * T * config_.vocab_size);
  }
  return logits;
}

}  // namespace minimind
