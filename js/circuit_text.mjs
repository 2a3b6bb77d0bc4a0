// The circuit view's logic that is not drawing: each edge's share of the
// answer, the faithfulness curve at a chosen N, and the sentences the page
// says about a circuit ({key, params}, worded by the page's catalogue,
// web/messages/circuit_terms.mjs), computed from model.circuit()'s numbers.
//
// Direction: edges patch corrupt into clean. An edge's share is
// (clean − patched) / (clean − corrupt): 1 when giving that one receiver the
// sender's corrupt output costs the whole answer, 0 when it costs nothing,
// negative when the edge worked against the answer. EAP's estimate of it is
// −score / (clean − corrupt) (score estimates patched − clean).
//
// Shapes: result.edges [E] of {from, to, score, patched | null, positions?: [T]},
// result.curves {eap, patched} of [{edges, share | null, metric}].
import { componentName } from './qk_text.mjs';

/** Below this |clean − corrupt| the pair has no answer to carry: no shares. */
const NO_GAP = 1e-6;
/** Edges whose share the sentences name. */
const NAMED_EDGES = 3;
/** A circuit "keeps the answer" from this share of it on. */
export const FAITHFUL = 0.8;
/** The induction story looks for its edges among this many strongest. */
export const INDUCTION_TOP = 20;

/** (clean − value) / (clean − corrupt); null without a gap or a value. */
export function lostShare(value, metric) {
  const gap = metric.clean - metric.corrupt;
  if (value === null || value === undefined || !(Math.abs(gap) > NO_GAP)) return null;
  return (metric.clean - value) / gap;
}

/** An edge's shares: {patched: by path patching | null, eap: EAP's estimate | null}. */
export function edgeShares(edge, metric) {
  return { patched: lostShare(edge.patched, metric), eap: lostShare(metric.clean + edge.score, metric) };
}

/** The sender and the receiver's component of an edge: 'L1H1' -> 'L2H2.k' gives {from: 'L1H1', to: 'L2H2', port: 'k'}. */
export function edgeEnds(edge) {
  const m = /^(.*)\.([qkv])$/.exec(edge.to);
  return { from: edge.from, to: m ? m[1] : edge.to, port: m ? m[2] : null };
}

/** The N values of a curve (0, 1, 2, 5, … and every edge). */
export function curveSteps(curves) {
  return (curves?.eap ?? []).map((p) => p.edges);
}

/** The shares of both curves at N edges: {edges, eap, patched} (null where a curve has none). */
export function curveAt(curves, n) {
  const at = (curve) => curve?.find((p) => p.edges === n)?.share ?? null;
  return { edges: n, eap: at(curves?.eap), patched: at(curves?.patched) };
}

/** The smallest N whose circuit keeps at least FAITHFUL of the answer on `curve`; null when none but every edge does. */
export function faithfulAt(curve, total) {
  const point = curve?.find((p) => p.edges < total && p.share !== null && p.share >= FAITHFUL);
  return point ?? null;
}

/** The edges path patching measured, strongest first by |clean − patched|. */
export function patchedEdges(result) {
  const clean = result.metric.clean;
  return result.edges.filter((e) => e.patched !== null).sort((a, b) => Math.abs(b.patched - clean) - Math.abs(a.patched - clean));
}

/**
 * Where an edge's score enters: the position whose part of the split is largest
 * in size, with its part of the sum of the parts' sizes. null without positions.
 */
export function carryingPosition(edge) {
  if (!edge.positions?.length) return null;
  let at = 0;
  let total = 0;
  edge.positions.forEach((v, t) => {
    total += Math.abs(v);
    if (Math.abs(v) > Math.abs(edge.positions[at])) at = t;
  });
  return total > 0 ? { position: at, part: Math.abs(edge.positions[at]) / total } : null;
}

/** The positions where the clean and corrupt token labels differ. */
export function differingPositions(tokens) {
  if (!tokens) return [];
  return tokens.clean.flatMap((label, t) => (label !== tokens.corrupt[t] ? [t] : []));
}

const percent = (x) => Math.round(x * 100);
const edgeName = (edge) => `${edge.from} → ${edge.to}`;

/**
 * The sentences about a circuit (strongest edges, where they enter, its
 * faithfulness). context: {tokens: {clean, corrupt} labels, roles: {name: role}
 * (the measured head roles, or {}), story: {referent, pronoun} | null (the pair
 * swaps the referent)}.
 */
export function circuitSentences(result, context = {}) {
  const { metric } = result;
  const lines = [{ key: 'circuit.metric', params: { clean: metric.clean.toFixed(2), corrupt: metric.corrupt.toFixed(2) } }];
  if (!(Math.abs(metric.clean - metric.corrupt) > NO_GAP)) return [...lines, { key: 'circuit.noGap', params: {} }];
  const roles = context.roles ?? {};
  const strongest = patchedEdges(result).slice(0, NAMED_EDGES);
  const differing = differingPositions(context.tokens);
  for (const edge of strongest) {
    const share = edgeShares(edge, metric).patched;
    const carry = carryingPosition(edge);
    // Against the answer the share is said as what cutting the edge adds: its size.
    const params = { edge: edgeName(edge), from: componentName(edge.from, roles), share: percent(share >= 0 ? share : -share) };
    if (!carry) {
      lines.push({ key: share >= 0 ? 'circuit.edge' : 'circuit.edgeAgainst', params });
      continue;
    }
    const token = context.tokens?.clean?.[carry.position] ?? '';
    // Only a position where the two texts differ can be where the pair's difference enters.
    const swapped = differing.includes(carry.position);
    lines.push({
      key: share >= 0 ? 'circuit.edgeAt' : 'circuit.edgeAgainstAt',
      params: { ...params, position: carry.position, token, part: percent(carry.part) },
    });
    if (swapped && context.story && share >= 0 && edge === strongest[0])
      lines.push({
        key: 'circuit.referent',
        params: { edge: edgeName(edge), referent: context.story.referent, pronoun: context.story.pronoun },
      });
  }
  const first = strongest[0];
  if (first) {
    const { eap, patched } = edgeShares(first, metric);
    // EAP is a first-order estimate: say so when it misses the patched share by more than 10 points.
    if (eap !== null && Math.abs(eap - patched) > 0.1)
      lines.push({ key: 'circuit.estimateOff', params: { edge: edgeName(first), eap: percent(eap), patched: percent(patched) } });
  }
  lines.push(...faithfulnessSentences(result));
  const unpatched = result.edges.length - patchedEdges(result).length;
  if (unpatched > 0) lines.push({ key: 'circuit.unpatched', params: { count: unpatched, total: result.edges.length } });
  return lines;
}

/** How many edges keep most of the answer, by both rankings. */
function faithfulnessSentences(result) {
  const total = result.edges.length;
  const lines = [];
  for (const rank of ['eap', 'patched']) {
    const curve = result.curves?.[rank];
    if (!curve) continue;
    const point = faithfulAt(curve, total);
    if (point) lines.push({ key: `circuit.faithful.${rank}`, params: { edges: point.edges, total, share: percent(point.share) } });
    else lines.push({ key: `circuit.notFaithful.${rank}`, params: { total, threshold: percent(FAITHFUL) } });
  }
  return lines;
}

/**
 * The induction circuit, only as far as the numbers show it: among the
 * INDUCTION_TOP strongest edges (by |score|), an edge from a previous-token
 * head into an induction head's keys, and that induction head's edge into the
 * logits. roles: {name: role} (measured). Returns one sentence.
 */
export function inductionSentence(result, roles = {}) {
  const heads = (role) => Object.keys(roles).filter((name) => roles[name] === role);
  const previous = heads('previous-token');
  const induction = heads('induction');
  if (!previous.length || !induction.length) return { key: 'circuit.induction.noRoles', params: {} };
  const top = result.edges.slice(0, INDUCTION_TOP);
  const rankOf = (edge) => result.edges.indexOf(edge) + 1;
  for (const head of induction) {
    const keyEdge = top.find((e) => previous.includes(e.from) && e.to === `${head}.k`);
    const outEdge = top.find((e) => e.from === head && e.to === 'logits');
    if (keyEdge && outEdge)
      return {
        key: 'circuit.induction.found',
        params: { previous: keyEdge.from, induction: head, keyRank: rankOf(keyEdge), outRank: rankOf(outEdge), top: INDUCTION_TOP },
      };
  }
  const keyEdge = top.find((e) => previous.includes(e.from) && induction.some((h) => e.to === `${h}.k`));
  const outEdge = top.find((e) => induction.includes(e.from) && e.to === 'logits');
  if (keyEdge) return { key: 'circuit.induction.keysOnly', params: { edge: edgeName(keyEdge), rank: rankOf(keyEdge), top: INDUCTION_TOP } };
  if (outEdge) return { key: 'circuit.induction.outOnly', params: { edge: edgeName(outEdge), rank: rankOf(outEdge), top: INDUCTION_TOP } };
  return { key: 'circuit.induction.none', params: { previous: previous.join('、'), induction: induction.join('、'), top: INDUCTION_TOP } };
}

/**
 * A pair for the induction circuit from a text typed twice: ids = [bos?, …first, …second] where
 * the second copy is the first's beginning (2 tokens or more; a whole second copy loses its last
 * token). The clean run is those ids; the corrupt one has the first copy reversed (the same tokens,
 * each followed by another), so copying predicts another token. answer: the token after the last
 * one in the clean first copy; wrong: in the corrupt's. null when the ids are no text typed twice.
 */
export function inductionPair(ids, bos = 1) {
  const start = ids[0] === bos ? 1 : 0;
  let body = ids.slice(start);
  const half = body.length / 2;
  if (Number.isInteger(half) && half >= 3 && body.slice(half).every((id, i) => id === body[i])) body = body.slice(0, -1);
  for (let size = body.length - 2; size >= 3; size -= 1) {
    const first = body.slice(0, size);
    const second = body.slice(size);
    const n = second.length;
    if (n < 2 || n >= size || !second.every((id, i) => id === first[i])) continue;
    if (new Set(first).size !== first.length) continue; // a token said twice in a copy has two next tokens
    const reversed = first.toReversed();
    // first[n - 1] ends the text; first[n] follows it in the clean copy, first[n - 2] in the reversed one.
    const prefix = ids.slice(0, start);
    return {
      clean: [...prefix, ...first, ...second],
      corrupt: [...prefix, ...reversed, ...second],
      answer: first[n],
      wrong: first[n - 2],
      copy: size,
    };
  }
  return null;
}
