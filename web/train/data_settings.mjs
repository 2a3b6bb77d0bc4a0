// The Train panel's data settings: the generated corpus as a stream of
// fresh lines for a number of batches (its seed and its mix of line kinds,
// data_mix.mjs), the lessons' sentences, pasted text, or a dropped or chosen
// .jsonl / .txt file (read and tokenized by the worker: data_file_input.mjs);
// and whether texts are packed into full rows. Builds the worker's data
// request, and takes a recipe's (js/train_recipes.mjs).
import { TRAIN_RECIPES } from '../../js/train_recipes.mjs';
import { STREAM_MIXES, mixName, mixPercents } from './data_mix.mjs';
import { make, numberField, setText } from './dom.mjs';

const DATA_SOURCES = ['stream', 'lessons', 'text', 'file'];
const DEFAULT_DATA = TRAIN_RECIPES.default.data;

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
    this.batches = numberField('batches', TRAIN_RECIPES.default.batches, { min: 1, max: 100000, step: 1 });
    this.batchesHelp = this.batches.querySelector('.train-help');
    delete this.batchesHelp.dataset.i18n; // computed from the batch shape (render)
    this.mix = make(
      'select',
      { name: 'mix' },
      ...Object.keys(STREAM_MIXES).map((m) => make('option', { value: m, i18n: `train.mix.${m}` })),
    );
    this.mix.value = mixName(DEFAULT_DATA.mix);
    this.mixHelp = make('span', { class: 'train-help' });
    this.streamSeed = numberField('streamSeed', DEFAULT_DATA.seed, { min: 0, max: 2 ** 31, step: 1 });
    this.stream = make(
      'div',
      { class: 'train-grid' },
      this.batches,
      make('label', { class: 'train-field' }, make('span', { class: 'train-field-name', i18n: 'train.mix' }), this.mix, this.mixHelp),
      this.streamSeed,
    );
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
      this.stream,
      this.text,
      this.drop,
      make('label', { class: 'check' }, this.pack, make('span', { i18n: 'train.pack' })),
      make('p', { class: 'train-help', i18n: 'train.help.pack' }),
    );
    this.source.addEventListener('change', () => onChange());
    this.stream.addEventListener('input', () => onChange()); // the help lines follow the batches and the mix
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

  #number(name) {
    return Number(this.stream.querySelector(`[name="${name}"]`).value);
  }

  #setNumber(name, value) {
    this.stream.querySelector(`[name="${name}"]`).value = String(value);
  }

  /** A recipe's data (js/train_recipes.mjs): the stream, its batches, mix and seed. */
  apply(recipe) {
    this.source.value = 'stream';
    this.#setNumber('batches', recipe.batches);
    this.#setNumber('streamSeed', recipe.data.seed);
    this.mix.value = mixName(recipe.data.mix) ?? 'corpus';
  }

  /** What is wrong with the data choice, in the page's language. */
  problems() {
    const t = this.#t;
    const problems = [];
    if (this.source.value === 'stream')
      for (const [name, min] of [
        ['batches', 1],
        ['streamSeed', 0],
      ]) {
        const v = this.#number(name);
        if (!Number.isSafeInteger(v) || v < min) problems.push(t('train.badInteger', { name: t(`train.field.${name}`), min }));
      }
    if (this.source.value === 'text' && this.text.value.trim() === '') problems.push(t('train.noText'));
    if (this.source.value === 'file') problems.push(...this.dataFile.problems());
    return problems;
  }

  /** The worker's data request (train_host.mjs). */
  request() {
    const source = this.source.value;
    if (source === 'stream')
      return { source, seed: this.#number('streamSeed'), mix: STREAM_MIXES[this.mix.value], batches: this.#number('batches') };
    if (source === 'lessons') return { source };
    if (source === 'text') return { source, text: this.text.value };
    return this.dataFile.request();
  }

  /** fmt(x, digits): a number in the page's language; options: the trainer's (batchSize, maxSeqLen) as set. */
  render(fmt, { batchSize, maxSeqLen }) {
    const t = this.#t;
    const source = this.source.value;
    this.stream.hidden = source !== 'stream';
    const batches = this.#number('batches');
    const tokens = batches * batchSize * maxSeqLen;
    setText(
      this.batchesHelp,
      t('train.help.batches', {
        batchSize: fmt(batchSize),
        maxSeqLen: fmt(maxSeqLen),
        tokens: Number.isFinite(tokens) ? fmt(tokens) : '–',
      }),
    );
    const percent = (x) => fmt(x, Number.isInteger(Math.round(x * 10) / 10) ? 0 : 1);
    const shares = mixPercents(STREAM_MIXES[this.mix.value]);
    setText(this.mixHelp, t('train.mixHelp', Object.fromEntries(Object.entries(shares).map(([kind, p]) => [kind, percent(p)]))));
    this.text.hidden = source !== 'text';
    this.drop.hidden = source !== 'file';
    this.help.textContent = t(`train.sourceHelp.${source}`);
    this.dataFile.render(fmt);
  }
}
