// Message catalogues and the one function that formats UI text. Parameters
// are inserted as plain strings; callers put the result into textContent,
// never innerHTML, so a token like <img onerror=...> stays text.
import en from './messages/en.mjs';
import zhCN from './messages/zh-CN.mjs';

export const LANGUAGES = { 'zh-CN': zhCN, en };

export { browserLanguage } from './browser_language.mjs';

export function translate(lang, key, params = {}) {
  const catalogue = LANGUAGES[lang] ?? en;
  const template = catalogue[key] ?? en[key] ?? key;
  return template.replace(/\{(\w+)\}/g, (match, name) => (name in params ? String(params[name]) : match));
}

/** Sets textContent (and placeholders) of every [data-i18n] element under root. */
export function applyTranslations(root, lang) {
  for (const element of root.querySelectorAll('[data-i18n]')) element.textContent = translate(lang, element.dataset.i18n);
  for (const element of root.querySelectorAll('[data-i18n-placeholder]')) {
    element.placeholder = translate(lang, element.dataset.i18nPlaceholder);
  }
  for (const element of root.querySelectorAll('[data-i18n-label]')) {
    element.setAttribute('aria-label', translate(lang, element.dataset.i18nLabel));
  }
}
