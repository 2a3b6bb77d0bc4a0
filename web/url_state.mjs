// The shareable part of the state <-> the URL's query string, so that any
// view can be sent as a link and restored exactly.
export const STAGES = ['scores_raw', 'scores_scaled', 'scores_masked', 'attn_weights'];

export const DEFAULTS = {
  text: '小明 把 苹果 给了 小红 ， 她 很 开心',
  inputMode: 'text', // 'text' or 'ids' (token ids typed directly)
  preset: 'lab-a',
  seed: 0,
  config: null, // config edits (Hugging Face keys) on top of the preset, or null
  layer: 0,
  head: 0,
  stage: 'attn_weights',
  causal: true,
  scale: true,
  row: null, // selected query row
  lang: null, // null: follow the browser
};

function integer(value, fallback, min = 0, max = 1 << 20) {
  if (value === null || !/^\d+$/.test(value)) return fallback;
  const n = Number(value);
  return n >= min && n <= max ? n : fallback;
}

/** State from a query string; unknown or malformed values fall back to defaults. */
export function readUrlState(search) {
  const q = new URLSearchParams(search);
  const state = { ...DEFAULTS };
  if (q.has('text')) state.text = q.get('text').slice(0, 10000);
  if (q.get('input') === 'ids') state.inputMode = 'ids';
  if (q.has('preset')) state.preset = q.get('preset');
  state.seed = integer(q.get('seed'), DEFAULTS.seed, 0, Number.MAX_SAFE_INTEGER);
  if (q.has('config')) {
    try {
      const parsed = JSON.parse(q.get('config'));
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) state.config = parsed;
    } catch {
      state.config = null;
    }
  }
  state.layer = integer(q.get('layer'), 0);
  state.head = integer(q.get('head'), 0);
  if (STAGES.includes(q.get('stage'))) state.stage = q.get('stage');
  state.causal = q.get('causal') !== '0';
  state.scale = q.get('scale') !== '0';
  state.row = q.has('row') ? integer(q.get('row'), null) : null;
  if (q.get('lang') === 'en' || q.get('lang') === 'zh-CN') state.lang = q.get('lang');
  return state;
}

/** Query string of the non-default parts of `state`. */
export function writeUrlState(state) {
  const q = new URLSearchParams();
  if (state.text !== DEFAULTS.text) q.set('text', state.text);
  if (state.inputMode !== DEFAULTS.inputMode) q.set('input', state.inputMode);
  if (state.preset !== DEFAULTS.preset) q.set('preset', state.preset);
  if (state.seed !== DEFAULTS.seed) q.set('seed', String(state.seed));
  if (state.config) q.set('config', JSON.stringify(state.config));
  if (state.layer) q.set('layer', String(state.layer));
  if (state.head) q.set('head', String(state.head));
  if (state.stage !== DEFAULTS.stage) q.set('stage', state.stage);
  if (!state.causal) q.set('causal', '0');
  if (!state.scale) q.set('scale', '0');
  if (state.row !== null) q.set('row', String(state.row));
  if (state.lang) q.set('lang', state.lang);
  const text = q.toString();
  return text ? `?${text}` : '';
}
