// model.circuit as a NativeModel method: registration and conversion only,
// the math is core/interp/circuit.h. Ids come as Int32Array, options as
// JSON text; the edges come back as parallel typed arrays (edge order of
// core/interp/circuit_graph.h), which js/interp.mjs turns into objects.
#pragma once

#include <string>
#include <vector>

#include "interp/circuit.h"
#include "js_options.h"
#include "js_values.h"
#include "model_binding.h"

namespace minimind::wasm {

// One faithfulness curve -> {edges: Float64Array, metric, share: Float32Array (NaN: undefined)}.
inline val faithfulness_curve(const std::vector<FaithfulnessPoint>& curve) {
  std::vector<double> edges;
  std::vector<float> metric, share;
  for (const FaithfulnessPoint& p : curve) {
    edges.push_back(double(p.edges));
    metric.push_back(p.metric);
    share.push_back(p.share);
  }
  val out = val::object();
  out.set("edges", typed_copy(edges.data(), edges.size()));
  out.set("metric", typed_copy(metric.data(), metric.size()));
  out.set("share", typed_copy(share.data(), share.size()));
  return out;
}

// options {answer, wrong, top (-1: every edge), positions, faithfulness, ablate: [[layer, head], ...]} ->
// {T, clean, corrupt, senders: [S names], receivers: [Rcv names], from, to:
// Int32Array [E], score, patched: Float32Array [E] (patched NaN outside top),
// positions: Float32Array [E, T] (empty unless asked), faithfulness,
// faithfulnessPatched: curves as above}.
inline val interp_circuit(const WasmModel& m, const val& clean, const val& corrupt, const std::string& options_json) {
  return guarded([&] {
    const json j = json::parse(options_json);
    CircuitRequest request;
    request.clean = to_ids(clean);
    request.corrupt = to_ids(corrupt);
    request.answer = j.at("answer").get<int32_t>();
    request.wrong = j.at("wrong").get<int32_t>();
    request.top = j.value("top", int64_t{-1});
    request.positions = j.value("positions", false);
    request.faithfulness = j.value("faithfulness", true);
    request.ablate = parse_ablation(j);
    const CircuitResult r = circuit(*m.model(), request);
    std::vector<int32_t> from, to;
    std::vector<float> score, patched;
    for (const CircuitEdge& e : r.edges) {
      from.push_back(e.from);
      to.push_back(e.to);
      score.push_back(e.score);
      patched.push_back(e.patched);
    }
    val out = val::object();
    out.set("T", double(r.T));
    out.set("clean", r.clean);
    out.set("corrupt", r.corrupt);
    val senders = val::array(), receivers = val::array();
    for (const std::string& name : r.senders) senders.call<void>("push", name);
    for (const std::string& name : r.receivers) receivers.call<void>("push", name);
    out.set("senders", senders);
    out.set("receivers", receivers);
    out.set("from", typed_copy(from.data(), from.size()));
    out.set("to", typed_copy(to.data(), to.size()));
    out.set("score", typed_copy(score.data(), score.size()));
    out.set("patched", typed_copy(patched.data(), patched.size()));
    out.set("positions", typed_copy(r.positions.data(), r.positions.size()));
    out.set("faithfulness", faithfulness_curve(r.faithfulness));
    out.set("faithfulnessPatched", faithfulness_curve(r.faithfulness_patched));
    return out;
  });
}

}  // namespace minimind::wasm
