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
//                  data: {source: 'stream', seed, mix, batches}   (fresh generated lines, js/corpus_stream.mjs:
//                                                                  batches × batchSize samples, in stream order)
//                        | {source: 'corpus', lines, seed} | {source: 'lessons'} | {source: 'text' | 'file', text, name?}
//                        | {source: 'file', fileId, name}   (a file read by data-file),
//                  pack, options: {batchSize, maxSeqLen, learningRate, accumulationSteps, gradClip, epochs, seed, order?}
//                        (a stream's epochs: 1 when null or left out; its order: 'file' when left out),
//                  probe, prompts?, snapshotEvery, start, maxSteps?}   (maxSteps: stop after that many batches;
//                  prompts: texts written on at each snapshot, js/train_session.mjs)
//                 {type: 'resume'} | {type: 'pause'} | {type: 'stop'} | {type: 'reset'}
//                 {type: 'probe', text}                 a new probe sentence (a snapshot of it now)
//                 {type: 'prompts', prompts}            new prompts to write on (a snapshot now)
//                 {type: 'export', id, dtype}           the model as trained so far
//                 {type: 'memory', port}                the module's memory, answered on `port` (a MessagePort)
//                 {type: 'capture', id}                 the run as data (js/train_run_state.mjs), to save it
//                 {type: 'data-file', id, file, name?}  a training text file (a File) read and tokenized ahead of a run
//                 {type: 'data-cancel'}                 stops the data-file read in progress (the file read before stays)
//   prepare may carry resume: a run state (model and data are then the run's own), or model
//   {kind: 'checkpoint', weights: ArrayBuffer, name, hints?}: MiniMind's *_resume.pth, its weights,
//   AdamW's state and position continued on the request's data (js/resume_pth.mjs)
// worker -> main: {type: 'state', state: 'preparing' | 'running' | 'paused' | 'done' | 'idle', step}
//                 {type: 'progress', id, phase: 'load' | 'data' | 'tokenize', done, total}   (a stream's: samples made)
//                 {type: 'ready', id, info, trainer, data: {texts, samples, tokens, padding}, tokenizer: boolean}
//                 {type: 'steps', steps: [...], trainer: {batchesDone, totalBatches, memory, trainMs, positions}}
//                 {type: 'snapshot', snapshot}
//                 {type: 'exported', id, config, weights: ArrayBuffer, tokenizer, dtype, step}
//                 {type: 'captured', id, run}           run: the worker's part of a run state (buffers transferred)
//                 {type: 'data-progress', id, done, total}   bytes of the data file read
//                 {type: 'data-ready', id, name, format, bytes, texts, tokens} | {type: 'data-cancelled', id}
//                 {type: 'error', id, request: 'data-file', message, kind, values}   (errorFields: the file's problem)
//                 ready also carries resumed: {step, notes} for a resumed run or checkpoint, else null
//                 {type: 'error', id?, request, message, kind, values, problems?}   (errorFields)
// worker -> port: {wasmBytes, heapBytes} | {error}      (MiniMind.wasmMemoryBytes, heapBytesInUse)
import { makeCorpusLines } from '../js/corpus.mjs';
import { MiniMindError, errorFields } from '../js/minimind_error.mjs';
import { buildModelPair, replaceModel } from '../js/model_pair.mjs';
import { trainerStateFromCheckpoint } from '../js/resume_pth.mjs';
import { sampleStats, streamSamples, textsOf, tokenizeTexts, trainingSamples } from '../js/train_data.mjs';
import { captureRun, checkRun, loadRunModel, resumeSession } from '../js/train_run_state.mjs';
import { tokenizeTextFile } from '../js/text_file_stream.mjs';
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
  let saved = null; // what a capture adds to the session: {settings, samples, stats, tokenizer}
  let state = 'idle';
  let preparing = 0; // id of the newest prepare; an older one stops where it is
  let scheduled = false;
  let startWanted = null; // pause or resume pressed while preparing: how the run starts
  let dataFile = null; // the newest data file read whole: {id, name, file, format, ids (TokenIds), tokenizerText}
  let dataRead = null; // the data-file read in progress: {id, cancelled}
  let dataTokenizer = null; // MiniMind's tokenizer, for data files read before a run has one

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
    saved = null;
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

  // A training text file read and tokenized ahead of a run, in chunks, with
  // MiniMind's tokenizer (js/text_file_stream.mjs); a newer file or a cancel
  // stops it between chunks, and the file read before stays the one kept.
  async function readDataFile(message) {
    if (dataRead) dataRead.cancelled = true;
    const read = (dataRead = { id: message.id, cancelled: false });
    try {
      const mm = await runtimeReady();
      const json = await minimindTokenizer();
      dataTokenizer ??= mm.loadTokenizer(json);
      const result = await tokenizeTextFile(message.file, {
        name: message.name ?? message.file.name,
        encode: (text) => dataTokenizer.encode(text),
        onProgress: (done, total) => !read.cancelled && post({ type: 'data-progress', id: read.id, done, total }),
        signal: {
          get aborted() {
            return read.cancelled;
          },
        },
      });
      dataFile = { id: read.id, file: message.file, tokenizerText: json, ...result };
      const { name, format, bytes, ids } = result;
      post({ type: 'data-ready', id: read.id, name, format, bytes, texts: ids.texts, tokens: ids.tokens });
    } catch (error) {
      if (error?.name === 'AbortError') post({ type: 'data-cancelled', id: read.id });
      else post({ type: 'error', id: read.id, request: 'data-file', ...errorFields(error) });
    } finally {
      if (dataRead === read) dataRead = null;
    }
  }

  // The texts of a file read by data-file, as the run's tokenizer makes them:
  // the ids read then when it is the tokenizer they were read with, else the
  // file read again (progress in bytes). Returns a TokenIds.
  async function dataFileIds(fileId, onProgress, signal) {
    if (dataFile?.id !== fileId) throw new Error('the data file is no longer held by the training worker: choose it again');
    if (tokenizerText === dataFile.tokenizerText) return dataFile.ids;
    const encode = (text) => tokenizer.encode(text);
    return (await tokenizeTextFile(dataFile.file, { name: dataFile.name, encode, onProgress, signal })).ids;
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
    let checkpoint = null; // a resume .pth's trainingState()
    const run = message.resume ?? null;
    try {
      if (run) checkRun(run);
      const mm = await runtimeReady();
      const spec = run ? run.settings.model : message.model;
      const ownTokenizer = run ? run.tokenizer : spec.kind === 'files' && spec.tokenizer ? spec.tokenizer : null;
      const tokenizerSource = ownTokenizer ?? (await minimindTokenizer());
      if (!current()) return;
      const build = () => {
        if (run) return loadRunModel(mm, run);
        if (spec.kind === 'checkpoint') {
          const bytes = new Uint8Array(spec.weights);
          checkpoint = mm.trainingState(bytes, { name: spec.name });
          return mm.loadModel({ weights: bytes, name: spec.name, hints: spec.hints });
        }
        if (spec.kind === 'files') return mm.loadModel({ config: spec.config, weights: new Uint8Array(spec.weights) });
        return mm.createModel({ config: spec.config, seed: spec.seed, init: 'minimind' });
      };
      next = buildModelPair(mm, {
        build,
        tokenizer: tokenizerSource,
        accept: (info) => {
          if (info.use_moe)
            throw new MiniMindError('MoE models cannot be trained here (the core trains dense MiniMinds only)', {
              kind: 'train.moe_aux_loss_unsupported', // the core's refusal, said before building the trainer
              values: { num_experts: info.num_experts },
            });
        },
      });
    } catch (error) {
      if (!current()) return;
      preparing = 0;
      setState(kept);
      post({ type: 'error', id, request: 'prepare', ...errorFields(error) });
      return;
    }
    session?.dispose();
    session = null;
    ({ model, tokenizer, tokenizerText } = replaceModel({ model, tokenizer }, next));
    const { info } = next;
    progress('load', 1, 1);
    if (run) return startResumed(id, run, info, message);

    progress('data', 0, 1);
    const onProgress = (done, total) => current() && progress('tokenize', done, total);
    const signal = {
      get aborted() {
        return !current();
      },
    };
    const made = await runSamples(message, info, onProgress, signal);
    if (!made) return;
    const { samples, texts: textCount } = made;
    const { maxSeqLen } = message.options;
    // A resume checkpoint's AdamW state and position, matched to this trainer's parameters.
    let resumed = null;
    const fromCheckpoint = (trainer) => {
      const { batchesPerEpoch, totalBatches } = trainer.info();
      const parameterNames = trainer.parameters().map((p) => p.name);
      const epochs = totalBatches / batchesPerEpoch;
      const { state: restored, notes } = trainerStateFromCheckpoint({ checkpoint, parameterNames, epochs, batchesPerEpoch });
      resumed = { step: restored.epoch * batchesPerEpoch + restored.batch, notes };
      return restored;
    };
    const options = withEpochs(runOptions(message), samples.length, message.maxSteps);
    session = new TrainSession({
      model,
      tokenizer,
      samples,
      options,
      probe: message.probe,
      prompts: message.prompts ?? null,
      snapshotEvery: message.snapshotEvery,
      maxSteps: message.maxSteps ?? null,
      resume: checkpoint ? { trainer: fromCheckpoint, session: null } : null,
    });
    const stats = { texts: textCount, ...sampleStats(samples, maxSeqLen) };
    const spec = message.model;
    saved = {
      // The model as asked for (no weights: the trained ones are saved), the data, the rest of the request.
      settings: {
        model: { kind: spec.kind, config: spec.config ?? null, seed: spec.seed ?? null },
        data: message.data,
        pack: message.pack !== false,
        probe: message.probe,
        prompts: message.prompts ?? null,
        snapshotEvery: message.snapshotEvery,
        maxSteps: message.maxSteps ?? null,
      },
      samples,
      stats,
      tokenizer: spec.kind === 'files' && spec.tokenizer ? tokenizerText : null,
      stream: null,
    };
    post({ type: 'ready', id, info, trainer: session.info(), data: stats, resumed });
    begin(message.start);
  }

  // The trainer's samples of a prepare's data, with the run's tokenizer:
  // {samples, texts: how many texts (or stream lines) they hold}, or null when
  // a newer prepare took over. A stream is made a chunk at a time, the rest
  // tokenized text by text (progress 'tokenize' either way).
  async function runSamples(message, info, onProgress, signal) {
    const { data } = message;
    const encode = (text) => tokenizer.encode(text);
    const ids = {
      maxSeqLen: message.options.maxSeqLen,
      bos: info.bos_token_id ?? 1,
      eos: info.eos_token_id ?? 2,
      pack: message.pack !== false,
    };
    if (data.source === 'stream') {
      const { samples, lines } = await streamSamples(data, { ...ids, batchSize: message.options.batchSize, encode, onProgress, signal });
      return signal.aborted ? null : { samples, texts: lines };
    }
    const fileId = data.source === 'file' ? data.fileId : undefined; // a file read by data-file
    const lines = fileId === undefined ? await texts(data) : [];
    if (signal.aborted) return null;
    if (fileId === undefined && lines.length === 0) throw new Error('no text to train on');
    const fromFile = fileId === undefined ? null : await dataFileIds(fileId, onProgress, signal);
    const lists = fromFile ? fromFile.lists() : await tokenizeTexts(lines, encode, { onProgress, signal });
    if (signal.aborted) return null;
    return { samples: trainingSamples(lists, ids), texts: fromFile ? fromFile.texts : lines.length };
  }

  // A saved run goes on where it stopped: its own samples, options and
  // trainer state; nothing is read or tokenized again.
  function startResumed(id, run, info, message) {
    const resumed = resumeSession({ model, tokenizer, run });
    session = resumed.session;
    session.setPrompts(run.settings.prompts ?? null);
    saved = { settings: run.settings, samples: run.data, stats: run.data.stats, tokenizer: run.tokenizer, stream: resumed.stream };
    const trainer = session.info();
    post({ type: 'ready', id, info, trainer, data: run.data.stats, resumed: { step: trainer.batchesDone, notes: [] } });
    begin(message.start);
  }

  function begin(startRequested) {
    postSnapshot(session.snapshot());
    const start = startWanted ?? Boolean(startRequested);
    startWanted = null;
    // A saved run that had finished, prepared without starting, is done, not paused.
    const { batchesDone, totalBatches } = session.info();
    setState(start ? 'running' : batchesDone >= totalBatches ? 'done' : 'paused');
    if (start) schedule();
  }

  // The worker's part of a run state (js/train_run_state.mjs), its buffers transferred.
  function sendRun(message) {
    if (!session || !saved) throw new Error('there is no run to save');
    const run = captureRun({ session, ...saved });
    const transfer = [run.model.weights.buffer, run.data.ids.buffer, run.data.offsets.buffer];
    for (const p of run.trainer.parameters) transfer.push(p.expAvg.buffer, p.expAvgSq.buffer, ...(p.grad ? [p.grad.buffer] : []));
    post({ type: 'captured', id: message.id, run }, transfer);
  }

  // The Wasm memory and the allocator's bytes in use, for the soak benchmark
  // (bench/memory/soak.mjs), on the port the request brings.
  async function sendMemory({ port }) {
    const mm = await runtimeReady();
    port.postMessage({ wasmBytes: mm.wasmMemoryBytes(), heapBytes: mm.heapBytesInUse() });
  }

  // A stream's trainer reads its samples in stream order, once, unless the request says otherwise.
  function runOptions({ data, options }) {
    if (data.source !== 'stream') return options;
    return { ...options, order: options.order ?? 'file', epochs: options.epochs ?? 1 };
  }

  // Epochs not given (null): as many as maxSteps batches take (or one).
  function withEpochs(options, samples, maxSteps) {
    if (options.epochs !== null && options.epochs !== undefined) return options;
    const perEpoch = Math.ceil(samples / options.batchSize);
    return { ...options, epochs: Math.max(1, Math.ceil((maxSteps ?? perEpoch) / perEpoch)) };
  }

  function postSnapshot(snapshot) {
    const transfer = [snapshot.attention.buffer];
    if (snapshot.entry?.attention) transfer.push(snapshot.entry.attention.buffer);
    post({ type: 'snapshot', snapshot }, transfer);
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
      post({ type: 'error', request: 'train', ...errorFields(error) });
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
      } else if (message.type === 'prompts') {
        if (session) {
          session.setPrompts(message.prompts);
          postSnapshot(session.snapshot());
        }
      } else if (message.type === 'export') sendFiles(message);
      else if (message.type === 'memory') await sendMemory(message);
      else if (message.type === 'capture') sendRun(message);
      else if (message.type === 'data-file') await readDataFile(message);
      else if (message.type === 'data-cancel') {
        if (dataRead) dataRead.cancelled = true;
      }
    } catch (error) {
      if (error?.name === 'AbortError') return; // a newer prepare or a reset took over
      if (message.type === 'memory') return message.port.postMessage({ error: String(error?.message ?? error) });
      if (message.type === 'prepare' && preparing === message.id) {
        dropRun();
        setState('idle');
      }
      post({ type: 'error', id: message.id, request: message.type, ...errorFields(error) });
    }
  }

  return { handle };
}
