// The page's compute worker: owns the model, so that building a large preset
// or running a long text never freezes the page. Requests superseded by newer
// ones (typing fast) are dropped, not queued.
//
// main -> worker: {type: 'load', id, spec: {preset, seed, config}}
//                 {type: 'load', id, spec: {files: {config?, weights: ArrayBuffer, tokenizer?, hints}}}
//                 {type: 'forward', id, ids | text, causal, scale}
//                 {type: 'describe', id, preset, config}
//                 {type: 'gen-start', id, ids | text, chat, sampling}, {type: 'gen-step', id}
//                 {type: 'lesson', id, kind: 'qkv', q, k, v, causal, scale} | {type: 'lesson', id, kind: 'scores', scores, causal}
//                 {type: 'lab', id, preset, seed}
// worker -> main: {type: 'progress', id, fraction, phase}
//                 {type: 'loaded', id, info, files?} | {type: 'result', id, ...} | {type: 'described', id, info, problems}
//                 {type: 'gen-state', id, ...} | {type: 'gen-token', id, ...}
//                 {type: 'lesson-result', id, raw, scaled, masked, weights, output?} | {type: 'lab-record', id, preset, seed, text}
//                 {type: 'error', id, message}
// A model that fails to load from files leaves the previous one in place.
import { chatPrompt, loadMiniMind } from '../js/minimind.mjs';

export const TRACE_STAGES = ['scores_raw', 'scores_scaled', 'scores_masked', 'attn_weights'];

let runtime = null;
let model = null;
let tokenizer = null; // from a loaded tokenizer.json, else tokens come from the page
let generator = null;
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
  const report = progressReporter(message.id);
  generator?.dispose();
  generator = null;
  if (message.spec.files) return handleLoadFiles(mm, message, report);
  const { preset, seed, config } = message.spec;
  model?.dispose();
  model = null;
  tokenizer?.dispose();
  tokenizer = null;
  const onProgress = (fraction) => report(fraction, 'build');
  const spec = config ? { config: fullConfig(mm, preset, config), seed, onProgress } : { preset, seed, onProgress };
  model = mm.createModel(spec);
  self.postMessage({ type: 'loaded', id: message.id, info: model.info(), files: null });
}

// A few dozen reports are enough for a progress bar.
function progressReporter(id) {
  let last = -1;
  return (fraction, phase) => {
    if (fraction === 1 || fraction === 0 || fraction - last >= 0.02) {
      last = fraction;
      self.postMessage({ type: 'progress', id, fraction, phase });
    }
  };
}

// A MiniMind folder's files: the new model replaces the old only once it loaded.
function handleLoadFiles(mm, message, report) {
  const { config, weights, tokenizer: tokenizerJson, hints } = message.spec.files;
  report(0, 'parse');
  const bytes = new Uint8Array(weights);
  const inferred = config === undefined && bytes[0] === 0x50 ? mm.inferConfig(bytes, hints) : null;
  const nextTokenizer = tokenizerJson === undefined ? null : mm.loadTokenizer(tokenizerJson);
  let next;
  try {
    next = mm.loadModel({ config, weights: bytes, hints });
  } catch (error) {
    nextTokenizer?.dispose();
    throw error;
  }
  const info = next.info();
  if (nextTokenizer && nextTokenizer.vocabSize > info.vocab_size) {
    next.dispose();
    nextTokenizer.dispose();
    throw new Error(`tokenizer.json has ${nextTokenizer.vocabSize} ids but the model only ${info.vocab_size}: they do not belong together`);
  }
  model?.dispose();
  tokenizer?.dispose();
  model = next;
  tokenizer = nextTokenizer;
  report(1, 'parse');
  self.postMessage({
    type: 'loaded',
    id: message.id,
    info,
    files: { tokenizer: tokenizer !== null, assumed: inferred?.assumed ?? [], inferred: inferred !== null },
  });
}

// Ids and their labels (at most maxTokens): the tokenizer's when there is
// one, else the page's. `dropped` counts the tokens left out.
function tokensOf(message, chat = false) {
  const max = message.maxTokens ?? Infinity;
  let ids = message.ids;
  let labels = message.labels;
  if (!ids) {
    const text = chat ? chatPrompt(message.text) : message.text;
    ids = tokenizer.encode(text);
    labels = null;
  }
  const dropped = Math.max(0, ids.length - max);
  ids = ids.slice(0, max);
  if (tokenizer && ids.length) labels = tokenizer.display(ids).map((t) => t.text);
  return { ids, labels: labels ? labels.slice(0, ids.length) : ids.map((id) => `#${id}`), dropped };
}

function labelOf(id) {
  return tokenizer ? tokenizer.display([id])[0].text : `#${id}`;
}

function handleForward(message) {
  if (!model) throw new Error('no model is loaded');
  const started = performance.now();
  const { ids, labels, dropped } = tokensOf(message);
  if (ids.length === 0) {
    self.postMessage({ type: 'result', id: message.id, ids, labels, dropped, logitsShape: [1, 0, 0], entries: [], computeMs: 0 });
    return;
  }
  const { logits, trace } = model.forward(ids, {
    trace: { layers: 'all', stages: TRACE_STAGES },
    causalMask: message.causal,
    scaleScores: message.scale,
  });
  const entries = trace.map(({ layer, stage, shape, data }) => ({ layer, stage, shape, data }));
  const computeMs = performance.now() - started;
  self.postMessage(
    { type: 'result', id: message.id, ids, labels, dropped, logitsShape: logits.shape, entries, computeMs },
    entries.map((e) => e.data.buffer),
  );
}

function handleDescribe(mm, message) {
  const config = fullConfig(mm, message.preset, message.config);
  const problems = mm.configProblems(config);
  self.postMessage({ type: 'described', id: message.id, info: problems.length ? null : mm.describeConfig(config), problems });
}

const GENERATION_TRACE = { layers: 'all', stages: TRACE_STAGES };

// The top next-token candidates of a distribution: [{id, label, p}].
function candidates(probabilities, k = 5) {
  const top = [];
  for (let id = 0; id < probabilities.length; id += 1) {
    const p = probabilities[id];
    if (top.length < k || p > top[top.length - 1].p) {
      top.push({ id, p });
      top.sort((a, b) => b.p - a.p);
      if (top.length > k) top.pop();
    }
  }
  return top.filter((c) => c.p > 0).map((c) => ({ ...c, label: labelOf(c.id) }));
}

function handleGenStart(message) {
  if (!model) throw new Error('no model is loaded');
  generator?.dispose();
  generator = null;
  const { ids, labels } = tokensOf(message, message.chat && tokenizer !== null);
  if (ids.length === 0) throw new Error('the prompt is empty');
  generator = model.generator(ids, message.sampling, { prefillTrace: GENERATION_TRACE });
  const entries = generator.prefillTrace.map(({ layer, stage, shape, data }) => ({ layer, stage, shape, data }));
  self.postMessage(
    {
      type: 'gen-state',
      id: message.id,
      ids,
      labels,
      entries,
      cache: generator.cache,
      candidates: candidates(generator.nextProbabilities()),
    },
    entries.map((e) => e.data.buffer),
  );
}

function handleGenStep(message) {
  if (!generator) throw new Error('generation has not started');
  const step = generator.step({ trace: GENERATION_TRACE });
  const entries = step.trace.map(({ layer, stage, shape, data }) => ({ layer, stage, shape, data }));
  self.postMessage(
    {
      type: 'gen-token',
      id: message.id,
      token: step.token,
      label: labelOf(step.token),
      isEos: step.isEos,
      finished: generator.finished,
      chosenP: step.probabilities[step.token],
      candidates: generator.finished ? [] : candidates(generator.nextProbabilities()),
      entries,
      cache: generator.cache,
      text: tokenizer ? tokenizer.decode(generator.ids, { skipSpecialTokens: false }) : null,
    },
    entries.map((e) => e.data.buffer),
  );
}

// Lesson 2.5 by hand on typed matrices (no model needed); masked entries are -Infinity.
function handleLesson(mm, message) {
  const { kind, q, k, v, scores, causal, scale } = message;
  const result = kind === 'scores' ? mm.lessonSoftmax(scores, { causal }) : mm.lessonAttention({ q, k, v, causal, scale });
  const matrices = {};
  for (const [name, m] of Object.entries(result)) if (m) matrices[name] = { shape: m.shape, data: m.data };
  self.postMessage({ type: 'lesson-result', id: message.id, ...matrices });
}

// Lesson 11's lab record, built by the core on the lab's own preset.
function handleLab(mm, message) {
  const text = mm.labRecord(message.preset, message.seed);
  self.postMessage({ type: 'lab-record', id: message.id, preset: message.preset, seed: message.seed, text });
}

// Only the newest request of each kind is worth doing; a load must come before
// the forward that follows it.
function takeLatest() {
  const latest = {};
  for (const message of queue) latest[message.type] = message;
  queue = [];
  return ['describe', 'load', 'forward', 'gen-start', 'gen-step', 'lesson', 'lab'].map((type) => latest[type]).filter(Boolean);
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
          else if (message.type === 'gen-start') handleGenStart(message);
          else if (message.type === 'gen-step') handleGenStep(message);
          else if (message.type === 'lesson') handleLesson(mm, message);
          else if (message.type === 'lab') handleLab(mm, message);
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
