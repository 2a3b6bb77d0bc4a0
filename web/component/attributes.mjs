// The attributes of <minimind-attention> -> what to draw. Defaults are the
// page's (url_state.mjs), so a bare element shows what the playground shows
// first. A malformed attribute becomes a problem to display, never an
// exception: {key, params, detail?} for embedText(), detail the raw words
// shown under "details".
// view="lesson" is lesson 2.5's hand computation (an `example` of
// lesson_examples.mjs and/or typed q, k, v or scores); view="lab" is lesson
// 11's lab record (preset lab-a or lab-b).
import { DEMO } from '../demo_model.mjs';
import { EXAMPLE_IDS, LESSON_STAGES, exampleById, exampleLesson } from '../lesson_examples.mjs';
import { DEFAULTS, LABS, STAGES } from '../url_state.mjs';

const VIEWS = ['heatmap', 'table', 'lesson', 'lab'];
// The lesson view's typed matrices; any of them without `view` means view="lesson".
const LESSON_TEXTS = ['q', 'k', 'v', 'scores'];
// The model's stage names stand for the lesson's steps too.
const LESSON_STAGE_OF = { scores_raw: 'raw', scores_scaled: 'scaled', scores_masked: 'masked', attn_weights: 'weights' };
const EMPTY_LESSON = { example: null, kind: 'qkv', q: '', k: '', v: '', scores: '', labels: '', decimals: 4 };

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
  'example',
  ...LESSON_TEXTS,
  'labels',
  'decimals',
];

// "false", "0", "off" and "no" turn a switch off; anything else turns it on;
// absent: `fallback` (on, or what the lesson's example uses).
function flag(value, fallback = true) {
  return value === null ? fallback : !/^(false|0|off|no)$/i.test(value.trim());
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
      // The parser's own (English) words go behind the element's "details".
      problems.push({ key: 'embed.badConfig', params: {}, detail: error.message });
    }
  }

  const typedLesson = get('example') !== null || LESSON_TEXTS.some((name) => get(name) !== null);
  const view = get('view') === null && typedLesson ? 'lesson' : choice('view', VIEWS, VIEWS[0]);
  const lesson = view === 'lesson' ? readLesson(get, problems) : null;
  const example = lesson?.example ? exampleById(lesson.example) : null;

  const spec = {
    text: get('text') ?? DEFAULTS.text,
    // The trained model, but the lab's view is of a lab preset.
    preset: get('preset')?.trim() || (view === 'lab' ? LABS[0] : DEFAULTS.preset),
    config,
    seed: integer('seed', DEFAULTS.seed),
    // null: the model's own (the trained model's pronoun head; else 0)
    layer: integer('layer', null),
    head: integer('head', null),
    stage: view === 'heatmap' || view === 'table' ? choice('stage', STAGES, DEFAULTS.stage) : DEFAULTS.stage,
    stages: view === 'lesson' ? lessonStages(get('stage'), problems) : null,
    view,
    lesson,
    lang: lang(get('lang'), browserLang),
    langGiven: lang(get('lang'), null) !== null,
    height: get('height')?.trim() || null,
    causal: flag(get('causal'), example?.causal ?? true),
    scale: flag(get('scale'), example?.scale ?? true),
    playground: get('playground')?.trim() || null,
  };
  if (spec.height !== null && globalThis.CSS?.supports && !CSS.supports('height', spec.height)) {
    problems.push({ key: 'embed.badHeight', params: { value: spec.height } });
    spec.height = null;
  }
  if (spec.config && spec.preset === DEMO && view !== 'lab') problems.push({ key: 'embed.trainedConfig', params: {} });
  if (view === 'lab') {
    if (!LABS.includes(spec.preset)) problems.push({ key: 'embed.labPreset', params: { value: spec.preset } });
    if (spec.config) problems.push({ key: 'embed.labConfig', params: {} });
  }
  return { spec, problems };
}

/**
 * The lesson view's matrices as lesson mode keeps them (url_state.mjs):
 * the example's, with the typed attributes on top. `example` stays set only
 * while nothing differs from it, so that a link can name it alone.
 */
function readLesson(get, problems) {
  const id = get('example')?.trim() || null;
  const example = id === null ? null : exampleById(id);
  if (id !== null && !example)
    problems.push({ key: 'embed.badChoice', params: { name: 'example', value: id, choices: EXAMPLE_IDS.join(', ') } });
  const base = example ? exampleLesson(example) : EMPTY_LESSON;
  const lesson = { ...base };
  const typed = (name) => get(name) !== null;
  const typedQkv = ['q', 'k', 'v'].some(typed);
  if (typedQkv && typed('scores')) problems.push({ key: 'embed.lessonBoth', params: {} });
  if (typedQkv) {
    if (lesson.kind !== 'qkv') Object.assign(lesson, { kind: 'qkv', scores: '' });
    for (const name of ['q', 'k', 'v']) if (typed(name)) lesson[name] = get(name);
  } else if (typed('scores')) {
    Object.assign(lesson, { kind: 'scores', q: '', k: '', v: '', scores: get('scores') });
  }
  if (typed('labels')) lesson.labels = get('labels');
  const decimals = get('decimals');
  if (decimals !== null && decimals.trim() !== '') {
    if (/^[0-6]$/.test(decimals.trim())) lesson.decimals = Number(decimals);
    else problems.push({ key: 'embed.badDecimals', params: { value: decimals } });
  }
  if (['kind', ...LESSON_TEXTS, 'labels'].some((key) => lesson[key] !== base[key])) lesson.example = null;
  return lesson;
}

/** The lesson steps of `stage` ("weights", "raw weights", "scores_raw, attn_weights"), in the lesson's order. */
function lessonStages(value, problems) {
  if (value === null || value.trim() === '') return ['weights'];
  const names = value.trim().split(/[\s,]+/);
  const stages = names.map((name) => LESSON_STAGE_OF[name] ?? name);
  const unknown = names.find((name, i) => !LESSON_STAGES.includes(stages[i]));
  if (unknown !== undefined) {
    problems.push({ key: 'embed.badChoice', params: { name: 'stage', value: unknown, choices: LESSON_STAGES.join(', ') } });
    return ['weights'];
  }
  return LESSON_STAGES.filter((stage) => stages.includes(stage));
}
