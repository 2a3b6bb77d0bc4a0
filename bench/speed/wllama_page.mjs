// The browser half of bench/speed/wllama.mjs: times llama.cpp's WebAssembly build
// (the @wllama/wllama package), ONNX Runtime Web and our module in one
// Chromium page, on the same weights (bench/speed/make_gguf.mjs writes the GGUF and
// bench/speed/make_onnx.py the ONNX graphs from our seeded presets).
import * as ort from '../../node_modules/onnxruntime-web/dist/ort.min.mjs';
import { Wllama } from '../../node_modules/@wllama/wllama/esm/index.js';
import { argmax } from '../../js/argmax.mjs';
import { loadMiniMind } from '../../js/minimind.mjs';
import { median } from '../median.mjs';

const WASM = { default: new URL('../../node_modules/@wllama/wllama/esm/wasm/wllama.wasm', import.meta.url).href };
const TOKENIZER = new URL('../../models/minimind-tokenizer/tokenizer.json', import.meta.url).href;
// Greedy continuations both runtimes write, to show they run the same model
// (wllama 3.8.1's logprobs option fails, so probabilities cannot be compared).
const GREEDY_PROMPTS = 3;
const GREEDY_TOKENS = 8;
const quiet = { debug() {}, log() {}, warn() {}, error: (...a) => console.error(...a) };
/**
 * llama.cpp on a GGUF: prefill of each length (a completion of 1 token,
 * llama.cpp's own prompt time) and greedy decoding (per generated token).
 * prompts[n][r]: texts of n tokens (wllama takes text only); they differ per
 * repetition in their first token, so llama.cpp's prompt cache never serves one.
 */
window.benchWllama = async ({ url, threads, prefill, decode, reps, prompts }) => {
  const makeIds = (n, variant) => prompts[n][variant];
  const wllama = new Wllama(WASM, { logger: quiet });
  const blob = await (await fetch(url)).blob();
  await wllama.loadModel([blob], { n_threads: threads, n_ctx: 2048, n_parallel: 1, n_batch: 512, n_ubatch: 512, warmup: false });
  let variant = 0;
  const complete = async (prompt, maxTokens) => {
    const started = performance.now();
    const result = await wllama.createCompletion({
      prompt,
      max_tokens: maxTokens,
      temp: 0,
      top_k: 1,
      ignore_eos: true,
    });
    return { wall: performance.now() - started, timings: result.timings, text: result.choices[0].text };
  };
  const out = { threads: wllama.getNumThreads(), multithread: wllama.isMultithread() };
  for (const n of prefill) {
    await complete(makeIds(n, variant++), 1); // warm-up
    const samples = [];
    for (let r = 0; r < reps; r += 1) {
      const { timings } = await complete(makeIds(n, variant++), 1);
      if (timings.prompt_n !== n) throw new Error(`llama.cpp evaluated ${timings.prompt_n} prompt tokens, not ${n}`);
      samples.push(timings.prompt_ms);
    }
    out[`prefill${n}`] = median(samples);
  }
  await complete(makeIds(decode.prompt, variant++), decode.steps);
  const steps = [];
  for (let r = 0; r < reps; r += 1) {
    const { timings } = await complete(makeIds(decode.prompt, variant++), decode.steps);
    steps.push(timings.predicted_ms / timings.predicted_n);
  }
  out.decode = median(steps);
  // What llama.cpp generates greedily after the first few decode prompts, to compare with ours.
  out.greedy = [];
  for (let v = 0; v < GREEDY_PROMPTS; v += 1) out.greedy.push((await complete(makeIds(decode.prompt, v), GREEDY_TOKENS)).text);
  await wllama.exit();
  return out;
};

/** ONNX Runtime Web's wasm backend on bench/speed/make_onnx.py's graphs (input ids, past/present k/v). */
window.benchOrt = async ({ preset, threads, prefill, decode, reps, ids }) => {
  ort.env.wasm.numThreads = threads;
  ort.env.wasm.simd = true;
  ort.env.wasm.wasmPaths = new URL('../../node_modules/onnxruntime-web/dist/', import.meta.url).href;
  ort.env.logLevel = 'error';
  const options = { executionProviders: ['wasm'], graphOptimizationLevel: 'all' };
  const models = new URL('./models/', import.meta.url);
  const prefillSession = await ort.InferenceSession.create(new URL(`${preset}.prefill.onnx`, models).href, options);
  const decodeSession = await ort.InferenceSession.create(new URL(`${preset}.decode.onnx`, models).href, options);
  const { config } = await (await fetch(new URL(`${preset}.json`, models))).json();
  const tensor = (list) =>
    new ort.Tensor(
      'int64',
      BigInt64Array.from(list, (v) => BigInt(v)),
      [1, list.length],
    );
  const out = { threads };
  let variant = 0;
  for (const n of prefill) {
    await prefillSession.run({ input_ids: tensor(ids[n][variant++]) });
    const samples = [];
    for (let r = 0; r < reps; r += 1) {
      const input = tensor(ids[n][variant++]);
      const t = performance.now();
      await prefillSession.run({ input_ids: input });
      samples.push(performance.now() - t);
    }
    out[`prefill${n}`] = median(samples);
  }
  const decodeOnce = async (prompt) => {
    let result = await prefillSession.run({ input_ids: tensor(prompt) });
    const t = performance.now();
    for (let s = 0; s < decode.steps; s += 1) {
      const last = result.logits.dims[1] - 1;
      const row = result.logits.data.subarray(last * config.V, (last + 1) * config.V);
      const feeds = { input_ids: tensor([argmax(row)]) };
      for (let l = 0; l < config.L; l += 1) {
        feeds[`past_key_${l}`] = result[`present_key_${l}`];
        feeds[`past_value_${l}`] = result[`present_value_${l}`];
      }
      result = await decodeSession.run(feeds);
    }
    return (performance.now() - t) / decode.steps;
  };
  await decodeOnce(ids[decode.prompt][variant++]);
  const steps = [];
  for (let r = 0; r < reps; r += 1) steps.push(await decodeOnce(ids[decode.prompt][variant++]));
  out.decode = median(steps);
  await prefillSession.release();
  await decodeSession.release();
  return out;
};

/** Ours on the same page ({preset} or {config}): the 1-thread SIMD build, or the pthreads build. */
window.benchOurs = async ({ preset, config, seed, init, threads, weightStorage, prefill, decode, reps, ids }) => {
  const mm = await loadMiniMind(threads > 1 ? { variant: 'threads', threads } : { variant: 'simd' });
  const tokenizer = mm.loadTokenizer(await (await fetch(TOKENIZER)).text());
  const makeIds = (n, variant) => ids[n][variant];
  const model = mm.createModel({ ...(preset ? { preset } : { config }), seed, init, weightStorage });
  const out = { threads: mm.threads };
  let variant = 0;
  for (const n of prefill) {
    model.forward(makeIds(n, variant++));
    const samples = [];
    for (let r = 0; r < reps; r += 1) {
      const prompt = makeIds(n, variant++);
      const t = performance.now();
      model.forward(prompt);
      samples.push(performance.now() - t);
    }
    out[`prefill${n}`] = median(samples);
  }
  const decodeOnce = (prompt) => {
    const generator = model.generator(prompt, { greedy: true });
    const t = performance.now();
    for (let s = 0; s < decode.steps; s += 1) generator.step({ trace: false });
    const ms = (performance.now() - t) / decode.steps;
    generator.dispose();
    return ms;
  };
  decodeOnce(makeIds(decode.prompt, variant++));
  out.decode = median(Array.from({ length: reps }, () => decodeOnce(makeIds(decode.prompt, variant++))));
  out.greedy = [];
  out.greedyHalf = []; // the first half of each continuation
  for (let v = 0; v < GREEDY_PROMPTS; v += 1) {
    const generator = model.generator(makeIds(decode.prompt, v), { greedy: true });
    const tokens = Array.from({ length: GREEDY_TOKENS }, () => generator.step({ trace: false }).token);
    generator.dispose();
    out.greedy.push(tokenizer.decode(tokens));
    out.greedyHalf.push(tokenizer.decode(tokens.slice(0, GREEDY_TOKENS / 2)));
  }
  model.dispose();
  return out;
};

document.getElementById('status').textContent = 'ready';
