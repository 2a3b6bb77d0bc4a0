// The tour's links: #tour (its first step), #tour/N (step N, 1-based over
// the whole tour) and #tour/NAME (a chapter's first step). In the compact
// iframe view (?embed=1) a chapter's link keeps the navigation within it.
import { CHAPTERS, STEPS, chapterRange } from './chapters.mjs';

/**
 * The step a hash opens: {index (0-based), chapter: the slug whose link it
 * was, or null}; null when the hash is not a tour link (or names no step).
 */
export function readTourHash(hash) {
  const m = /^#tour(?:\/([^/?#]*))?$/.exec(hash ?? '');
  if (!m) return null;
  const part = m[1] === undefined ? '' : decodeURIComponent(m[1]);
  if (part === '') return { index: 0, chapter: null };
  if (/^\d+$/.test(part)) {
    const n = Number(part);
    return n >= 1 && n <= STEPS.length ? { index: n - 1, chapter: null } : null;
  }
  const range = chapterRange(part);
  return range ? { index: range[0], chapter: part } : null;
}

/** The hash of step `index` (0-based): a chapter's link at its first step when in a chapter, else #tour/N. */
export function tourHash(index, chapter = null) {
  if (chapter && STEPS[index]?.first && STEPS[index].chapter === chapter) return `#tour/${chapter}`;
  return `#tour/${index + 1}`;
}

/** The chapters' links, in order: [{slug, hash, step (1-based)}]. */
export function chapterLinks() {
  return CHAPTERS.map((chapter) => ({ slug: chapter.slug, hash: `#tour/${chapter.slug}`, step: chapterRange(chapter.slug)[0] + 1 }));
}
