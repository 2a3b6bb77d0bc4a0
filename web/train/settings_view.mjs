// The Train panel's settings: the model (model_settings.mjs), the data
// (data_settings.mjs) and the trainer's hyperparameters, in one foldable
// block, editable while no run is going. The defaults are the panel's first
// run (js/train_recipes.mjs TRAIN_RECIPES.default); apply() puts any
// recipe's in. The snapshot spacing follows the run's length (js/timeline.mjs
// defaultSnapshotEvery: about 100 snapshots a run) until the learner sets it;
// for data whose batches are counted only once read (lessons, text, a file)
// the field stays empty and the worker takes the default of the run's batches.
import { defaultSnapshotEvery } from '../../js/timeline.mjs';
import { TRAIN_RECIPES } from '../../js/train_recipes.mjs';
import { DataSettings } from './data_settings.mjs';
import { make, numberField } from './dom.mjs';
import { ModelSettings, integerProblem } from './model_settings.mjs';

const DEFAULT_OPTIONS = TRAIN_RECIPES.default.options;
const DEFAULT_SNAPSHOT_EVERY = defaultSnapshotEvery(TRAIN_RECIPES.default.batches * DEFAULT_OPTIONS.epochs);

// [name, default, {min, max, step}] in the order shown.
const OPTION_FIELDS = [
  ['batchSize', DEFAULT_OPTIONS.batchSize, { min: 1, max: 256, step: 1 }],
  ['maxSeqLen', DEFAULT_OPTIONS.maxSeqLen, { min: 8, max: 512, step: 1 }],
  ['learningRate', DEFAULT_OPTIONS.learningRate, { min: 1e-6, max: 1, step: 'any' }],
  ['accumulationSteps', DEFAULT_OPTIONS.accumulationSteps, { min: 1, max: 64, step: 1 }],
  ['gradClip', DEFAULT_OPTIONS.gradClip, { min: 0.01, max: 100, step: 'any' }],
  ['epochs', DEFAULT_OPTIONS.epochs, { min: 1, max: 100, step: 1 }],
  ['seed', DEFAULT_OPTIONS.seed, { min: 0, max: 2 ** 31, step: 1 }],
  ['snapshotEvery', DEFAULT_SNAPSHOT_EVERY, { min: 1, max: 1000, step: 1 }],
];

export class SettingsView {
  #t;
  #snapshotEverySet = false; // the learner edited the spacing (emptied: the default again, shown once a recipe is applied)

  /** t(key, params); onChange(): a setting changed; onError(message | null): a data file's reading; dataFile: data_file_input.mjs. */
  constructor({ t, onChange, onError, dataFile }) {
    this.#t = t;
    this.model = new ModelSettings({ t, onChange });
    this.data = new DataSettings({ t, onChange, onError, dataFile });
    this.optionsForm = make('div', { class: 'train-grid' }, ...OPTION_FIELDS.map(([n, v, l]) => numberField(n, v, l)));
    this.element = make(
      'details',
      { class: 'train-settings', open: true },
      make('summary', { i18n: 'train.settings' }),
      // The fieldsets side by side: a grid of their own (a <details> lays its content out in a box of its own).
      make(
        'div',
        { class: 'train-settings-grid' },
        this.model.element,
        this.data.element,
        make('fieldset', {}, make('legend', { i18n: 'train.hyper' }), this.optionsForm),
      ),
    );
    this.optionsForm.addEventListener('input', onChange); // the data's help counts the batch shape
    this.#field('snapshotEvery').addEventListener('input', () => (this.#snapshotEverySet = true));
  }

  #field(name) {
    return this.optionsForm.querySelector(`[name="${name}"]`);
  }

  // The default spacing of the run as set (the stream's batches × epochs), or null when its batches are not known yet.
  #defaultSnapshotEvery() {
    if (this.data.source.value !== 'stream') return null;
    const batches = this.data.request().batches * this.#number('epochs');
    return Number.isSafeInteger(batches) && batches > 0 ? defaultSnapshotEvery(batches) : null;
  }

  /** A recipe's settings (js/train_recipes.mjs): the new model's shape and seed, the data, the trainer's options. */
  apply(recipe) {
    this.model.apply(recipe.config, recipe.modelSeed);
    this.data.apply(recipe);
    for (const [name] of OPTION_FIELDS) if (name in recipe.options) this.#field(name).value = String(recipe.options[name]);
    this.#snapshotEverySet = false;
    this.#field('snapshotEvery').value = String(this.#defaultSnapshotEvery() ?? '');
  }

  #number(name) {
    return Number(this.#field(name).value);
  }

  /** Everything wrong with the settings, in the page's language. */
  problems() {
    const t = this.#t;
    const problems = this.model.useLoaded ? [] : this.model.problems();
    for (const [name, , { min, step }] of OPTION_FIELDS) {
      if (name === 'snapshotEvery' && !this.#ownSnapshotEvery()) continue; // the default
      if (step === 'any') {
        if (!(this.#number(name) > 0)) problems.push(t('train.badPositive', { name: t(`train.field.${name}`) }));
      } else {
        const problem = integerProblem(t, this.optionsForm, name, min);
        if (problem) problems.push(problem);
      }
    }
    return [...problems, ...this.data.problems()];
  }

  /** The trainer's hyperparameters (train_session.mjs DEFAULT_OPTIONS' names). */
  options() {
    const out = {};
    for (const [name] of OPTION_FIELDS) if (name !== 'snapshotEvery') out[name] = this.#number(name);
    return out;
  }

  /** Batches between snapshots: the learner's, else the run's default (null: the worker's, of the batches it counts). */
  get snapshotEvery() {
    return this.#ownSnapshotEvery() ? this.#number('snapshotEvery') : this.#defaultSnapshotEvery();
  }

  #ownSnapshotEvery() {
    return this.#snapshotEverySet && this.#field('snapshotEvery').value.trim() !== '';
  }

  set open(open) {
    this.element.open = open;
  }

  /** state: the page's store state; editable: no run is going; fmt(x, digits). */
  render({ state, editable, fmt }) {
    for (const input of this.element.querySelectorAll('input, select, textarea')) input.disabled = !editable;
    if (!this.#snapshotEverySet) this.#field('snapshotEvery').value = String(this.#defaultSnapshotEvery() ?? '');
    this.model.render(state);
    this.data.render(fmt, this.options());
  }
}
