// The model as trained so far, out of the training worker: loaded into the
// playground as files (config.json, model.safetensors, tokenizer.json: the
// playground's own files load, so a cancel can load it again), with the head
// roles the last snapshot measured; or downloaded as those three files.
import { rolesFromScores } from '../../js/head_roles.mjs';
import { download } from '../export.mjs';

/**
 * Loads the trained model into the playground. train: the TrainRun (or
 * TrainClient); latest: the newest snapshot (its scores label the
 * playground's heads); loadFiles(files, keep, roles, trained): the
 * playground's files load, told the batch the model was trained to.
 * Returns {step, name}.
 */
export async function useTrainedModel({ train, latest, loadFiles }) {
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
export async function downloadTrainedModel({ train, dtype }) {
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
 * The run bar's "Use this model" and "Download": each sets the panel's
 * notice (what was done) or error (what failed) and redraws. run: the
 * TrainRun; latest(): its newest snapshot; dtype(): the chosen precision;
 * loadFiles: the playground's files load; ui: the panel's {error, notice}.
 */
export function trainedModelActions({ run, latest, dtype, loadFiles, ui, t, render }) {
  const report = async (action, notice) => {
    ui.error = null;
    try {
      ui.notice = notice(await action());
    } catch (error) {
      ui.error = t('train.failed', { message: error.message });
    }
    render();
  };
  return {
    use: () =>
      report(
        () => useTrainedModel({ train: run, latest: latest(), loadFiles }),
        ({ step, name }) => t('train.used', { step, name }),
      ),
    download: () =>
      report(
        () => downloadTrainedModel({ train: run, dtype: dtype() }),
        ({ step, dtype: chosen }) => t('train.downloaded', { step, dtype: chosen }),
      ),
  };
}
