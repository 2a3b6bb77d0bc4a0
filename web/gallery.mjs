// The gallery (gallery.html): every worked example of lesson 2.5 and the
// attention of lesson 11 as live figures, each with its caption and the code
// a teacher copies; each figure carries its own "open in playground" link.
// The figures are <minimind-attention> elements, defined by
// minimind-attention.js which the page loads as a course page would, plus
// one <iframe> of the playground's compact view. Figures compute when they
// come near the viewport, so the page opens at once; each reserves the height
// it will draw at (gallery_layout.mjs), and a contents link keeps its heading
// at the top while the figures around it draw.
import { embedText } from './component/messages.mjs';
import { escapeHtml } from './embed_code.mjs';
import { keepHeadingInView, reserveHeight } from './gallery_layout.mjs';
import { GALLERY_TEXT } from './gallery_text.mjs';
import { buildExerciseSection } from './gallery_exercises.mjs';
import { buildTourSection } from './tour/tour_gallery.mjs';
import { browserLanguage } from './browser_language.mjs';
import { LESSON_EXAMPLES } from './lesson_examples.mjs';
import { DEFAULTS, writeUrlState } from './url_state.mjs';
import stories from '../models/minimind-demo/qk_stories.json' with { type: 'json' };
import { gallerySection } from './gallery_section.mjs';
import { make } from './panels/make_element.mjs';

// The steps that carry each lesson 2.5 example's printed numbers.
const LESSON_STEPS = {
  she: 'raw weights',
  flow: 'raw scaled weights',
  softmax: 'raw weights',
  random: 'raw scaled weights',
  'masked-softmax': 'raw weights',
  causal: 'masked weights',
};
// The lesson rounded the causal mask's weights: the exact values, to 4 decimals.
const LESSON_DECIMALS = { causal: '4' };
const FRAME_HEIGHT = 540; // the framed view's title, head note and a matrix of about 340 px

// The playground's state at the pronoun cell: the lesson's sentence (the
// page's default text) at the pronoun head, the row of 她 and its key 小.
function pronounCell() {
  const { layer, head, sentences } = stories.pronoun;
  const s = sentences.find((x) => x.text === DEFAULTS.text);
  return { layer, head, row: s.query, cell: { query: s.query, key: s.key } };
}

// The induction figure's probe as text, at the induction head whose key the
// previous-token head writes the largest share of (seed of the figure).
function inductionCell() {
  const { figure } = stories;
  const record = stories.induction.find((r) => r.seed === figure.seed);
  const share = (h) => h.parts.find((p) => record.previousTokenHeads.includes(p.component))?.share ?? -Infinity;
  const best = record.heads.reduce((a, b) => (share(b) > share(a) ? b : a));
  return { text: figure.text, layer: best.layer, head: best.head, row: figure.query, cell: { query: figure.query, key: figure.key } };
}

/**
 * The gallery: sections of examples; an example has `figures` (the
 * attributes of each <minimind-attention>) or `iframe` (the playground's
 * state for its compact view). Captions are GALLERY_TEXT[lang][`${id}.caption`].
 */
export const SECTIONS = [
  {
    id: 'lesson-2.5',
    examples: LESSON_EXAMPLES.map(({ id }) => ({
      id,
      figures: [
        {
          view: 'lesson',
          example: id,
          stage: LESSON_STEPS[id] ?? 'weights',
          ...(LESSON_DECIMALS[id] && { decimals: LESSON_DECIMALS[id] }),
        },
      ],
    })),
  },
  {
    id: 'lesson-11',
    examples: [
      { id: 'sentence', figures: [{}] }, // the element's defaults: the lesson's sentence, the trained model's pronoun head, softmax
      { id: 'mask-off', figures: [{ causal: 'false' }] },
      { id: 'raw-scaled', figures: [{ stage: 'scores_raw' }, { stage: 'scores_scaled' }] },
      { id: 'masked-iframe', iframe: { stage: 'scores_masked' } },
      // The playground's "ask the model why" section alone (#why), on the lesson's sentence at its pronoun.
      { id: 'why', iframe: {}, anchor: 'why', height: 900 },
      // "Why this weight" (#qk) at the cells whose stories qk_stories.json
      // measured over many probes: the pronoun head at 她 → 小 of the lesson's
      // sentence, and an induction head at an induction cell of an induction
      // probe that reads back as text.
      { id: 'why-pronoun', iframe: pronounCell(), anchor: 'qk', height: 720 },
      { id: 'why-induction', iframe: inductionCell(), anchor: 'qk', height: 720 },
      // lab-a: the trained model gives each of its 4 heads its own K/V (MODEL_CARD.md), so GQA is shown on lesson 11's lab model.
      { id: 'gqa', figures: [0, 1, 2, 3].map((head) => ({ preset: 'lab-a', head: String(head) })) },
      { id: 'lab-a', figures: [{ view: 'lab', preset: 'lab-a' }] },
      { id: 'lab-b', figures: [{ view: 'lab', preset: 'lab-b' }] },
    ],
  },
];

const LANGS = ['zh-CN', 'en'];
const text = (lang, key) => GALLERY_TEXT[lang][key] ?? GALLERY_TEXT.en[key] ?? key;

function exampleTitle(lang, sectionId, id) {
  return sectionId === 'lesson-2.5' ? `${text(lang, `${id}.ref`)} · ${embedText(lang, `lesson.example.${id}`)}` : text(lang, `${id}.title`);
}

/** The playground's state of an iframe example, in `lang` (null: the reader's). */
function frameState(example, lang) {
  return { ...DEFAULTS, ...example.iframe, lang };
}

// A frame that shows one part of the playground (its anchor) is named by its example's title.
function frameTitle(example, lang) {
  return text(lang, example.anchor ? `${example.id}.title` : 'gallery.frameTitle');
}

function pageUrl(query, anchor = null) {
  return new URL(`index.html${query}${anchor ? `#${anchor}` : ''}`, location.href).href;
}

/** What a teacher pastes: the script once and the elements, or the iframe. Never the gallery's language. */
function snippet(example, lang) {
  if (example.iframe) {
    const src = pageUrl(writeUrlState({ ...frameState(example, null), embed: true }), example.anchor);
    return `<iframe src="${escapeHtml(src)}" width="100%" height="${example.height ?? FRAME_HEIGHT}" style="border: 0" loading="lazy" title="${escapeHtml(frameTitle(example, lang))}"></iframe>`;
  }
  const script = `<script type="module" src="${escapeHtml(new URL('minimind-attention.js', location.href).href)}"></script>`;
  const elements = example.figures.map((attributes) => {
    const list = Object.entries(attributes).map(([name, value]) => ` ${name}="${escapeHtml(value)}"`);
    return `<minimind-attention${list.join('')}></minimind-attention>`;
  });
  return [script, ...elements].join('\n');
}

/** One example's article; returns update(lang), which rewrites its text, links and figures' language. */
function buildExample(section, example, parent) {
  const article = make('article', 'example', parent);
  article.id = example.id;
  article.dataset.example = example.id;
  const heading = make('h3', null, article);
  const caption = make('p', 'caption', article);
  const figures = make('div', `figures count-${example.figures?.length ?? 1}`, article);
  const elements = (example.figures ?? []).map((attributes) => {
    const figure = make('minimind-attention', null, figures);
    for (const [name, value] of Object.entries(attributes)) figure.setAttribute(name, value);
    reserveHeight(figure);
    return figure;
  });
  let frame = null;
  if (example.iframe) {
    frame = make('iframe', null, figures);
    frame.loading = 'lazy';
    frame.width = '100%';
    frame.height = String(example.height ?? FRAME_HEIGHT);
  }
  const details = make('details', 'snippet', article);
  const summary = make('summary', null, details);
  const hint = make('p', 'hint', details);
  const code = make('code', null, make('pre', null, details));

  return (lang) => {
    heading.textContent = exampleTitle(lang, section.id, example.id);
    caption.textContent = text(lang, `${example.id}.caption`);
    for (const figure of elements) figure.setAttribute('lang', lang);
    if (frame) {
      const src = pageUrl(writeUrlState({ ...frameState(example, lang), embed: true }), example.anchor);
      if (frame.getAttribute('src') !== src) frame.src = src;
      frame.title = frameTitle(example, lang);
    }
    summary.textContent = text(lang, 'gallery.snippet');
    hint.textContent = text(lang, frame ? 'gallery.iframeHint' : 'gallery.snippetHint');
    code.textContent = snippet(example, lang);
  };
}

function setup() {
  const main = document.getElementById('gallery');
  const contents = document.getElementById('contents');
  const updates = [];
  for (const section of SECTIONS) {
    const { box, heading, intro, item, sectionLink } = gallerySection(main, contents, section.id);
    const list = make('ol', null, item);
    const exampleLinks = section.examples.map((example) => {
      const link = make('a', null, make('li', null, list));
      link.href = `#${example.id}`;
      return [link, example];
    });
    const examples = section.examples.map((example) => buildExample(section, example, box));
    updates.push((lang) => {
      heading.textContent = text(lang, `section.${section.id}`);
      intro.textContent = text(lang, `section.${section.id}.intro`);
      sectionLink.textContent = heading.textContent;
      for (const [link, example] of exampleLinks) link.textContent = exampleTitle(lang, section.id, example.id);
      for (const update of examples) update(lang);
    });
  }

  // The guided tour's chapters, each a link and the iframe that shows it alone.
  const tour = buildTourSection(main, contents);
  updates.push((lang) => tour(lang, text(lang, 'gallery.snippet')));

  // The tour's exercises, each a <minimind-exercise> with its code.
  const exercises = buildExerciseSection(main, contents);
  updates.push((lang) => exercises(lang, text(lang, 'gallery.snippet')));

  function show(lang) {
    document.documentElement.lang = lang;
    document.title = text(lang, 'gallery.title');
    for (const node of document.querySelectorAll('[data-text]')) node.textContent = text(lang, node.dataset.text);
    for (const button of document.querySelectorAll('[data-lang]'))
      button.setAttribute('aria-pressed', String(button.dataset.lang === lang));
    for (const update of updates) update(lang);
  }

  for (const button of document.querySelectorAll('[data-lang]')) {
    button.addEventListener('click', () => {
      const url = new URL(location.href);
      url.searchParams.set('lang', button.dataset.lang);
      history.replaceState(null, '', url);
      show(button.dataset.lang);
    });
  }
  const asked = new URLSearchParams(location.search).get('lang');
  show(LANGS.includes(asked) ? asked : browserLanguage());
  // The articles exist only now: land on the one the address names, and on each one a contents link names.
  const land = () => {
    const target = location.hash && document.getElementById(decodeURIComponent(location.hash.slice(1)));
    if (target) keepHeadingInView(target);
  };
  addEventListener('hashchange', land);
  // A link to the address's own article does not change the hash: land on it all the same.
  contents.addEventListener('click', (event) => {
    const link = event.target.closest('a[href^="#"]');
    if (link && link.hash === location.hash) requestAnimationFrame(land);
  });
  land();
}

if (globalThis.document) setup(); // the tests import SECTIONS under Node
