// The Train panel's worker: trains a MiniMind while the compute worker
// (worker.mjs) keeps answering the playground and the page keeps drawing.
// Its own Wasm module instance, MiniMind's tokenizer and the trainer live
// here; the run and its messages are train_host.mjs's (the protocol is
// described there), fed from this thread's message port.
import { createTrainHost } from './train_host.mjs';
import { loadRuntime, runtimeOptions } from './wasm_runtime.mjs';

async function fetchText(path) {
  const response = await fetch(new URL(path, import.meta.url));
  if (!response.ok) throw new Error(`${path}: HTTP ${response.status}`);
  return response.text();
}

const host = createTrainHost({
  post: (message, transfer = []) => self.postMessage(message, transfer),
  loadRuntime: () => loadRuntime(runtimeOptions(import.meta.url)),
  fetchText,
});

self.onmessage = (event) => host.handle(event.data);
