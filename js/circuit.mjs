// The circuit of a prediction (Model.circuit): every edge sender -> receiver
// of MiniMind's forward scored by edge attribution patching, the strongest
// checked by path patching, and the faithfulness of the top-N circuits. The
// math is the core's (core/interp/circuit.h); this file checks the options'
// types (the core checks the values and throws kinded errors) and turns the
// module's parallel typed arrays into edges, strongest first.
//
// Edges patch corrupt into clean: `patched` is the clean run's metric with
// only that receiver's input given the sender's corrupt output.
import { argumentChecks, describeBrief } from './argument_checks.mjs';
import { argumentError, shownArgument } from './minimind_error.mjs';

// Only the type of an id: the core checks the range against the vocabulary.
const { integer, object: checkObject, flag, describe } = argumentChecks({ describe: describeBrief, min: -Infinity, max: Infinity });

/** The two rankings of the edges: by |score| (EAP) or by |patched - clean| (unpatched edges after). */
const CIRCUIT_RANKS = ['eap', 'patched'];

// Curve {edges, metric, share} of typed arrays -> [{edges, share, metric}], share null where undefined.
function curve(flat) {
  return Array.from(flat.edges, (edges, i) => ({
    edges,
    share: Number.isNaN(flat.share[i]) ? null : flat.share[i],
    metric: flat.metric[i],
  }));
}

/**
 * Edge order of a circuit result, strongest first: by |score|, or by
 * |patched - clean| with the edges not patched after (by |score|); ties keep
 * the graph's order.
 */
function rankEdges(edges, clean, rank) {
  const key = (e) =>
    rank === 'patched' ? (e.patched === null ? [1, Math.abs(e.score)] : [0, Math.abs(e.patched - clean)]) : [0, Math.abs(e.score)];
  return edges
    .map((edge, index) => ({ edge, index, key: key(edge) }))
    .sort((a, b) => a.key[0] - b.key[0] || b.key[1] - a.key[1] || a.index - b.index)
    .map((x) => x.edge);
}

/**
 * The circuit of clean vs corrupt (Int32Array ids of the same length).
 * options: answer, wrong (token ids), top (path-patch only the top N edges by
 * |score|; default every edge), positions (split each score by position),
 * rank ('eap' default or 'patched': the order of `edges` and which curve
 * `faithfulness` is), faithfulness (false: skip both curves), ablate
 * ([[layer, head], ...] checked by minimind.mjs: every run with those heads
 * switched off; the core checks the ranges).
 */
export function circuitOf(native, clean, corrupt, options = {}) {
  checkObject(options, 'options');
  if (options.answer === undefined)
    throw argumentError(TypeError, 'api.required', { name: 'answer' }, 'answer is required: give a token id');
  if (options.wrong === undefined) throw argumentError(TypeError, 'api.required', { name: 'wrong' }, 'wrong is required: give a token id');
  const request = {
    answer: integer(options.answer, 'answer'),
    wrong: integer(options.wrong, 'wrong'),
    top: -1,
    positions: flag(options.positions, 'positions', false),
    faithfulness: flag(options.faithfulness, 'faithfulness', true),
  };
  if (options.ablate !== undefined) request.ablate = options.ablate;
  if (options.top !== undefined && options.top !== null) {
    request.top = integer(options.top, 'top (edges to path-patch)');
    if (request.top < 0)
      throw argumentError(
        RangeError,
        'api.not_negative',
        { name: 'top', got: request.top },
        `top must be 0 or more edges, got ${request.top}`,
      );
  }
  const rank = options.rank ?? 'eap';
  if (!CIRCUIT_RANKS.includes(rank))
    throw argumentError(
      RangeError,
      'api.one_of',
      { name: 'rank', allowed: 'eap, patched', got: shownArgument(rank) },
      `rank must be "eap" or "patched", got ${describe(rank)}`,
    );
  const out = native.circuit(clean, corrupt, JSON.stringify(request));
  const T = out.T;
  const edges = Array.from(out.from, (from, e) => {
    const edge = {
      from: out.senders[from],
      to: out.receivers[out.to[e]],
      score: out.score[e],
      patched: Number.isNaN(out.patched[e]) ? null : out.patched[e],
    };
    if (request.positions) edge.positions = Array.from(out.positions.subarray(e * T, (e + 1) * T));
    return edge;
  });
  const curves = request.faithfulness ? { eap: curve(out.faithfulness), patched: curve(out.faithfulnessPatched) } : null;
  return {
    metric: { clean: out.clean, corrupt: out.corrupt },
    edges: rankEdges(edges, out.clean, rank),
    faithfulness: curves ? curves[rank] : null,
    curves,
    rank,
    senders: out.senders,
    receivers: out.receivers,
  };
}
