// The single-file element is built as a classic script (an IIFE,
// scripts/build_site.mjs), which has no import.meta: the build injects this
// file and replaces every `import.meta.url` of the bundle with scriptUrl, the
// URL the script was loaded from. document.currentScript is that script while
// a classic script first runs; loaded with type="module" (where currentScript
// is null), it is the page's script whose file is named minimind-attention*.js.
// Undefined in Node, in a bundler's output, or inlined into the page: the
// playground link then resolves against the page (playground_link.mjs).
function ownScript() {
  if (typeof document === 'undefined') return null;
  if (document.currentScript?.src) return document.currentScript;
  return [...document.scripts].find((script) => /\/minimind-attention[^/]*\.js([?#]|$)/.test(script.src)) ?? null;
}

export const scriptUrl = ownScript()?.src || undefined;
