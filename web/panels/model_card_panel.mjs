// The model card and the outside-the-world notice (views/model_card.mjs),
// redrawn from the store: which model is in use, the text, the language, the
// build that computes (and the CLI flag that gives the same bits).
// corpus_stats.json is fetched once, when the trained model is first shown.
import { DEMO } from '../demo_model.mjs';
import { renderModelCard, renderWorldNotice } from '../views/model_card.mjs';

const STATS_URL = new URL('./models/minimind-demo/corpus_stats.json', import.meta.url);

export function setupModelCardPanel({ store, t, $ }) {
  let stats = null;
  let asked = false;

  // 'demo': the trained model; 'tab': a model trained in the Train panel (its roles came with it); null otherwise.
  function modelKind(s) {
    if (s.files) return s.files.roles ? 'tab' : null;
    return s.demo && s.preset === DEMO ? 'demo' : null;
  }

  function fetchStats() {
    asked = true;
    fetch(STATS_URL)
      .then((response) => (response.ok ? response.json() : null))
      .then((json) => {
        stats = json;
        render();
      })
      .catch(() => {}); // the card then shows "?" for the sizes; the names and habits still come from the generator
  }

  function render() {
    const s = store.get();
    const model = modelKind(s);
    if (model === 'demo' && !asked) fetchStats();
    const card = { root: $('model-card'), text: $('model-card-text'), link: $('model-card-link') };
    renderModelCard(card, { model, stats, step: s.files?.roles?.step ?? null, t, lang: s.lang });
    renderWorldNotice($('world-notice'), { text: s.text, active: model === 'demo' && s.inputMode === 'text', t });
    renderBuild(s);
  }

  // The build whose numbers the card's model shows, why (when the relaxed one did not
  // load), and the CLI's flag that gives the same bits.
  function renderBuild(s) {
    const runtime = s.model.status === 'ready' ? s.runtime : null;
    const line = $('model-card-build');
    line.hidden = !runtime?.variant;
    if (line.hidden) return (line.textContent = '');
    const relaxed = runtime.variant.startsWith('relaxed');
    const why = runtime.fallback ? t('card.buildWhy', { reason: t(`model.fallback.${runtime.fallback.reason}`) }) : '';
    line.textContent = t('card.build', { build: relaxed ? 'relaxed SIMD' : 'SIMD', why, flag: relaxed ? 'relaxed' : 'simd' });
  }

  store.subscribe((state, changed) => {
    if (['demo', 'files', 'preset', 'text', 'inputMode', 'lang', 'model', 'runtime'].some((k) => changed.has(k))) render();
  });
  render();
}
