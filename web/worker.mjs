// The page's compute worker: owns the model, so that building a large preset
// or running a long text never freezes the page. Requests superseded by newer
// ones (typing fast) are answered 'superseded', not run.
//
// main -> worker: {type: 'load', id, spec: {preset, seed, config}}   (preset 'minimind-demo': the trained model's files)
//                 {type: 'load', id, spec: {files: {config?, weights: ArrayBuffer, tokenizer?, hints, name?}}}
//                 {type: 'forward', id, ids | text, causal, scale, ablate}
//                 {type: 'predict', id, ids | text, row, ablate, causal, scale}
//                 {type: 'describe', id, preset, config}
//                 {type: 'gen-start', id, ids | text, chat, sampling}, {type: 'gen-step', id}
//                 {type: 'lesson', id, kind: 'qkv', q, k, v, causal, scale} | {type: 'lesson', id, kind: 'scores', scores, causal}
//                 {type: 'lab', id, preset, seed}
//                 {type: 'model-files', id}   the model in use as files, for the Train panel's "continue training"
//                 {type: 'lens' | 'attribute' | 'patch' | 'qk' | 'circuit', id, ...}   "ask the model why" (why_worker.mjs)
//                 {type: 'exercise', id, name, ids | text, screen, answer?, reveal?}   a tour exercise (js/exercises.mjs)
//                 {type: 'memory', port}   the module's memory, answered on `port` (a MessagePort), not queued
// worker -> main: {type: 'progress', id, fraction, phase}
//                 {type: 'loaded', id, info, files?, demo?} | {type: 'result', id, ...} | {type: 'described', id, info, problems}
//                 {type: 'prediction', id, ids, row, ablate, causal, scale, query, candidates, on?, masked?, future}
//                 {type: 'gen-state', id, ...} | {type: 'gen-token', id, ...}
//                 {type: 'lesson-result', id, raw, scaled, masked, weights, output?} | {type: 'lab-record', id, preset, seed, text}
//                 {type: 'model-files', id, config, weights: ArrayBuffer (F32 safetensors), tokenizer: text | null}
//                 {type: 'exercise-result', id, name, available, reason?, question?, solved?, hint?, answers?}
//                 {type: 'error', id, message, kind, values, problems?}   (errorFields of js/minimind.mjs)
//                 {type: 'superseded', id, request}   a newer request of the same type came first
// worker -> port: {wasmBytes, heapBytes} | {error}   (MiniMind.wasmMemoryBytes, heapBytesInUse)
// Every request gets exactly one answer besides its progress. A model that
// fails to load (files, a preset, the download) leaves the previous one in place.
// Text for a model with a tokenizer starts with MiniMind's bos, as a
// pretrained MiniMind reads it (js/text_encoding.mjs); the chat template has its own.
import { fitChatPrompt } from '../js/chat_fit.mjs';
import { argmax } from '../js/argmax.mjs';
import { checkCheckpointMemory } from '../js/checkpoint_memory.mjs';
import { runExercise } from '../js/exercises.mjs';
import { errorFields } from '../js/minimind.mjs';
import { buildModelPair, replaceModel } from '../js/model_pair.mjs';
import { softmax } from '../js/softmax.mjs';
import { encodeText } from '../js/text_encoding.mjs';
import { byteForm, greedyCompletion, predictedLabel, splitText, tokenLabels } from '../js/token_text.mjs';
import { topK } from '../js/top_k.mjs';
import { loadRuntime, runtimeSummary, runtimeOptions } from './wasm_runtime.mjs';
import { DEMO, lessonPositions } from './demo_model.mjs';
import { demoFiles } from './demo_source.mjs';
import { handleAttribute, handleCircuit, handleLens, handlePatch, handleQK } from './why_worker.mjs';

const TRACE_STAGES = ['scores_raw', 'scores_scaled', 'scores_masked', 'attn_weights'];

let runtime = null;
let model = null;
let tokenizer = null; // from a loaded tokenizer.json, else tokens come from the page
let tokenizerJson = null; // that tokenizer.json's text
let generator = null;
let promptLength = 0; // the generator's prompt tokens
let queue = [];
let draining = false;

function runtimeReady() {
  runtime ??= loadRuntime(runtimeOptions(import.meta.url));
  return runtime;
}

function fullConfig(mm, preset, overrides) {
  return { ...mm.presetConfig(preset), ...(overrides ?? {}) };
}

// Every load builds the new model beside the one in use (js/model_pair.mjs)
// and swaps only once it exists: a failed build, file or download leaves the
// model in use as it was.
async function handleLoad(mm, message) {
  const report = progressReporter(message.id);
  generator?.dispose(); // the page ends its generation with any load
  generator = null;
  const { files, preset } = message.spec;
  const build = files ? buildFromFiles : preset === DEMO ? buildDemo : buildPreset;
  const { next, reply } = await build(mm, message.spec, report);
  ({ model, tokenizer, tokenizerText: tokenizerJson } = replaceModel({ model, tokenizer }, next));
  self.postMessage({ type: 'loaded', id: message.id, info: next.info, files: null, ...reply, runtime: runtimeSummary(mm) });
}

function buildPreset(mm, { preset, seed, config }, report) {
  const onProgress = (fraction) => report(fraction, 'build');
  const spec = config ? { config: fullConfig(mm, preset, config), seed, onProgress } : { preset, seed, onProgress };
  return { next: buildModelPair(mm, { build: () => mm.createModel(spec) }), reply: {} };
}

// The project's trained model: its files (downloaded once), its tokenizer,
// and what heads.json measured, with the lesson sentence's token positions.
async function buildDemo(mm, spec, report) {
  const files = await demoFiles((fraction) => report(fraction, 'download'));
  const next = buildModelPair(mm, {
    build: () => mm.loadModel({ config: files.config, weights: files.weights }),
    tokenizer: files.tokenizer,
  });
  report(1, 'download');
  return { next, reply: { demo: { heads: files.heads, sentence: lessonPositions(next.tokenizer, files.heads.lesson?.[0]) } } };
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

// A MiniMind folder's files. Files that cannot fit the module's memory
// beside the model in use are refused before they are read into it.
function buildFromFiles(mm, { files }, report) {
  const { config, weights, tokenizer: tokenizerFile, hints, name = 'model' } = files;
  report(0, 'parse');
  const bytes = new Uint8Array(weights);
  checkCheckpointMemory(mm, { name, bytes, config });
  const next = buildModelPair(mm, {
    build: () => mm.loadModel({ config, weights: bytes, hints }),
    tokenizer: tokenizerFile ?? null,
  });
  report(1, 'parse');
  const { info } = next;
  // A .pth loaded without config.json says what was inferred (the file is read into Wasm once).
  const reply = { tokenizer: next.tokenizer !== null, assumed: info.inferred?.assumed ?? [], inferred: info.inferred !== undefined };
  return { next, reply: { files: reply } };
}

// Ids and their labels (at most maxTokens): the tokenizer's when there is
// one (the bos first, or the chat template), else the page's. A byte token
// is labelled by the character its bytes complete in the text (`raw` keeps
// the tokenizer's <0x..> text, for tooltips and exports: js/token_text.mjs).
// `dropped` counts the tokens left out; `special` marks special tokens (the bos).
// A chat prompt too long is cut in the user's text, its template kept whole
// (js/chat_fit.mjs): it still ends with the assistant's tag.
function tokensOf(message, chat = false) {
  const max = message.maxTokens ?? Infinity;
  let ids = message.ids;
  let labels = message.labels;
  if (!ids) {
    if (chat) ids = fitChatPrompt((text) => tokenizer.encode(text), message.text, max).ids;
    else ids = encodeText(tokenizer, message.text);
    labels = null;
  }
  const dropped = Math.max(0, ids.length - max);
  ids = ids.slice(0, max);
  let special = null;
  let raw = null;
  if (tokenizer && ids.length) {
    const shown = tokenizer.display(ids);
    labels = tokenLabels(shown).map((l) => l.label);
    raw = shown.map((t) => t.text);
    special = shown.map((t) => t.special);
  }
  labels = labels ? labels.slice(0, ids.length) : ids.map((id) => `#${id}`);
  return { ids, labels, raw: raw ?? labels, dropped, special };
}

// The labels of a sequence's tokens, each as the text shows it (tokenLabels).
function sequenceLabels(ids) {
  return tokenizer ? tokenLabels(tokenizer.display(ids)) : ids.map((id) => ({ label: `#${id}`, raw: `#${id}`, kind: 'text' }));
}

// The forward's options for what is switched off.
function ablation(message) {
  return message.ablate?.length ? { ablate: message.ablate } : {};
}

function labelOf(id) {
  return tokenizer ? tokenizer.display([id])[0].text : `#${id}`;
}

// A predicted token's {label, raw, kind}: a byte token by the character the
// model's greedy next tokens complete after ids[0..row] (唱…), when `options`
// (the forward's switches) are given, else by its bytes (E5 94).
function predictedName(ids, row, id, options = null) {
  if (!tokenizer) return { label: `#${id}`, raw: `#${id}`, kind: 'text' };
  const whole = options ? completion(ids, row, id, options) : null;
  return predictedLabel(tokenizer.display([id])[0], whole);
}

function handleForward(message) {
  if (!model) throw new Error('no model is loaded');
  const started = performance.now();
  const { ids, labels, raw, dropped, special } = tokensOf(message);
  if (ids.length === 0) {
    self.postMessage({
      type: 'result',
      id: message.id,
      ids,
      labels,
      raw,
      dropped,
      special,
      logitsShape: [1, 0, 0],
      entries: [],
      computeMs: 0,
    });
    return;
  }
  const { logits, trace } = model.forward(ids, {
    trace: { layers: 'all', stages: TRACE_STAGES },
    causalMask: message.causal,
    scaleScores: message.scale,
    ...ablation(message),
  });
  const entries = trace.map(({ layer, stage, shape, data }) => ({ layer, stage, shape, data }));
  const computeMs = performance.now() - started;
  self.postMessage(
    { type: 'result', id: message.id, ids, labels, raw, dropped, special, logitsShape: logits.shape, entries, computeMs },
    entries.map((e) => e.data.buffer),
  );
}

// The probabilities of the token after position `row` of a forward over
// `ids`: the softmax of its logits, as MiniMind's generate at temperature 1
// (the generator, which computes it in the core, has no head ablation).
// Under the causal mask only ids[0..row] matter; without it, all of them.
function nextProbabilities(ids, row, options) {
  const { logits } = model.forward(ids, options);
  const V = logits.shape[2];
  return softmax(logits.data.subarray(row * V, (row + 1) * V));
}

// A candidate that is part of a character's bytes (<0xE5><0x94>) is read
// on greedily until the character is whole: the text of that character.
function completion(ids, row, id, options) {
  const next = (sequence) => argmax(nextProbabilities(sequence, sequence.length - 1, options));
  return greedyCompletion(tokenizer, ids.slice(0, row + 1), id, next);
}

// The next-token prediction after position `row`, computed with the switches
// as set: the heads switched off (and, when some are, the same candidates'
// probabilities with every head on) and √d. With the causal mask off the
// whole text runs at once, so row `row` reads the tokens after it too: what a
// model that sees the future predicts, sent with the masked prediction
// (`masked`) beside it. A byte candidate's character is read on under the mask.
function handlePredict(message) {
  if (!model) throw new Error('no model is loaded');
  const { ids, labels } = tokensOf(message);
  const row = Math.min(message.row, ids.length - 1);
  const causal = message.causal !== false;
  const scale = message.scale !== false;
  const asked = { ids, row, ablate: message.ablate ?? [], causal, scale }; // what this answers
  if (row < 0) return self.postMessage({ type: 'prediction', id: message.id, ...asked, query: null, candidates: [] });
  const masked = { ...ablation(message), causalMask: true, scaleScores: scale };
  const switches = { ...masked, causalMask: causal };
  const seen = causal ? ids.slice(0, row + 1) : ids;
  const listed = (p, on) => candidates(p, 5, ids, row, masked).map((c) => ({ ...c, pOn: on ? on[c.id] : null }));
  const everyHead = ({ ablate, ...rest }) => rest;
  const on = switches.ablate ? nextProbabilities(seen, row, everyHead(switches)) : null;
  const best = on && argmax(on);
  self.postMessage({
    type: 'prediction',
    id: message.id,
    ...asked,
    query: labels[row],
    candidates: listed(nextProbabilities(seen, row, switches), on),
    on: on ? { id: best, ...predictedName(ids, row, best, everyHead(masked)), p: on[best] } : null,
    masked: causal ? null : listed(nextProbabilities(ids.slice(0, row + 1), row, masked), null),
    future: ids.length - 1 - row, // tokens after the row, which it reads with the mask off
  });
}

// The config's shapes, or its problems, each with its kind and values ({kind, values,
// message}) so the page words them in its language.
function handleDescribe(mm, message) {
  const config = fullConfig(mm, message.preset, message.config);
  let info = null;
  let problems = [];
  try {
    info = mm.describeConfig(config);
  } catch (error) {
    problems = error.problems ?? [errorFields(error)];
  }
  self.postMessage({ type: 'described', id: message.id, info, problems });
}

const GENERATION_TRACE = { layers: 'all', stages: TRACE_STAGES };

// The top next-token candidates of a distribution after ids[0..row]:
// [{id, p, label, raw, kind}]; with `options` (the forward's switches) a byte
// token is named by its greedy completion, else by its bytes.
function candidates(probabilities, k = 5, ids = [], row = -1, options = null) {
  return topK(probabilities, k)
    .filter((c) => c.value > 0)
    .map(({ id, value: p }) => ({ id, p, ...predictedName(ids, row, id, options) }));
}

// The text so far, {prompt, generated}, as the tokenizer decodes it, the
// bytes of a character not yet complete in the short byte form (E5 94); null without a tokenizer.
function decodedText(ids, promptTokens) {
  if (!tokenizer) return null;
  const { prompt, generated } = splitText(tokenizer.display(ids), promptTokens);
  return { prompt: byteForm(prompt), generated: byteForm(generated) };
}

function handleGenStart(message) {
  if (!model) throw new Error('no model is loaded');
  generator?.dispose();
  generator = null;
  const { ids, labels, raw } = tokensOf(message, message.chat && tokenizer !== null);
  if (ids.length === 0) throw new Error('the prompt is empty');
  generator = model.generator(ids, message.sampling, { prefillTrace: GENERATION_TRACE });
  promptLength = ids.length;
  const entries = generator.prefillTrace.map(({ layer, stage, shape, data }) => ({ layer, stage, shape, data }));
  self.postMessage(
    {
      type: 'gen-state',
      id: message.id,
      ids,
      labels,
      raw,
      entries,
      cache: generator.cache,
      candidates: candidates(generator.nextProbabilities()),
      text: decodedText(ids, promptLength),
    },
    entries.map((e) => e.data.buffer),
  );
}

// A step's token and its attention rows. The end-of-sequence token, or a
// token chosen at the position limit, ends generation unfed: it has no rows
// (`entries` empty) and `end` says why ('eos' | 'positions'). `labels` and
// `raw` are every token's so far: a byte token that completes a character
// relabels the tokens before it that hold its first bytes.
function handleGenStep(message) {
  if (!generator) throw new Error('generation has not started');
  const step = generator.step({ trace: GENERATION_TRACE });
  const entries = step.trace.map(({ layer, stage, shape, data }) => ({ layer, stage, shape, data }));
  const end = step.isEos ? 'eos' : generator.finished ? 'positions' : null;
  const ids = generator.ids;
  const named = sequenceLabels(ids);
  self.postMessage(
    {
      type: 'gen-token',
      id: message.id,
      token: step.token,
      label: named.at(-1).label,
      kind: named.at(-1).kind,
      labels: named.map((l) => l.label),
      raw: named.map((l) => l.raw),
      isEos: step.isEos,
      end,
      chosenP: step.probabilities[step.token],
      candidates: end ? [] : candidates(generator.nextProbabilities()),
      entries,
      cache: generator.cache,
      text: decodedText(step.isEos ? ids.slice(0, -1) : ids, promptLength), // the end line names the eos
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

// The model in use as MiniMind's files (config.json, F32 model.safetensors,
// its tokenizer.json if it has one): the Train panel continues training it.
function handleModelFiles(message) {
  if (!model) throw new Error('no model is loaded');
  const weights = model.safetensors({ dtype: 'F32' }).slice().buffer;
  self.postMessage({ type: 'model-files', id: message.id, config: model.configJson(), weights, tokenizer: tokenizerJson }, [weights]);
}

// A tour exercise on what the page shows (screen: layer, head, stage, switches,
// row, cell, the Train panel's settings), its tokens read as the matrix reads them.
function handleExercise(message) {
  if (!model) throw new Error('no model is loaded');
  const { ids, labels } = tokensOf(message);
  const screen = { ...message.screen, text: message.text ?? null, ids, labels, tokenizer };
  const result = runExercise(model, screen, { name: message.name, answer: message.answer, reveal: message.reveal === true });
  self.postMessage({ type: 'exercise-result', id: message.id, ...result });
}

// "Ask the model why": the model and tokenizer of now, and how this worker reads tokens.
const WHY_REQUESTS_HANDLED = { lens: handleLens, attribute: handleAttribute, patch: handlePatch, qk: handleQK, circuit: handleCircuit };
const WHY_REQUESTS = Object.keys(WHY_REQUESTS_HANDLED);
const whyContext = () => ({ model, tokenizer, tokensOf, labelOf, predictedName, sequenceLabels });

// Only the newest request of each kind is worth doing; a load must come before
// the forward that follows it. Each older one is answered 'superseded', so
// that nothing waits for an answer that never comes.
function takeLatest() {
  const latest = {};
  for (const message of queue) {
    const older = latest[message.type];
    if (older) self.postMessage({ type: 'superseded', id: older.id, request: older.type });
    latest[message.type] = message;
  }
  queue = [];
  return ['describe', 'load', 'forward', 'predict', 'gen-start', 'gen-step', 'lesson', 'lab', 'model-files', 'exercise', ...WHY_REQUESTS]
    .map((type) => latest[type])
    .filter(Boolean);
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
          else if (message.type === 'predict') handlePredict(message);
          else if (message.type === 'describe') handleDescribe(mm, message);
          else if (message.type === 'gen-start') handleGenStart(message);
          else if (message.type === 'gen-step') handleGenStep(message);
          else if (message.type === 'lesson') handleLesson(mm, message);
          else if (message.type === 'lab') handleLab(mm, message);
          else if (message.type === 'model-files') handleModelFiles(message);
          else if (message.type === 'exercise') handleExercise(message);
          else if (Object.hasOwn(WHY_REQUESTS_HANDLED, message.type)) WHY_REQUESTS_HANDLED[message.type](whyContext(), message);
        } catch (error) {
          self.postMessage({ type: 'error', id: message.id, request: message.type, ...errorFields(error) });
        }
      }
    }
  } catch (error) {
    // The module itself failed to load: every request fails with that message.
    for (const message of queue.splice(0))
      self.postMessage({ type: 'error', id: message.id, request: message.type, ...errorFields(error) });
    runtime = null;
  } finally {
    draining = false;
  }
}

// The Wasm memory and the allocator's bytes in use, for the soak benchmark
// (bench/memory/soak.mjs): answered beside the queue, on the port the request brings,
// so that the page's client never sees it.
async function answerMemory({ port }) {
  try {
    const mm = await runtimeReady();
    port.postMessage({ wasmBytes: mm.wasmMemoryBytes(), heapBytes: mm.heapBytesInUse() });
  } catch (error) {
    port.postMessage({ error: String(error?.message ?? error) });
  }
}

self.onmessage = (event) => {
  if (event.data.type === 'memory') return answerMemory(event.data);
  queue.push(event.data);
  setTimeout(drain, 0); // let more messages arrive first, so stale ones are dropped
};
