// The <minimind-exercise> element's controls besides the answer: the text,
// the layer and head, the row and the cell's key, the stage and the switches,
// the heads to switch off, the Train panel's settings. Each change calls
// set(patch) with the element's screen fields it changes.
import { make } from '../panels/make_element.mjs';

const TRAIN_FIELDS = ['batches', 'batchSize', 'maxSeqLen'];
const STAGES = ['scores_raw', 'attn_weights'];

/** Builds the controls of `wanted` into `box`; t(key, params), info: the model's, state: the element's screen. */
export function buildControls(box, { t, info, state, wanted, set }) {
  box.replaceChildren();
  const labelled = (key) => {
    const label = make('label', null, box);
    make('span', null, label, t(key));
    return label;
  };
  const select = (key, field, options) => {
    const control = make('select', null, labelled(key));
    control.name = field;
    for (const [value, text] of options) make('option', null, control, text).value = String(value);
    control.addEventListener('change', () =>
      set({ [field]: field === 'stage' ? control.value : Number(control.value), ...(field === 'row' ? { key: null } : {}) }),
    );
    return control;
  };
  const range = (n) => Array.from({ length: n }, (_, k) => k);
  if (wanted.includes('text')) {
    const input = make('input', null, labelled('exercise.el.text'));
    input.type = 'text';
    input.name = 'text';
    input.value = state.text;
    input.addEventListener('change', () => set({ text: input.value, row: null, key: null }));
  }
  if (wanted.includes('layer'))
    select(
      'exercise.el.layer',
      'layer',
      range(info.num_hidden_layers).map((l) => [l, `L${l}`]),
    );
  if (wanted.includes('head'))
    select(
      'exercise.el.head',
      'head',
      range(info.num_attention_heads).map((h) => [h, `h${h}`]),
    );
  if (wanted.includes('row')) select('exercise.el.row', 'row', []);
  if (wanted.includes('key')) select('exercise.el.key', 'key', []);
  if (wanted.includes('stage'))
    select(
      'exercise.el.show',
      'stage',
      STAGES.map((s) => [s, t(`exercise.el.stage.${s}`)]),
    );
  for (const flag of ['causal', 'scale'].filter((f) => wanted.includes(f))) {
    const label = make('label', null, box);
    const input = make('input', null, label);
    input.type = 'checkbox';
    input.name = flag;
    input.checked = state[flag];
    make('span', null, label, t(`exercise.el.${flag}`));
    input.addEventListener('change', () => set({ [flag]: input.checked }));
  }
  if (wanted.includes('ablate')) {
    const group = make('span', 'ex-ablate', labelled('exercise.el.off'));
    for (const layer of range(info.num_hidden_layers))
      for (const head of range(info.num_attention_heads)) {
        const label = make('label', null, group);
        const input = make('input', null, label);
        input.type = 'checkbox';
        input.name = 'ablate';
        input.value = `${layer}:${head}`;
        make('span', null, label, `L${layer}H${head}`);
        input.addEventListener('change', () => {
          const ablate = [...group.querySelectorAll('input:checked')].map((box) => box.value.split(':').map(Number));
          set({ ablate });
        });
      }
  }
  if (wanted.includes('train'))
    for (const field of TRAIN_FIELDS) {
      const input = make('input', null, labelled(`exercise.el.${field}`));
      input.type = 'number';
      input.min = '1';
      input.name = field;
      input.value = String(state.train[field]);
      input.addEventListener('change', () => set({ train: { ...state.train, [field]: Number(input.value) } }));
    }
}

// The selects' values and the row/key options follow the screen (the text's tokens).
export function syncControls(box, state, screen) {
  for (const field of ['row', 'key']) {
    const control = box.querySelector(`select[name="${field}"]`);
    if (!control) continue;
    const options = screen.labels.map((label, j) => `${j} ${label}`);
    if (control.dataset.options !== JSON.stringify(options)) {
      control.replaceChildren(
        ...options.map((text, j) => Object.assign(document.createElement('option'), { value: String(j), textContent: text })),
      );
      control.dataset.options = JSON.stringify(options);
    }
  }
  for (const field of ['layer', 'head', 'row', 'key', 'stage']) {
    const control = box.querySelector(`select[name="${field}"]`);
    if (control) control.value = String(state[field]);
  }
}
