// An error of the core in the reader's language: a MiniMindError (or its
// errorFields() sent by a worker) carries a kind and its values, which pick
// and fill a template of messages/error_terms.mjs (and the run and weights
// catalogues beside it); the core's English message stays the detail, behind
// a "details" disclosure. An error whose kind has no template gets its file
// format's sentence (error.lead.safetensors), with the English under the
// disclosure. An error with no kind at all (not the core's) gets a lead
// sentence followed by the English message itself, since the lead alone does
// not say what is wrong. A config whose weights contradict it says the likely
// cause first (weights.misfit) and folds the list of problems under it.
import { API_ERROR_TERMS } from './messages/api_error_terms.mjs';
import { ERROR_TERMS as FILE_TERMS } from './messages/error_terms.mjs';
import { LOADER_ERROR_TERMS } from './messages/loader_error_terms.mjs';
import { RUN_ERROR_TERMS } from './messages/run_error_terms.mjs';
import { WEIGHTS_ERROR_TERMS } from './messages/weights_error_terms.mjs';

/** Every template by language: the file, config and memory kinds, the loaders' kinds, the run kinds, the weights kinds and the JS API's argument kinds. */
export const ERROR_TERMS = Object.fromEntries(
  ['zh-CN', 'en'].map((lang) => [
    lang,
    {
      ...FILE_TERMS[lang],
      ...LOADER_ERROR_TERMS[lang],
      ...RUN_ERROR_TERMS[lang],
      ...WEIGHTS_ERROR_TERMS[lang],
      ...API_ERROR_TERMS[lang],
    },
  ]),
);

const LEAD_FAMILIES = ['safetensors', 'pth', 'zip', 'pickle', 'tokenizer', 'config'];

function term(lang, key) {
  return ERROR_TERMS[lang]?.[key] ?? ERROR_TERMS.en[key];
}

function fill(template, params) {
  return template.replace(/\{(\w+)\}/g, (match, name) => (name in params ? String(params[name]) : match));
}

function formatBytes(lang, bytes) {
  const gib = bytes / 2 ** 30;
  return gib >= 1
    ? `${gib.toLocaleString(lang, { maximumFractionDigits: 2 })} GiB`
    : `${(bytes / 2 ** 20).toLocaleString(lang, { maximumFractionDigits: 1 })} MiB`;
}

// Kinds whose numbers are all sizes in bytes (written in MiB or GiB).
const BYTE_KINDS = new Set([
  'config.weights_too_large',
  'memory.weights_too_large',
  'memory.pth_too_large',
  'memory.file_too_large',
  'data.file_too_large',
]);

// Values that name a token, a position, a layer or a head: written as their digits (6399, not
// 6,399), as the chips and the matrix write them.
const INDEX_NAMES = new Set(['id', 'last', 'position', 'layer', 'head', 'line', 'index', 'sample', 'probe', 'query', 'key', 'row', 'col']);

// A value as the message shows it: integers grouped as the language writes
// them (16,777,216), sizes in bytes in MiB or GiB, names as given.
function shownValues(lang, kind, values) {
  const shown = {};
  for (const [name, value] of Object.entries(values ?? {})) {
    if (BYTE_KINDS.has(kind) && typeof value === 'number') shown[name] = formatBytes(lang, value);
    else if (kind === 'config.wrong_type' && name === 'expected') shown[name] = term(lang, `config.expected.${value}`) ?? value;
    else if (kind === 'weights.count_mismatch' && name === 'what') shown[name] = term(lang, `weights.what.${value}`) ?? value;
    else if (kind === 'trace.too_large' && name === 'limit') shown[name] = formatBytes(lang, value);
    else if (typeof value === 'number' && INDEX_NAMES.has(name))
      shown[name] = String(value); // an id or index, not a quantity
    else if (typeof value === 'number') shown[name] = value.toLocaleString(lang);
    else if (/^\d{16,}$/.test(value))
      shown[name] = BigInt(value).toLocaleString(lang); // past 2^53: the core's exact digits
    else shown[name] = String(value);
  }
  return shown;
}

/** The text of one kinded error or config problem in `lang`, or null when its kind has no template. */
function kindText(lang, kind, values) {
  if (!kind || !(kind in ERROR_TERMS.en) || kind.startsWith('error.')) return null;
  return fill(term(lang, kind), shownValues(lang, kind, values));
}

/**
 * error: a MiniMindError, its errorFields(), or any Error. Returns
 * {text, detail, complete}: text in `lang`; detail, the core's English message;
 * complete, whether text is all in `lang` (else it holds the English words
 * it could not translate, and there is no detail left to disclose).
 */
export function errorText(lang, error) {
  const detail = String(error?.message ?? error ?? '');
  const kind = typeof error?.kind === 'string' ? error.kind : '';
  if (kind === 'config.invalid' && Array.isArray(error.problems) && error.problems.length) {
    // Each problem in `lang` where its kind has a template, else its own sentence.
    const parts = error.problems.map((p) => kindText(lang, p.kind, p.values) ?? p.message);
    const complete = error.problems.every((p) => kindText(lang, p.kind, p.values) !== null);
    if (error.problems[0].kind === 'weights.misfit' && complete) {
      // The likely cause in one line; every problem under the disclosure.
      return { text: parts[0], detail, complete, problems: parts.slice(1) };
    }
    return { text: kindText(lang, kind, error.values) + parts.join(term(lang, 'error.problemSeparator')), detail, complete };
  }
  const text = kindText(lang, kind, error?.values);
  if (text !== null) return { text, detail, complete: true };
  const family = kind.split('.')[0];
  const lead = term(lang, LEAD_FAMILIES.includes(family) ? `error.lead.${family}` : 'error.lead.unknown');
  return { text: `${lead} ${detail}`, detail, complete: false };
}

/**
 * The words of an error kept in the store, drawn at render time so they
 * follow a language switch: a string (the page's own, already worded) or an
 * error with no kind (not the core's) as its message, else errorText's text
 * in `lang`.
 */
export function errorMessage(lang, error) {
  if (error === null || error === undefined) return '';
  if (typeof error === 'string') return error;
  return error.kind ? errorText(lang, error).text : String(error.message ?? error);
}

/**
 * Fills a <details> with the raw detail of a translated error: summary in
 * `lang`, the detail as text (never HTML); hidden when there is none, or
 * when the error's text already shows it (complete false).
 */
export function showErrorDetails(details, lang, words) {
  details.hidden = !words?.complete;
  if (details.hidden) return;
  let summary = details.querySelector('summary');
  if (!summary) summary = details.appendChild(details.ownerDocument.createElement('summary'));
  // A misfit's other problems, in `lang`, before the original text.
  let list = details.querySelector('.problems');
  if (!list) {
    list = details.ownerDocument.createElement('ul');
    list.className = 'problems';
    summary.after(list);
  }
  list.replaceChildren(
    ...(words.problems ?? []).map((text) => {
      const item = details.ownerDocument.createElement('li');
      item.textContent = text;
      return item;
    }),
  );
  list.hidden = !words.problems?.length;
  let raw = details.querySelector('.raw');
  if (!raw) {
    raw = details.appendChild(details.ownerDocument.createElement('pre'));
    raw.className = 'raw';
    raw.lang = 'en';
  }
  summary.textContent = words.problems?.length
    ? term(lang, 'error.problems').replace('{count}', String(words.problems.length))
    : term(lang, 'error.details');
  raw.textContent = words.detail;
}
