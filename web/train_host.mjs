// The training run behind the Train panel and <minimind-attention train>:
// the protocol of train_worker.mjs, on whatever carries its messages (the
// worker's own thread, or the page's for the single-file element).
//
// As the Train panel's worker: trains a MiniMind while the compute worker
// (worker.mjs) keeps answering the playground and the page keeps drawing.
// It owns its own Wasm module instance, the model being trained, MiniMind's
// tokenizer and the run (js/train_session.mjs). Batches run a slice at a time
// (about SLICE_MS, at least one batch), one slice per macrotask, so that a
// pause or stop is handled at the latest after the batch in progress.
//
// main -> worker: {type: 'prepare', id, model: {kind: 'new', config, seed} | {kind: 'files', config, weights: ArrayBuffer, tokenizer?},
//                  data: {source: 'corpus', lines, seed} | {source: 'lessons'} | {source: 'text' | 'file', text, name?},
//                  pack, options: {batchSize, maxSeqLen, learningRate, accumulationSteps, gradClip, epochs, seed},
//                  probe, snapshotEvery, start, maxSteps?}   (maxSteps: stop after that many batches)
//                 {type: 'resume'} | {type: 'pause'} | {type: 'stop'} | {type: 'reset'}
//                 {type: 'probe', text}                 a new probe sentence (a snapshot of it now)
//                 {type: 'export', id, dtype}           the model as trained so far
// worker -> main: {type: 'state', state: 'preparing' | 'running' | 'paused' | 'done' | 'idle', step}
//                 {type: 'progress', id, phase: 'load' | 'data' | 'tokenize', done, total}
//                 {type: 'ready', id, info, trainer, data: {texts, samples, tokens, padding}, tokenizer: boolean}
//                 {type: 'steps', steps: [...], trainer: {batchesDone, totalBatches, memory, trainMs, positions}}
//                 {type: 'snapshot', snapshot}
//                 {type: 'exported', id, config, weights: ArrayBuffer, tokenizer, dtype, step}
//                 {type: 'error', id?, request, message}
import { makeCorpusLines } from '../js/corpus.mjs';
import { buildModelPair, replaceModel } from '../js/model_pair.mjs';
import { textsOf, tokenizeTexts, trainingSamples, sampleStats } from '../js/train_data.mjs';
import { TrainSession } from '../js/train_session.mjs';

const SLICE_MS = 40;

/**
 * A training host: the worker's side of the protocol above. post(message,
 * transfer) sends an answer; loadRuntime() gives the MiniMind module;
 * fetchText(path) a file next to the host's script (path './models/...').
 * Returns {handle(message)}.
 */
export function createTrainHost({ post, loadRuntime, fetchText, sliceMs = SLICE_MS }) {
  let runtime = null;
  let tokenizerJson = null; // MiniMind's tokenizer.json text, fetched once
  let model = null;
  let tokenizer = null;
  let tokenizerText = null; // the tokenizer of the run, as text (for export)
  let session = null;
  let state = 'idle';
  let preparing = 0; // id of the newest prepare; an older one stops where it is
  let scheduled = false;
  let startWanted = null; // pause or resume pressed while preparing: how the run starts

  function runtimeReady() {
    runtime ??= Promise.resolve()
      .then(loadRuntime)
      .catch((error) => {
        runtime = null;
        throw error;
      });
    return runtime;
  }

  // MiniMind's tokenizer: the trained model's folder holds it (models/minimind-tokenizer/tokenizer.json, unchanged).
  async function minimindTokenizer() {
    tokenizerJson ??= await fetchText('./models/minimind-demo/tokenizer.json');
    return tokenizerJson;
  }

  function setState(next) {
    state = next;
    post({ type: 'state', state, step: session ? session.info().batchesDone : 0 });
  }

  function dropRun() {
    session?.dispose();
    session = null;
    model?.dispose();
    model = null;
    tokenizer?.dispose();
    tokenizer = null;
    tokenizerText = null;
  }

  async function texts(data) {
    if (data.source === 'corpus') return makeCorpusLines(data.lines, data.seed ?? 1);
    if (data.source === 'lessons') return textsOf(await fetchText('./examples/pretrain_tiny.jsonl'), 'pretrain_tiny.jsonl');
    return textsOf(data.text ?? '', data.name ?? '');
  }

  // The run's model is built beside the run in use (js/model_pair.mjs): a model
  // that fails to load leaves that run as it was (paused), with the error.
  async function prepare(message) {
    const id = (preparing = message.id);
    startWanted = null;
    const current = () => preparing === id;
    const kept = session ? (state === 'done' ? 'done' : 'paused') : 'idle'; // the state of the run kept if this fails
    setState('preparing');
    const progress = (phase, done, total) => post({ type: 'progress', id, phase, done, total });
    progress('load', 0, 1);
    let next;
    try {
      const mm = await runtimeReady();
      const spec = message.model;
      const tokenizerSource = spec.kind === 'files' && spec.tokenizer ? spec.tokenizer : await minimindTokenizer();
      if (!current()) return;
      next = buildModelPair(mm, {
        build: () =>
          spec.kind === 'files'
            ? mm.loadModel({ config: spec.config, weights: new Uint8Array(spec.weights) })
            : mm.createModel({ config: spec.config, seed: spec.seed, init: 'minimind' }),
        tokenizer: tokenizerSource,
        accept: (info) => {
          if (info.use_moe) throw new Error('MoE models cannot be trained here (the core trains dense MiniMinds only)');
        },
      });
    } catch (error) {
      if (!current()) return;
      preparing = 0;
      setState(kept);
      post({ type: 'error', id, request: 'prepare', message: String(error?.message ?? error) });
      return;
    }
    session?.dispose();
    session = null;
    ({ model, tokenizer, tokenizerText } = replaceModel({ model, tokenizer }, next));
    const { info } = next;
    progress('load', 1, 1);

    progress('data', 0, 1);
    const lines = await texts(message.data);
    if (!current()) return;
    if (lines.length === 0) throw new Error('no text to train on');
    const ids = await tokenizeTexts(lines, (text) => tokenizer.encode(text), {
      onProgress: (done, total) => current() && progress('tokenize', done, total),
      signal: {
        get aborted() {
          return !current();
        },
      },
    });
    if (!current()) return;
    const { maxSeqLen } = message.options;
    const samples = trainingSamples(ids, {
      maxSeqLen,
      bos: info.bos_token_id ?? 1,
      eos: info.eos_token_id ?? 2,
      pack: message.pack !== false,
    });
    session = new TrainSession({
      model,
      tokenizer,
      samples,
      options: withEpochs(message.options, samples.length, message.maxSteps),
      probe: message.probe,
      snapshotEvery: message.snapshotEvery,
      maxSteps: message.maxSteps ?? null,
    });
    post({
      type: 'ready',
      id,
      info,
      trainer: session.info(),
      data: { texts: lines.length, ...sampleStats(samples, maxSeqLen) },
    });
    postSnapshot(session.snapshot());
    const start = startWanted ?? Boolean(message.start);
    startWanted = null;
    setState(start ? 'running' : 'paused');
    if (start) schedule();
  }

  // Epochs not given (null): as many as maxSteps batches take (or one).
  function withEpochs(options, samples, maxSteps) {
    if (options.epochs !== null && options.epochs !== undefined) return options;
    const perEpoch = Math.ceil(samples / options.batchSize);
    return { ...options, epochs: Math.max(1, Math.ceil((maxSteps ?? perEpoch) / perEpoch)) };
  }

  function postSnapshot(snapshot) {
    post({ type: 'snapshot', snapshot }, [snapshot.attention.buffer]);
  }

  function trainerInfo() {
    const { batchesDone, totalBatches, memory, trainMs, positions, optimizerSteps } = session.info();
    return { batchesDone, totalBatches, memory, trainMs, positions, optimizerSteps };
  }

  // One slice of batches per macrotask: messages (pause, stop) are handled between.
  function schedule() {
    if (scheduled) return;
    scheduled = true;
    const channel = new MessageChannel();
    channel.port1.onmessage = () => {
      channel.port1.close();
      scheduled = false;
      slice();
    };
    channel.port2.postMessage(null);
  }

  function slice() {
    if (state !== 'running' || !session) return;
    try {
      const { steps, snapshot, done } = session.runSlice(sliceMs);
      post({ type: 'steps', steps, trainer: trainerInfo() });
      if (snapshot) postSnapshot(snapshot);
      if (done) return setState('done');
    } catch (error) {
      setState('paused');
      post({ type: 'error', request: 'train', message: String(error?.message ?? error) });
      return;
    }
    schedule();
  }

  function sendFiles(message) {
    if (!model) throw new Error('there is no trained model yet');
    const dtype = message.dtype === 'F16' ? 'F16' : 'F32';
    const weights = model.safetensors({ dtype });
    const copy = weights.slice().buffer; // the module's view must not be transferred
    post(
      {
        type: 'exported',
        id: message.id,
        config: model.configJson(),
        weights: copy,
        tokenizer: tokenizerText,
        dtype,
        step: session?.info().batchesDone ?? 0,
      },
      [copy],
    );
  }

  async function handle(message) {
    try {
      if (message.type === 'prepare') await prepare(message);
      else if (message.type === 'resume') {
        if (session && (state === 'paused' || state === 'running')) {
          setState('running');
          schedule();
        } else if (state === 'preparing') startWanted = true;
      } else if (message.type === 'pause') {
        if (state === 'running') setState('paused');
        else if (state === 'preparing') startWanted = false;
      } else if (message.type === 'stop') {
        if (session && state !== 'done') setState('done');
      } else if (message.type === 'reset') {
        preparing = 0;
        dropRun();
        setState('idle');
      } else if (message.type === 'probe') {
        if (session) {
          session.setProbe(message.text);
          postSnapshot(session.snapshot());
        }
      } else if (message.type === 'export') sendFiles(message);
    } catch (error) {
      if (error?.name === 'AbortError') return; // a newer prepare or a reset took over
      if (message.type === 'prepare' && preparing === message.id) {
        dropRun();
        setState('idle');
      }
      post({ type: 'error', id: message.id, request: message.type, message: String(error?.message ?? error) });
    }
  }

  return { handle };
}
