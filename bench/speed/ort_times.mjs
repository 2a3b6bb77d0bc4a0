// ONNX Runtime Web's times in this process, as bench/speed/threads.mjs, bench/limits/limits.mjs
// and bench/speed/compare_commits.mjs measure it: the wasm backend with SIMD and
// graph optimisation 'all' on bench/speed/make_onnx.py's two graphs of a preset
// (prefill, and decode with past/present k/v), on `threads` threads.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { argmax } from '../../js/argmax.mjs';
import { median } from '../median.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** The token ids of these benches' prompts: 3 + ((i · 131 + 7) mod 6000). */
export const promptIds = (n) => Array.from({ length: n }, (_, i) => 3 + ((i * 131 + 7) % 6000));

/** Greedy decoding: `steps` steps after a `prompt`-token prompt. */
export const DECODE = Object.freeze({ prompt: 32, steps: 32 });

/**
 * {prefill<T>: ms for each T of `prefill` (median of 5, of 3 above 64 tokens,
 * after one warm-up), decode: ms per step (median of 3 runs after one, when
 * `decode`), next: the greedy next token after `checkTokens` tokens (when
 * above 0), threads}.
 */
export async function ortTimes({ preset, threads = 1, prefill = [64, 256], decode = true, checkTokens = 0 }) {
  const ort = await import('onnxruntime-web');
  ort.env.wasm.numThreads = threads;
  ort.env.wasm.simd = true;
  ort.env.logLevel = 'error';
  const options = { executionProviders: ['wasm'], graphOptimizationLevel: 'all' };
  const prefillSession = await ort.InferenceSession.create(`${root}bench/models/${preset}.prefill.onnx`, options);
  const decodeSession = decode ? await ort.InferenceSession.create(`${root}bench/models/${preset}.decode.onnx`, options) : null;
  const { config } = JSON.parse(readFileSync(`${root}bench/models/${preset}.json`, 'utf8')); // bench/speed/make_onnx.py's
  const tensor = (list) =>
    new ort.Tensor(
      'int64',
      BigInt64Array.from(list, (v) => BigInt(v)),
      [1, list.length],
    );
  const lastArgmax = (logits) => {
    const last = logits.dims[1] - 1;
    return argmax(logits.data, last * config.V, (last + 1) * config.V);
  };
  const out = {};
  if (checkTokens > 0) out.next = lastArgmax((await prefillSession.run({ input_ids: tensor(promptIds(checkTokens)) })).logits);
  for (const T of prefill) {
    await prefillSession.run({ input_ids: tensor(promptIds(T)) });
    const samples = [];
    for (let r = 0; r < (T > 64 ? 3 : 5); r += 1) {
      const t = performance.now();
      await prefillSession.run({ input_ids: tensor(promptIds(T)) });
      samples.push(performance.now() - t);
    }
    out[`prefill${T}`] = median(samples);
  }
  if (decodeSession) {
    // Prefill the prompt (not timed), then feed each argmax token with the
    // previous step's present k/v as past k/v.
    const decodeOnce = async () => {
      let result = await prefillSession.run({ input_ids: tensor(promptIds(DECODE.prompt)) });
      const t = performance.now();
      for (let s = 0; s < DECODE.steps; s += 1) {
        const feeds = { input_ids: tensor([lastArgmax(result.logits)]) };
        for (let l = 0; l < config.L; l += 1) {
          feeds[`past_key_${l}`] = result[`present_key_${l}`];
          feeds[`past_value_${l}`] = result[`present_value_${l}`];
        }
        result = await decodeSession.run(feeds);
      }
      return (performance.now() - t) / DECODE.steps;
    };
    await decodeOnce();
    out.decode = median([await decodeOnce(), await decodeOnce(), await decodeOnce()]);
  }
  out.threads = threads;
  return out;
}
