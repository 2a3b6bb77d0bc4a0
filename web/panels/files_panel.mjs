// The files panel: a MiniMind folder or checkpoint dropped or picked, read in
// the page with progress (a cancel stops the reading here), then sent to the
// worker; the row asking for the head count when a .pth cannot tell it.
import { checkpointFileTooLarge } from '../../js/checkpoint_memory.mjs';
import { errorFields } from '../../js/minimind_error.mjs';
import { errorText, showErrorDetails } from '../error_text.mjs';
import { classifyFiles, droppedFiles, readWithProgress } from '../files.mjs';
import { modelName } from '../model_names.mjs';
import { notice } from './model_loading.mjs';

/** loading: the model loading state (model_loading.mjs). */
export function setupFilesPanel({ store, t, $, client, loading }) {
  let readingFiles = null; // AbortController of the files being read in the page

  // withHeads: "Reload with these heads" sends the head count typed; files just chosen are read without it.
  // roles: the head roles the Train panel measured for these files (heads.json's shape), or null;
  // trained: {step} of a model the Train panel trained, or null.
  async function loadFiles(fileList, withHeads = false, roles = null, trained = null) {
    const chosen = { ...classifyFiles(fileList), roles, trained };
    if (!chosen.weights) return store.set({ filesStatus: { phase: 'error', message: t('files.noWeights') } });
    if (/\.safetensors$/i.test(chosen.weights.name) && !chosen.config) {
      return store.set({ filesStatus: { phase: 'error', message: t('files.noConfig') } });
    }
    // A file no model the module can hold comes from is refused before the page reads it.
    const tooLarge = checkpointFileTooLarge(chosen.weights.name, chosen.weights.size);
    if (tooLarge) return store.set({ filesStatus: { phase: 'error', message: tooLarge.message, error: errorFields(tooLarge) } });
    loading.filesChosen(chosen);
    const name = chosen.weights.name;
    readingFiles?.abort();
    const reading = (readingFiles = new AbortController());
    let weights;
    try {
      const newest = () => !reading.signal.aborted && loading.loadingFiles === chosen; // no other model chosen since
      const onProgress = (fraction) => newest() && store.set({ filesStatus: { phase: 'reading', fraction, name } });
      weights = await readWithProgress(chosen.weights, onProgress, reading.signal);
    } catch (error) {
      if (reading.signal.aborted) return; // cancelled, or newer files chosen
      throw error;
    } finally {
      if (readingFiles === reading) readingFiles = null;
    }
    const heads = withHeads ? Number($('pth-heads').value) : NaN;
    const config = chosen.config ? await chosen.config.text() : undefined;
    const tokenizer = chosen.tokenizer ? await chosen.tokenizer.text() : undefined;
    if (loading.loadingFiles !== chosen) return; // a model chosen while these were read is the newest choice
    client.loadFiles(
      { config, tokenizer, weights, hints: Number.isSafeInteger(heads) && heads > 0 ? { numAttentionHeads: heads } : {} },
      chosen.weights,
    );
  }

  // The run bar's cancel while files are read in the page: the model in use stays.
  function cancelReading() {
    readingFiles?.abort();
    readingFiles = null;
    loading.filesDropped();
    const name = store.get().filesStatus?.name;
    store.set({ filesStatus: null, notice: notice(t('run.cancelledFiles', { name, previous: modelName(store.get(), t) })) });
  }

  function renderFiles() {
    const { filesStatus: f, files } = store.get();
    const progress = $('files-progress');
    progress.hidden = !f || (f.phase !== 'reading' && f.phase !== 'parsing');
    progress.value = f?.phase === 'reading' ? f.fraction : f?.phase === 'parsing' ? 1 : 0;
    if (!f) {
      $('files-status').textContent = '';
    } else if (f.phase === 'reading') {
      $('files-status').textContent = t('files.reading', { name: f.name, percent: Math.round(f.fraction * 100) });
    } else if (f.phase === 'parsing') {
      $('files-status').textContent = t('files.parsing', { name: f.name });
    } else if (f.phase === 'error') {
      // The core's errors in the page's language, their English behind "details".
      const words = f.error ? errorText(store.get().lang, f.error) : null;
      $('files-status').textContent = t('files.error', { message: words?.text ?? f.message });
    } else {
      const info = store.get().model.info;
      const loaded = t('files.loaded', {
        name: f.name,
        // As kept in memory: float16 checkpoints stay float16 (exact, half the bytes).
        mib: ((info.stored_weights?.bytes ?? info.weight_bytes) / 2 ** 20).toFixed(1),
        storage: Object.keys(info.stored_weights?.tensors_by_storage ?? { F32: 1 })
          .map((name) => ({ F32: 'float32', F16: 'float16', BF16: 'bfloat16' })[name])
          .join(' + '),
        tokenizer: files?.tokenizer ? t('files.withTokenizer') : '',
      });
      $('files-status').textContent = files?.assumed.length
        ? `${loaded} ${t('files.assumed', { keys: files.assumed.join(', ') })}`
        : loaded;
    }
    $('files-status').classList.toggle('error', f?.phase === 'error');
    showErrorDetails(
      $('files-error-details'),
      store.get().lang,
      f?.phase === 'error' && f.error ? errorText(store.get().lang, f.error) : null,
    );
    $('pth-hints').hidden = !headCountNeeded(store.get());
  }

  // The head count is asked for only where a .pth's tensors cannot tell it: a generation-2 .pth
  // without config.json (generation 3 reads it from q_norm), or a .pth that failed to load over it.
  function headCountNeeded({ files, model, filesStatus }) {
    const heads = files?.inferred ? model.info?.inferred?.fields?.find((field) => field.key === 'num_attention_heads') : null;
    const failed = filesStatus?.phase === 'error' && /num_attention_heads/.test(filesStatus.message);
    return (heads && heads.source !== 'inferred') || failed;
  }

  store.subscribe((state, changed) => {
    if (['filesStatus', 'files', 'model', 'lang'].some((k) => changed.has(k))) renderFiles();
  });

  $('file-input').addEventListener('change', (event) => loadFiles(event.target.files));
  $('folder-input').addEventListener('change', (event) => loadFiles(event.target.files));
  $('drop-zone').addEventListener('dragover', (event) => {
    event.preventDefault();
    $('drop-zone').classList.add('dragging');
  });
  $('drop-zone').addEventListener('dragleave', () => $('drop-zone').classList.remove('dragging'));
  $('drop-zone').addEventListener('drop', async (event) => {
    event.preventDefault();
    $('drop-zone').classList.remove('dragging');
    loadFiles(await droppedFiles(event.dataTransfer));
  });
  $('pth-reload').addEventListener('click', () => {
    const files = loading.loadingFiles;
    if (files) loadFiles([files.weights, files.config, files.tokenizer].filter(Boolean), true);
  });

  return { loadFiles, cancelReading };
}
