// "Open in playground": the full page in the state a figure shows, as the
// page itself writes it in its URL (url_state.mjs). The page is index.html
// next to the component's script (dist/site/), or the `playground` attribute's.
import { DEFAULTS, writeUrlState } from '../url_state.mjs';

/** The playground's URL for `spec` (the element's attributes) at layer/head/stage. */
export function playgroundUrl(spec, { layer, head, stage }) {
  const url = spec.playground ? new URL(spec.playground, document.baseURI) : new URL('./index.html', import.meta.url);
  url.search = writeUrlState({
    ...DEFAULTS,
    ...{ text: spec.text, preset: spec.preset, seed: spec.seed, config: spec.config },
    ...{ layer, head, stage, causal: spec.causal, scale: spec.scale },
    lang: spec.langGiven ? spec.lang : null, // else the page follows the browser too
  });
  return url.href;
}
