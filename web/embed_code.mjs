// The two ways to put the current view on another page: an <iframe> of this
// page in its compact embed view (?embed=1&<state>), and the
// <minimind-attention> component with the same view as attributes. Every
// value placed in an attribute is HTML-escaped. Both snippets point at where
// this page is served; hostingNote() says that they must point at where the
// files are hosted.
import { DEMO } from './demo_model.mjs';
import { exampleById } from './lesson_examples.mjs';
import { writeUrlState } from './url_state.mjs';
import { matrixLayout } from './views/matrix_layout.mjs';

const ESCAPES = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(text) {
  return String(text).replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

/** pageUrl: the page without its query (origin + path). */
export function embedUrl(state, pageUrl) {
  return `${pageUrl}${writeUrlState({ ...state, embed: true })}`;
}

/** The full page in the same state, for "open in playground". */
export function playgroundUrl(state, pageUrl) {
  return `${pageUrl}${writeUrlState({ ...state, embed: false })}`;
}

// The hosting note's text (the dialog's own: the page's catalogues in
// web/messages/ are not the dialog's to change).
const HOSTING = {
  en: {
    base: 'The URLs in these snippets are where this page is served ({base}): they must point to where the files are hosted. Copy dist/site/ to your site (the element needs minimind-attention.js with wasm/ and models/minimind-demo/ beside it, or minimind-attention.single.js alone, which also works from disk as a classic <script src>) and write its address instead; a server on another origin than the course page must send Access-Control-Allow-Origin.',
    local: 'This page is served from this computer: readers of your course cannot reach {host}.',
  },
  'zh-CN': {
    base: '这些代码中的网址是本页所在的位置（{base}）：它们必须指向文件实际托管的位置。请把 dist/site/ 复制到你的网站（组件需要 minimind-attention.js 及其旁边的 wasm/ 和 models/minimind-demo/；或者只用一个 minimind-attention.single.js，它以普通的 <script src> 引入，从本地磁盘打开的网页也能用），再把网址换成那里的地址；若文件与课程页面不同源，服务器必须发送 Access-Control-Allow-Origin 响应头。',
    local: '本页是从这台电脑提供的：课程的读者无法访问 {host}。',
  },
};

/** Whether `url` is on this computer only (loopback, or a file). */
export function isLocalUrl(url) {
  const { protocol, hostname } = new URL(url);
  return (
    protocol === 'file:' || hostname === 'localhost' || hostname === '[::1]' || /^127\./.test(hostname) || hostname.endsWith('.localhost')
  );
}

/** The dialog's note on hosting, in `lang`: the snippets' URLs must be where the files are hosted. */
export function hostingNote(lang, siteBase) {
  const text = HOSTING[lang] ?? HOSTING.en;
  const note = text.base.replace('{base}', siteBase);
  return isLocalUrl(siteBase) ? `${note} ${text.local.replace('{host}', new URL(siteBase).host || siteBase)}` : note;
}

// The frame's height, in CSS px. The embed view (style.css, body.embed)
// gives its square matrix the frame's height less 12.5rem (the title, the
// caption, the head's note and the legend of a frame 500+ px wide), and no
// more than the frame's width: a wide frame needs the matrix's width + 200 px,
// a phone-wide one (the note wrapped to ~10 lines above the matrix) its
// height + 280 px. At one label line per cell (17 px at the labels' 13 px,
// matrix_layout.mjs; 18 for rounding) every row and column is labelled.
export const FRAME_HEIGHT = 420; // the least, and the lesson's and lab's views'
const LABELLED_CELL = 18;
const WIDE_CHROME = 200;
const NARROW_CHROME = 280;

/** tokens: the matrix's labels; measure(text, size) -> px; titles: the axes' {query, key}. */
export function frameHeight(tokens, measure, titles = null) {
  if (!tokens?.length) return FRAME_HEIGHT;
  const layout = matrixLayout({ tokens, measure, titles, cell: LABELLED_CELL });
  const needed = Math.max(layout.width + WIDE_CHROME, layout.height + NARROW_CHROME);
  return Math.max(FRAME_HEIGHT, Math.ceil(needed / 20) * 20);
}

export function iframeSnippet(state, pageUrl, title, height = FRAME_HEIGHT) {
  return `<iframe src="${escapeHtml(embedUrl(state, pageUrl))}" width="100%" height="${height}" style="border:0" loading="lazy" title="${escapeHtml(title)}"></iframe>`;
}

/**
 * {snippet, caveat}: the component's tags for the current view: the model's
 * matrix (view="heatmap"), lesson mode (view="lesson") or a lab's record
 * (view="lab"). caveat: a message key when the component shows something
 * close to the page's view but not the same.
 */
export function componentSnippet(state, { siteBase, pageUrl }) {
  const attributes =
    state.inputMode === 'manual' ? lessonAttributes(state.lesson, state) : state.lab ? labAttributes(state) : modelAttributes(state);
  if (state.lang) attributes.push(['lang', state.lang]);
  attributes.push(['playground', pageUrl]); // the component adds the view's state itself
  const tag = attributes.map(([name, value]) => `${name}="${escapeHtml(value)}"`).join(' ');
  const snippet = `<script type="module" src="${escapeHtml(`${siteBase}minimind-attention.js`)}"></script>\n<minimind-attention ${tag}></minimind-attention>`;
  const caveat =
    state.inputMode === 'manual' || state.lab
      ? null
      : state.files
        ? 'embedCode.componentFiles'
        : state.inputMode === 'ids'
          ? 'embedCode.componentIds'
          : null;
  return { snippet, caveat };
}

// The trained model is the element's default and has no seed.
function modelAttributes(state) {
  const trained = state.preset === DEMO && !state.config;
  return [
    ['text', state.text],
    ...(trained ? [] : [['preset', state.preset]]),
    ...(state.config ? [['config', JSON.stringify(state.config)]] : []),
    ...(trained ? [] : [['seed', String(state.seed)]]),
    ['layer', String(state.layer)],
    ['head', String(state.head)],
    ['stage', state.stage],
    ...(state.causal ? [] : [['causal', 'false']]),
    ...(state.scale ? [] : [['scale', 'false']]),
  ];
}

function labAttributes(state) {
  return [
    ['view', 'lab'],
    ['preset', state.lab],
    ['seed', String(state.seed)],
  ];
}

// An example by its id alone while nothing differs from it, else the typed matrices;
// the switches always, since an example brings its own.
function lessonAttributes(lesson, state) {
  const example = lesson.example ? exampleById(lesson.example) : null;
  const typed = example
    ? []
    : lesson.kind === 'scores'
      ? [['scores', lesson.scores]]
      : [['q', lesson.q], ['k', lesson.k], ...(lesson.v.trim() ? [['v', lesson.v]] : [])];
  const steps = lesson.kind === 'scores' ? 'raw masked weights' : `raw scaled masked weights${lesson.v.trim() ? ' output' : ''}`;
  return [
    ['view', 'lesson'],
    ...(example ? [['example', example.id]] : []),
    ...typed,
    ...(!example && lesson.labels ? [['labels', lesson.labels]] : []),
    ['decimals', String(lesson.decimals)],
    ['stage', steps],
    ['causal', String(state.causal)],
    ['scale', String(state.scale)],
  ];
}
