// The interpretability tools as NativeModel methods (lens, patch, attribute, qk,
// keyComposition):
// registration and conversion only, the math is core/interp/. Each takes
// ids as Int32Array and its options as JSON text; results come back as
// typed arrays, flat and row-major, which js/interp.mjs nests.
#pragma once

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "interp/attribution.h"
#include "interp/key_composition.h"
#include "interp/logit_lens.h"
#include "interp/patching.h"
#include "interp/qk_attribution.h"
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

// The hooked run of ids under options: the model's cached one when ids,
// switches, heads switched off and weights are those it was run with, else
// a new run, kept in its place.
inline const Activations& cached_run(WasmModel& m, const std::vector<int32_t>& ids, const InterpOptions& o) {
  std::unique_ptr<WasmModel::HookedRun>& cached = m.hooked_run();
  const auto same_heads = [&](const std::vector<HeadId>& a) {
    return a.size() == o.ablate.size() &&
           std::equal(a.begin(), a.end(), o.ablate.begin(),
                      [](const HeadId& x, const HeadId& y) { return x.layer == y.layer && x.head == y.head; });
  };
  const uint64_t version = *m.weights_version();
  if (cached && cached->ids == ids && cached->causal_mask == o.causal_mask && cached->scale_scores == o.scale_scores &&
      same_heads(cached->ablate) && cached->weights_version == version) {
    return cached->run;
  }
  cached.reset();  // a failed run leaves nothing stale behind
  Activations run = run_with_hooks(*m.model(), ids, o);
  cached = std::make_unique<WasmModel::HookedRun>(
      WasmModel::HookedRun{ids, o.causal_mask, o.scale_scores, o.ablate, version, std::move(run)});
  return cached->run;
}

// options {layer, head, query, key, versus (a position, "mean" or null),
// rankKeys, causalMask, scaleScores, ablate} -> {layer, head, query, key,
// score, weight, masked, components: [C names], table: Float32Array [C, C],
// ropePairs, ropePairsUnrotated: Float32Array [Dh/2], versus: {key (-1: the
// mean), score, table: Float32Array [C, C]} or null, rankedIds: Int32Array,
// rankedScores: Float32Array}.
inline val interp_qk(WasmModel& m, const val& ids_js, const std::string& options_json) {
  return guarded([&] {
    const json j = json::parse(options_json);
    QKRequest request;
    request.layer = j.at("layer").get<int64_t>();
    request.head = j.at("head").get<int64_t>();
    request.query = j.at("query").get<int64_t>();
    request.key = j.at("key").get<int64_t>();
    request.rank_keys = j.value("rankKeys", int64_t{0});
    const json versus = j.value("versus", json());
    if (versus.is_string()) {
      if (versus.get<std::string>() != "mean") throw std::invalid_argument("versus must be a position or \"mean\"");
      request.versus.kind = QKVersus::Kind::mean;
    } else if (versus.is_number()) {
      request.versus.kind = QKVersus::Kind::position;
      request.versus.position = versus.get<int64_t>();
    }
    const InterpOptions options = interp_options(j);
    const std::vector<int32_t> ids = to_ids(ids_js);
    check_interp_ids(*m.model(), ids);
    const QKAttribution r = qk_attribution(*m.model(), ids, cached_run(m, ids, options), request, options);
    val out = val::object();
    out.set("layer", double(r.layer));
    out.set("head", double(r.head));
    out.set("query", double(r.query));
    out.set("key", double(r.key));
    out.set("score", r.score);
    out.set("weight", r.weight);
    out.set("masked", r.masked);
    val names = val::array();
    for (const std::string& name : r.components) names.call<void>("push", name);
    out.set("components", names);
    out.set("table", typed_copy(r.table.data(), r.table.size()));
    out.set("ropePairs", typed_copy(r.rope_pairs.data(), r.rope_pairs.size()));
    out.set("ropePairsUnrotated", typed_copy(r.rope_pairs_unrotated.data(), r.rope_pairs_unrotated.size()));
    if (r.has_versus) {
      val v = val::object();
      v.set("key", double(r.versus_key));
      v.set("score", r.versus_score);
      v.set("table", typed_copy(r.versus_table.data(), r.versus_table.size()));
      out.set("versus", v);
    } else {
      out.set("versus", val::null());
    }
    std::vector<int32_t> ranked_ids;
    std::vector<float> ranked_scores;
    for (const RankedKey& k : r.ranked) {
      ranked_ids.push_back(k.id);
      ranked_scores.push_back(k.score);
    }
    out.set("rankedIds", typed_copy(ranked_ids.data(), ranked_ids.size()));
    out.set("rankedScores", typed_copy(ranked_scores.data(), ranked_scores.size()));
    return out;
  });
}

// options {cells: [[query, key], ...], causalMask, scaleScores, ablate} ->
// {layers: [{layer, components: [C names], heads: [{head, gap, parts:
// Float32Array [C]}]}]}, blocks 1 .. L-1 (core/interp/key_composition.h).
inline val interp_key_composition(WasmModel& m, const val& ids_js, const std::string& options_json) {
  return guarded([&] {
    const json j = json::parse(options_json);
    std::vector<CompositionCell> cells;
    for (const json& cell : j.at("cells")) cells.push_back({cell.at(0).get<int64_t>(), cell.at(1).get<int64_t>()});
    const InterpOptions options = interp_options(j);
    const std::vector<int32_t> ids = to_ids(ids_js);
    check_interp_ids(*m.model(), ids);
    const std::vector<LayerKeyComposition> layers =
        key_composition(*m.model(), ids, cached_run(m, ids, options), cells, options);
    val out = val::array();
    for (const LayerKeyComposition& l : layers) {
      val layer = val::object();
      layer.set("layer", double(l.layer));
      val names = val::array();
      for (const std::string& name : l.components) names.call<void>("push", name);
      layer.set("components", names);
      val heads = val::array();
      for (const HeadKeyComposition& h : l.heads) {
        val head = val::object();
        head.set("head", double(h.head));
        head.set("gap", h.gap);
        head.set("parts", typed_copy(h.parts.data(), h.parts.size()));
        heads.call<void>("push", head);
      }
      layer.set("heads", heads);
      out.call<void>("push", layer);
    }
    val result = val::object();
    result.set("layers", out);
    return result;
  });
}

}  // namespace minimind::wasm
