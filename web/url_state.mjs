// The shareable part of the state <-> the URL's query string, so that any
// view can be sent as a link and restored exactly.
import { DEMO } from './demo_model.mjs';
import { exampleById, exampleLesson } from './lesson_examples.mjs';

export const STAGES = ['scores_raw', 'scores_scaled', 'scores_masked', 'attn_weights'];

export const DEFAULTS = {
  // The lesson's sentence as MiniMind's tokenizer reads it (no spaces); the
  // presets split it into characters.
  text: '小明把苹果给了小红，她很开心',
  inputMode: 'text', // 'text', 'ids' (token ids typed directly) or 'manual' (lesson 2.5's Q, K, V by hand)
  preset: DEMO, // the trained model, or a preset with random weights
  seed: 0,
  config: null, // config edits (Hugging Face keys) on top of the preset, or null
  // null: the model's own (viewDefaults), once it is known
  layer: null,
  head: null,
  stage: 'attn_weights',
  causal: true,
  scale: true,
  row: null, // selected query row; undefined (a URL without one): the model's own
  cell: null, // {query, key}: the cell "why this weight" explains, or null
  ablate: [], // [[layer, head], ...] switched off (their outputs zeroed before o_proj)
  lang: null, // null: follow the browser
  // Lesson mode's typed matrices (texts as typed); `example` names the
  // lesson 2.5 example they came from, null once edited.
  lesson: exampleLesson(exampleById('she')),
  lab: null, // 'lab-a' | 'lab-b': lesson 11's lab record shown
  embed: false, // the compact iframe view: the figure only
};

export const LABS = ['lab-a', 'lab-b']; // lesson 11's lab presets

// A link keeps at most this many bytes of the text, percent-encoded (a
// Chinese character is 9: %E5%B0%8F): a 2000-character text would make an
// 18 KB URL, which servers and chat apps cut or refuse. Longer texts are cut
// at a whole character and the page says the link does not carry all of it.
export const URL_TEXT_BYTES = 1800;

// Bytes of one character in a query string: unreserved ASCII as it is, the
// rest as %XX per UTF-8 byte (a lone surrogate becomes U+FFFD, 3 bytes).
function encodedBytes(char) {
  const code = char.codePointAt(0);
  if (code < 0x80) return /[A-Za-z0-9*\-._ ]/.test(char) ? 1 : 3;
  if (code < 0x800) return 6;
  return code < 0x10000 ? 9 : 12;
}

/** The beginning of `text` a link carries: whole characters within URL_TEXT_BYTES. */
export function urlText(text) {
  let bytes = 0;
  let end = 0;
  for (const char of text) {
    bytes += encodedBytes(char);
    if (bytes > URL_TEXT_BYTES) return text.slice(0, end);
    end += char.length;
  }
  return text;
}
const LESSON_TEXTS = ['q', 'k', 'v', 'scores', 'labels'];
const EMPTY_LESSON = { example: null, kind: 'qkv', q: '', k: '', v: '', scores: '', labels: '', decimals: 4 };

/** Lesson mode's part of the query string: an example's id, then what differs from it. */
function readLesson(q) {
  const example = exampleById(q.get('example'));
  const edited = q.get('example') === 'none' || ['kind', ...LESSON_TEXTS].some((key) => q.has(key));
  const lesson = { ...(example ? exampleLesson(example) : edited ? EMPTY_LESSON : DEFAULTS.lesson) };
  if (q.get('kind') === 'scores' || q.get('kind') === 'qkv') lesson.kind = q.get('kind');
  for (const key of LESSON_TEXTS) if (q.has(key)) lesson[key] = q.get(key).slice(0, 20000);
  lesson.decimals = integer(q.get('dp'), lesson.decimals, 1, 6);
  const from = lesson.example ? exampleLesson(exampleById(lesson.example)) : null;
  if (from && ['kind', ...LESSON_TEXTS].some((key) => lesson[key] !== from[key])) lesson.example = null;
  return lesson;
}

function writeLesson(lesson, q) {
  const base = lesson.example ? exampleLesson(exampleById(lesson.example)) : EMPTY_LESSON;
  if (lesson.example !== DEFAULTS.lesson.example) q.set('example', lesson.example ?? 'none');
  if (lesson.kind !== base.kind) q.set('kind', lesson.kind);
  for (const key of LESSON_TEXTS) if (lesson[key] !== base[key]) q.set(key, lesson[key]);
  if (lesson.decimals !== base.decimals) q.set('dp', String(lesson.decimals));
}

/**
 * The view a model opens on where the URL does not say: the trained model's
 * pronoun head (heads.json), with the pronoun's row on the lesson's sentence;
 * layer 0, head 0 and no row for a preset or files. null while the trained
 * model's heads are not known (state.demo: what the worker read of them).
 */
export function viewDefaults(state) {
  if (state.files || state.preset !== DEMO) return { layer: 0, head: 0, row: null };
  if (!state.demo) return null;
  const { pronounHead } = state.demo.heads;
  const sentence = state.demo.sentence;
  const onSentence = sentence && state.inputMode === 'text' && state.text === sentence.text;
  return { layer: pronounHead.layer, head: pronounHead.head, row: onSentence ? sentence.pronoun : null };
}

/** "0:2,1:3" -> [[0, 2], [1, 3]], sorted, without repeats; malformed parts are left out. */
function readAblation(text) {
  const pairs = new Map();
  for (const part of (text ?? '').split(',')) {
    const m = /^(\d{1,4}):(\d{1,4})$/.exec(part.trim());
    if (m) pairs.set(`${Number(m[1])}:${Number(m[2])}`, [Number(m[1]), Number(m[2])]);
  }
  return [...pairs.values()].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
}

function writeAblation(ablate) {
  return ablate.map(([layer, head]) => `${layer}:${head}`).join(',');
}

function integer(value, fallback, min = 0, max = 1 << 20) {
  if (value === null || !/^\d+$/.test(value)) return fallback;
  const n = Number(value);
  return n >= min && n <= max ? n : fallback;
}

/** State from a query string; unknown or malformed values fall back to defaults. */
export function readUrlState(search) {
  const q = new URLSearchParams(search);
  const state = { ...DEFAULTS };
  state.embed = q.get('embed') === '1';
  if (q.has('text')) state.text = q.get('text').slice(0, 10000);
  if (q.get('input') === 'ids' || q.get('input') === 'manual') state.inputMode = q.get('input');
  if (state.inputMode === 'manual') state.lesson = readLesson(q);
  if (LABS.includes(q.get('lab'))) state.lab = q.get('lab');
  if (q.has('preset')) state.preset = q.get('preset');
  state.seed = integer(q.get('seed'), DEFAULTS.seed, 0, Number.MAX_SAFE_INTEGER);
  if (q.has('config') && state.preset !== DEMO) {
    try {
      const parsed = JSON.parse(q.get('config'));
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) state.config = parsed;
    } catch {
      state.config = null;
    }
  }
  state.layer = integer(q.get('layer'), null);
  state.head = integer(q.get('head'), null);
  if (STAGES.includes(q.get('stage'))) state.stage = q.get('stage');
  state.causal = q.get('causal') !== '0';
  state.scale = q.get('scale') !== '0';
  state.row = !q.has('row') ? undefined : integer(q.get('row'), null); // "none": no row
  const cell = /^(\d{1,5}):(\d{1,5})$/.exec(q.get('cell') ?? '');
  state.cell = cell ? { query: Number(cell[1]), key: Number(cell[2]) } : null;
  state.ablate = readAblation(q.get('ablate'));
  if (q.get('lang') === 'en' || q.get('lang') === 'zh-CN') state.lang = q.get('lang');
  return state;
}

/** Query string of the non-default parts of `state`. */
export function writeUrlState(state) {
  const q = new URLSearchParams();
  if (state.embed) q.set('embed', '1');
  if (state.text !== DEFAULTS.text) q.set('text', urlText(state.text));
  if (state.inputMode !== DEFAULTS.inputMode) q.set('input', state.inputMode);
  if (state.inputMode === 'manual' && state.lesson) writeLesson(state.lesson, q);
  if (state.lab) q.set('lab', state.lab);
  if (state.preset !== DEFAULTS.preset) q.set('preset', state.preset);
  if (state.seed !== DEFAULTS.seed) q.set('seed', String(state.seed));
  if (state.config) q.set('config', JSON.stringify(state.config));
  // What the model opens on is left out; while that is not known, whatever is set is written.
  const own = viewDefaults(state) ?? { layer: null, head: null, row: null };
  if (state.layer != null && state.layer !== own.layer) q.set('layer', String(state.layer));
  if (state.head != null && state.head !== own.head) q.set('head', String(state.head));
  if (state.stage !== DEFAULTS.stage) q.set('stage', state.stage);
  if (!state.causal) q.set('causal', '0');
  if (!state.scale) q.set('scale', '0');
  if (state.row !== undefined && state.row !== own.row) q.set('row', state.row === null ? 'none' : String(state.row));
  if (state.cell) q.set('cell', `${state.cell.query}:${state.cell.key}`);
  if (state.ablate?.length) q.set('ablate', writeAblation(state.ablate));
  if (state.lang) q.set('lang', state.lang);
  const text = q.toString();
  return text ? `?${text}` : '';
}
