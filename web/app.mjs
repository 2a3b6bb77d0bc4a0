// The playground page: one store, views redrawn from it, compute in a worker.
import { applyTranslations, browserLanguage, translate } from './i18n.mjs';
import { scaleFor } from './colors.mjs';
import { canvasPng, download, matrixCsv, matrixJson } from './export.mjs';
import { ModelClient } from './model_client.mjs';
import { createStore } from './store.mjs';
import { tokenize } from './tokenize.mjs';
import { DEFAULTS, STAGES, readUrlState, writeUrlState } from './url_state.mjs';
import { renderChips } from './views/chips.mjs';
import { HeatmapView } from './views/heatmap.mjs';
import { renderLegend } from './views/legend.mjs';
import { renderMatrixTable } from './views/matrix_table.mjs';
import { renderOverview } from './views/overview.mjs';
import { renderRowExplanation } from './views/row_explanation.mjs';

export const MAX_TOKENS = 128;
const PRESETS = ['lab-a', 'lab-b', 'minimind2-small', 'minimind2', 'minimind-3', 'minimind-3-moe'];
const CONFIG_FIELDS = [
  'num_hidden_layers',
  'hidden_size',
  'num_attention_heads',
  'num_key_value_heads',
  'head_dim',
  'intermediate_size',
  'rope_theta',
];
// Typing waits only when a forward is slow: a model that answers in a few
// milliseconds redraws on every keystroke (the worker drops stale requests).
const SLOW_FORWARD_MS = 8;
const MAX_TYPING_DEBOUNCE_MS = 150;
let lastComputeMs = 0;

const $ = (id) => document.getElementById(id);
const initial = readUrlState(location.search);
const store = createStore({
  ...initial,
  lang: initial.lang ?? browserLanguage(),
  model: { status: 'loading', fraction: 0, info: null, error: null },
  result: null, // {tokens, ids, entries, T}
  computeError: null,
  described: null, // {info, problems} of the config draft
});
const t = (key, params) => translate(store.get().lang, key, params);

// ---------------------------------------------------------------- worker

let inputTime = null; // when the newest keystroke happened, for the timing marks
let requestTokens = []; // tokens of the newest forward request
let firstMatrixDrawn = false;

const client = new ModelClient(new URL('./worker.js', import.meta.url), {
  onProgress: ({ fraction }) => store.set({ model: { ...store.get().model, status: 'building', fraction } }),
  onLoaded: ({ info }) => {
    const s = store.get();
    store.set({
      model: { status: 'ready', fraction: 1, info, error: null },
      layer: Math.min(s.layer, info.num_hidden_layers - 1),
      head: Math.min(s.head, info.num_attention_heads - 1),
    });
    compute();
  },
  onResult: ({ ids, entries, computeMs }) => {
    lastComputeMs = computeMs;
    const list = Object.assign(entries, { get: (layer, stage) => entries.find((e) => e.layer === layer && e.stage === stage) });
    store.set({ result: { tokens: requestTokens, ids, entries: list, T: ids.length, computeMs }, computeError: null });
  },
  onDescribed: ({ info, problems }) => store.set({ described: { info, problems } }),
  onError: ({ request, message }) => {
    if (request === 'load' || request === 'worker')
      store.set({ model: { status: 'error', fraction: 0, info: store.get().model.info, error: message } });
    else if (request === 'describe') store.set({ described: { info: null, problems: [message] } });
    else store.set({ computeError: message });
  },
});

function loadModel() {
  const { preset, seed, config } = store.get();
  store.set({ model: { status: 'building', fraction: 0, info: null, error: null }, result: null });
  client.load({ preset, seed, config });
}

function currentTokens() {
  const { text, model } = store.get();
  return model.info ? tokenize(text, model.info.vocab_size, MAX_TOKENS) : { tokens: [], ids: [], dropped: 0 };
}

function compute() {
  const { model, causal, scale } = store.get();
  if (!model.info) return;
  const { tokens, ids } = currentTokens();
  if (ids.length === 0) {
    store.set({ result: null });
    return;
  }
  requestTokens = tokens;
  client.forward(ids, { causal, scale });
}

let computeTimer = null;
function computeSoon() {
  clearTimeout(computeTimer);
  if (lastComputeMs < SLOW_FORWARD_MS) compute();
  else computeTimer = setTimeout(compute, Math.min(MAX_TYPING_DEBOUNCE_MS, lastComputeMs));
}

// ---------------------------------------------------------------- views

const heatmap = new HeatmapView($('heatmap'), {
  onCellFocus: (cell) => renderCellInfo(cell),
  onRowSelect: (row) => store.set({ row: store.get().row === row ? null : row }),
});

function isMasked(stage, causal) {
  // The causal mask hides keys after the query from "+ mask" on.
  return (i, j) => causal && j > i && (stage === 'scores_masked' || stage === 'attn_weights');
}

function headMatrix(entry, head, T) {
  return entry.data.subarray(head * T * T, (head + 1) * T * T); // entry: [1, H, T, T]
}

function renderCellInfo(cell) {
  const s = store.get();
  if (!cell || !s.result) {
    $('cell-info').textContent = '';
    return;
  }
  const { tokens, entries, T } = s.result;
  const value = (stage) => headMatrix(entries.get(s.layer, stage), s.head, T)[cell.i * T + cell.j];
  const params = { query: tokens[cell.i], key: tokens[cell.j] };
  $('cell-info').textContent = isMasked('attn_weights', s.causal)(cell.i, cell.j)
    ? t('matrix.cellMasked', params)
    : t('matrix.cell', {
        ...params,
        raw: value('scores_raw').toFixed(3),
        scaled: value('scores_scaled').toFixed(3),
        weight: value('attn_weights').toFixed(3),
      });
}

function renderStatic() {
  const { lang } = store.get();
  document.documentElement.lang = lang;
  applyTranslations(document, lang);
  $('lang').value = lang;
  document.title = `${t('app.title')} · MiniMind`;
}

function renderInput() {
  const s = store.get();
  if ($('text').value !== s.text) $('text').value = s.text;
  const { tokens, ids, dropped } = currentTokens();
  renderChips($('chips'), tokens, ids);
  const message = !s.model.info
    ? ''
    : tokens.length === 0
      ? t('input.empty')
      : dropped > 0
        ? t('input.dropped', { max: MAX_TOKENS, dropped })
        : '';
  $('input-message').textContent = message;
}

function renderModelPanel() {
  const s = store.get();
  const presetSelect = $('preset');
  if (presetSelect.options.length === 0) {
    for (const name of PRESETS) presetSelect.append(new Option(name, name));
    presetSelect.append(new Option(t('model.custom'), 'custom'));
  }
  presetSelect.options[presetSelect.options.length - 1].textContent = t('model.custom');
  presetSelect.value = s.config ? 'custom' : s.preset;
  $('seed').value = String(s.seed);
  const progress = $('build-progress');
  progress.hidden = s.model.status !== 'building';
  progress.value = s.model.fraction;
  const name = s.config ? `${s.preset} + ${t('model.custom')}` : s.preset;
  const info = s.model.info;
  $('model-status').textContent =
    s.model.status === 'building'
      ? t('model.building', { name, percent: Math.round(s.model.fraction * 100) })
      : s.model.status === 'error'
        ? t('model.error', { message: s.model.error })
        : info
          ? t('model.ready', {
              name,
              params: info.parameters.toLocaleString(s.lang),
              layers: info.num_hidden_layers,
              heads: info.num_attention_heads,
              seed: s.seed,
            })
          : t('status.loadingModule');
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

function renderDerived() {
  const s = store.get();
  const info = s.described?.info ?? s.model.info;
  const dl = $('derived');
  dl.replaceChildren();
  if (info) {
    const T = s.result?.T ?? currentTokens().ids.length;
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
        item.textContent = p;
        list.append(item);
      }
      box.append(list);
    }
  }
  $('config-apply').disabled = problems.length > 0;
}

function renderSelectors() {
  const s = store.get();
  const info = s.model.info;
  const fill = (select, count, value) => {
    if (select.options.length !== count)
      select.replaceChildren(...Array.from({ length: count }, (_, k) => new Option(String(k), String(k))));
    select.value = String(value);
  };
  fill($('layer'), info?.num_hidden_layers ?? 1, s.layer);
  fill($('head'), info?.num_attention_heads ?? 1, s.head);
  for (const button of document.querySelectorAll('[data-stage]')) {
    const on = button.dataset.stage === s.stage;
    button.setAttribute('aria-checked', String(on));
    button.tabIndex = on ? 0 : -1;
  }
  $('causal').checked = s.causal;
  $('scale').checked = s.scale;
}

function renderMatrix() {
  const s = store.get();
  const info = s.model.info;
  const result = s.result;
  $('compute-message').hidden = !s.computeError;
  $('compute-message').textContent = s.computeError ? t('error.compute', { message: s.computeError }) : '';
  if (!info || !result) {
    $('view-title').textContent = '';
    $('stage-caption').textContent = '';
    return;
  }
  const { tokens, entries, T } = result;
  const H = info.num_attention_heads;
  const Hkv = info.num_key_value_heads;
  const Dh = info.head_dim;
  const entry = entries.get(s.layer, s.stage);
  const values = headMatrix(entry, s.head, T);
  const masked = isMasked(s.stage, s.causal);
  const scale = scaleFor(s.stage, values);
  const kv = Math.floor(s.head / (H / Hkv));
  $('view-title').textContent = t('view.title', {
    layer: s.layer,
    head: s.head,
    kvNote: t('view.kvHead', { kv }),
    stage: t(`stage.${s.stage}`),
  });
  $('stage-caption').textContent = t(`stage.caption.${s.stage}`, { H, T, Dh, Hkv, sqrtD: Math.sqrt(Dh).toFixed(3) });
  heatmap.render({ tokens, values, masked, scale, decimals: s.stage === 'attn_weights' ? 2 : 1, selectedRow: s.row });
  renderLegend($('legend'), {
    scale,
    stage: s.stage,
    maskedLabel: t('matrix.masked'),
    showMasked: s.causal && s.stage !== 'scores_raw' && s.stage !== 'scores_scaled',
  });
  renderMatrixTable($('matrix-table'), {
    caption: t('matrix.tableCaption', { layer: s.layer, head: s.head, stage: t(`stage.${s.stage}`) }),
    tokens,
    values,
    masked,
    maskedText: s.stage === 'attn_weights' ? `0.000 (${t('matrix.masked')})` : `−∞ (${t('matrix.masked')})`,
    queryLabel: `${t('matrix.query')} \\ ${t('matrix.key')}`,
  });
  const weights = headMatrix(entries.get(s.layer, 'attn_weights'), s.head, T);
  renderRowExplanation($('row-explanation'), { tokens, weights, row: s.row, t });
  renderToggleNote(weights, T, Dh);
  renderOverview($('overview'), {
    entries,
    layers: info.num_hidden_layers,
    heads: H,
    kvHeads: Hkv,
    T,
    stage: s.stage,
    masked,
    current: { layer: s.layer, head: s.head },
    t,
    onOpen: (layer, head) => store.set({ layer, head }),
  });
  markTimings();
}

function renderToggleNote(weights, T, Dh) {
  const s = store.get();
  const notes = [];
  if (!s.causal) {
    let future = 0;
    for (let i = 0; i < T; i += 1) for (let j = i + 1; j < T; j += 1) future += weights[i * T + j];
    notes.push(t('toggles.causalOff', { percent: ((100 * future) / T).toFixed(1) }));
  }
  if (!s.scale) {
    let peak = 0;
    for (let i = 0; i < T; i += 1) peak += Math.max(...weights.subarray(i * T, (i + 1) * T)) / T;
    notes.push(t('toggles.scaleOff', { factor: Math.sqrt(Dh).toFixed(1), peak: peak.toFixed(2) }));
  }
  $('toggle-note').textContent = notes.join(' ');
}

function markTimings() {
  const now = performance.now();
  if (!firstMatrixDrawn) {
    firstMatrixDrawn = true;
    performance.mark('minimind:first-matrix');
  }
  if (inputTime !== null) {
    performance.measure('minimind:keystroke-to-redraw', { start: inputTime, end: now });
    inputTime = null;
  }
  document.body.dataset.ready = 'true';
}

// ---------------------------------------------------------------- state -> views

const SHAREABLE = ['text', 'preset', 'seed', 'config', 'layer', 'head', 'stage', 'causal', 'scale', 'row', 'lang'];

store.subscribe((state, changed) => {
  if (changed.has('lang')) renderStatic();
  if (SHAREABLE.some((k) => changed.has(k))) history.replaceState(null, '', `${location.pathname}${writeUrlState(state)}${location.hash}`);
  if (['text', 'model', 'lang'].some((k) => changed.has(k))) renderInput();
  if (['model', 'preset', 'seed', 'config', 'lang'].some((k) => changed.has(k))) renderModelPanel();
  if (changed.has('model') && state.model.info && !state.described) fillConfigForm(state.model.info);
  if (['model', 'described', 'result', 'lang', 'text'].some((k) => changed.has(k))) renderDerived();
  if (['model', 'layer', 'head', 'stage', 'causal', 'scale'].some((k) => changed.has(k))) renderSelectors();
  if (['result', 'layer', 'head', 'stage', 'row', 'lang', 'computeError', 'model'].some((k) => changed.has(k))) renderMatrix();
});

// ---------------------------------------------------------------- events

$('text').addEventListener('input', (event) => {
  inputTime = performance.now();
  store.set({ text: event.target.value, row: null });
  computeSoon();
});
$('lang').addEventListener('change', (event) => store.set({ lang: event.target.value }));
$('preset').addEventListener('change', (event) => {
  if (event.target.value === 'custom') {
    $('config').open = true;
    return;
  }
  store.set({ preset: event.target.value, config: null, described: null, layer: 0, head: 0, row: null });
  loadModel();
});
$('seed').addEventListener('change', (event) => {
  const seed = Number(event.target.value);
  if (!Number.isSafeInteger(seed) || seed < 0) {
    event.target.value = String(store.get().seed);
    return;
  }
  store.set({ seed });
  loadModel();
});
$('config-form').addEventListener('input', () => client.describe(store.get().preset, configDraft()));
$('config-form').addEventListener('submit', (event) => {
  event.preventDefault();
  if (store.get().described?.problems?.length) return;
  store.set({ config: configDraft(), row: null });
  loadModel();
});
$('config-reset').addEventListener('click', () => {
  store.set({ config: null, described: null });
  loadModel();
});
$('layer').addEventListener('change', (event) => store.set({ layer: Number(event.target.value) }));
$('head').addEventListener('change', (event) => store.set({ head: Number(event.target.value) }));
for (const button of document.querySelectorAll('[data-stage]')) {
  button.addEventListener('click', () => store.set({ stage: button.dataset.stage }));
  button.addEventListener('keydown', (event) => {
    const step = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 }[event.key];
    if (!step) return;
    const next = STAGES[(STAGES.indexOf(store.get().stage) + step + STAGES.length) % STAGES.length];
    store.set({ stage: next });
    document.querySelector(`[data-stage="${next}"]`).focus();
    event.preventDefault();
  });
}
$('causal').addEventListener('change', (event) => {
  store.set({ causal: event.target.checked });
  compute();
});
$('scale').addEventListener('change', (event) => {
  store.set({ scale: event.target.checked });
  compute();
});

function exportBase() {
  const s = store.get();
  return `minimind-${s.config ? 'custom' : s.preset}-L${s.layer}-H${s.head}-${s.stage}`;
}
function exportMatrix() {
  const s = store.get();
  const { tokens, ids, entries, T } = s.result;
  return {
    tokens,
    ids,
    values: headMatrix(entries.get(s.layer, s.stage), s.head, T),
    layer: s.layer,
    head: s.head,
    stage: s.stage,
    model: s.config ? { preset: s.preset, config: s.config } : { preset: s.preset, seed: s.seed },
  };
}
$('export-png').addEventListener('click', async () => {
  if (store.get().result) download(`${exportBase()}.png`, await canvasPng(heatmap.canvas));
});
$('export-csv').addEventListener('click', () => {
  if (store.get().result) download(`${exportBase()}.csv`, new Blob([matrixCsv(exportMatrix())], { type: 'text/csv' }));
});
$('export-json').addEventListener('click', () => {
  if (store.get().result) download(`${exportBase()}.json`, new Blob([matrixJson(exportMatrix())], { type: 'application/json' }));
});
window.addEventListener('resize', () => renderMatrix());

// ---------------------------------------------------------------- start

if (!PRESETS.includes(store.get().preset)) store.set({ preset: DEFAULTS.preset });
renderStatic();
renderInput();
renderModelPanel();
renderSelectors();
if (store.get().config) client.describe(store.get().preset, store.get().config);
loadModel();
