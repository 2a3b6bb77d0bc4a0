// Put before the pthreads module (--extern-pre-js, at the top of the ES
// module): Emscripten 3.1.6's Node branch expects CommonJS's require and
// __dirname, which an ES module lacks; these module-scope names give them
// (worker_threads for the pool, the folder of the worker script).
var require, __dirname;
if (typeof process == 'object' && typeof process.versions == 'object' && typeof process.versions.node == 'string') {
  const { createRequire } = await import('node:module');
  require = createRequire(import.meta.url);
  __dirname = new URL('.', import.meta.url).pathname.replace(/\/$/, '');
}
