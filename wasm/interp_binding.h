// The interpretability tools as NativeModel methods (lens, patch, attribute):
// registration and conversion only, the math is core/interp/. Each takes
// ids as Int32Array and its options as JSON text; results come back as
// typed arrays, flat and row-major, which js/interp.mjs nests.
#pragma once

#include <string>

#include "interp/attribution.h"
#include "interp/logit_lens.h"
#include "interp/patching.h"
#include "js_options.h"
#include "js_values.h"
#include "model_binding.h"

namespace minimind::wasm {

// {"causalMask": bool, "scaleScores": bool, "ablate": [[layer, head], ...]}:
// both on and no head off by default.
inline InterpOptions interp_options(const json& j) {
  InterpOptions o;
  o.causal_mask = j.value("causalMask", true);
  o.scale_scores = j.value("scaleScores", true);
  o.ablate = parse_ablation(j);
  return o;
}

// options {top, token (-1: none), causalMask, scaleScores, ablate} -> {layers (L + 1),
// T, top, ids: Int32Array [L + 1, T, top], p: Float32Array [L + 1, T, top],
// tokenP: Float32Array [L + 1, T] (empty without a token)}.
inline val interp_lens(const WasmModel& m, const val& ids, const std::string& options_json) {
  return guarded([&] {
    const json j = json::parse(options_json);
    const Activations a = run_with_hooks(*m.model(), to_ids(ids), interp_options(j));
    const LogitLens lens = logit_lens(*m.model(), a, j.value("top", int64_t{5}), j.value("token", int32_t{-1}));
    std::vector<int32_t> top_ids;
    std::vector<float> top_p;
    for (const LensEntry& e : lens.top) {
      top_ids.push_back(e.id);
      top_p.push_back(e.p);
    }
    val out = val::object();
    out.set("layers", double(lens.layers));
    out.set("T", double(lens.T));
    out.set("top", double(lens.top_k));
    out.set("ids", typed_copy(top_ids.data(), top_ids.size()));
    out.set("p", typed_copy(top_p.data(), top_p.size()));
    out.set("tokenP", typed_copy(lens.token_p.data(), lens.token_p.size()));
    return out;
  });
}

// options {answer, wrong, causalMask, scaleScores, ablate, heads, residual} ->
// {clean, corrupt, heads: Float32Array [L, H], residual: Float32Array
// [L + 1, T]} (raw metrics; a sweep switched off gives an empty array, a
// head switched off NaN).
inline val interp_patch(const WasmModel& m, const val& clean, const val& corrupt, const std::string& options_json) {
  return guarded([&] {
    const json j = json::parse(options_json);
    const PatchingResult r = activation_patching(
        *m.model(), to_ids(clean), to_ids(corrupt), j.at("answer").get<int32_t>(), j.at("wrong").get<int32_t>(),
        interp_options(j), {j.value("heads", true), j.value("residual", true)});
    val out = val::object();
    out.set("clean", r.clean);
    out.set("corrupt", r.corrupt);
    out.set("heads", typed_copy(r.heads.data(), r.heads.size()));
    out.set("residual", typed_copy(r.residual.data(), r.residual.size()));
    return out;
  });
}

// options {position, answer, wrong, causalMask, scaleScores, ablate} -> {position,
// total, embedding, heads: Float32Array [L, H], ffn: Float32Array [L]}.
inline val interp_attribute(const WasmModel& m, const val& ids, const std::string& options_json) {
  return guarded([&] {
    const json j = json::parse(options_json);
    const Attribution r =
        direct_logit_attribution(*m.model(), to_ids(ids), j.at("position").get<int64_t>(),
                                 j.at("answer").get<int32_t>(), j.at("wrong").get<int32_t>(), interp_options(j));
    val out = val::object();
    out.set("position", double(r.position));
    out.set("total", r.total);
    out.set("embedding", r.embedding);
    out.set("heads", typed_copy(r.heads.data(), r.heads.size()));
    out.set("ffn", typed_copy(r.ffn.data(), r.ffn.size()));
    return out;
  });
}

}  // namespace minimind::wasm
