// The gallery's section of the guided tour: each chapter with its link
// (index.html#tour/NAME) and the iframe a teacher pastes to show that chapter
// alone in course material (index.html?embed=1#tour/NAME: Next and Back stay
// within it). The chapters are chapters.mjs's, in the tour's order; the words
// web/messages/tour_terms.mjs's.
import { escapeHtml } from '../embed_code.mjs';
import { TOUR_TERMS } from '../messages/tour_terms.mjs';
import { chapterLinks } from './tour_route.mjs';
import { gallerySection } from '../gallery_section.mjs';
import { make } from '../panels/make_element.mjs';

const SECTION_ID = 'tour';
const FRAME_HEIGHT = 760; // the step's box above a matrix of about 400 px
const term = (lang, key, params = {}) =>
  (TOUR_TERMS[lang]?.[key] ?? TOUR_TERMS.en[key]).replace(/\{(\w+)\}/g, (m, name) => (name in params ? String(params[name]) : m));

/** The chapter's page link, in `lang` when given (the teacher's snippet leaves the language to the reader). */
export function chapterUrl(hash, { embed = false, lang = null } = {}) {
  const query = new URLSearchParams();
  if (embed) query.set('embed', '1');
  if (lang) query.set('lang', lang);
  const search = query.toString();
  return new URL(`index.html${search ? `?${search}` : ''}${hash}`, location.href).href;
}

/** The iframe a teacher pastes for one chapter. */
export function chapterSnippet(hash, title) {
  return `<iframe src="${escapeHtml(chapterUrl(hash, { embed: true }))}" width="100%" height="${FRAME_HEIGHT}" style="border: 0" loading="lazy" title="${escapeHtml(title)}"></iframe>`;
}

/** Adds the section to `main` and its links to `contents`; returns update(lang, snippetLabel). */
export function buildTourSection(main, contents) {
  const { box, heading, intro, sectionLink } = gallerySection(main, contents, SECTION_ID);
  const list = make('ol', null, box);
  list.className = 'tour-chapters';
  const chapters = chapterLinks().map((chapter) => {
    const entry = make('li', null, list);
    entry.dataset.tourChapter = chapter.slug;
    const open = make('a', null, entry);
    const details = make('details', 'snippet', entry);
    const summary = make('summary', null, details);
    const code = make('code', null, make('pre', null, details));
    return { ...chapter, open, summary, code };
  });
  return (lang, snippetLabel) => {
    heading.textContent = term(lang, 'tour.gallery.title');
    intro.textContent = term(lang, 'tour.gallery.intro');
    sectionLink.textContent = heading.textContent;
    for (const c of chapters) {
      const title = term(lang, `tour.chapter.${c.slug}`);
      c.open.textContent = `${title} · #tour/${c.slug}`;
      c.open.href = chapterUrl(c.hash, { lang });
      c.summary.textContent = snippetLabel;
      c.code.textContent = chapterSnippet(c.hash, `MiniMind · ${title}`);
    }
  };
}
