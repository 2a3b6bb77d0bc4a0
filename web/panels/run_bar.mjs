// The run bar: what runs now (reading files, loading a model, a forward
// pass, a generation step), how long it has run, and its Cancel; and the
// notice of what a cancel went back to.
import { DEMO } from '../demo_model.mjs';
import { modelName } from '../model_names.mjs';
import { RunStatusView } from '../views/run_status.mjs';

/**
 * loading: the model loading state (model_loading.mjs); files: the files panel ({cancelReading});
 * input: the input panel ({currentTokens, stopTyping}); generation: the generation panel ({stop}).
 */
export function setupRunBar({ store, t, $, client, loading, files, input, generation }) {
  const runStatus = new RunStatusView($('run-status'), { onCancel: (run) => cancelRun(run) });

  // What runs now, for the run bar: {kind, text, fraction (null: unknown), since, delayed, cancellable}.
  function currentRun(s) {
    const f = s.filesStatus;
    const restoring = loading.restoring;
    if (f?.phase === 'reading')
      return {
        kind: 'files-read',
        text: t('files.reading', { name: f.name, percent: Math.round(f.fraction * 100) }),
        fraction: f.fraction,
        since: 0,
        cancellable: true,
      };
    if (f?.phase === 'parsing' && !restoring)
      return {
        kind: 'files',
        text: t('files.parsing', { name: f.name }),
        fraction: null,
        since: client.pendingSince('load') ?? performance.now(),
        cancellable: true,
      };
    if (s.model.status === 'building') {
      const key = restoring ? 'run.restoring' : s.preset === DEMO ? 'model.downloading' : 'model.building';
      const text = t(key, { name: modelName(s, t), percent: Math.round(s.model.fraction * 100) });
      return { kind: restoring ? 'restore' : 'build', text, fraction: s.model.fraction, since: 0, cancellable: true };
    }
    if (s.busy?.kind === 'forward') {
      const T = input.currentTokens().ids?.length;
      const text = T === undefined ? t('run.computingText') : t('run.computing', { count: T });
      return { kind: 'forward', text, fraction: null, since: s.busy.since, delayed: true, cancellable: true };
    }
    if (s.busy?.kind === 'generation')
      return {
        kind: 'generation',
        text: t('run.generating', { step: (s.generation?.step ?? 0) + 1 }),
        fraction: null,
        since: s.busy.since,
        delayed: true,
        cancellable: true,
      };
    return null;
  }

  function renderRunStatus() {
    const s = store.get();
    runStatus.render(currentRun(s), s.notice, (seconds) => t('run.elapsed', { seconds }));
  }

  // Cancel: the page stops reading files itself; anything in the worker stops
  // only with the worker (model_loading.mjs), and nothing more is asked for meanwhile.
  function cancelRun(run) {
    if (!run) return;
    if (run.kind === 'files-read') return files.cancelReading();
    input.stopTyping();
    generation.stop();
    loading.cancel(run);
  }

  store.subscribe((state, changed) => {
    if (['model', 'filesStatus', 'busy', 'notice', 'generation', 'files', 'lang'].some((k) => changed.has(k))) renderRunStatus();
  });
}
