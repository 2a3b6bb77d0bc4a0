// The JavaScript API of MiniMind Playground: the one file that owns the
// WebAssembly instance. Works in browsers and in Node 18+ alike.
//
//   import { loadMiniMind } from './js/minimind.mjs';
//   const mm = await loadMiniMind();
//   const model = mm.createModel({ preset: 'lab-a', seed: 0 });
//   const { logits, trace } = model.forward([3, 4, 5], { trace: { layers: [0], stages: ['attn_weights'] } });
//   model.dispose();
//
// embind coerces silently (1.5 becomes 1, "7" becomes 7), so every public
// function checks its arguments here and throws TypeError/RangeError first.
// What the core rejects arrives as a MiniMindError with a kind and values.

import { argumentChecks, describeArgument } from './argument_checks.mjs';
import { circuitOf } from './circuit.mjs';
import { activationPatching, directLogitAttribution, keyComposition, logitLens, qkAttribution } from './interp.mjs';
import { MiniMindError, argumentError, shownArgument } from './minimind_error.mjs';
import { throwPendingErrors } from './native_errors.mjs';
import { TrainerTimeline, prepareTimeline } from './trainer_timeline.mjs';

export { MiniMindError, errorFields } from './minimind_error.mjs';

const isNode = typeof process !== 'undefined' && !!process.versions?.node && typeof window === 'undefined';

const instances = new Map(); // variant, module URL or module factory -> Promise<MiniMind>

// Models, tokenizers, generators and trainers that are garbage-collected
// without dispose() still free their Wasm memory: each native handle is
// registered here and deleted when its JS object is collected (dispose()
// deletes it at once and unregisters it).
const orphans = typeof FinalizationRegistry === 'function' ? new FinalizationRegistry((native) => native.delete()) : null;

function adopt(owner, native) {
  orphans?.register(owner, native, owner);
  return native;
}

function release(owner, native) {
  orphans?.unregister(owner);
  native.delete();
}

/**
 * Threads a new module uses by default, as ONNX Runtime Web chooses them:
 * min(4, ceil(cores / 2)) where threads can run (Node, or a cross-origin
 * isolated page), else 1.
 */
export function defaultThreadCount() {
  if (!threadsAllowed()) return 1;
  const cores = isNode ? nodeCores() : (globalThis.navigator?.hardwareConcurrency ?? 1);
  return Math.min(4, Math.ceil(Math.max(1, Number(cores) || 1) / 2));
}

/** Whether this context can run Wasm threads: Node, or a page with SharedArrayBuffer (cross-origin isolated). */
export function threadsAllowed() {
  if (typeof SharedArrayBuffer === 'undefined') return false;
  return isNode || globalThis.crossOriginIsolated === true;
}

// Cores Node reports (os.availableParallelism), read without a top-level
// import so that this file also bundles as a classic script.
function nodeCores() {
  const os = globalThis.process?.getBuiltinModule?.('node:os');
  return os ? (os.availableParallelism?.() ?? os.cpus().length) : 1;
}

const MAX_THREADS = 16;

/**
 * Loads (once per variant, thread count, module URL or module factory) and
 * returns the module. `moduleFactory` is the default export of an Emscripten
 * module already imported by the caller (a bundle with the .wasm inlined);
 * nothing is fetched.
 * variant: 'auto' (default: the relaxed builds where relaxedSimdSupported(),
 * with pthreads when more than one thread is allowed and asked for; else
 * 'simd' or 'threads'; 'simd' for a moduleUrl or moduleFactory), 'simd',
 * 'relaxed' (SIMD with fused multiply-adds in the weight products; not
 * bit-identical to the others), 'scalar', 'threads' or 'relaxed-threads'.
 * threads: how many threads the module computes with (default
 * defaultThreadCount()); above 1 only with a threads build, and only in
 * Node or a cross-origin isolated page. Results are the same bits for any
 * count.
 * @param {{variant?: 'auto'|'simd'|'relaxed'|'scalar'|'threads'|'relaxed-threads', threads?: number, moduleUrl?: string|URL, wasmBinary?: Uint8Array, moduleFactory?: Function}} [options]
 */
export function loadMiniMind(options = {}) {
  const asked = options.variant ?? 'auto';
  if (!VARIANTS.includes(asked))
    throw argumentError(
      RangeError,
      'api.one_of',
      { name: 'variant', allowed: VARIANTS.join(', '), got: shownArgument(asked) },
      `variant must be ${VARIANTS.map((v) => `"${v}"`).join(', ')}, got ${String(asked)}`,
    );
  if (RELAXED.has(asked) && !options.moduleFactory && !relaxedSimdSupported())
    throw argumentError(
      Error,
      'api.needs_relaxed_simd',
      { variant: asked },
      `the ${asked} build needs relaxed SIMD (f32x4.relaxed_madd): Chromium 114+, Node 22+, or Node 20 with --experimental-wasm-relaxed-simd`,
    );
  if (options.moduleFactory !== undefined && typeof options.moduleFactory !== 'function')
    throw argumentError(
      TypeError,
      'api.not_function',
      { name: 'moduleFactory', got: shownArgument(options.moduleFactory) },
      `moduleFactory must be a function, got ${describe(options.moduleFactory)}`,
    );
  if (options.threads !== undefined) checkInteger(options.threads, 'threads', 1, MAX_THREADS);
  if (THREADED.has(asked) && !threadsAllowed())
    throw argumentError(
      Error,
      'api.needs_shared_memory',
      { variant: asked },
      `the ${asked} build needs SharedArrayBuffer: Node, or a cross-origin isolated page (COOP and COEP headers)`,
    );
  const threads = options.threads ?? (asked === 'auto' || THREADED.has(asked) ? defaultThreadCount() : 1);
  if (threads > 1 && asked !== 'auto' && !THREADED.has(asked))
    throw argumentError(
      RangeError,
      'api.threads_need_variant',
      { threads, variant: asked },
      `threads ${threads} needs the "threads" variant or "relaxed-threads" (the "${asked}" build has one thread)`,
    );
  const variant = asked === 'auto' ? (options.moduleFactory || options.moduleUrl ? 'simd' : chooseVariant(threads)) : asked;
  const count = THREADED.has(variant) ? threads : 1;
  const key = `${variant}:${count}:${options.moduleUrl ? String(options.moduleUrl) : ''}`;
  const cache = options.moduleFactory ? factoryInstances(options.moduleFactory) : instances;
  if (!cache.has(key)) {
    const loading = instantiate(variant, count, options).catch((error) => {
      cache.delete(key); // a failed load can be retried
      throw error;
    });
    cache.set(key, loading);
  }
  return cache.get(key);
}

const byFactory = new WeakMap();
function factoryInstances(factory) {
  if (!byFactory.has(factory)) byFactory.set(factory, new Map());
  return byFactory.get(factory);
}

const VARIANTS = ['auto', 'simd', 'relaxed', 'scalar', 'threads', 'relaxed-threads'];
const THREADED = new Set(['threads', 'relaxed-threads']);
const RELAXED = new Set(['relaxed', 'relaxed-threads']);
/** Each build's file name in dist/wasm/ (and the site's wasm/), without .mjs / .wasm. */
export const BASE_NAMES = Object.freeze({
  simd: 'minimind',
  relaxed: 'minimind-relaxed',
  scalar: 'minimind-scalar',
  threads: 'minimind-threads',
  'relaxed-threads': 'minimind-relaxed-threads',
});

/**
 * The build 'auto' loads for `threads` threads: pthreads when more than one
 * thread can run, fused multiply-adds where the engine has relaxed SIMD.
 */
export function chooseVariant(threads, relaxed = relaxedSimdSupported()) {
  const threaded = threads > 1 && threadsAllowed();
  if (relaxed) return threaded ? 'relaxed-threads' : 'relaxed';
  return threaded ? 'threads' : 'simd';
}

// The smallest module that uses f32x4.relaxed_madd: (func (param v128) (result v128)
// (f32x4.relaxed_madd (local.get 0) (local.get 0) (local.get 0))).
const RELAXED_PROBE = new Uint8Array([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01, 0x06, 0x01, 0x60, 0x01, 0x7b, 0x01, 0x7b, 0x03, 0x02, 0x01, 0x00, 0x0a, 0x0d, 0x01,
  0x0b, 0x00, 0x20, 0x00, 0x20, 0x00, 0x20, 0x00, 0xfd, 0x85, 0x02, 0x0b,
]);

/** Whether this engine runs relaxed SIMD's fused multiply-add (the "relaxed" build). */
export function relaxedSimdSupported() {
  return typeof WebAssembly === 'object' && WebAssembly.validate(RELAXED_PROBE);
}

async function instantiate(variant, threads, options) {
  // The pthreads build starts its workers with the module: one per thread beyond the caller's.
  const moduleOptions = THREADED.has(variant) ? { threadPoolSize: threads - 1 } : {};
  if (options.moduleFactory) {
    if (options.wasmBinary) moduleOptions.wasmBinary = options.wasmBinary;
    return new MiniMind(await options.moduleFactory(moduleOptions), variant, threads);
  }
  const moduleUrl = options.moduleUrl
    ? new URL(options.moduleUrl, import.meta.url)
    : new URL(`../dist/wasm/${BASE_NAMES[variant]}.mjs`, import.meta.url);
  if (options.wasmBinary) {
    moduleOptions.wasmBinary = options.wasmBinary;
  } else if (isNode) {
    // Emscripten 3.1.6's ES module cannot fetch a file: URL under Node; hand it the bytes.
    const { readFile } = await import('node:fs/promises');
    const wasmUrl = new URL(moduleUrl.href.replace(/\.mjs$/, '.wasm'));
    try {
      moduleOptions.wasmBinary = await readFile(wasmUrl);
    } catch (error) {
      const build = THREADED.has(variant) ? 'npm run build:wasm-threads' : 'npm run build:wasm';
      throw argumentError(
        Error,
        'api.not_built',
        { path: wasmUrl.pathname, command: build },
        `the WebAssembly module is not built (${wasmUrl.pathname} is missing): run "${build}"`,
        { cause: error },
      );
    }
  }
  let factory;
  try {
    factory = (await import(moduleUrl.href)).default;
  } catch (error) {
    throw argumentError(
      Error,
      'api.cannot_load',
      { url: moduleUrl.href, reason: error.message },
      `cannot load the WebAssembly module from ${moduleUrl.href}: ${error.message}`,
      { cause: error },
    );
  }
  const native = await factory(moduleOptions);
  // Under Node the pool's workers must not keep the process alive once the script is done.
  if (isNode && native.PThread) for (const worker of native.PThread.unusedWorkers ?? []) worker.unref?.();
  return new MiniMind(native, variant, threads);
}

// ---------------------------------------------------------------- argument checks

const {
  integer: checkInteger,
  number: checkNumber,
  string: checkString,
  object: checkObject,
  flag: checkFlag,
  describe,
} = argumentChecks({ describe: describeArgument, max: Number.MAX_SAFE_INTEGER });

// ids: number[] or Int32Array, each an integer id (the core checks the vocabulary).
function isIdList(value) {
  return Array.isArray(value) || (ArrayBuffer.isView(value) && !(value instanceof DataView));
}

function toIdArray(ids, name, { allowEmpty = false } = {}) {
  if (!isIdList(ids))
    throw argumentError(
      TypeError,
      'api.not_ids',
      { name, got: shownArgument(ids) },
      `${name} must be an array of token ids or a typed array, got ${describe(ids)}`,
    );
  if (ids.length === 0 && !allowEmpty)
    throw argumentError(RangeError, 'api.empty_ids', { name }, `${name} is empty: give at least one token id`);
  const out = new Int32Array(ids.length);
  for (let i = 0; i < ids.length; i += 1) out[i] = checkInteger(ids[i], `${name}[${i}]`, -(2 ** 31), 2 ** 31 - 1);
  return out;
}

function toBytes(value, name) {
  if (value instanceof Uint8Array) return value;
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  if (ArrayBuffer.isView(value)) return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  throw argumentError(
    TypeError,
    'api.not_bytes',
    { name, got: shownArgument(value) },
    `${name} must be a Uint8Array or an ArrayBuffer, got ${describe(value)}`,
  );
}

function configText(config, name) {
  if (typeof config === 'string') return config;
  if (config && typeof config === 'object' && !Array.isArray(config)) {
    const [problem] = nonFiniteValues(config);
    if (problem)
      throw argumentError(
        RangeError,
        'api.non_finite',
        { name, key: problem.key, value: String(problem.value) },
        `${name}: ${problem.message}`,
      );
    return JSON.stringify(config);
  }
  throw argumentError(
    TypeError,
    'api.not_config',
    { name, got: shownArgument(config) },
    `${name} must be config.json text or an object, got ${describe(config)}`,
  );
}

// JSON.stringify writes Infinity and NaN as null, which config.json reads as
// "absent" (the default): name them instead. One {key, value, message} per value.
function nonFiniteValues(value, path = '') {
  if (typeof value === 'number' && !Number.isFinite(value)) {
    const key = path || 'the value';
    return [{ key, value, message: `${key} is ${value}, which JSON cannot hold: give a finite number` }];
  }
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, v]) => nonFiniteValues(v, path ? `${path}.${key}` : key));
}

function traceRequest(trace, numLayers) {
  if (trace === undefined || trace === null || trace === false) return {};
  if (trace === true) return { layers: [...Array(numLayers).keys()] };
  if (typeof trace !== 'object' || Array.isArray(trace))
    throw argumentError(
      TypeError,
      'api.not_trace',
      { got: shownArgument(trace) },
      `trace must be true or {layers, stages}, got ${describe(trace)}`,
    );
  const request = {};
  if (trace.layers !== undefined) {
    if (trace.layers === 'all') request.layers = [...Array(numLayers).keys()];
    else if (!Array.isArray(trace.layers))
      throw argumentError(
        TypeError,
        'api.not_trace_layers',
        { got: shownArgument(trace.layers) },
        `trace.layers must be an array of layer indices or "all", got ${describe(trace.layers)}`,
      );
    else request.layers = trace.layers.map((l, i) => checkInteger(l, `trace.layers[${i}]`, 0, 1 << 20));
  } else {
    request.layers = [...Array(numLayers).keys()];
  }
  if (trace.stages !== undefined) {
    if (!Array.isArray(trace.stages))
      throw argumentError(
        TypeError,
        'api.not_trace_stages',
        { got: shownArgument(trace.stages) },
        `trace.stages must be an array of stage names, got ${describe(trace.stages)}`,
      );
    request.stages = trace.stages.map((s, i) => checkString(s, `trace.stages[${i}]`));
  }
  if (trace.maxFloats !== undefined) request.maxFloats = checkInteger(trace.maxFloats, 'trace.maxFloats', 1);
  return request;
}

function samplingOptions(sampling = {}) {
  checkObject(sampling, 'sampling');
  const out = {};
  if (sampling.greedy !== undefined) {
    checkFlag(sampling.greedy, 'sampling.greedy');
    out.greedy = sampling.greedy;
  }
  if (sampling.temperature !== undefined) out.temperature = checkNumber(sampling.temperature, 'sampling.temperature');
  if (sampling.topK !== undefined) out.topK = checkInteger(sampling.topK, 'sampling.topK', 0, 1 << 24);
  if (sampling.topP !== undefined) out.topP = checkNumber(sampling.topP, 'sampling.topP');
  if (sampling.repetitionPenalty !== undefined)
    out.repetitionPenalty = checkNumber(sampling.repetitionPenalty, 'sampling.repetitionPenalty');
  if (sampling.seed !== undefined) out.seed = checkInteger(sampling.seed, 'sampling.seed');
  return out;
}

// Trace entries from C++ as [{layer, stage, shape, data}], plus a lookup.
function traceResult(entries) {
  const list = [];
  for (let i = 0; i < entries.length; i += 1) list.push(entries[i]);
  return Object.assign(list, {
    get(layer, stage) {
      return list.find((e) => e.layer === layer && e.stage === stage);
    },
  });
}

// ---------------------------------------------------------------- classes

/** The loaded module: presets, configs, model construction. */
export class MiniMind {
  #native;

  constructor(native, variant, threads = 1) {
    this.#native = native;
    native.MiniMindError = MiniMindError; // the type the bindings throw (wasm/js_values.h)
    throwPendingErrors(native);
    /** 'simd', 'relaxed', 'scalar', 'threads' or 'relaxed-threads' */
    this.variant = variant;
    if (typeof native.setThreadCount === 'function') native.setThreadCount(threads);
    /** Threads the module computes with (1 unless a threads variant). */
    this.threads = typeof native.threadCount === 'function' ? native.threadCount() : 1;
    /** Every trace stage name, in pipeline order. */
    this.stages = JSON.parse(native.stageNames());
    /** Every error kind the core can raise (core/util/error_kinds.h), sorted. */
    this.errorKinds = JSON.parse(native.errorKinds());
  }

  /** Bytes of Wasm memory the module holds now (it grows as needed and never shrinks). */
  wasmMemoryBytes() {
    return this.#native.HEAP8.buffer.byteLength;
  }

  /** Bytes the module's allocator hands out now (falls back when memory is freed; for leak tests). */
  heapBytesInUse() {
    return this.#native.heapBytesInUse();
  }

  /** @returns {string[]} */
  presets() {
    return [...this.#native.presetNames()];
  }

  /** The config of a preset, with Hugging Face key names. */
  presetConfig(name) {
    return JSON.parse(this.#native.presetConfig(checkString(name, 'preset')));
  }

  /** Every problem of a config (config.json text or object); [] when usable. */
  configProblems(config) {
    if (config && typeof config === 'object' && !Array.isArray(config)) {
      const problems = nonFiniteValues(config);
      if (problems.length) return problems.map((p) => p.message);
    }
    return [...this.#native.configProblems(configText(config, 'config'))];
  }

  /**
   * configProblems with each problem typed, {kind, values, message}, so a
   * caller can word it in any language (message: configProblems' sentence).
   * Throws as describeConfig does for text that is not a config object.
   */
  configProblemsTyped(config) {
    if (config && typeof config === 'object' && !Array.isArray(config)) {
      const problems = nonFiniteValues(config);
      if (problems.length)
        return problems.map(({ key, value, message }) => ({
          kind: 'api.non_finite',
          values: { name: 'config', key, value: String(value) },
          message,
        }));
    }
    try {
      this.#native.describeConfig(configText(config, 'config'));
    } catch (error) {
      if (Array.isArray(error?.problems)) return error.problems.map((p) => ({ kind: p.kind, values: { ...p.values }, message: p.message }));
      throw error;
    }
    return [];
  }

  /** The keys of a usable config that are not MiniMind config keys and are ignored, one sentence each. */
  configWarnings(config) {
    return [...this.#native.configWarnings(configText(config, 'config'))];
  }

  /**
   * Lesson 2.5's attention by hand on typed matrices: q [Tq][d], k [Tk][d],
   * optional v [Tk][dv]. Returns {raw, scaled, masked, weights, output?},
   * each {shape, data}; masked entries are -Infinity.
   */
  lessonAttention({ q, k, v = [], causal = false, scale = true } = {}) {
    for (const [flag, value] of [
      ['causal', causal],
      ['scale', scale],
    ]) {
      checkFlag(value, flag);
    }
    return this.#native.lessonAttention(matrixJson(q, 'q'), matrixJson(k, 'k'), matrixJson(v, 'v', true), causal, scale);
  }

  /** Softmax of typed scores [T][n] (null or -Infinity = masked), optionally causal. */
  lessonSoftmax(scores, { causal = false } = {}) {
    checkFlag(causal, 'causal');
    return this.#native.lessonSoftmax(matrixJson(scores, 'scores'), causal);
  }

  /** Lesson 11's lab record lines, computed by the module. */
  labRecord(preset = 'lab-a', seed = 0) {
    return this.#native.labRecord(checkString(preset, 'preset'), checkInteger(seed, 'seed'));
  }

  /**
   * A model with seeded random weights, from a preset or a config. `init`:
   * 'playground' (default: the presets' recipe, embedding U(-1, 1)) or
   * 'minimind' (the embedding at MiniMind's from-scratch scale, U(±1/√D)
   * when tied: what training from scratch starts from).
   * @param {{preset?: string, config?: object|string, seed?: number, onProgress?: (fraction: number) => void}} spec
   */
  createModel(spec = {}) {
    const seed = checkInteger(spec.seed ?? 0, 'seed');
    if (spec.preset !== undefined && spec.config !== undefined)
      throw argumentError(TypeError, 'api.preset_and_config', {}, 'give either preset or config, not both');
    if (spec.onProgress !== undefined && typeof spec.onProgress !== 'function') {
      throw argumentError(
        TypeError,
        'api.not_function',
        { name: 'onProgress', got: shownArgument(spec.onProgress) },
        `onProgress must be a function, got ${describe(spec.onProgress)}`,
      );
    }
    const storage = spec.weightStorage ?? 'narrowest';
    if (storage !== 'narrowest' && storage !== 'float32') {
      throw argumentError(
        RangeError,
        'api.one_of',
        { name: 'weightStorage', allowed: 'narrowest, float32', got: shownArgument(storage) },
        `weightStorage must be "narrowest" or "float32", got ${describe(storage)}`,
      );
    }
    const init = spec.init ?? 'playground';
    if (init !== 'playground' && init !== 'minimind')
      throw argumentError(
        RangeError,
        'api.one_of',
        { name: 'init', allowed: 'playground, minimind', got: shownArgument(init) },
        `init must be "playground" or "minimind", got ${describe(init)}`,
      );
    const NativeModel = this.#native.NativeModel;
    if (spec.config !== undefined) {
      return new Model(NativeModel.fromConfig(configText(spec.config, 'config'), seed, spec.onProgress, storage, init));
    }
    return new Model(NativeModel.fromPreset(checkString(spec.preset ?? 'lab-a', 'preset'), seed, spec.onProgress, storage, init));
  }

  /** Derived shapes and sizes of a config, without building weights; throws its problems. */
  describeConfig(config) {
    return JSON.parse(this.#native.describeConfig(configText(config, 'config')));
  }

  /**
   * A model from MiniMind files: the weights as model.safetensors (F32, F16 or
   * BF16) or as a PyTorch .pth (a state dict, or MiniMind's *_resume.pth
   * whose "model" entry is one; read as data, never executed), recognised by
   * their bytes; config.json text or object. A .pth may come without config:
   * it is inferred from the tensor shapes, with `hints` for what shapes cannot
   * tell (numAttentionHeads, default 8, or numKeyValueHeads; ropeTheta;
   * rmsNormEps; maxPositionEmbeddings; inferenceRopeScaling; numExpertsPerTok;
   * normTopkProb), and info().inferred says what was assumed. A .pth is
   * copied into Wasm memory once. `name` (the file's name) starts the
   * messages about it. info().warnings lists what loading noticed.
   */
  loadModel({ config, weights, hints, name } = {}) {
    const bytes = toBytes(weights, 'weights');
    if (isLegacyTorchSave(bytes)) {
      throw argumentError(
        TypeError,
        'api.legacy_torch_save',
        {},
        'these weights are in the legacy (non-zip) torch.save format, which is not read: save them again with ' +
          'torch.save(state_dict, path) from PyTorch 1.6 or later (the zip format), or export model.safetensors',
      );
    }
    const NativeModel = this.#native.NativeModel;
    if (isZip(bytes)) {
      const text = config === undefined ? '' : configText(config, 'config');
      const hintsJson = JSON.stringify(inferHints(hints));
      return this.#withPth(bytes, name, (pth) => new Model(pth.load(text, hintsJson)));
    }
    if (config === undefined)
      throw argumentError(
        TypeError,
        'api.config_needed',
        {},
        'a model.safetensors needs its config.json (only a .pth can be loaded without one)',
      );
    // The core reads one tensor at a time out of the JS bytes: the file is
    // never copied whole into Wasm memory.
    const headerLength = bytes.length >= 8 ? new DataView(bytes.buffer, bytes.byteOffset, 8).getBigUint64(0, true) : 0n;
    const head = bytes.subarray(0, Number(8n + (headerLength < 1n << 32n ? headerLength : 0n)));
    const read = (offset, n) => bytes.subarray(offset, offset + n);
    return new Model(NativeModel.fromSafetensorsReader(configText(config, 'config'), head, bytes.length, read));
  }

  /**
   * The config a .pth implies: {config, fields: [{key, source: 'inferred'|'hint'|'default'}], assumed: [keys],
   * file?: what the file is (MiniMind's resume checkpoint)}. To load the model too, call loadModel without
   * config alone: its info().inferred is this, and the file is read once.
   */
  inferConfig(weights, hints, { name } = {}) {
    const bytes = toBytes(weights, 'weights');
    if (!isZip(bytes))
      throw argumentError(TypeError, 'api.not_pth', { method: 'inferConfig' }, 'inferConfig reads a PyTorch .pth (zip) file');
    const hintsJson = JSON.stringify(inferHints(hints));
    return this.#withPth(bytes, name, (pth) => JSON.parse(pth.inferConfig(hintsJson)));
  }

  /**
   * What a training checkpoint (MiniMind's *_resume.pth) holds beside its
   * weights, to continue the run: {epoch, step, worldSize (numbers or null),
   * optimizer: null or AdamW's state_dict() as {groups: [{lr, betas, eps,
   * weightDecay, amsgrad, params: [index]}], state: [{index, step, shape,
   * expAvg, expAvgSq: Float32Array}]} (index: the parameter's place in
   * MiniMind's model.parameters()), optimizerProblem: why an "optimizer"
   * entry could not be read, or null}. The weights load with loadModel.
   */
  trainingState(weights, { name } = {}) {
    const bytes = toBytes(weights, 'weights');
    if (!isZip(bytes))
      throw argumentError(TypeError, 'api.not_pth', { method: 'trainingState' }, 'trainingState reads a PyTorch .pth (zip) file');
    return this.#withPth(bytes, name, (pth) => pth.trainingState());
  }

  // The .pth bytes copied into Wasm once, for the duration of `use`.
  #withPth(bytes, name, use) {
    const label = name === undefined ? 'model.pth' : checkString(name, 'name');
    const pth = this.#native.NativePth.fromBytes(bytes, label);
    try {
      return use(pth);
    } finally {
      pth.delete();
    }
  }

  /** A tokenizer from tokenizer.json text (byte-level BPE, as MiniMind's). */
  loadTokenizer(json) {
    return new Tokenizer(this.#native.NativeTokenizer.fromJson(configText(json, 'tokenizer.json')));
  }
}

// A matrix typed by a learner as JSON for the core: rows of finite numbers;
// -Infinity (a masked score) travels as null.
function matrixJson(rows, name, allowEmpty = false) {
  if (!Array.isArray(rows) || (!allowEmpty && rows.length === 0))
    throw argumentError(TypeError, 'api.not_rows', { name }, `${name} must be a non-empty array of rows`);
  return JSON.stringify(
    rows.map((row, i) => {
      if (!Array.isArray(row) && !ArrayBuffer.isView(row))
        throw argumentError(TypeError, 'api.not_row', { name, row: i }, `${name}[${i}] must be an array of numbers`);
      return Array.from(row, (x, j) => {
        if (x === -Infinity) return null;
        if (typeof x !== 'number' || !Number.isFinite(x))
          throw argumentError(
            TypeError,
            'api.not_finite_entry',
            { name, row: i, col: j, got: shownArgument(x) },
            `${name}[${i}][${j}] must be a finite number, got ${describe(x)}`,
          );
        return x;
      });
    }),
  );
}

// torch.save before PyTorch 1.6 (or with _use_new_zipfile_serialization=False):
// a pickle (protocol 2: 0x80 0x02) of torch's magic number 0x1950a86a20f9469cfc6c.
function isLegacyTorchSave(bytes) {
  return bytes.length >= 4 && bytes[0] === 0x80 && bytes[1] === 0x02 && bytes[2] === 0x8a && bytes[3] === 0x0a;
}

function isZip(bytes) {
  return bytes.length >= 4 && bytes[0] === 0x50 && bytes[1] === 0x4b && bytes[2] === 0x03 && bytes[3] === 0x04;
}

function inferHints(hints = {}) {
  checkObject(hints, 'hints');
  const out = {};
  if (hints.numAttentionHeads !== undefined)
    out.numAttentionHeads = checkInteger(hints.numAttentionHeads, 'hints.numAttentionHeads', 1, 1024);
  if (hints.numKeyValueHeads !== undefined) out.numKeyValueHeads = checkInteger(hints.numKeyValueHeads, 'hints.numKeyValueHeads', 1, 1024);
  if (hints.ropeTheta !== undefined) out.ropeTheta = checkNumber(hints.ropeTheta, 'hints.ropeTheta');
  if (hints.rmsNormEps !== undefined) out.rmsNormEps = checkNumber(hints.rmsNormEps, 'hints.rmsNormEps');
  if (hints.maxPositionEmbeddings !== undefined)
    out.maxPositionEmbeddings = checkInteger(hints.maxPositionEmbeddings, 'hints.maxPositionEmbeddings', 1, 1 << 24);
  for (const key of ['inferenceRopeScaling', 'normTopkProb']) {
    if (hints[key] === undefined) continue;
    checkFlag(hints[key], `hints.${key}`);
    out[key] = hints[key];
  }
  if (hints.numExpertsPerTok !== undefined) out.numExpertsPerTok = checkInteger(hints.numExpertsPerTok, 'hints.numExpertsPerTok', 1, 256);
  return out;
}

// Lone UTF-16 surrogates would reach C++ as three bytes each; Hugging Face
// sees one U+FFFD for each.
function wellFormed(text) {
  return text.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');
}

// Lets Model.trainer() hand a tokenizer's native handle to the module
// without making it public.
const nativeHandle = Symbol('native handle');

/** A tokenizer in Wasm memory; encode/decode exactly as Hugging Face tokenizers. */
export class Tokenizer {
  #native;

  [nativeHandle]() {
    return this.#live();
  }

  constructor(native) {
    this.#native = adopt(this, native);
    /** Number of ids (largest id + 1). */
    this.vocabSize = native.vocabSize();
  }

  #live() {
    if (!this.#native) throw argumentError(Error, 'api.tokenizer_disposed', {}, 'this tokenizer was disposed');
    return this.#native;
  }

  /** @returns {number[]} ids; nothing is added around them. */
  encode(text) {
    return [...this.#live().encode(wellFormed(checkString(text, 'text')))];
  }

  decode(ids, { skipSpecialTokens = false } = {}) {
    return this.#live().decode(toIdArray(ids, 'ids', { allowEmpty: true }), skipSpecialTokens === true);
  }

  /**
   * How to show each token: {text, partial, special, group, groupText};
   * `partial` tokens hold part of a character (shown as <0x..> bytes), and
   * tokens sharing a character have the same `group` whose `groupText` is it.
   */
  display(ids) {
    return [...this.#live().displaySequence(toIdArray(ids, 'ids', { allowEmpty: true }))];
  }

  /** The id of a raw vocab string or special token ("<|im_start|>"), or -1. */
  tokenToId(token) {
    return this.#live().tokenToId(checkString(token, 'token'));
  }

  dispose() {
    if (this.#native) release(this, this.#native);
    this.#native = null;
  }
}

/** One model in Wasm memory. Call dispose() when done. */
export class Model {
  #native;
  #info;

  constructor(native) {
    this.#native = adopt(this, native);
    this.#info = JSON.parse(native.info());
  }

  #live() {
    if (!this.#native) throw argumentError(Error, 'api.model_disposed', {}, 'this model was disposed');
    return this.#native;
  }

  /** Config, derived shapes, parameter count and bytes (stored_weights changes once training has stepped). */
  info() {
    this.#info = JSON.parse(this.#live().info());
    return structuredClone(this.#info);
  }

  /**
   * Runs the model. ids: one sequence (number[] | Int32Array) or a batch of
   * equal-length sequences. Returns logits {shape: [B, T, V], data} and the
   * requested trace stages, each {layer, stage, shape, data}; batch-first.
   */
  forward(ids, options = {}) {
    const native = this.#live();
    checkObject(options, 'options', { arrays: true });
    const batch = Array.isArray(ids) && ids.length > 0 && isIdList(ids[0]) ? ids : [ids];
    const rows = batch.map((row, b) => toIdArray(row, batch.length > 1 ? `ids[${b}]` : 'ids'));
    const T = rows[0].length;
    rows.forEach((row, b) => {
      if (row.length !== T)
        throw argumentError(
          RangeError,
          'api.ragged_batch',
          { row: b, tokens: row.length, first: T },
          `every sequence of a batch needs the same length: ids[${b}] has ${row.length}, ids[0] has ${T}`,
        );
    });
    const flat = new Int32Array(rows.length * T);
    rows.forEach((row, b) => flat.set(row, b * T));
    let mask = new Int32Array(0);
    if (options.attentionMask !== undefined) {
      const maskRows = rows.length === 1 && !isIdList(options.attentionMask[0]) ? [options.attentionMask] : options.attentionMask;
      if (!Array.isArray(maskRows) || maskRows.length !== rows.length)
        throw argumentError(RangeError, 'api.mask_rows', {}, 'attentionMask needs one row per sequence');
      mask = new Int32Array(flat.length);
      maskRows.forEach((row, b) => {
        const checked = toIdArray(row, `attentionMask[${b}]`);
        if (checked.length !== T)
          throw argumentError(
            RangeError,
            'api.mask_length',
            { row: b, entries: checked.length, tokens: T },
            `attentionMask[${b}] has ${checked.length} entries, the sequence ${T}`,
          );
        checked.forEach((v, i) => {
          if (v !== 0 && v !== 1)
            throw argumentError(RangeError, 'api.mask_value', { got: v }, `attentionMask values must be 0 or 1, got ${v}`);
          mask[b * T + i] = v;
        });
      });
    }
    for (const flag of ['causalMask', 'scaleScores']) {
      checkFlag(options[flag], flag);
    }
    const request = {
      trace: traceRequest(options.trace, this.#info.num_hidden_layers),
      causalMask: options.causalMask ?? true,
      scaleScores: options.scaleScores ?? true,
    };
    if (options.ablate !== undefined) request.ablate = ablationList(options.ablate);
    const out = native.forward(flat, rows.length, mask, JSON.stringify(request));
    return { logits: { shape: [...out.logitsShape], data: out.logits }, trace: traceResult(out.trace) };
  }

  /**
   * Step-by-step generation with the KV cache. The prompt is prefilled now;
   * each step() then returns one token with its attention rows.
   * @param {number[]|Int32Array} prompt
   * @param {{greedy?: boolean, temperature?: number, topK?: number, topP?: number, repetitionPenalty?: number, seed?: number}} [sampling]
   * @param {{prefillTrace?: boolean|{layers?: number[]|'all', stages?: string[]}}} [options]
   */
  generator(prompt, sampling = {}, options = {}) {
    const native = this.#live();
    const request = traceRequest(options.prefillTrace, this.#info.num_hidden_layers);
    return new Generator(
      native.generator(toIdArray(prompt, 'prompt'), JSON.stringify(samplingOptions(sampling)), JSON.stringify(request)),
      this.#info,
    );
  }

  /**
   * MiniMind's pretraining loop over this model (trainer/train_pretrain.py):
   * each step() runs one batch, and every optimizer step is written into
   * this model, so forward, trace and generation show it as trained so far.
   * `data`: MiniMind pretraining JSONL text ({"text": ...} or {"ids": [...]}
   * per line), plain text (`format: 'text'`, one sample per non-empty line),
   * or an array of texts or of id arrays. A `tokenizer` is needed for texts.
   * Defaults are MiniMind's (batch 32, max length 340, lr 5e-4,
   * accumulation 8, clip 1.0) but 1 epoch; `order: 'shuffle'` draws each
   * epoch's order from `seed` with the project's own generator (not
   * torch.randperm), `'file'` keeps the file's order.
   * `onSnapshot(entry)` receives the run's timeline (js/trainer_timeline.mjs:
   * js/timeline.mjs entries at batch 0, on the first step() call before its
   * batch, after every `snapshotEvery` batches, default
   * defaultSnapshotEvery(totalBatches), and after the last); it needs
   * MiniMind's `tokenizer` for the probes, and `probe` is the sentence whose
   * attention each entry keeps (default the lessons' LESSON_PROBE).
   */
  trainer(options = {}) {
    const native = this.#live();
    checkObject(options, 'options', { arrays: true });
    const { text, format } = trainingData(options.data, options.format);
    const tokenizer = options.tokenizer ?? null;
    if (tokenizer !== null && !(tokenizer instanceof Tokenizer))
      throw argumentError(TypeError, 'api.not_tokenizer', {}, 'tokenizer must come from loadTokenizer()');
    const request = {};
    for (const [key, min, max] of [
      ['epochs', 1, 1e6],
      ['batchSize', 1, 1e6],
      ['maxSeqLen', 2, 1 << 20],
      ['accumulationSteps', 1, 1e6],
      ['seed', 0, Number.MAX_SAFE_INTEGER],
    ]) {
      if (options[key] !== undefined) request[key] = checkInteger(options[key], key, min, max);
    }
    for (const key of ['learningRate', 'gradClip']) {
      if (options[key] === undefined) continue;
      const value = checkNumber(options[key], key);
      if (!(value > 0))
        throw argumentError(RangeError, 'api.not_positive', { name: key, got: value }, `${key} must be positive, got ${value}`);
      request[key] = value;
    }
    if (options.order !== undefined) {
      if (options.order !== 'shuffle' && options.order !== 'file')
        throw argumentError(
          RangeError,
          'api.one_of',
          { name: 'order', allowed: 'shuffle, file', got: shownArgument(options.order) },
          `order must be "shuffle" or "file", got ${describe(options.order)}`,
        );
      request.order = options.order;
    }
    const snapshots = snapshotOptions(options, tokenizer);
    const prepared = snapshots && prepareTimeline(this, tokenizer, snapshots.probe);
    const nativeTokenizer = tokenizer === null ? null : tokenizer[nativeHandle]();
    const trainer = new Trainer(native.trainer(text, format, nativeTokenizer, JSON.stringify(request)));
    if (snapshots) {
      const batchSize = request.batchSize ?? 32; // the core's default, MiniMind's
      trainer[attachTimeline]((info) => new TrainerTimeline(this, prepared, { ...snapshots, batchSize }, info));
    }
    return trainer;
  }

  /**
   * The weights as model.safetensors bytes with MiniMind's tensor names
   * (tied embeddings: both model.embed_tokens.weight and lm_head.weight, as
   * MiniMind's state_dict has them). dtype 'F32' (default) or 'F16'.
   */
  safetensors({ dtype = 'F32' } = {}) {
    if (dtype !== 'F32' && dtype !== 'F16')
      throw argumentError(
        RangeError,
        'api.one_of',
        { name: 'dtype', allowed: 'F32, F16', got: shownArgument(dtype) },
        `dtype must be "F32" or "F16", got ${describe(dtype)}`,
      );
    return this.#live().safetensors(dtype);
  }

  /**
   * What each head does, measured: for probes [{ids, query, keys}], the mean
   * over probes of the attention weight position `query` puts on `keys`, per
   * layer and head ([L][H]). `options.ablate` as in forward().
   */
  attentionMass(probes, options = {}) {
    const native = this.#live();
    if (!Array.isArray(probes) || probes.length === 0)
      throw argumentError(TypeError, 'api.no_probes', {}, 'probes must be a non-empty array of {ids, query, keys}');
    const list = probes.map((p, i) => {
      if (typeof p !== 'object' || p === null)
        throw argumentError(TypeError, 'api.not_probe', { index: i }, `probes[${i}] must be {ids, query, keys}`);
      const ids = Array.from(toIdArray(p.ids, `probes[${i}].ids`));
      const query = checkInteger(p.query, `probes[${i}].query`, 0, ids.length - 1);
      if (!Array.isArray(p.keys))
        throw argumentError(TypeError, 'api.probe_keys', { index: i }, `probes[${i}].keys must be an array of positions`);
      const keys = p.keys.map((k, j) => checkInteger(k, `probes[${i}].keys[${j}]`, 0, ids.length - 1));
      return { ids, query, keys };
    });
    const request = options.ablate === undefined ? {} : { ablate: ablationList(options.ablate) };
    return native.attentionMass(JSON.stringify(list), JSON.stringify(request));
  }

  /** Mean entropy (nats) of each head's attention rows over the sequences, [L][H]. */
  attentionEntropy(sequences) {
    const native = this.#live();
    if (!Array.isArray(sequences) || sequences.length === 0)
      throw argumentError(TypeError, 'api.no_sequences', {}, 'sequences must be a non-empty array of id arrays');
    return native.attentionEntropy(JSON.stringify(sequences.map((s, i) => Array.from(toIdArray(s, `sequences[${i}]`)))));
  }

  /**
   * The next-token loss at every position of each sequence (nats, as the
   * training loss's terms: -log softmax(logits[t - 1])[ids[t]]; NaN at
   * position 0, which nothing predicts). Returns an array of Float32Array,
   * one per sequence.
   */
  tokenLosses(sequences) {
    const native = this.#live();
    if (!Array.isArray(sequences) || sequences.length === 0)
      throw argumentError(TypeError, 'api.no_sequences', {}, 'sequences must be a non-empty array of id arrays');
    const lists = sequences.map((s, i) => Array.from(toIdArray(s, `sequences[${i}]`)));
    const flat = native.tokenLosses(JSON.stringify(lists));
    let at = 0;
    return lists.map((ids) => flat.subarray(at, (at += ids.length)));
  }

  /**
   * The logit lens: every residual row (embed, then after block 0, 1, ...:
   * residuals names them) read through the final norm and lm_head. Returns
   * {residuals: ['embed', 'L0', ...], lens: [L + 1][position] of the `top`
   * (default 5) [{id, p}], token?: {id, p: [L + 1][position]}}.
   * Options: top, token, causalMask, scaleScores, ablate (as forward() takes them).
   */
  lens(ids, options = {}) {
    return logitLens(this.#live(), this.#info, toIdArray(ids, 'ids'), withAblation(options));
  }

  /**
   * Activation patching: each head's output (before o_proj, every position)
   * and each residual (layer, position) of the clean run put into the corrupt
   * run (same length). Returns raw logit(answer) - logit(wrong) at the last
   * position: {metric: {clean, corrupt}, heads: [L][H], residuals: ['embed',
   * 'L0', ...], residual: [L + 1][T] (row 0 the embedding's, row b + 1 block b's),
   * restoration: {heads, residual} normalised to (patched - corrupt) / (clean - corrupt)}.
   * `ablate` as in forward(): both runs with those heads off, their cells null.
   */
  patch({ clean, corrupt, answer, wrong, ...options } = {}) {
    const native = this.#live();
    return activationPatching(native, this.#info, toIdArray(clean, 'clean'), toIdArray(corrupt, 'corrupt'), {
      answer,
      wrong,
      ...withAblation(options),
    });
  }

  /**
   * Direct logit attribution at `position` (default the last): what the
   * embedding, each head and each FFN add to logit(answer) - logit(wrong),
   * the final norm's scale held at the run's value. Returns {position,
   * total, embedding, heads: [L][H], ffn: [L]}; the parts sum to total.
   * `ablate` as in forward(): a head switched off adds 0.
   */
  attribute(ids, options = {}) {
    return directLogitAttribution(this.#live(), this.#info, toIdArray(ids, 'ids'), withAblation(options));
  }

  /**
   * QK attribution ("why this weight"): the score of head `head` of block
   * `layer` (from 0) from position `query` to position `key`, split into
   * [q-side component][k-side component] at the run's frozen norm scales (a
   * linearisation, not the effect of removing a component); the table sums
   * to `score`. Returns {layer, head, query, key, score, weight, masked,
   * components, table: [C][C], ropePairs, ropePairsUnrotated: [Dh/2],
   * versus?: {key, score, table}, ranked?: [{id, score}]}. Options: versus
   * (a key position or 'mean'), rankKeys (block 0), causalMask, scaleScores,
   * ablate. The last run is kept: another cell of the same text and switches
   * does not run the model again.
   */
  qk({ ids, ...options } = {}) {
    return qkAttribution(this.#live(), this.#info, toIdArray(ids, 'ids'), withAblation(options));
  }

  /**
   * K-composition: for every head of blocks 1 .. L-1, how far its score on
   * each cell's key stands above the mean score of the row's other keys
   * (`gap`), split by the component that wrote the key side (`parts` [C],
   * named by `components`: embed, L{k}H{h}, L{k}ffn), each a mean over
   * `cells` [[query, key], ...] (key ≤ query, query ≥ 1). QK attribution's
   * split at frozen norms with the query whole: Σ parts = gap. Returns
   * [{layer, components, heads: [{head, gap, parts}]}]. Options: causalMask,
   * scaleScores, ablate.
   */
  keyComposition({ ids, ...options } = {}) {
    return keyComposition(this.#live(), this.#info, toIdArray(ids, 'ids'), withAblation(options));
  }

  /**
   * The circuit behind a prediction: every edge sender -> receiver (senders
   * embed, L{k}H{h}, L{k}ffn; receivers L{l}H{h}.q/.k/.v, L{l}ffn, logits;
   * blocks from 0) scored by edge attribution patching (`score`: Σ over
   * positions of (corrupt - clean output) · ∂metric/∂(receiver input) at the
   * clean run) and checked by path patching (`patched`: the clean run's
   * metric with only that receiver's input given the sender's corrupt
   * output; null outside `top`), and the faithfulness of the top-N circuits.
   * Metric: logit(answer) - logit(wrong) at the last position; clean and
   * corrupt are token ids of the same length. Returns {metric: {clean,
   * corrupt}, edges (strongest first by `rank`), faithfulness: [{edges,
   * share, metric}] (share null where clean = corrupt), curves: {eap,
   * patched}, rank, senders, receivers}. Options: top, positions (each
   * edge's score split by position), rank ('eap' | 'patched'), faithfulness,
   * ablate (as forward() takes it: every run with those heads switched off).
   */
  circuit({ clean, corrupt, ...options } = {}) {
    return circuitOf(this.#live(), toIdArray(clean, 'clean'), toIdArray(corrupt, 'corrupt'), withAblation(options));
  }

  /** The config as config.json text, with MiniMind's key names. */
  configJson() {
    return this.#live().configJson();
  }

  /** Frees the model's Wasm memory. Generators made from it stay usable. */
  dispose() {
    if (this.#native) release(this, this.#native);
    this.#native = null;
  }
}

/** Generation in progress; each step feeds one token through the cache. */
export class Generator {
  #native;
  #info;

  constructor(native, info) {
    this.#native = adopt(this, native);
    this.#info = info;
    /** Trace of the prompt's prefill (when asked for). */
    this.prefillTrace = traceResult(native.prefillTrace());
  }

  #live() {
    if (!this.#native) throw argumentError(Error, 'api.generator_disposed', {}, 'this generator was disposed');
    return this.#native;
  }

  /**
   * Picks the next token. Returns {token, isEos, logits, probabilities, trace}
   * where trace holds the new token's attention rows ([1, H, 1, Tk] per layer
   * by default).
   */
  step(options = {}) {
    const native = this.#live();
    if (native.finished())
      throw argumentError(Error, 'generation.ended', {}, 'generation already ended (the end-of-sequence token or the position limit)');
    const trace = options.trace === undefined ? { layers: 'all', stages: ['attn_weights'] } : options.trace;
    const out = native.step(JSON.stringify(traceRequest(trace, this.#info.num_hidden_layers)));
    return { token: out.token, isEos: out.isEos, logits: out.logits, probabilities: out.probabilities, trace: traceResult(out.trace) };
  }

  /** [V] the distribution the next step draws from (after temperature, penalty, top-k, top-p). */
  nextProbabilities() {
    return this.#live().nextProbabilities();
  }

  /** Prompt + generated ids. */
  get ids() {
    return [...this.#live().ids()];
  }

  get finished() {
    return this.#live().finished();
  }

  /** {tokens, layers, shapePerLayer: [tokens, Hkv, Dh], bytes} */
  get cache() {
    return JSON.parse(this.#live().cacheInfo());
  }

  dispose() {
    if (this.#native) release(this, this.#native);
    this.#native = null;
  }
}

// Training data for the module: JSONL or plain text as it is, arrays as JSONL.
function trainingData(data, format) {
  if (typeof data === 'string') {
    const chosen = format ?? 'jsonl';
    if (chosen !== 'jsonl' && chosen !== 'text')
      throw argumentError(
        RangeError,
        'api.one_of',
        { name: 'format', allowed: 'jsonl, text', got: shownArgument(format) },
        `format must be "jsonl" or "text", got ${describe(format)}`,
      );
    return { text: data, format: chosen };
  }
  if (format !== undefined)
    throw argumentError(TypeError, 'api.format_without_text', {}, 'format goes with data given as a string (JSONL or plain text)');
  if (!Array.isArray(data) || data.length === 0)
    throw argumentError(TypeError, 'api.no_data', {}, 'data must be JSONL or plain text, or a non-empty array of texts or of id arrays');
  const lines = data.map((item, i) => {
    if (typeof item === 'string') return JSON.stringify({ text: item });
    return JSON.stringify({ ids: Array.from(toIdArray(item, `data[${i}]`)) });
  });
  return { text: lines.join('\n'), format: 'jsonl' };
}

// model.trainer()'s onSnapshot, snapshotEvery and probe, checked: null
// without onSnapshot, else {onSnapshot, every (null: the default), probe}.
function snapshotOptions(options, tokenizer) {
  const every = options.snapshotEvery === undefined ? null : checkInteger(options.snapshotEvery, 'snapshotEvery', 1);
  const probe = options.probe === undefined ? undefined : checkString(options.probe, 'probe');
  if (options.onSnapshot === undefined) return null;
  if (typeof options.onSnapshot !== 'function')
    throw argumentError(
      TypeError,
      'api.not_function',
      { name: 'onSnapshot', got: shownArgument(options.onSnapshot) },
      `onSnapshot must be a function, got ${describe(options.onSnapshot)}`,
    );
  if (tokenizer === null)
    throw argumentError(
      TypeError,
      'api.snapshot_needs_tokenizer',
      {},
      "onSnapshot needs MiniMind's tokenizer (tokenizer: a Tokenizer of loadTokenizer()) for the timeline's probes",
    );
  return { onSnapshot: options.onSnapshot, every, probe };
}

// Lets Model.trainer() give its trainer a timeline without making it public.
const attachTimeline = Symbol('attach timeline');

/** A training run over a model; call dispose() when done (the model stays). */
export class Trainer {
  #native;
  #timeline = null; // js/trainer_timeline.mjs TrainerTimeline, with onSnapshot

  constructor(native) {
    this.#native = adopt(this, native);
  }

  [attachTimeline](make) {
    this.#timeline = make(this.info());
  }

  #live() {
    if (!this.#native) throw argumentError(Error, 'api.trainer_disposed', {}, 'this trainer was disposed');
    return this.#native;
  }

  /** {samples, maxSeqLen, batchesPerEpoch, totalBatches, batchesDone, optimizerSteps, done, memory: {weights, gradients, adam, activations, transposedWeights, modelWeights, total} (bytes)} */
  info() {
    return JSON.parse(this.#live().info());
  }

  get done() {
    return this.info().done;
  }

  /**
   * Runs the next batch: {epoch, batch, loss, lr, gradNorm, tokens,
   * optimizerStep, optimizerSteps, ms}. `loss` is the batch's loss before the
   * division by accumulationSteps (what MiniMind logs); gradNorm is
   * clip_grad_norm_'s value on batches that stepped the optimizer, else null.
   * With onSnapshot, the timeline's entries are made here (before the first
   * batch, and after the batches that end a stretch of snapshotEvery or the
   * run); what onSnapshot throws comes out of step(), after the batch ran.
   */
  step() {
    const native = this.#live();
    if (this.#timeline === null) return native.step();
    this.#timeline.before(this.info());
    const s = native.step();
    this.#timeline.after(this.info(), s.loss);
    return s;
  }

  /**
   * For inspection: the loss and the gradient of every parameter for the
   * given samples (indices into the data) as one batch, with no division by
   * accumulationSteps; training state untouched. Returns {loss, tokens,
   * gradients: [{name, shape, data}], safetensors: Uint8Array}.
   */
  lossAndGradients(samples) {
    const ids = toIdArray(samples, 'samples');
    if (ids.length === 0) throw argumentError(RangeError, 'api.no_samples', {}, 'lossAndGradients needs at least one sample index');
    return this.#live().lossAndGradients(ids);
  }

  /** [{name, shape}] of the parameters trained, in the order state() lists them (not MiniMind's model.parameters() order). */
  parameters() {
    return this.#live().parameters();
  }

  /**
   * What continuing this run needs beside the model's weights: {epoch (0-based),
   * batch (batches done in it), optimizerSteps, parameters: [{name, shape,
   * expAvg, expAvgSq: Float32Array (AdamW's moments), grad: Float32Array (the
   * gradient summed since the last optimizer step) or null when none is
   * pending}]}, in the trainer's parameter order. Copies.
   */
  state() {
    return this.#live().state();
  }

  /**
   * Continues a saved run: `state` is state() of a trainer over a model with
   * the weights as saved, the same data and the same options; this trainer
   * then runs on exactly as that one would have. Throws (and changes nothing)
   * for a state of other parameters or a position outside the schedule.
   */
  restore(state) {
    const native = this.#live();
    if (typeof state !== 'object' || state === null)
      throw argumentError(
        TypeError,
        'api.not_state',
        { got: shownArgument(state) },
        `state must be a trainer state, got ${describe(state)}`,
      );
    checkInteger(state.epoch, 'state.epoch');
    checkInteger(state.batch, 'state.batch');
    checkInteger(state.optimizerSteps, 'state.optimizerSteps');
    if (!Array.isArray(state.parameters))
      throw argumentError(TypeError, 'api.not_state', { got: shownArgument(state.parameters) }, 'state.parameters must be an array');
    const withGrad = state.parameters.length > 0 && state.parameters[0].grad !== null && state.parameters[0].grad !== undefined;
    const parameters = state.parameters.map((p, i) => {
      const where = `state.parameters[${i}]`;
      if (typeof p !== 'object' || p === null)
        throw argumentError(TypeError, 'api.not_state_parameter', { index: i }, `${where} must be {name, expAvg, expAvgSq, grad}`);
      const floats = (value, key) => {
        if (!(value instanceof Float32Array))
          throw argumentError(TypeError, 'api.not_float32', { name: `${where}.${key}` }, `${where}.${key} must be a Float32Array`);
        return value;
      };
      const expAvg = floats(p.expAvg, 'expAvg');
      const expAvgSq = floats(p.expAvgSq, 'expAvgSq');
      if (expAvgSq.length !== expAvg.length)
        throw argumentError(
          RangeError,
          'api.state_lengths',
          { index: i, first: 'expAvg', second: 'expAvgSq' },
          `${where}: expAvg and expAvgSq differ in length`,
        );
      const grad = withGrad ? floats(p.grad, 'grad') : null;
      if (grad && grad.length !== expAvg.length)
        throw argumentError(
          RangeError,
          'api.state_lengths',
          { index: i, first: 'grad', second: 'expAvg' },
          `${where}: grad and expAvg differ in length`,
        );
      return { expAvg, expAvgSq, grad };
    });
    const names = native.parameters().map((p) => p.name);
    if (names.length !== parameters.length)
      throw argumentError(
        RangeError,
        'api.state_count',
        { state: parameters.length, trainer: names.length },
        `the state holds ${parameters.length} parameters, this trainer has ${names.length}`,
      );
    state.parameters.forEach((p, i) => {
      if (p.name !== undefined && p.name !== names[i])
        throw argumentError(
          RangeError,
          'api.state_name',
          { index: i, got: shownArgument(p.name), expected: names[i] },
          `state.parameters[${i}] is ${describe(p.name)}, this trainer's is "${names[i]}"`,
        );
    });
    native.restore({ epoch: state.epoch, batch: state.batch, optimizerSteps: state.optimizerSteps, parameters });
    this.#timeline?.restored();
  }

  dispose() {
    if (this.#native) release(this, this.#native);
    this.#native = null;
  }
}

// [[layer, head], ...] for head ablation (the core checks the ranges).
function ablationList(ablate) {
  if (!Array.isArray(ablate))
    throw argumentError(
      TypeError,
      'api.not_ablation',
      { got: shownArgument(ablate) },
      `ablate must be an array of [layer, head] pairs, got ${describe(ablate)}`,
    );
  return ablate.map((pair, i) => {
    if (!Array.isArray(pair) || pair.length !== 2)
      throw argumentError(TypeError, 'api.not_ablation_pair', { index: i }, `ablate[${i}] must be a [layer, head] pair`);
    return [checkInteger(pair[0], `ablate[${i}][0]`), checkInteger(pair[1], `ablate[${i}][1]`)];
  });
}

// The interpretability tools' options with `ablate` checked as forward()
// checks it (anything but an object is left for js/interp.mjs to refuse).
function withAblation(options) {
  if (typeof options !== 'object' || options === null || options.ablate === undefined) return options;
  return { ...options, ablate: ablationList(options.ablate) };
}
