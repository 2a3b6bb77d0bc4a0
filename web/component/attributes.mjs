// The attributes of <minimind-attention> -> what to draw. Defaults are the
// page's (url_state.mjs), so a bare element shows what the playground shows
// first. A malformed attribute becomes a problem to display, never an
// exception: {key, params} for embedText().
import { DEFAULTS, STAGES } from '../url_state.mjs';

export const VIEWS = ['heatmap', 'table'];

export const ATTRIBUTES = [
  'text',
  'preset',
  'config',
  'seed',
  'layer',
  'head',
  'stage',
  'view',
  'lang',
  'height',
  'causal',
  'scale',
  'playground',
];

// "false", "0", "off" and "no" turn a switch off; absent or anything else keeps it on.
function flag(value) {
  return value === null || !/^(false|0|off|no)$/i.test(value.trim());
}

function lang(value, fallback) {
  if (value === null) return fallback;
  if (/^zh\b/i.test(value.trim())) return 'zh-CN';
  if (/^en\b/i.test(value.trim())) return 'en';
  return fallback;
}

/**
 * get(name) -> attribute value or null; browserLang: the language to follow
 * when `lang` is absent. Returns {spec, problems}.
 */
export function readAttributes(get, browserLang) {
  const problems = [];
  const integer = (name, fallback) => {
    const value = get(name);
    if (value === null || value.trim() === '') return fallback;
    if (/^\d+$/.test(value.trim()) && Number(value) <= Number.MAX_SAFE_INTEGER) return Number(value);
    problems.push({ key: 'embed.badInteger', params: { name, value } });
    return fallback;
  };
  const choice = (name, choices, fallback) => {
    const value = get(name);
    if (value === null || value.trim() === '') return fallback;
    if (choices.includes(value.trim())) return value.trim();
    problems.push({ key: 'embed.badChoice', params: { name, value, choices: choices.join(', ') } });
    return fallback;
  };

  let config = null;
  const configText = get('config');
  if (configText !== null && configText.trim() !== '') {
    try {
      config = JSON.parse(configText);
      if (!config || typeof config !== 'object' || Array.isArray(config)) {
        problems.push({ key: 'embed.configNotObject', params: {} });
        config = null;
      }
    } catch (error) {
      problems.push({ key: 'embed.badConfig', params: { message: error.message } });
    }
  }

  const spec = {
    text: get('text') ?? DEFAULTS.text,
    preset: get('preset')?.trim() || DEFAULTS.preset,
    config,
    seed: integer('seed', DEFAULTS.seed),
    layer: integer('layer', DEFAULTS.layer),
    head: integer('head', DEFAULTS.head),
    stage: choice('stage', STAGES, DEFAULTS.stage),
    view: choice('view', VIEWS, VIEWS[0]),
    lang: lang(get('lang'), browserLang),
    langGiven: lang(get('lang'), null) !== null,
    height: get('height')?.trim() || null,
    causal: flag(get('causal')),
    scale: flag(get('scale')),
    playground: get('playground')?.trim() || null,
  };
  if (spec.height !== null && globalThis.CSS?.supports && !CSS.supports('height', spec.height)) {
    problems.push({ key: 'embed.badHeight', params: { value: spec.height } });
    spec.height = null;
  }
  return { spec, problems };
}
