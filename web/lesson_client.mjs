// Lesson mode's side of the compute worker: its own worker instance (the same
// worker.js), so that a hand-typed 3×4 example answers at once even while a
// large preset is still building in the page's model worker. Only the answer
// to the newest request of each kind is delivered.
const REQUEST_OF = { 'lesson-result': 'lesson', 'lab-record': 'lab' };

export class LessonClient {
  #workerUrl;
  #worker = null;
  #nextId = 1;
  #latest = {}; // request type -> id of the newest request
  #handlers;

  /** handlers: {onLesson(result), onLabRecord({preset, seed, text}), onError({request, message})} */
  constructor(workerUrl, handlers) {
    this.#workerUrl = workerUrl;
    this.#handlers = handlers;
  }

  // Started on first use: a page that never opens lesson mode never loads it.
  #ensureWorker() {
    if (this.#worker) return this.#worker;
    this.#worker = new Worker(this.#workerUrl, { type: 'module' });
    this.#worker.onmessage = (event) => this.#receive(event.data);
    this.#worker.onerror = (event) =>
      this.#handlers.onError?.({ request: 'worker', message: event.message || 'the compute worker failed to start' });
    return this.#worker;
  }

  #send(type, payload) {
    const id = this.#nextId++;
    this.#latest[type] = id;
    this.#ensureWorker().postMessage({ type, id, ...payload });
    return id;
  }

  /** request: {kind: 'qkv', q, k, v} | {kind: 'scores', scores}; switches: {causal, scale} */
  lesson(request, { causal, scale }) {
    return this.#send('lesson', { ...request, causal, scale });
  }

  labRecord(preset, seed) {
    return this.#send('lab', { preset, seed });
  }

  #receive(message) {
    const request = REQUEST_OF[message.type] ?? message.request;
    if (this.#latest[request] !== message.id) return; // superseded, or not ours
    if (message.type === 'lesson-result') this.#handlers.onLesson?.(message);
    else if (message.type === 'lab-record') this.#handlers.onLabRecord?.(message);
    else if (message.type === 'error') this.#handlers.onError?.(message);
  }
}
