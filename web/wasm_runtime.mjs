// Which Wasm build a worker of the page loads. In a cross-origin isolated
// page (npm start's server sends COOP and COEP) the pthreads build with
// min(4, ceil(cores / 2)) threads, as ONNX Runtime Web chooses; elsewhere
// (a static host without those headers, a course page embedding the
// element) the one-thread SIMD build, with no error: the status line says
// which. Both compute the same bits. `?threads=N` in the page's URL
// overrides the count (the page hands it to its workers in their URL).
import { defaultThreadCount, threadsAllowed } from '../js/minimind.mjs';

/** The thread count asked for in a URL's query (?threads=N, 1..16), or null. */
export function requestedThreads(search) {
  const value = new URLSearchParams(search).get('threads');
  if (value === null || !/^\d+$/.test(value)) return null;
  const n = Number(value);
  return n >= 1 && n <= 16 ? n : null;
}

/** loadMiniMind() options for a worker whose script is at `base` (its import.meta.url, carrying ?threads=N if asked). */
export function workerRuntimeOptions(base) {
  const threads = requestedThreads(new URL(base).search) ?? defaultThreadCount();
  if (threads > 1 && threadsAllowed()) return { variant: 'threads', threads, moduleUrl: new URL('./wasm/minimind-threads.mjs', base) };
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
