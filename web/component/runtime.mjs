// One Wasm module for every <minimind-attention> of a page, loaded on first
// use, and one model per (preset, config, seed) shared by the elements that
// show it; a model is freed once no element uses it any more. The trained
// model's files and tokenizer are read once (demo_source.mjs) and kept.
// When the module or the model's files cannot be loaded (not hosted where the
// script points, blocked across origins, a broken .wasm), the promise rejects
// with a LoadError, which the element words in its own language.
import { DEMO } from '../demo_model.mjs';
import { demoFiles } from '../demo_source.mjs';
import { loadRuntime as loadModule } from '../wasm_runtime.mjs';
import { moduleSource, sourceUrls } from './module_source.mjs';

/**
 * What could not be loaded: kind 'module' (the Wasm module's script),
 * 'wasm' (its .wasm: missing, not WebAssembly, or not allowed to compile) or
 * 'model' (the trained model's files); url: where it was looked for, null
 * when it is inlined in the script. message: the browser's own words.
 */
export class LoadError extends Error {
  constructor(kind, url, cause) {
    super(cause?.message ?? String(cause), { cause });
    this.name = 'LoadError';
    this.kind = kind;
    this.url = url;
  }
}

let runtime = null;
let trained = null; // Promise of {files, tokenizer, info} of the trained model
const models = new Map(); // key -> {promise: Promise<Model>, users}

/** The module, loaded once (a failed load is retried by the next call). */
export function loadRuntime() {
  runtime ??= Promise.resolve()
    .then(() => loadModule(moduleSource()))
    .catch((error) => {
      runtime = null;
      // Emscripten rejects with a WebAssembly error when the .wasm fails, an
      // import error when its script does.
      const wasm =
        typeof WebAssembly === 'object' && ['CompileError', 'LinkError', 'RuntimeError'].some((name) => error instanceof WebAssembly[name]);
      throw new LoadError(wasm ? 'wasm' : 'module', sourceUrls()[wasm ? 'wasm' : 'module'], error);
    });
  return runtime;
}

// The trained model's files, its tokenizer and its config's shapes, once.
function trainedModel(mm, onProgress) {
  trained ??= demoFiles(onProgress)
    .catch((error) => {
      throw new LoadError('model', sourceUrls().model, error);
    })
    .then((files) => ({ files, tokenizer: mm.loadTokenizer(files.tokenizer), info: mm.describeConfig(files.config) }))
    .catch((error) => {
      trained = null;
      throw error;
    });
  return trained;
}

/**
 * What {preset, config, seed} builds, as the page builds it (config keys on
 * top of the preset's): {key, name, info, create(), trained?: {files:
 * {heads, ...}, tokenizer}}. Throws the config's problems (an unknown
 * preset, heads that do not divide hidden_size, ...). onProgress(fraction)
 * while the trained model's weights download.
 */
export async function describeModel(mm, { preset, config, seed }, onProgress) {
  if (preset === DEMO) {
    const model = await trainedModel(mm, onProgress);
    const { config: configJson, weights } = model.files;
    return {
      key: JSON.stringify([DEMO]),
      name: DEMO,
      info: model.info,
      trained: model,
      create: () => mm.loadModel({ config: configJson, weights }),
    };
  }
  const full = config ? { ...mm.presetConfig(preset), ...config } : mm.presetConfig(preset);
  const spec = config ? { config: full, seed } : { preset, seed };
  return {
    key: JSON.stringify([preset, config, seed]),
    name: config ? `${preset} + config` : preset,
    info: mm.describeConfig(full),
    trained: null,
    create: () => mm.createModel(spec),
  };
}

/**
 * {model, release()}: the model of `described`, built once for all elements
 * (after `beforeBuild()` resolves, so a "building" message can be painted
 * before the main thread is busy).
 */
export async function acquireModel(mm, described, beforeBuild) {
  const { key } = described;
  let entry = models.get(key);
  if (!entry) {
    entry = { users: 0, promise: Promise.resolve(beforeBuild?.()).then(() => described.create()) };
    models.set(key, entry);
  }
  entry.users += 1;
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    entry.users -= 1;
    if (entry.users > 0 || models.get(key) !== entry) return;
    models.delete(key);
    entry.promise.then(
      (model) => model.dispose(),
      () => {},
    );
  };
  try {
    return { model: await entry.promise, release };
  } catch (error) {
    release();
    throw error;
  }
}
