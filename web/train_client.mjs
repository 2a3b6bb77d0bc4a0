// The page's side of the training worker (train_worker.mjs): sends its
// requests and hands each answer to a handler. The worker is started on
// first use, so a page that never trains never loads a second Wasm module.
// Answers to a superseded prepare or export are dropped. The worker may also
// be anything with postMessage, onmessage, onerror and terminate (the
// single-file element runs train_host.mjs on the page's thread: inProcessWorker()).
import { MiniMindError } from '../js/minimind_error.mjs';
import { createTrainHost } from './train_host.mjs';

/**
 * A stand-in for the training worker on the page's own thread: the same
 * host and messages, each delivered in a task of its own (batches still run
 * one slice per task, so the page handles its events between them).
 * loadRuntime, fetchText: as createTrainHost takes them.
 */
export function inProcessWorker({ loadRuntime, fetchText, sliceMs = 25 }) {
  const port = { onmessage: null, onerror: null, closed: false };
  const host = createTrainHost({
    post: (data) => setTimeout(() => !port.closed && port.onmessage?.({ data }), 0),
    loadRuntime,
    fetchText,
    sliceMs,
  });
  port.postMessage = (data) => setTimeout(() => !port.closed && host.handle(data), 0);
  port.terminate = () => {
    port.closed = true;
    host.handle({ type: 'reset' });
  };
  return port;
}

export class TrainClient {
  #workerUrl;
  #worker = null;
  #handlers;
  #nextId = 1;
  #prepareId = 0;
  #exports = new Map(); // id -> {resolve, reject}
  #captures = new Map(); // id -> {resolve, reject}
  #dataFiles = new Map(); // id of a data-file read -> {resolve, reject, onProgress}

  /** worker: the worker script's URL, or a function that makes a worker; handlers: {onState, onProgress, onReady, onSteps, onSnapshot, onError} */
  constructor(workerUrl, handlers) {
    this.#workerUrl = workerUrl;
    this.#handlers = handlers;
  }

  #post(message, transfer = []) {
    if (!this.#worker) {
      this.#worker = typeof this.#workerUrl === 'function' ? this.#workerUrl() : new Worker(this.#workerUrl, { type: 'module' });
      this.#worker.onmessage = (event) => this.#receive(event.data);
      this.#worker.onerror = (event) =>
        this.#handlers.onError?.({ request: 'worker', message: event.message || 'the training worker failed to start' });
    }
    this.#worker.postMessage(message, transfer);
  }

  /**
   * Prepares a run (tokenizes the data, builds the trainer) and, with
   * `start`, starts it. request: see train_host.mjs; model.weights (an
   * ArrayBuffer) is transferred; {resume: a saved run state, start} goes on
   * with a saved run.
   */
  prepare(request) {
    const id = (this.#prepareId = this.#nextId++);
    const transfer = request.model?.weights ? [request.model.weights] : [];
    this.#post({ type: 'prepare', id, ...request }, transfer);
    return id;
  }

  resume() {
    this.#post({ type: 'resume' });
  }

  pause() {
    this.#post({ type: 'pause' });
  }

  stop() {
    this.#post({ type: 'stop' });
  }

  reset() {
    this.#prepareId = 0;
    this.#post({ type: 'reset' });
  }

  setProbe(text) {
    this.#post({ type: 'probe', text });
  }

  /** New prompts for the model to write on at each snapshot (null in the list: a repeated random span). */
  setPrompts(prompts) {
    this.#post({ type: 'prompts', prompts });
  }

  /** The model as trained so far: Promise of {config, weights: ArrayBuffer, tokenizer, dtype, step}. */
  trainedFiles(dtype = 'F32') {
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#exports.set(id, { resolve, reject });
      this.#post({ type: 'export', id, dtype });
    });
  }

  /** The run as data, to save it (js/train_run_state.mjs, the worker's part): Promise of a run state. */
  captureRun() {
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#captures.set(id, { resolve, reject });
      this.#post({ type: 'capture', id });
    });
  }

  /**
   * Reads and tokenizes a training text file in the worker, ahead of a run
   * (train_host.mjs data-file): Promise of {id, name, format, bytes, texts,
   * tokens}; prepare() then takes data {source: 'file', fileId: id, name}.
   * onProgress(done, total) in bytes. A newer file or cancelDataFile()
   * rejects it with an AbortError, a bad file with a MiniMindError (kind
   * 'data.*'); the file read before stays the worker's.
   */
  loadDataFile(file, onProgress = () => {}) {
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#dataFiles.set(id, { resolve, reject, onProgress });
      this.#post({ type: 'data-file', id, file, name: file.name });
    });
  }

  /** Stops the data file being read (loadDataFile). */
  cancelDataFile() {
    if (this.#dataFiles.size > 0) this.#post({ type: 'data-cancel' });
  }

  /** Stops the worker (a page leaving its training). */
  terminate() {
    this.#worker?.terminate();
    this.#worker = null;
    for (const pending of [this.#exports, this.#captures, this.#dataFiles]) {
      for (const { reject } of pending.values()) reject(new Error('the training worker was stopped'));
      pending.clear();
    }
  }

  #receive(message) {
    const h = this.#handlers;
    if (message.type.startsWith('data-') || (message.type === 'error' && message.request === 'data-file'))
      return this.#dataFileAnswer(message);
    if (message.type === 'captured' || (message.type === 'error' && message.request === 'capture')) {
      const pending = this.#captures.get(message.id);
      this.#captures.delete(message.id);
      if (message.type === 'captured') pending?.resolve(message.run);
      else pending?.reject(new Error(message.message));
      return;
    }
    if (message.type === 'exported' || (message.type === 'error' && message.request === 'export')) {
      const pending = this.#exports.get(message.id);
      this.#exports.delete(message.id);
      if (message.type === 'exported') pending?.resolve(message);
      else pending?.reject(new Error(message.message));
      return;
    }
    if ((message.type === 'progress' || message.type === 'ready') && message.id !== this.#prepareId) return;
    if (message.type === 'error' && message.request === 'prepare' && message.id !== this.#prepareId) return;
    if (message.type === 'state') h.onState?.(message);
    else if (message.type === 'progress') h.onProgress?.(message);
    else if (message.type === 'ready') h.onReady?.(message);
    else if (message.type === 'steps') h.onSteps?.(message);
    else if (message.type === 'snapshot') h.onSnapshot?.(message.snapshot);
    else if (message.type === 'error') h.onError?.(message);
  }

  #dataFileAnswer(message) {
    const pending = this.#dataFiles.get(message.id);
    if (message.type === 'data-progress') return pending?.onProgress(message.done, message.total);
    this.#dataFiles.delete(message.id);
    if (message.type === 'data-ready') pending?.resolve(message);
    else if (message.type === 'data-cancelled') pending?.reject(new DOMException('reading the file was cancelled', 'AbortError'));
    else pending?.reject(new MiniMindError(message.message, { kind: message.kind, values: message.values }));
  }
}
