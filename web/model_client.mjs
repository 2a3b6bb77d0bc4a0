// The page's side of the worker: sends requests and delivers only the answer
// to the newest request of each kind (older answers are stale and ignored).
export class ModelClient {
  #worker;
  #nextId = 1;
  #latest = {}; // type -> id of the newest request
  #handlers;

  /** handlers: {onProgress, onLoaded, onResult, onDescribed, onError} */
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

  forward(ids, { causal, scale }) {
    return this.#send('forward', { ids, causal, scale });
  }

  describe(preset, config) {
    return this.#send('describe', { preset, config });
  }

  #receive(message) {
    const request =
      message.type === 'progress' || message.type === 'loaded'
        ? 'load'
        : message.type === 'result'
          ? 'forward'
          : message.type === 'described'
            ? 'describe'
            : message.request;
    if (this.#latest[request] !== message.id) return; // superseded
    const h = this.#handlers;
    if (message.type === 'progress') h.onProgress?.(message);
    else if (message.type === 'loaded') h.onLoaded?.(message);
    else if (message.type === 'result') h.onResult?.(message);
    else if (message.type === 'described') h.onDescribed?.(message);
    else if (message.type === 'error') h.onError?.(message);
  }
}
