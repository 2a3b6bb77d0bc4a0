// The page's language from the browser's preferences, on its own so that the
// embeddable component can use it without bundling the page's catalogues;
// and, for the component, the language of the page it is placed in.

/** zh-CN for a Chinese language tag, en for an English one, else null. */
function languageOf(tag) {
  if (/^zh\b/i.test(tag)) return 'zh-CN';
  if (/^en\b/i.test(tag)) return 'en';
  return null;
}

/** zh-CN for any Chinese browser language, else English. */
export function browserLanguage(languages = globalThis.navigator?.languages ?? []) {
  for (const lang of languages) {
    const known = languageOf(lang);
    if (known) return known;
  }
  return 'en';
}

/**
 * The language an element without its own `lang` follows: the nearest
 * ancestor's `lang` (a zh course page read in an English browser stays
 * zh), else the browser's. A `lang` of neither language counts as none.
 */
export function hostLanguage(element, languages) {
  // Up through shadow roots too: a figure inside another component follows that component's page.
  for (let node = element; node; node = node.getRootNode?.().host ?? null) {
    const tag = node.parentElement?.closest('[lang]')?.getAttribute('lang');
    if (tag !== undefined) return languageOf(tag.trim()) ?? browserLanguage(languages);
  }
  return browserLanguage(languages);
}
