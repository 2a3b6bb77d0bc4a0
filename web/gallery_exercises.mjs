// The gallery's section of exercises: every <minimind-exercise> with what it
// asks and the code a teacher pastes (the script once, then the tag). The
// names are js/exercises.mjs's, in the tour's order; the words are
// web/messages/exercise_terms.mjs's.
import { EXERCISES } from '../js/exercises.mjs';
import { escapeHtml } from './embed_code.mjs';
import { EXERCISE_TERMS } from './messages/exercise_terms.mjs';
import { gallerySection } from './gallery_section.mjs';
import { make } from './panels/make_element.mjs';

const SECTION_ID = 'exercises';
const term = (lang, key) => EXERCISE_TERMS[lang]?.[key] ?? EXERCISE_TERMS.en[key];

/** What a teacher pastes for exercise `name`. */
function exerciseSnippet(name) {
  const script = `<script type="module" src="${escapeHtml(new URL('minimind-attention.js', location.href).href)}"></script>`;
  return `${script}\n<minimind-exercise name="${escapeHtml(name)}"></minimind-exercise>`;
}

/** Adds the section to `main` and its links to `contents`; returns update(lang). */
export function buildExerciseSection(main, contents) {
  const { box, heading, intro, item, sectionLink } = gallerySection(main, contents, SECTION_ID);
  const list = make('ol', null, item);
  const articles = EXERCISES.map(({ name }) => {
    const article = make('article', 'example', box);
    article.id = `exercise-${name}`;
    article.dataset.exercise = name;
    const title = make('h3', null, article);
    const about = make('p', 'caption', article);
    const element = make('minimind-exercise', null, make('div', 'figures count-1', article));
    element.setAttribute('name', name);
    const details = make('details', 'snippet', article);
    const summary = make('summary', null, details);
    const hint = make('p', 'hint', details);
    make('code', null, make('pre', null, details), exerciseSnippet(name));
    const link = make('a', null, make('li', null, list));
    link.href = `#${article.id}`;
    return { name, title, about, element, summary, hint, link };
  });
  return (lang, snippetLabel) => {
    heading.textContent = term(lang, 'exercise.gallery.title');
    intro.textContent = term(lang, 'exercise.gallery.intro');
    sectionLink.textContent = heading.textContent;
    for (const a of articles) {
      a.title.textContent = `${term(lang, 'exercise.titled').replace('{title}', term(lang, `exercise.title.${a.name}`))} · ${a.name}`;
      a.about.textContent = term(lang, `exercise.about.${a.name}`);
      a.element.setAttribute('lang', lang);
      a.summary.textContent = snippetLabel;
      a.hint.textContent = term(lang, 'exercise.gallery.hint');
      a.link.textContent = a.title.textContent;
    }
  };
}
