// The bench's correctness check (bench/run.mjs): before timing anything, the
// runtimes must compute the same model, and the model must be one whose
// agreement means something.
import { argmax } from '../../js/argmax.mjs';

// ONNX Runtime and the native builds sum in another order, so their logits
// may differ by float32 rounding: at most this fraction of the largest |logit|
// (measured: at most 2e-6 of it).
export const LOGIT_TOLERANCE = 1e-4;
// A model that predicts each position's own token (argmax of row t = id t) in
// more than this fraction of the positions proves little by agreeing: with
// an embedding seeded at U(-1, 1) the tied lm_head maps every position back to
// its own token, whatever the layers compute.
const MAX_SELF_PREDICTION = 0.5;

/** Fraction of positions t whose argmax over logits[t * V .. (t + 1) * V) is ids[t]. */
export function selfPrediction(logits, ids, V) {
  let same = 0;
  for (let t = 0; t < ids.length; t += 1) {
    if (argmax(logits, t * V, (t + 1) * V) === ids[t]) same += 1;
  }
  return same / ids.length;
}

/**
 * Throws, naming the preset, the length and the numbers, unless every logit
 * of ONNX Runtime, the native builds and wasm-relaxed (fused multiply-adds
 * round once where wasm-simd rounds twice; absent where Node has no relaxed
 * SIMD) is within LOGIT_TOLERANCE of the largest |logit| of wasm-simd,
 * wasm-scalar and wasm-simd-f32 are bit-identical to it (the same order of
 * operations), and at most MAX_SELF_PREDICTION of the positions predict their
 * own token.
 * `check`: {T, ortVsSimd, nativeVsSimd, relaxedVsSimd?, scalarVsSimd, f32VsSimd, logitScale, selfPrediction}.
 */
export function checkAgreement(preset, check) {
  const limit = LOGIT_TOLERANCE * check.logitScale;
  const what = `${preset}, ${check.T} tokens`;
  if (!(check.ortVsSimd <= limit))
    throw new Error(
      `${what}: ort-web's logits differ from wasm-simd's by ${check.ortVsSimd.toExponential(2)} (limit ${limit.toExponential(2)})`,
    );
  if (!(check.nativeVsSimd <= limit))
    throw new Error(
      `${what}: the native builds' logit differs from wasm-simd's by ${check.nativeVsSimd.toExponential(2)} (limit ${limit.toExponential(2)})`,
    );
  if (check.relaxedVsSimd !== undefined && !(check.relaxedVsSimd <= limit))
    throw new Error(
      `${what}: wasm-relaxed's logits differ from wasm-simd's by ${check.relaxedVsSimd.toExponential(2)} (limit ${limit.toExponential(2)})`,
    );
  if (check.scalarVsSimd !== 0 || check.f32VsSimd !== 0)
    throw new Error(`${what}: wasm-scalar (${check.scalarVsSimd}) or wasm-simd-f32 (${check.f32VsSimd}) is not bit-identical to wasm-simd`);
  if (!(check.selfPrediction <= MAX_SELF_PREDICTION))
    throw new Error(
      `${what}: the model predicts each position's own token at ${(100 * check.selfPrediction).toFixed(0)}% of the positions, ` +
        'so agreeing on it proves little (is the embedding seeded at U(-1, 1)?)',
    );
}
