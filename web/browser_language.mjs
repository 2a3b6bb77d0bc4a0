// The page's language from the browser's preferences, on its own so that the
// embeddable component can use it without bundling the page's catalogues.

/** zh-CN for any Chinese browser language, else English. */
export function browserLanguage(languages = globalThis.navigator?.languages ?? []) {
  for (const lang of languages) {
    if (/^zh\b/i.test(lang)) return 'zh-CN';
    if (/^en\b/i.test(lang)) return 'en';
  }
  return 'en';
}
