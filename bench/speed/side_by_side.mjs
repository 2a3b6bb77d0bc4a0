// Our builds timed side by side in one process. On a shared host whose speed
// drifts by tens of percent within seconds, builds timed in separate
// processes compare the host's moments as much as the code; here every
// repetition times each model back to back, in an order rotated by one per
// repetition, and each repetition's times are compared with one another.
// bench/speed/threads.mjs (the SIMD and relaxed builds) and bench/speed/compare_commits.mjs
// (the checkout against other commits) use it.
import { median } from '../median.mjs';
import { DECODE, promptIds } from './ort_times.mjs';

/** One greedy decoding run of a model of js/minimind.mjs: ms per step. */
export function decodeStepMs(model) {
  const generator = model.generator(promptIds(DECODE.prompt), { greedy: true });
  const t = performance.now();
  for (let s = 0; s < DECODE.steps; s += 1) generator.step({ trace: false });
  const ms = (performance.now() - t) / DECODE.steps;
  generator.dispose();
  return ms;
}

/** `list` rotated left by `k` (mod its length). */
export function rotated(list, k) {
  const n = list.length;
  const at = n ? k % n : 0;
  return [...list.slice(at), ...list.slice(0, at)];
}

/**
 * models {key: model}, works ['prefill<T>' | 'decode'], reps(work) ->
 * repetitions after one warm-up each. Returns {key: {work: median ms, ratio:
 * {work: the median over the repetitions of `base`'s time ÷ this model's}}}.
 */
export function timeSideBySide(models, works, reps, base) {
  const keys = Object.keys(models);
  const out = Object.fromEntries(keys.map((k) => [k, { ratio: {} }]));
  for (const work of works) {
    const T = work === 'decode' ? 0 : Number(work.slice('prefill'.length));
    const measure =
      work === 'decode'
        ? decodeStepMs
        : (model) => {
            const t = performance.now();
            model.forward(promptIds(T));
            return performance.now() - t;
          };
    for (const k of keys) measure(models[k]); // warm-up
    const times = Object.fromEntries(keys.map((k) => [k, []]));
    for (let r = 0; r < reps(work); r += 1) for (const k of rotated(keys, r)) times[k].push(measure(models[k]));
    for (const k of keys) {
      out[k][work] = median(times[k]);
      out[k].ratio[work] = median(times[base].map((t, r) => t / times[k][r]));
    }
  }
  return out;
}
