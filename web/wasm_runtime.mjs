// Which Wasm build a worker of the page, the page's inline twin of a tiny
// model, or the <minimind-attention> element loads. In a cross-origin
// isolated page (npm start's server sends COOP and COEP) a pthreads build
// with min(4, ceil(cores / 2)) threads, as ONNX Runtime Web chooses;
// elsewhere (a static host without those headers, an element whose script
// comes from another origin, which its threads' workers could not be started
// from) a one-thread build, with no error: the page's status line and the
// element's data-threads say which. Where the browser has relaxed SIMD, the
// relaxed twin of either (fused multiply-adds in the weight products; the
// status line and data-variant say so). `?threads=N` and `?variant=simd` (or
// `relaxed`) in the page's URL (the page hands them to its workers in their
// URL) or in the element's script URL override the choice.
import { BASE_NAMES, chooseVariant, defaultThreadCount, loadMiniMind, relaxedSimdSupported, threadsAllowed } from '../js/minimind.mjs';

/** The thread count asked for in a URL's query (?threads=N, 1..16), or null. */
function requestedThreads(search) {
  const value = new URLSearchParams(search).get('threads');
  if (value === null || !/^\d+$/.test(value)) return null;
  const n = Number(value);
  return n >= 1 && n <= 16 ? n : null;
}

/** The instruction set asked for in a URL's query (?variant=simd or relaxed), or null: the browser's best. */
function requestedVariant(search) {
  const value = new URLSearchParams(search).get('variant');
  return value === 'simd' || value === 'relaxed' ? value : null;
}

/**
 * loadMiniMind() options for a script at `base` (its import.meta.url: a
 * worker or the element), whose files sit next to it. search: the query with
 * ?threads=N and ?variant= (default: base's own); threads: a count that wins
 * over both (the inline twin: 1); relaxed: whether the engine has relaxed SIMD.
 */
export function runtimeOptions(base, { search = new URL(base).search, threads = null, relaxed = relaxedSimdSupported() } = {}) {
  const url = new URL(base);
  const count = threads ?? requestedThreads(search) ?? defaultThreadCount();
  // A page may start workers from its own origin only.
  const sameOrigin = globalThis.location === undefined || url.origin === globalThis.location.origin;
  const fused = relaxed && requestedVariant(search) !== 'simd'; // ?variant=relaxed where there is none: SIMD
  const variant = chooseVariant(sameOrigin ? count : 1, fused);
  const moduleUrl = new URL(`./wasm/${BASE_NAMES[variant]}.mjs`, base);
  return variant.endsWith('threads') ? { variant, threads: count, moduleUrl } : { variant, moduleUrl };
}

/** The SIMD twin of a relaxed build's options (the same threads, next to it), or null for any other build. */
export function plainTwin(options) {
  const variant = { relaxed: 'simd', 'relaxed-threads': 'threads' }[options.variant];
  if (!variant || !options.moduleUrl) return null;
  return { ...options, variant, moduleUrl: new URL(`./${BASE_NAMES[variant]}.mjs`, options.moduleUrl) };
}

// Why a module runs in place of the relaxed build it was asked for: {from, reason, message}.
const fallbacks = new WeakMap();
let fallbackLogged = false;

/**
 * Why a relaxed build did not load, as a message key's part: 'missing' (its
 * files did not load: a host that serves only the SIMD build), 'compile' (the
 * engine refused its code) or 'failed' (anything else).
 */
function fallbackReason(error) {
  const names = [error?.name, error?.cause?.name];
  if (names.includes('CompileError') || names.includes('LinkError')) return 'compile';
  const text = `${error?.message ?? error} ${error?.cause?.message ?? ''}`;
  return /cannot load the WebAssembly module|not built|fetch|404|network/i.test(text) ? 'missing' : 'failed';
}

/**
 * loadMiniMind(options), and where a relaxed build does not load (a host
 * that serves only the SIMD build's files, say) its SIMD twin instead, the
 * reason logged once and kept for runtimeSummary; an error is then the SIMD
 * build's.
 */
export async function loadRuntime(options) {
  try {
    return await loadMiniMind(options);
  } catch (error) {
    const twin = plainTwin(options);
    if (!twin) throw error;
    const mm = await loadMiniMind(twin);
    const message = String(error?.message ?? error);
    fallbacks.set(mm, { from: options.variant, reason: fallbackReason(error), message });
    if (!fallbackLogged) console.warn(`MiniMind: the ${options.variant} build did not load (${message}); the ${twin.variant} build runs`);
    fallbackLogged = true;
    return mm;
  }
}

/**
 * What a worker's module runs on, for the status line: {threads, isolated,
 * variant, fallback}; fallback: null, or {from, reason, message} when the
 * relaxed build `from` did not load and its SIMD twin runs.
 */
export function runtimeSummary(mm) {
  return { threads: mm.threads, isolated: threadsAllowed(), variant: mm.variant, fallback: fallbacks.get(mm) ?? null };
}

/** A page query (`?…` or '') with the page's ?threads=N and ?variant= kept, so that a reload runs the same build. */
export function keepRuntimeParams(query, pageSearch) {
  const q = new URLSearchParams(query);
  const threads = requestedThreads(pageSearch);
  if (threads !== null) q.set('threads', String(threads));
  const variant = requestedVariant(pageSearch);
  if (variant !== null) q.set('variant', variant);
  const text = q.toString();
  return text ? `?${text}` : '';
}

/** A worker's URL with the page's ?threads=N and ?variant= passed on. */
export function workerUrl(relative, base, pageSearch) {
  const url = new URL(relative, base);
  const threads = requestedThreads(pageSearch);
  if (threads !== null) url.searchParams.set('threads', String(threads));
  const variant = requestedVariant(pageSearch);
  if (variant !== null) url.searchParams.set('variant', variant);
  return url;
}
