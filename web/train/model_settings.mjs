// The Train panel's model settings: a new MiniMind of a chosen shape and
// seed, or the playground's loaded model trained on. Reads and checks the
// shape (the core checks the rest when it builds). The defaults are the
// panel's first run's (js/train_recipes.mjs TRAIN_RECIPES.default).
import { TRAIN_RECIPES } from '../../js/train_recipes.mjs';
import { make, numberField } from './dom.mjs';

const { config: DEFAULT_CONFIG, modelSeed: DEFAULT_MODEL_SEED } = TRAIN_RECIPES.default;

// [name, default, {min, max, step}] in the order shown.
const MODEL_FIELDS = [
  ['num_hidden_layers', DEFAULT_CONFIG.num_hidden_layers, { min: 1, max: 8, step: 1 }],
  ['hidden_size', DEFAULT_CONFIG.hidden_size, { min: 8, max: 512, step: 8 }],
  ['num_attention_heads', DEFAULT_CONFIG.num_attention_heads, { min: 1, max: 16, step: 1 }],
  ['num_key_value_heads', DEFAULT_CONFIG.num_key_value_heads, { min: 1, max: 16, step: 1 }],
  ['model_seed', DEFAULT_MODEL_SEED, { min: 0, max: 2 ** 31, step: 1 }],
];

/** The problem of an integer field below `min` (or not an integer) in the page's language, or null. */
export function integerProblem(t, form, name, min) {
  const v = Number(form.querySelector(`[name="${name}"]`).value);
  return !Number.isSafeInteger(v) || v < min ? t('train.badInteger', { name: t(`train.field.${name}`), min }) : null;
}

export class ModelSettings {
  #t;

  /** t(key, params): the page's messages; onChange(): a field changed. */
  constructor({ t, onChange }) {
    this.#t = t;
    this.form = make('div', { class: 'train-grid' }, ...MODEL_FIELDS.map(([n, v, l]) => numberField(n, v, l)));
    this.newModel = make('input', { type: 'radio', name: 'train-model', value: 'new', checked: true });
    this.loaded = make('input', { type: 'radio', name: 'train-model', value: 'loaded' });
    this.loadedName = make('span', { class: 'train-loaded-name' });
    this.status = make('p', { class: 'train-config-status hint small', role: 'status' });
    this.element = make(
      'fieldset',
      {},
      make('legend', { i18n: 'train.model' }),
      make('label', { class: 'check' }, this.newModel, make('span', { i18n: 'train.modelNew' })),
      this.form,
      this.status,
      make('label', { class: 'check' }, this.loaded, make('span', { i18n: 'train.modelLoaded' }), this.loadedName),
    );
    this.newModel.addEventListener('change', onChange);
    this.loaded.addEventListener('change', onChange);
    this.form.addEventListener('input', onChange);
  }

  /** The loaded model is the one to train on. */
  get useLoaded() {
    return this.loaded.checked;
  }

  #number(name) {
    return Number(this.form.querySelector(`[name="${name}"]`).value);
  }

  get seed() {
    return this.#number('model_seed');
  }

  /** A new model of `config`'s shape (config.json keys) from `seed`. */
  apply(config, seed) {
    this.newModel.checked = true;
    for (const [name] of MODEL_FIELDS)
      this.form.querySelector(`[name="${name}"]`).value = String(name === 'model_seed' ? seed : config[name]);
  }

  /** The new model's config.json fields. */
  config() {
    const config = { vocab_size: DEFAULT_CONFIG.vocab_size };
    for (const [name] of MODEL_FIELDS) if (name !== 'model_seed') config[name] = this.#number(name);
    return config;
  }

  /** What is wrong with the new model's shape, in the page's language. */
  problems() {
    const t = this.#t;
    const problems = MODEL_FIELDS.map(([name, , { min }]) => integerProblem(t, this.form, name, min)).filter(Boolean);
    if (problems.length) return problems;
    const c = this.config();
    if (c.hidden_size % c.num_attention_heads !== 0)
      problems.push(t('train.badHeads', { hidden: c.hidden_size, heads: c.num_attention_heads }));
    else if ((c.hidden_size / c.num_attention_heads) % 2 !== 0)
      problems.push(t('train.badHeadDim', { dim: c.hidden_size / c.num_attention_heads }));
    if (c.num_attention_heads % c.num_key_value_heads !== 0)
      problems.push(t('train.badKv', { heads: c.num_attention_heads, kv: c.num_key_value_heads }));
    return problems;
  }

  /** Draws the loaded model's name and the new shape's status; state: the page's store state. */
  render(state) {
    const t = this.#t;
    const loadedName = state.files?.name ?? (state.preset === 'minimind-demo' ? t('model.trainedName') : state.preset);
    this.loadedName.textContent = state.model.info
      ? t('train.loadedName', { name: loadedName, layers: state.model.info.num_hidden_layers, hidden: state.model.info.hidden_size })
      : '';
    this.form.hidden = !this.newModel.checked;
    this.status.hidden = !this.newModel.checked;
    if (!this.newModel.checked) return;
    const c = this.config();
    const problems = this.problems();
    this.status.textContent = problems.length
      ? problems.join(' ')
      : t('train.configShape', {
          headDim: c.hidden_size / c.num_attention_heads,
          rep: c.num_attention_heads / c.num_key_value_heads,
          vocab: c.vocab_size,
        });
    this.status.classList.toggle('error', problems.length > 0);
  }
}
