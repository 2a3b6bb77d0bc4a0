// The Train panel's data file: a dropped or chosen .jsonl / .txt, read and
// tokenized by the training worker in chunks (js/text_file_stream.mjs), so
// a 50 MB file neither freezes the page nor sits whole in it. Shows the
// limits (what the trainer can hold), the read's progress in bytes, a cancel,
// and why a file cannot be used: one over the size limit is refused before a
// byte is read. The file read whole last stays the data until another one is:
// a cancelled, refused or failed read leaves it.
//
// The element carries data-state (idle | reading | loaded), data-percent
// (of the file read, while reading) and, once loaded, data-texts and
// data-tokens (the counts the worker's tokenizer gave).
import { MAX_TEXT_FILE_BYTES, MAX_TRAIN_TOKENS, checkTextFileSize } from '../../js/text_file_stream.mjs';
import { errorText } from '../error_text.mjs';
import { make, setText } from './dom.mjs';

export class DataFileInput {
  /** The file read whole: {id, name, format, bytes, texts, tokens} (the worker's data-ready), or null. */
  file = null;
  /** The file being read: {name, done, total} (bytes), or null. */
  reading = null;
  /** What the last read came to when it did not load: {key, name} (cancelled) or {error, name}; else null. */
  notice = null;
  #t;
  #lang;
  #load;
  #cancel;
  #onChange;

  /**
   * t(key, params); lang(): the page's language; load(file, onProgress):
   * the worker's read (TrainClient.loadDataFile); cancel(): stops it
   * (TrainClient.cancelDataFile); onChange(): something to redraw.
   */
  constructor({ t, lang, load, cancel, onChange }) {
    this.#t = t;
    this.#lang = lang;
    this.#load = load;
    this.#cancel = cancel;
    this.#onChange = onChange;
    this.limit = make('p', { class: 'train-help' });
    this.progress = make('progress', { max: 1, value: 0, class: 'train-data-file-progress' });
    this.status = make('span', { class: 'train-file-status', role: 'status' });
    this.cancelButton = make('button', { type: 'button', 'data-train': 'cancel-file', i18n: 'train.dataFile.cancel' });
    this.message = make('p', { class: 'train-data-file-notice', role: 'alert' });
    this.element = make('div', { class: 'train-data-file' }, this.limit, this.progress, this.status, this.cancelButton, this.message);
    this.cancelButton.addEventListener('click', () => this.cancelRead());
  }

  /** Reads `file` (a File) in the worker; a file over the size limit is refused at once. */
  async take(file) {
    if (!file) return;
    try {
      checkTextFileSize(file.name, file.size);
    } catch (error) {
      this.notice = { error, name: file.name };
      return this.#onChange();
    }
    this.notice = null;
    const reading = (this.reading = { name: file.name, done: 0, total: file.size });
    this.#onChange();
    try {
      const ready = await this.#load(file, (done, total) => {
        if (this.reading !== reading) return;
        Object.assign(reading, { done, total });
        this.#onChange();
      });
      if (this.reading !== reading) return; // a newer file was chosen meanwhile
      const { id, name, format, bytes, texts, tokens } = ready;
      this.file = { id, name, format, bytes, texts, tokens };
    } catch (error) {
      if (this.reading !== reading) return;
      this.notice = error?.name === 'AbortError' ? { key: 'train.dataFile.cancelled', name: file.name } : { error, name: file.name };
    }
    this.reading = null;
    this.#onChange();
  }

  /** Stops the read in progress (the worker answers; the file read before stays). */
  cancelRead() {
    if (this.reading) this.#cancel();
  }

  /** What keeps the data file from being trained on, in the page's language. */
  problems() {
    if (this.reading) return [this.#t('train.dataFile.stillReading', { name: this.reading.name })];
    return this.file ? [] : [this.#t('train.noFile')];
  }

  /** The worker's data request for the file read (train_host.mjs prepare). */
  request() {
    return { source: 'file', fileId: this.file.id, name: this.file.name };
  }

  /** fmt(x, digits): a number in the page's language. */
  render(fmt) {
    const t = this.#t;
    const mib = (bytes) => fmt(bytes / 2 ** 20, 1);
    setText(this.limit, t('train.dataFile.limit', { mib: fmt(MAX_TEXT_FILE_BYTES / 2 ** 20), tokens: fmt(MAX_TRAIN_TOKENS) }));
    const { reading, file } = this;
    const fraction = reading ? (reading.total ? reading.done / reading.total : 1) : 0;
    this.element.dataset.state = reading ? 'reading' : file ? 'loaded' : 'idle';
    if (reading) this.element.dataset.percent = String(Math.floor(fraction * 100));
    else delete this.element.dataset.percent;
    if (file) Object.assign(this.element.dataset, { texts: String(file.texts), tokens: String(file.tokens) });
    this.progress.hidden = !reading;
    this.progress.value = fraction;
    this.cancelButton.hidden = !reading;
    setText(
      this.status,
      reading
        ? t('train.dataFile.reading', {
            name: reading.name,
            percent: Math.floor(fraction * 100),
            done: mib(reading.done),
            total: mib(reading.total),
          })
        : file
          ? t('train.dataFile.loaded', { name: file.name, mib: mib(file.bytes), texts: fmt(file.texts), tokens: fmt(file.tokens) })
          : '',
    );
    setText(this.message, this.#noticeText());
    this.message.classList.toggle('error', Boolean(this.notice?.error));
  }

  #noticeText() {
    const { notice, file } = this;
    if (!notice) return '';
    const t = this.#t;
    // A kinded error (js/text_file_stream.mjs) names the file itself; any other is the file's and its message.
    const kinded = notice.error ? errorText(this.#lang(), notice.error) : null;
    const words = notice.key
      ? t(notice.key, { name: notice.name })
      : kinded.complete
        ? kinded.text
        : t('train.dataFile.failed', { name: notice.name, message: String(notice.error?.message ?? notice.error) });
    return file ? `${words} ${t('train.dataFile.kept', { name: file.name })}` : words;
  }
}
