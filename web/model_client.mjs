// The page's side of the worker: sends requests and delivers only the answer
// to the newest request of each kind (older answers are stale and ignored).
// The request each kind of answer belongs to.
const REQUEST_OF = {
  progress: 'load',
  loaded: 'load',
  result: 'forward',
  described: 'describe',
  'gen-state': 'gen-start',
  'gen-token': 'gen-step',
};

export class ModelClient {
  #worker;
  #nextId = 1;
  #latest = {}; // type -> id of the newest request
  #handlers;

  /** handlers: {onProgress, onLoaded, onResult, onDescribed, onGenerationStart, onGenerationStep, onError} */
  constructor(workerUrl, handlers) {
    this.#handlers = handlers;
    this.#worker = new Worker(workerUrl, { type: 'module' });
    this.#worker.onmessage = (event) => this.#receive(event.data);
    this.#worker.onerror = (event) =>
      handlers.onError?.({ request: 'worker', message: event.message || 'the compute worker failed to start' });
  }

  #send(type, payload) {
    const id = this.#nextId++;
    this.#latest[type] = id;
    this.#worker.postMessage({ type, id, ...payload });
    return id;
  }

  load(spec) {
    return this.#send('load', { spec });
  }

  /** files: {config?: text, weights: ArrayBuffer (transferred), tokenizer?: text, hints} */
  loadFiles(files) {
    const id = this.#nextId++;
    this.#latest.load = id;
    this.#worker.postMessage({ type: 'load', id, spec: { files } }, [files.weights]);
    return id;
  }

  /** tokens: {ids, labels} from the page, or {text} for the worker's tokenizer. */
  forward(tokens, { causal, scale }) {
    return this.#send('forward', { ...tokens, causal, scale });
  }

  startGeneration(tokens, { chat, sampling }) {
    return this.#send('gen-start', { ...tokens, chat, sampling });
  }

  step() {
    return this.#send('gen-step', {});
  }

  describe(preset, config) {
    return this.#send('describe', { preset, config });
  }

  #receive(message) {
    const request = REQUEST_OF[message.type] ?? message.request;
    if (this.#latest[request] !== message.id) return; // superseded
    const h = this.#handlers;
    if (message.type === 'progress') h.onProgress?.(message);
    else if (message.type === 'loaded') h.onLoaded?.(message);
    else if (message.type === 'result') h.onResult?.(message);
    else if (message.type === 'described') h.onDescribed?.(message);
    else if (message.type === 'gen-state') h.onGenerationStart?.(message);
    else if (message.type === 'gen-token') h.onGenerationStep?.(message);
    else if (message.type === 'error') h.onError?.(message);
  }
}
