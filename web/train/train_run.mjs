// The Train panel's run as the page knows it: the training worker's client
// (web/train_client.mjs) and everything the worker has reported: its state,
// the preparation's progress, the run's model and data, the trainer's
// newest report, every batch's loss (StepHistory) and the snapshots
// (SnapshotStore) and the heads that formed in them (FormationTracker, fed
// every snapshot as it comes, before the store thins old ones out). Views
// read it; the controller changes it.
import { FormationTracker } from '../../js/head_formation_events.mjs';
import { SnapshotStore, StepHistory } from '../../js/train_history.mjs';
import { TimelineStore } from '../../js/timeline_store.mjs';
import { restoreHistory, restoreSnapshots, restoreTimeline, runSummary } from '../../js/train_run_state.mjs';
import { TrainClient } from '../train_client.mjs';

export class TrainRun {
  history = new StepHistory();
  snapshots = new SnapshotStore(200);
  formation = new FormationTracker();
  timeline = new TimelineStore(); // every snapshot's timeline entry (js/timeline.mjs), never thinned
  state = 'idle'; // idle | preparing | running | paused | done
  progress = null; // {phase, done, total} while preparing
  prepared = null; // {info, trainer, data} of the prepared run
  trainer = null; // the newest {batchesDone, totalBatches, memory, trainMs, positions}
  last = null; // the newest step
  options = null; // the run's hyperparameters
  #client;

  /**
   * workerUrl: the training worker's script (or a function making one);
   * on: {change(), steps(steps), snapshot(snapshot), error(request, message, error)}:
   * error, the worker's message with the core's kind and values (errorFields).
   */
  constructor(workerUrl, on) {
    this.#client = new TrainClient(workerUrl, {
      onState: ({ state }) => {
        this.state = state;
        if (state !== 'preparing') this.progress = null;
        on.change();
      },
      onProgress: (progress) => {
        this.progress = progress;
        on.change();
      },
      onReady: ({ info, trainer, data, resumed }) => {
        this.prepared = { info, trainer, data, resumed: resumed ?? null };
        this.trainer = trainer;
        on.ready?.(this.prepared);
        on.change();
      },
      onSteps: ({ steps, trainer }) => {
        this.history.push(steps);
        this.trainer = trainer;
        this.last = steps[steps.length - 1] ?? this.last;
        on.steps?.(steps);
        on.change();
      },
      onSnapshot: (snapshot) => {
        this.snapshots.add(snapshot);
        this.formation.add(snapshot);
        if (snapshot.entry) this.timeline.add(snapshot.entry);
        on.snapshot?.(snapshot);
        on.change();
      },
      onError: (error) => on.error(error.request, error.message, error),
    });
  }

  /** The worker's client (web/train_client.mjs), for requests the run does not wrap (captureRun, ...). */
  get client() {
    return this.#client;
  }

  /** Batches done so far. */
  get step() {
    return this.trainer?.batchesDone ?? 0;
  }

  /** Batches the run will do (0 before it is prepared). */
  get total() {
    return this.trainer?.totalBatches ?? 0;
  }

  /** The state scripts and the page read: a run being prepared is running. */
  get publicState() {
    return this.state === 'preparing' ? 'running' : this.state;
  }

  /** Running or being prepared. */
  get busy() {
    return this.state === 'running' || this.state === 'preparing';
  }

  #forget() {
    this.history.clear();
    this.snapshots.clear();
    this.formation.clear();
    this.timeline.clear();
    this.prepared = null;
    this.trainer = null;
    this.last = null;
  }

  /** Prepares and starts a new run (request: train_host.mjs's prepare message, without id). */
  start(request) {
    this.#forget();
    this.state = 'preparing';
    this.progress = { phase: 'load', done: 0, total: 1 };
    this.options = request.options;
    this.#client.prepare({ ...request, start: true });
  }

  /**
   * Goes on with a saved run (a run state of js/train_run_state.mjs, with
   * the page's history, snapshots and timeline): they are shown again, and the worker
   * resumes the run where it was saved; start false: it waits there, paused
   * (done when it had finished), until resumed.
   */
  resume(saved, { start = true } = {}) {
    this.#forget();
    const { history, snapshots, timeline, id, savedAt, ...worker } = saved;
    restoreHistory(this.history, history);
    restoreSnapshots(this.snapshots, snapshots);
    restoreTimeline(this.timeline, timeline);
    for (const snapshot of snapshots) this.formation.add(snapshot);
    const n = history.loss.length;
    // The last batch's place in its epoch, as the trainer reports a step's (batch 1-based).
    const { step } = runSummary(saved);
    const perEpoch = Math.ceil(worker.data.count / worker.settings.options.batchSize);
    const place = step > 0 ? { epoch: Math.floor((step - 1) / perEpoch), batch: ((step - 1) % perEpoch) + 1 } : {};
    this.last = n ? { step: n, loss: history.loss[n - 1], lr: history.lr[n - 1], ...place } : null;
    this.state = 'preparing';
    this.progress = { phase: 'load', done: 0, total: 1 };
    this.options = worker.settings.options;
    this.#client.prepare({ resume: worker, start });
  }

  /** Pauses a running run, resumes a paused one. */
  togglePause() {
    if (this.busy) this.#client.pause();
    else if (this.state === 'paused') this.#client.resume();
  }

  stop() {
    this.#client.stop();
  }

  reset() {
    this.#client.reset();
    this.#forget();
    this.state = 'idle';
    this.progress = null;
  }

  /** A new probe sentence: the worker answers with a snapshot of it now. */
  setProbe(text) {
    this.#client.setProbe(text);
  }

  /** New prompts to write on after the probe (null in the list: a repeated random span); a snapshot of them comes now. */
  setPrompts(prompts) {
    this.#client.setPrompts(prompts);
  }

  /** The model as trained so far (TrainClient.trainedFiles). */
  trainedFiles(dtype) {
    return this.#client.trainedFiles(dtype);
  }

  /** A training text file read and tokenized in the worker ahead of a run (TrainClient.loadDataFile). */
  loadDataFile(file, onProgress) {
    return this.#client.loadDataFile(file, onProgress);
  }

  /** Stops the data file being read (TrainClient.cancelDataFile). */
  cancelDataFile() {
    this.#client.cancelDataFile();
  }
}

/** The run on the panel element's data-state, data-phase, data-step and data-loss (and the Train button's data-state). */
export function markRun(root, run, openButton) {
  root.dataset.state = run.publicState;
  root.dataset.phase = run.state;
  root.dataset.step = String(run.step);
  if (run.last) root.dataset.loss = String(run.last.loss);
  else delete root.dataset.loss;
  if (openButton) openButton.dataset.state = run.publicState;
}

/**
 * Read-only, for tests and scripts (bench/training/page_training.mjs): root.losses
 * (every reported loss), root.snapshots (the snapshots held), root.trainer
 * (the worker's latest trainer report), root.prepared (the run's model
 * info, trainer and data stats as the worker prepared them), root.formed
 * (the heads that formed) and root.timeline (the timeline's entries).
 */
export function exposeRun(root, run) {
  const get = (name, read) => Object.defineProperty(root, name, { get: read, configurable: true });
  get('losses', () => Array.from(run.history.loss));
  get('snapshots', () => Array.from({ length: run.snapshots.length }, (_, k) => run.snapshots.get(k)));
  get('trainer', () => (run.trainer ? { ...run.trainer } : null));
  get('prepared', () => (run.prepared ? structuredClone(run.prepared) : null)); // {info, trainer, data, resumed}
  get('formed', () => run.formation.events);
  get('timeline', () => run.timeline.entries());
}
