// The model panel: the model selector (the trained model, then the presets'
// random weights), the seed, the config editor with the shapes it implies
// and its problems, and the model's status with the build progress.
import { DEMO } from '../demo_model.mjs';
import { errorMessage } from '../error_text.mjs';
import { modelName } from '../model_names.mjs';
import { DEFAULTS } from '../url_state.mjs';

const PRESETS = ['lab-a', 'lab-b', 'minimind2-small', 'minimind2', 'minimind-3', 'minimind-3-moe'];
// The selector: the trained model first (the default), then the presets' random weights.
const MODELS = [DEMO, ...PRESETS];
// The selector's entry of a model trained in the Train panel, while it is the model in use.
const TRAINED_HERE = 'trained-here';
const CONFIG_FIELDS = [
  'num_hidden_layers',
  'hidden_size',
  'num_attention_heads',
  'num_key_value_heads',
  'head_dim',
  'intermediate_size',
  'rope_theta',
];

/** loading: the model loading state (model_loading.mjs); input: the input panel ({currentTokens}). */
export function setupModelPanel({ store, t, $, client, loading, input }) {
  function renderModelPanel() {
    const s = store.get();
    const presetSelect = $('preset');
    if (presetSelect.options.length === 0) {
      for (const name of MODELS) presetSelect.append(new Option(name, name));
      presetSelect.append(new Option(t('model.custom'), 'custom'));
    }
    // Random weights say so: only the trained model has learned anything.
    for (const option of presetSelect.options) {
      option.textContent =
        option.value === 'custom'
          ? t('model.custom')
          : option.value === DEMO
            ? t('model.trainedName')
            : t('model.untrainedName', { name: option.value });
    }
    // A model trained in the page is named by its batch, first in the list, while it is loaded.
    const trainedHere = s.files?.trained ?? null;
    let own = presetSelect.querySelector(`option[value="${TRAINED_HERE}"]`);
    if (trainedHere && !own) presetSelect.prepend((own = new Option('', TRAINED_HERE)));
    if (!trainedHere && own) own.remove();
    if (trainedHere) own.textContent = t('model.yourModel', { step: trainedHere.step.toLocaleString(s.lang) });
    presetSelect.value = trainedHere ? TRAINED_HERE : s.config ? 'custom' : s.preset;
    $('seed').value = String(s.seed);
    const trained = s.preset === DEMO && !s.files;
    $('seed').disabled = trained; // the trained weights have no seed
    for (const field of $('config-form').elements) field.disabled = trained;
    $('config-trained').hidden = !trained;
    const progress = $('build-progress');
    progress.hidden = s.model.status !== 'building';
    progress.value = s.model.fraction;
    const name = modelName(s, t);
    const info = s.model.info;
    $('model-status').textContent =
      s.model.status === 'building'
        ? t(trained ? 'model.downloading' : 'model.building', { name, percent: Math.round(s.model.fraction * 100) })
        : s.model.status === 'error'
          ? t('model.error', { message: s.model.error })
          : info
            ? t(trainedHere ? 'model.readyTrainedHere' : s.files ? 'model.readyFiles' : trained ? 'model.readyTrained' : 'model.ready', {
                name,
                params: info.parameters.toLocaleString(s.lang),
                layers: info.num_hidden_layers,
                heads: info.num_attention_heads,
                seed: s.seed,
                step: trainedHere?.step.toLocaleString(s.lang),
              })
            : t('status.loadingModule');
    // How many threads compute, and why only one where the page is not isolated.
    const runtime = info && s.model.status === 'ready' ? s.runtime : null;
    // And with which instructions: fused multiply-adds where the browser has relaxed SIMD.
    $('model-threads').textContent = runtime
      ? t('model.runtime', {
          threads: t(runtime.threads > 1 ? 'model.threads' : runtime.isolated ? 'model.oneThread' : 'model.oneThreadNotIsolated', {
            threads: runtime.threads,
          }),
          // The SIMD build where the relaxed one was asked for says why (its reason, translated).
          build: runtime.fallback
            ? t('model.buildFallback', { reason: t(`model.fallback.${runtime.fallback.reason}`) })
            : t(runtime.variant?.startsWith('relaxed') ? 'model.buildRelaxed' : 'model.buildSimd'),
        })
      : '';
    $('model-threads').dataset.variant = runtime?.variant ?? '';
    $('model-threads').dataset.fallback = runtime?.fallback?.reason ?? '';
    $('model-status').classList.toggle('error', s.model.status === 'error');
  }

  function configDraft() {
    const form = $('config-form');
    const draft = {};
    for (const name of CONFIG_FIELDS) {
      const text = form.elements[name].value.trim();
      draft[name] = text === '' ? null : Number(text); // null: derive it (head_dim = hidden / heads)
    }
    draft.use_qk_norm = form.elements.use_qk_norm.checked;
    return draft;
  }

  function fillConfigForm(info) {
    const form = $('config-form');
    for (const name of CONFIG_FIELDS) {
      if (document.activeElement === form.elements[name]) continue;
      const derivedHeadDim =
        name === 'head_dim' && info.head_dim * info.num_attention_heads === info.hidden_size && !store.get().config?.head_dim;
      form.elements[name].value = derivedHeadDim ? '' : String(info[name]);
    }
    form.elements.use_qk_norm.checked = info.use_qk_norm;
  }

  let derivedShown = []; // [info, described, T, lang] last drawn: a new result of the same length changes nothing
  function renderDerived() {
    const s = store.get();
    const info = s.described?.info ?? s.model.info;
    const T = info ? (s.result?.T ?? input.currentTokens().ids?.length ?? 0) : 0;
    const shownNow = [info, s.described, T, s.lang];
    if (shownNow.every((value, k) => value === derivedShown[k])) return;
    derivedShown = shownNow;
    const dl = $('derived');
    dl.replaceChildren();
    if (info) {
      const d = info.derived;
      const H = info.num_attention_heads;
      const rows = [
        [t('derived.headDim'), String(d.head_dim)],
        [t('derived.rep'), `${H} / ${info.num_key_value_heads} = ${d.n_rep}`],
        ['q_proj(x)', `(1, ${T}, ${d.q_proj[0]})`],
        ['k_proj(x)', `(1, ${T}, ${d.k_proj[0]})`],
        ['v_proj(x)', `(1, ${T}, ${d.v_proj[0]})`],
        ['xq', `(1, ${T}, ${H}, ${d.head_dim})`],
        ['xk after repeat_kv', `(1, ${T}, ${H}, ${d.head_dim})`],
        [t('derived.scores'), `(1, ${H}, ${T}, ${T})`],
      ];
      for (const [term, value] of rows) {
        const dt = document.createElement('dt');
        dt.textContent = term;
        const dd = document.createElement('dd');
        dd.textContent = value;
        dl.append(dt, dd);
      }
    }
    const problems = s.described?.problems ?? [];
    const box = $('config-problems');
    box.replaceChildren();
    if (s.described) {
      const heading = document.createElement('p');
      heading.className = problems.length ? 'error' : 'ok';
      heading.textContent = problems.length ? t('config.problems') : t('config.ok');
      box.append(heading);
      if (problems.length) {
        const list = document.createElement('ul');
        list.className = 'problems';
        for (const p of problems) {
          const item = document.createElement('li');
          item.textContent = errorMessage(s.lang, p); // worded when drawn: it follows a language switch
          list.append(item);
        }
        box.append(list);
      }
    }
    $('config-apply').disabled = problems.length > 0;
  }

  // The worker's check of a config draft: the shapes it implies, or its problems.
  function described({ info, problems }) {
    store.set({ described: { info, problems } });
  }

  function describeFailed(message) {
    store.set({ described: { info: null, problems: [message] } });
  }

  store.subscribe((state, changed) => {
    if (['model', 'preset', 'seed', 'config', 'lang', 'files', 'runtime'].some((k) => changed.has(k))) renderModelPanel();
    if (changed.has('model') && state.model.info && !state.described) fillConfigForm(state.model.info);
    if (['model', 'described', 'result', 'lang', 'text'].some((k) => changed.has(k))) renderDerived();
  });

  $('preset').addEventListener('change', (event) => {
    if (event.target.value === TRAINED_HERE) return; // the model in use
    if (event.target.value === 'custom') {
      $('config').open = true;
      return;
    }
    loading.choose({ preset: event.target.value, config: null });
  });
  $('seed').addEventListener('change', (event) => {
    const seed = Number(event.target.value);
    if (!Number.isSafeInteger(seed) || seed < 0) {
      event.target.value = String(store.get().seed);
      return;
    }
    store.set({ seed });
    loading.load();
  });
  $('config-form').addEventListener('input', () => store.get().preset !== DEMO && client.describe(store.get().preset, configDraft()));
  $('config-form').addEventListener('submit', (event) => {
    event.preventDefault();
    if (store.get().described?.problems?.length) return;
    store.set({ config: configDraft(), row: null });
    loading.load();
  });
  $('config-reset').addEventListener('click', () => {
    store.set({ config: null, described: null });
    loading.load();
  });

  // A preset the page does not know (an old or mistyped URL) is the default.
  if (!MODELS.includes(store.get().preset)) store.set({ preset: DEFAULTS.preset });
  renderModelPanel();
  // A config from the URL is checked as a draft would be.
  if (store.get().config) client.describe(store.get().preset, store.get().config);
  return { described, describeFailed };
}
