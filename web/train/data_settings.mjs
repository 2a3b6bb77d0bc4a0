// The Train panel's data settings: the generated corpus (a number of lines),
// the lessons' sentences, pasted text, or a dropped or chosen .jsonl / .txt
// file (read and tokenized by the worker: data_file_input.mjs); and whether
// texts are packed into full rows. Builds the worker's data request.
import { DEFAULT_LINES } from '../../js/train_session.mjs';
import { make, numberField } from './dom.mjs';

export const DATA_SOURCES = ['corpus', 'lessons', 'text', 'file'];

export class DataSettings {
  #t;
  #onChange;
  #onError;
  /** t(key, params); onChange(): the choice changed; onError(message): a file could not be read; dataFile: data_file_input.mjs. */
  constructor({ t, onChange, onError, dataFile }) {
    this.#t = t;
    this.#onChange = onChange;
    this.#onError = onError;
    this.dataFile = dataFile;
    this.source = make('select', { name: 'source' }, ...DATA_SOURCES.map((s) => make('option', { value: s, i18n: `train.source.${s}` })));
    this.lines = numberField('lines', DEFAULT_LINES, { min: 10, max: 200000, step: 10 });
    this.text = make('textarea', { name: 'text', rows: 4, spellcheck: 'false', 'data-i18n-placeholder': 'train.textPlaceholder' });
    this.fileInput = make('input', { type: 'file', accept: '.jsonl,.txt,.json,text/plain', 'data-i18n-label': 'train.filePick' });
    this.fileStatus = dataFile.element; // the file's limits, its reading's progress and cancel, its status
    this.drop = make(
      'div',
      { class: 'train-drop' },
      make('p', { i18n: 'train.fileDrop' }),
      make('label', { class: 'file-button' }, make('span', { i18n: 'train.filePick' }), this.fileInput),
      this.fileStatus,
    );
    this.pack = make('input', { type: 'checkbox', name: 'pack', checked: true });
    this.help = make('p', { class: 'train-help' });
    this.element = make(
      'fieldset',
      {},
      make('legend', { i18n: 'train.data' }),
      make('label', { class: 'train-field' }, make('span', { class: 'train-field-name', i18n: 'train.source' }), this.source),
      this.help,
      this.lines,
      this.text,
      this.drop,
      make('label', { class: 'check' }, this.pack, make('span', { i18n: 'train.pack' })),
      make('p', { class: 'train-help', i18n: 'train.help.pack' }),
    );
    this.source.addEventListener('change', () => onChange());
    this.fileInput.addEventListener('change', () => this.#take(this.fileInput.files[0]));
    this.drop.addEventListener('dragover', (event) => {
      event.preventDefault();
      this.drop.classList.add('dragging');
    });
    this.drop.addEventListener('dragleave', () => this.drop.classList.remove('dragging'));
    this.drop.addEventListener('drop', (event) => {
      event.preventDefault();
      this.drop.classList.remove('dragging');
      this.#take(event.dataTransfer.files[0]);
    });
  }

  // The worker reads the file (data_file_input.mjs says how far, and why not).
  #take(file) {
    if (!file) return;
    this.source.value = 'file';
    this.#onError(null);
    this.#onChange();
    this.dataFile.take(file);
  }

  #lineCount() {
    return Number(this.lines.querySelector('[name="lines"]').value);
  }

  /** What is wrong with the data choice, in the page's language. */
  problems() {
    const t = this.#t;
    const problems = [];
    if (this.source.value === 'corpus') {
      const v = this.#lineCount();
      if (!Number.isSafeInteger(v) || v < 1) problems.push(t('train.badInteger', { name: t('train.field.lines'), min: 1 }));
    }
    if (this.source.value === 'text' && this.text.value.trim() === '') problems.push(t('train.noText'));
    if (this.source.value === 'file') problems.push(...this.dataFile.problems());
    return problems;
  }

  /** The worker's data request (train_host.mjs). */
  request() {
    const source = this.source.value;
    if (source === 'corpus') return { source, lines: this.#lineCount(), seed: 1 };
    if (source === 'lessons') return { source };
    if (source === 'text') return { source, text: this.text.value };
    return this.dataFile.request();
  }

  /** fmt(x, digits): a number in the page's language. */
  render(fmt) {
    const t = this.#t;
    const source = this.source.value;
    this.lines.hidden = source !== 'corpus';
    this.text.hidden = source !== 'text';
    this.drop.hidden = source !== 'file';
    this.help.textContent = t(`train.sourceHelp.${source}`);
    this.dataFile.render(fmt);
  }
}
