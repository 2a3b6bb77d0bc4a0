// The page's side of the worker: sends requests and delivers only the answer
// to the newest request of each kind (older answers are stale and ignored).
// A request can also be superseded before a newer one is sent (typing on a
// slow model waits a moment before asking): its answer is dropped as well.
// Wasm runs synchronously in the worker, so the only way to stop a long run
// is to terminate the worker: cancel() starts a fresh one and loads the last
// model that loaded again, from its spec (a preset or config, or the files
// it came from).

// The request each kind of answer belongs to.
const REQUEST_OF = {
  progress: 'load',
  loaded: 'load',
  result: 'forward',
  prediction: 'predict',
  described: 'describe',
  'gen-state': 'gen-start',
  'gen-token': 'gen-step',
  'model-files': 'model-files',
};

/** A performance mark per forward pass the worker ran; detail: {id, stale, computeMs}. */
export const WORKER_FORWARD = 'minimind:worker-forward';

export class ModelClient {
  #workerUrl;
  #worker = null;
  #nextId = 1;
  #latest = {}; // type -> id of the newest request
  #sentAt = {}; // type -> when its newest request was sent, until answered
  #handlers;
  #loads = new Map(); // id of a load in flight -> how to load that model again
  #loaded = null; // how to load the model the worker holds again: {spec} or {files, weightsFile, name}
  #fileRequests = new Map(); // id of a model-files request -> {resolve, reject}

  /** handlers: {onProgress, onLoaded, onResult, onPrediction, onDescribed, onGenerationStart, onGenerationStep, onError} */
  constructor(workerUrl, handlers) {
    this.#workerUrl = workerUrl;
    this.#handlers = handlers;
    this.#start();
  }

  #start() {
    const worker = new Worker(this.#workerUrl, { type: 'module' });
    worker.onmessage = (event) => this.#receive(event.data);
    worker.onerror = (event) =>
      this.#handlers.onError?.({ request: 'worker', message: event.message || 'the compute worker failed to start' });
    this.#worker = worker;
  }

  #send(type, payload, transfer = []) {
    const id = this.#nextId++;
    this.#latest[type] = id;
    this.#sentAt[type] = performance.now();
    this.#worker.postMessage({ type, id, ...payload }, transfer);
    return id;
  }

  load(spec) {
    const id = this.#send('load', { spec });
    this.#loads.set(id, { spec });
    return id;
  }

  /**
   * files: {config?: text, weights: ArrayBuffer (transferred), tokenizer?: text, hints}.
   * weightsFile: the File the weights were read from, kept (a File is a handle,
   * not a copy) to load the model again after a cancel.
   */
  loadFiles(files, weightsFile = null) {
    const { weights, ...rest } = files;
    const id = this.#send('load', { spec: { files } }, [weights]);
    this.#loads.set(id, { files: rest, weightsFile, name: weightsFile?.name ?? null });
    return id;
  }

  /** tokens: {ids, labels} from the page, or {text} for the worker's tokenizer; ablate: [[layer, head]] switched off. */
  forward(tokens, { causal, scale, ablate = [] }) {
    return this.#send('forward', { ...tokens, causal, scale, ablate });
  }

  /** The next-token candidates after position `row`, with `ablate` switched off. */
  predict(tokens, { row, ablate = [] }) {
    return this.#send('predict', { ...tokens, row, ablate });
  }

  startGeneration(tokens, { chat, sampling }) {
    return this.#send('gen-start', { ...tokens, chat, sampling });
  }

  step() {
    return this.#send('gen-step', {});
  }

  /**
   * The model in use as MiniMind's files, for the Train panel: Promise of
   * {config: config.json text, weights: ArrayBuffer (F32 model.safetensors),
   * tokenizer: tokenizer.json text or null}.
   */
  modelFiles() {
    return new Promise((resolve, reject) => {
      const id = this.#send('model-files', {});
      this.#fileRequests.set(id, { resolve, reject });
    });
  }

  describe(preset, config) {
    return this.#send('describe', { preset, config });
  }

  /** Drops the answer to the request of `type` in flight (its question is out of date). */
  supersede(type) {
    this.#latest[type] = this.#nextId++;
    delete this.#sentAt[type];
  }

  /** When the newest request of `type` was sent, if it is still unanswered; else null. */
  pendingSince(type) {
    return this.#sentAt[type] ?? null;
  }

  /**
   * Stops whatever the worker is doing: terminates it, starts a fresh one and
   * loads the last model that loaded again (a preset or config from its spec,
   * files by reading their File again). Returns what it loads, {spec} or
   * {files, name}, or null when there is none (nothing loaded yet, or files
   * given without their File): the page then loads a model itself.
   * With {reload: false} nothing is loaded.
   */
  cancel({ reload = true } = {}) {
    this.#worker.onmessage = null;
    this.#worker.onerror = null;
    this.#worker.terminate();
    this.#latest = {};
    this.#sentAt = {};
    this.#loads.clear();
    for (const { reject } of this.#fileRequests.values()) reject(new Error('the compute worker was restarted'));
    this.#fileRequests.clear();
    this.#start();
    const last = this.#loaded;
    this.#loaded = null;
    if (!reload || !last || (last.files && !last.weightsFile)) return null;
    if (last.spec) {
      this.load(last.spec);
      return last;
    }
    const id = this.#nextId++;
    this.#latest.load = id;
    this.#sentAt.load = performance.now();
    this.#loads.set(id, last);
    last.weightsFile.arrayBuffer().then(
      (weights) => {
        if (this.#latest.load === id)
          this.#worker.postMessage({ type: 'load', id, spec: { files: { ...last.files, weights } } }, [weights]);
      },
      (error) => this.#receive({ type: 'error', id, request: 'load', message: String(error?.message ?? error) }),
    );
    return last;
  }

  #receive(message) {
    const request = REQUEST_OF[message.type] ?? message.request;
    if (request === 'model-files') {
      const pending = this.#fileRequests.get(message.id);
      this.#fileRequests.delete(message.id);
      if (message.type === 'error') pending?.reject(new Error(message.message));
      else pending?.resolve({ config: message.config, weights: message.weights, tokenizer: message.tokenizer });
      return;
    }
    const current = this.#latest[request] === message.id;
    if (request === 'forward')
      performance.mark(WORKER_FORWARD, { detail: { id: message.id, stale: !current, computeMs: message.computeMs } });
    if (message.type === 'loaded') this.#loaded = this.#loads.get(message.id) ?? null;
    if (message.type === 'error' && request === 'load' && this.#loads.get(message.id)?.spec) this.#loaded = null; // the worker dropped its model first
    if (message.type !== 'progress') this.#loads.delete(message.id);
    if (!current) return; // superseded
    message.sentAt = this.#sentAt[request];
    if (message.type !== 'progress') delete this.#sentAt[request];
    const h = this.#handlers;
    if (message.type === 'progress') h.onProgress?.(message);
    else if (message.type === 'loaded') h.onLoaded?.(message);
    else if (message.type === 'result') h.onResult?.(message);
    else if (message.type === 'prediction') h.onPrediction?.(message);
    else if (message.type === 'described') h.onDescribed?.(message);
    else if (message.type === 'gen-state') h.onGenerationStart?.(message);
    else if (message.type === 'gen-token') h.onGenerationStep?.(message);
    else if (message.type === 'error') h.onError?.(message);
  }
}
