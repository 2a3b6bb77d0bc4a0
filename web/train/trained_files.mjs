// The model as trained so far, out of the training worker: loaded into the
// playground as files (config.json, model.safetensors, tokenizer.json: the
// playground's own files load, so a cancel can load it again), with the head
// roles the last snapshot measured; or downloaded as those three files.
import { rolesFromScores } from '../../js/head_roles.mjs';
import { runSummary } from '../../js/train_run_state.mjs';
import { errorMessage } from '../error_text.mjs';
import { download } from '../export.mjs';

// MiniMind's tokenizer, next to the trained model (the training worker reads the same file).
const TOKENIZER_URL = new URL('./models/minimind-demo/tokenizer.json', import.meta.url);
let minimindTokenizer = null;

function minimindTokenizerText() {
  minimindTokenizer ??= fetch(TOKENIZER_URL).then((response) => {
    if (!response.ok) throw new Error(`${TOKENIZER_URL.pathname}: HTTP ${response.status}`);
    return response.text();
  });
  minimindTokenizer.catch(() => (minimindTokenizer = null)); // asked again next time
  return minimindTokenizer;
}

/**
 * A saved run (a run state of js/train_run_state.mjs, from run_store.mjs) as
 * a source of trained files, like the training worker's trainedFiles('F32'):
 * its saved float32 weights, its tokenizer (MiniMind's unless it had its
 * own), the batch it was saved at. Nothing is trained or resumed.
 */
function savedRunFiles(record) {
  return {
    async trainedFiles() {
      const tokenizer = record.tokenizer ?? (await minimindTokenizerText());
      return { config: record.model.config, weights: record.model.weights, tokenizer, step: runSummary(record).step };
    },
  };
}

/**
 * Loads the trained model into the playground. train: the TrainRun (or
 * TrainClient); latest: the newest snapshot (its scores label the
 * playground's heads); loadFiles(files, keep, roles, trained): the
 * playground's files load, told the batch the model was trained to.
 * Returns {step, name}.
 */
async function useTrainedModel({ train, latest, loadFiles }) {
  const { config, weights, tokenizer, step } = await train.trainedFiles('F32');
  const name = `minimind-trained-b${step}.safetensors`;
  const roles = rolesFromScores(latest?.scores, latest?.step ?? null);
  await loadFiles(
    [
      new File([config], 'config.json', { type: 'application/json' }),
      new File([weights], name, { type: 'application/octet-stream' }),
      new File([tokenizer], 'tokenizer.json', { type: 'application/json' }),
    ],
    false,
    roles,
    { step },
  );
  return { step, name };
}

/** Downloads three files, one after another: config.json, model.safetensors (in `dtype`), tokenizer.json. Returns {step, dtype}. */
async function downloadTrainedModel({ train, dtype }) {
  const { config, weights, tokenizer, step } = await train.trainedFiles(dtype);
  const files = [
    ['config.json', new Blob([config], { type: 'application/json' })],
    ['model.safetensors', new Blob([weights], { type: 'application/octet-stream' })],
    ['tokenizer.json', new Blob([tokenizer], { type: 'application/json' })],
  ];
  for (const [k, [name, blob]] of files.entries()) {
    // Browsers drop downloads that start in the same task: one at a time.
    if (k > 0) await new Promise((resolve) => setTimeout(resolve, 250));
    download(name, blob);
  }
  return { step, dtype };
}

/**
 * The run bar's "Use this model" and "Download", and a saved run's "Use
 * this model": each sets the panel's notice (what was done) or error (what
 * failed) and redraws; a model put to use then shows the playground
 * (showPlayground()). run: the TrainRun; latest(): its newest snapshot;
 * dtype(): the chosen precision; loadFiles: the playground's files load; ui:
 * the panel's {error, notice}.
 */
export function trainedModelActions({ run, latest, dtype, loadFiles, ui, t, lang, render, showPlayground = () => {} }) {
  const report = async (action, notice) => {
    ui.error = null;
    try {
      const done = await action();
      ui.notice = () => notice(done); // worded when drawn: it follows a language switch
      render();
      return true;
    } catch (error) {
      ui.error = () => t('train.failed', { message: errorMessage(lang(), error) });
      render();
      return false;
    }
  };
  const use = async (train, snapshot) => {
    const used = await report(
      () => useTrainedModel({ train, latest: snapshot, loadFiles }),
      ({ step, name }) => t('train.used', { step, name }),
    );
    if (used) showPlayground();
  };
  return {
    use: () => use(run, latest()),
    /** A saved run's model (its run state), its roles measured at its last saved snapshot. */
    useSaved: (record) => use(savedRunFiles(record), record.snapshots?.at(-1) ?? null),
    download: () =>
      report(
        () => downloadTrainedModel({ train: run, dtype: dtype() }),
        ({ step, dtype: chosen }) => t('train.downloaded', { step, dtype: chosen }),
      ),
  };
}
