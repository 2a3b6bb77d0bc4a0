// Which Wasm build a worker of the page, or the <minimind-attention>
// element, loads. In a cross-origin isolated page (npm start's server sends
// COOP and COEP) the pthreads build with min(4, ceil(cores / 2)) threads, as
// ONNX Runtime Web chooses; elsewhere (a static host without those headers,
// an element whose script comes from another origin, which its threads'
// workers could not be started from) the one-thread SIMD build, with no
// error: the page's status line and the element's data-threads say which.
// Both compute the same bits. `?threads=N` in the page's URL (the page
// hands it to its workers in their URL) or in the element's script URL
// overrides the count.
import { defaultThreadCount, threadsAllowed } from '../js/minimind.mjs';

/** The thread count asked for in a URL's query (?threads=N, 1..16), or null. */
export function requestedThreads(search) {
  const value = new URLSearchParams(search).get('threads');
  if (value === null || !/^\d+$/.test(value)) return null;
  const n = Number(value);
  return n >= 1 && n <= 16 ? n : null;
}

/** loadMiniMind() options for a script at `base` (its import.meta.url, carrying ?threads=N if asked): a worker or the element. */
export function runtimeOptions(base) {
  const url = new URL(base);
  const threads = requestedThreads(url.search) ?? defaultThreadCount();
  // A page may start workers from its own origin only.
  const sameOrigin = globalThis.location === undefined || url.origin === globalThis.location.origin;
  if (threads > 1 && threadsAllowed() && sameOrigin)
    return { variant: 'threads', threads, moduleUrl: new URL('./wasm/minimind-threads.mjs', base) };
  return { variant: 'simd', moduleUrl: new URL('./wasm/minimind.mjs', base) };
}

/** What a worker's module runs on: {threads, isolated} for the status line. */
export function runtimeSummary(mm) {
  return { threads: mm.threads, isolated: threadsAllowed() };
}

/** A worker's URL with the page's ?threads=N passed on. */
export function workerUrl(relative, base, pageSearch) {
  const url = new URL(relative, base);
  const threads = requestedThreads(pageSearch);
  if (threads !== null) url.searchParams.set('threads', String(threads));
  return url;
}
