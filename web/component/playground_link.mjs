// "Open in playground": the full page in the state a figure shows, as the
// page itself writes it in its URL (url_state.mjs). The page is index.html
// next to the component's script (dist/site/), or the `playground` attribute's;
// next to the page when the script's URL is unknown (the single file inlined
// into a page or a bundler's output: script_url.mjs).
// A lesson view opens lesson mode on the same matrices and switches; a lab
// view opens the lab's record, with the lab's preset and batch 0's ids.
import { LAB_IDS } from '../lab_record.mjs';
import { DEFAULTS, writeUrlState } from '../url_state.mjs';

/** The page's state for `spec` (the element's attributes, from readAttributes). */
function playgroundState(spec) {
  const lang = spec.langGiven ? spec.lang : null; // else the page follows the browser too
  if (spec.view === 'lesson') {
    return { ...DEFAULTS, inputMode: 'manual', lesson: spec.lesson, causal: spec.causal, scale: spec.scale, lang };
  }
  if (spec.view === 'lab') {
    return { ...DEFAULTS, lab: spec.preset, preset: spec.preset, seed: spec.seed, inputMode: 'ids', text: LAB_IDS, lang };
  }
  return {
    ...DEFAULTS,
    ...{ text: spec.text, preset: spec.preset, seed: spec.seed, config: spec.config },
    ...{ layer: spec.layer, head: spec.head, stage: spec.stage, causal: spec.causal, scale: spec.scale },
    lang,
  };
}

/** The playground's URL for `spec`. */
export function playgroundUrl(spec) {
  const url = new URL(spec.playground || './index.html', (!spec.playground && import.meta.url) || document.baseURI);
  url.search = writeUrlState(playgroundState(spec));
  return url.href;
}
