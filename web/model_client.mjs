// The page's side of the worker: sends requests and delivers only the answer
// to the newest request of each kind (older answers are stale and ignored).
// A request can also be superseded before a newer one is sent (typing on a
// slow model waits a moment before asking): its answer is dropped as well.
// Wasm runs synchronously in the worker, so the only way to stop a long run
// is to terminate the worker: cancel() starts a fresh one and loads the last
// model that loaded again, from its spec (a preset or config, or the files
// it came from). Every request settles: the worker answers each one, a
// superseded one with 'superseded' (a promise rejects with an AbortError),
// and a cancel settles all that the terminated worker held.

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
  'lens-result': 'lens',
  attribution: 'attribute',
  'patch-result': 'patch',
  'qk-result': 'qk',
  'circuit-result': 'circuit',
  'exercise-result': 'exercise',
};
// "Ask the model why" (web/panels/why_panel.mjs): its answers and errors go to onWhy.
const WHY_REQUESTS = ['lens', 'attribute', 'patch'];

// The answer a superseded model-files request's promise rejects with.
function superseded() {
  return new DOMException('a newer request of the same kind superseded this one', 'AbortError');
}

/** A performance mark per forward pass the worker ran; detail: {id, stale, computeMs}. */
const WORKER_FORWARD = 'minimind:worker-forward';

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
  #pending = new Set(); // ids of the requests not answered yet

  /**
   * handlers: {onProgress, onLoaded, onResult, onPrediction, onDescribed, onGenerationStart,
   * onGenerationStep, onWhy, onQK ("why this weight": its answers and errors), onCircuit, onExercise (a tour
   * exercise's answers and errors), onError, onPending(count of requests not answered yet)}
   */
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
    this.#pendingChanged(() => this.#pending.add(id));
    this.#worker.postMessage({ type, id, ...payload }, transfer);
    return id;
  }

  /** How many requests have no answer yet (each gets one: its result, an error, or 'superseded'). */
  get pendingCount() {
    return this.#pending.size;
  }

  #pendingChanged(change) {
    const before = this.#pending.size;
    change();
    if (this.#pending.size !== before) this.#handlers.onPending?.(this.#pending.size);
  }

  /** How to load the model the worker holds again, {spec} or {files, weightsFile, name}; null when none has loaded. */
  get inUse() {
    return this.#loaded;
  }

  /**
   * Loads a model again from what inUse gave: a spec as load(spec), files by
   * reading their File again. Returns the load's id, or null when the files
   * came without their File.
   */
  reload(record) {
    if (record.spec) return this.load(record.spec);
    if (!record.weightsFile) return null;
    const id = this.#nextId++;
    this.#latest.load = id;
    this.#sentAt.load = performance.now();
    this.#pendingChanged(() => this.#pending.add(id));
    this.#loads.set(id, record);
    record.weightsFile.arrayBuffer().then(
      (weights) => {
        if (this.#latest.load === id && this.#pending.has(id))
          this.#worker.postMessage({ type: 'load', id, spec: { files: { ...record.files, weights } } }, [weights]);
        else this.#receive({ type: 'superseded', id, request: 'load' });
      },
      (error) => this.#receive({ type: 'error', id, request: 'load', message: String(error?.message ?? error) }),
    );
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
    const { weights, ...rest } = { name: weightsFile?.name, ...files }; // name: the weights file's, for the worker's messages
    const id = this.#send('load', { spec: { files: { ...rest, weights } } }, [weights]);
    this.#loads.set(id, { files: rest, weightsFile, name: weightsFile?.name ?? null });
    return id;
  }

  /** tokens: {ids, labels} from the page, or {text} for the worker's tokenizer; ablate: [[layer, head]] switched off. */
  forward(tokens, { causal, scale, ablate = [] }) {
    return this.#send('forward', { ...tokens, causal, scale, ablate });
  }

  /** The next-token candidates after position `row`, with `ablate` switched off and the causal mask and √d as set. */
  predict(tokens, { row, ablate = [], causal = true, scale = true }) {
    return this.#send('predict', { ...tokens, row, ablate, causal, scale });
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

  /** The logit lens at `row` (token: the id whose p is mapped, or null); see why_worker.mjs. */
  lens(tokens, options) {
    return this.#send('lens', { ...tokens, ...options });
  }

  /** Direct logit attribution at `row`, of logit(answer) - logit(wrong). */
  attribute(tokens, options) {
    return this.#send('attribute', { ...tokens, ...options });
  }

  /** Activation patching of two texts: {clean, corrupt, answer, wrong, story, causal, scale}. */
  patch(options) {
    return this.#send('patch', options);
  }

  /** Why one weight: the score of (layer, head) from `query` to `key` split by what wrote it (model.qk); see why_worker.mjs. */
  qk(tokens, options) {
    return this.#send('qk', { ...tokens, ...options });
  }

  /** The circuit of the why section's pair or of a text typed twice (model.circuit); see why_worker.mjs. */
  circuit(options) {
    return this.#send('circuit', options);
  }

  /**
   * A tour exercise (js/exercises.mjs) on what the page shows: {name, screen:
   * {layer, head, stage, causal, scale, ablate, row, cell, train}, answer?
   * (undefined: the question only; null: read from the screen), reveal?}.
   */
  exercise(tokens, options) {
    return this.#send('exercise', { ...tokens, ...options });
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
    this.#pendingChanged(() => this.#pending.clear()); // the terminated worker answers none of them
    this.#start();
    const last = this.#loaded;
    this.#loaded = null;
    if (!reload || !last || this.reload(last) === null) return null;
    return last;
  }

  #receive(message) {
    const request = REQUEST_OF[message.type] ?? message.request;
    // A failed load leaves the model before it in the worker: what loaded last is still in use.
    if (message.type === 'loaded') this.#loaded = this.#loads.get(message.id) ?? null;
    if (message.type === 'error' && request === 'load') message.load = this.#loads.get(message.id) ?? null; // what failed to load
    if (message.type !== 'progress') {
      this.#pendingChanged(() => this.#pending.delete(message.id));
      this.#loads.delete(message.id);
    }
    if (request === 'model-files') {
      const pending = this.#fileRequests.get(message.id);
      this.#fileRequests.delete(message.id);
      if (message.type === 'model-files')
        pending?.resolve({ config: message.config, weights: message.weights, tokenizer: message.tokenizer });
      else pending?.reject(message.type === 'superseded' ? superseded() : new Error(message.message));
      return;
    }
    if (message.type === 'superseded') return;
    const current = this.#latest[request] === message.id;
    if (request === 'forward')
      performance.mark(WORKER_FORWARD, { detail: { id: message.id, stale: !current, computeMs: message.computeMs } });
    if (!current) return; // superseded
    message.sentAt = this.#sentAt[request];
    if (message.type !== 'progress') delete this.#sentAt[request];
    const h = this.#handlers;
    if (request === 'qk') h.onQK?.(message);
    else if (request === 'circuit') h.onCircuit?.(message);
    else if (request === 'exercise') h.onExercise?.(message);
    else if (WHY_REQUESTS.includes(request)) h.onWhy?.(message);
    else if (message.type === 'progress') h.onProgress?.(message);
    else if (message.type === 'loaded') h.onLoaded?.(message);
    else if (message.type === 'result') h.onResult?.(message);
    else if (message.type === 'prediction') h.onPrediction?.(message);
    else if (message.type === 'described') h.onDescribed?.(message);
    else if (message.type === 'gen-state') h.onGenerationStart?.(message);
    else if (message.type === 'gen-token') h.onGenerationStep?.(message);
    else if (message.type === 'error') h.onError?.(message);
  }
}
