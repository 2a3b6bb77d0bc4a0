// How much attention a purely positional head can put on the previous token,
// given MiniMind's q/k norm and RoPE (theta 1e6, the halves of each head
// rotated), as a function of head_dim and of the q/k norm weights' gain:
// the scores are q_rot(i)·k_rot(j) / √head_dim with q and k of RMS `gain`
// (RMSNorm's output times its weight), the same q and k at every position,
// so they depend on i - j alone. A seeded random search over q and k finds
// the largest mean softmax weight on j = i - 1 over the rows of a causal
// sequence of T tokens; what it finds is reachable, so the cap is at least that.
//
// Why it matters: at initialisation the norm weights are 1, and a head whose
// gain is still near 1 cannot put 0.8 on the previous token however it turns
// q and k; the previous-token score of a young model is bound by how fast
// training grows those weights. The table over head_dim, gain and length is
// bench/training/prev_token_cap.mjs; the model card quotes the cap at gain 1.
import { makeRng } from './corpus.mjs';

const THETA = 1e6;

function meanPreviousWeight(q, k, d, T, gain) {
  const half = d / 2;
  const rms = (x) => Math.sqrt(x.reduce((s, v) => s + v * v, 0) / d);
  const qs = gain / rms(q);
  const ks = gain / rms(k);
  // score(Δ) for Δ = i - j = 0 .. T-1: each rotated pair contributes
  // (qa ka + qb kb) cos(ωΔ) + (qa kb - qb ka) sin(ωΔ).
  const score = new Float64Array(T);
  for (let delta = 0; delta < T; delta += 1) {
    let s = 0;
    for (let p = 0; p < half; p += 1) {
      const angle = THETA ** ((-2 * p) / d) * delta;
      const qa = q[p] * qs;
      const qb = q[p + half] * qs;
      const ka = k[p] * ks;
      const kb = k[p + half] * ks;
      s += (qa * ka + qb * kb) * Math.cos(angle) + (qa * kb - qb * ka) * Math.sin(angle);
    }
    score[delta] = s / Math.sqrt(d);
  }
  let total = 0;
  for (let i = 1; i < T; i += 1) {
    let z = 0;
    for (let delta = 0; delta <= i; delta += 1) z += Math.exp(score[delta]);
    total += Math.exp(score[1]) / z;
  }
  return total / (T - 1);
}

/** The best mean weight on the previous token found for head_dim d, T tokens and q/k gain `gain`. */
export function previousTokenCap(d, T, gain, { restarts = 6, iterations = 6000, seed = 1 } = {}) {
  const rng = makeRng(seed);
  const noise = () => rng.float() - 0.5;
  let best = 0;
  for (let r = 0; r < restarts; r += 1) {
    let q = Array.from({ length: d }, noise);
    let k = Array.from({ length: d }, noise);
    let value = meanPreviousWeight(q, k, d, T, gain);
    let step = 0.5;
    for (let it = 0; it < iterations; it += 1) {
      const q2 = q.map((v) => v + noise() * step);
      const k2 = k.map((v) => v + noise() * step);
      const v2 = meanPreviousWeight(q2, k2, d, T, gain);
      if (v2 > value) {
        q = q2;
        k = k2;
        value = v2;
      } else {
        step *= 0.9995;
      }
    }
    best = Math.max(best, value);
  }
  return best;
}
