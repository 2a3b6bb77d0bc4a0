// The page's compute worker: owns the model, so that building a large preset
// or running a long text never freezes the page. Requests superseded by newer
// ones (typing fast) are dropped, not queued.
//
// main -> worker: {type: 'load', id, spec: {preset, seed, config}}
//                 {type: 'forward', id, ids, causal, scale}
//                 {type: 'describe', id, preset, config}
// worker -> main: {type: 'progress', id, fraction}
//                 {type: 'loaded', id, info} | {type: 'result', id, ...} | {type: 'described', id, info, problems}
//                 {type: 'error', id, message}
import { loadMiniMind } from '../js/minimind.mjs';

export const TRACE_STAGES = ['scores_raw', 'scores_scaled', 'scores_masked', 'attn_weights'];

let runtime = null;
let model = null;
let queue = [];
let draining = false;

function runtimeReady() {
  runtime ??= loadMiniMind({ moduleUrl: new URL('./wasm/minimind.mjs', import.meta.url) });
  return runtime;
}

function fullConfig(mm, preset, overrides) {
  return { ...mm.presetConfig(preset), ...(overrides ?? {}) };
}

async function handleLoad(mm, message) {
  const { preset, seed, config } = message.spec;
  let lastReport = -1;
  const onProgress = (fraction) => {
    // A few dozen reports are enough for a progress bar.
    if (fraction === 1 || fraction - lastReport >= 0.02) {
      lastReport = fraction;
      self.postMessage({ type: 'progress', id: message.id, fraction });
    }
  };
  model?.dispose();
  model = null;
  const spec = config ? { config: fullConfig(mm, preset, config), seed, onProgress } : { preset, seed, onProgress };
  model = mm.createModel(spec);
  self.postMessage({ type: 'loaded', id: message.id, info: model.info() });
}

function handleForward(message) {
  if (!model) throw new Error('no model is loaded');
  const started = performance.now();
  const { logits, trace } = model.forward(message.ids, {
    trace: { layers: 'all', stages: TRACE_STAGES },
    causalMask: message.causal,
    scaleScores: message.scale,
  });
  const entries = trace.map(({ layer, stage, shape, data }) => ({ layer, stage, shape, data }));
  const computeMs = performance.now() - started;
  self.postMessage(
    { type: 'result', id: message.id, ids: message.ids, logitsShape: logits.shape, entries, computeMs },
    entries.map((e) => e.data.buffer),
  );
}

function handleDescribe(mm, message) {
  const config = fullConfig(mm, message.preset, message.config);
  const problems = mm.configProblems(config);
  self.postMessage({ type: 'described', id: message.id, info: problems.length ? null : mm.describeConfig(config), problems });
}

// Only the newest request of each kind is worth doing; a load must come before
// the forward that follows it.
function takeLatest() {
  const latest = {};
  for (const message of queue) latest[message.type] = message;
  queue = [];
  return ['describe', 'load', 'forward'].map((type) => latest[type]).filter(Boolean);
}

async function drain() {
  if (draining) return;
  draining = true;
  try {
    while (queue.length) {
      const mm = await runtimeReady();
      for (const message of takeLatest()) {
        try {
          if (message.type === 'load') await handleLoad(mm, message);
          else if (message.type === 'forward') handleForward(message);
          else if (message.type === 'describe') handleDescribe(mm, message);
        } catch (error) {
          self.postMessage({ type: 'error', id: message.id, request: message.type, message: String(error?.message ?? error) });
        }
      }
    }
  } catch (error) {
    // The module itself failed to load: every request fails with that message.
    for (const message of queue.splice(0))
      self.postMessage({ type: 'error', id: message.id, request: message.type, message: String(error?.message ?? error) });
    runtime = null;
  } finally {
    draining = false;
  }
}

self.onmessage = (event) => {
  queue.push(event.data);
  setTimeout(drain, 0); // let more messages arrive first, so stale ones are dropped
};
