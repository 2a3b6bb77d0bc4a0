// A gallery section: <section class="lesson"> in the page with its heading and
// intro, and its entry in the contents, a link to it (the lesson examples, the
// tour's chapters, the exercises).
import { make } from './panels/make_element.mjs';

/** The section `id` added to `main` and its link to `contents`: {box, heading, intro, item, sectionLink}. */
export function gallerySection(main, contents, id) {
  const box = make('section', 'lesson', main, { id });
  const heading = make('h2', null, box);
  const intro = make('p', 'intro', box);
  const item = make('li', null, contents);
  const sectionLink = make('a', null, item, { href: `#${id}` });
  return { box, heading, intro, item, sectionLink };
}
