// The next-token prediction panel: what the model predicts after the
// selected row (the last token when no row is selected), its five most
// likely tokens from the worker; with heads switched off in the overview,
// each with its probability when every head is on, and a sentence on what
// changed. During generation the generation panel shows its own candidates.
// app.mjs calls setupPrediction once; this reads the store and sends
// 'predict' requests to the worker.
import { renderCandidates } from './views/candidates.mjs';

/** tokens(): the current input as the worker's request wants it ({ids, labels} or {text}). */
export function setupPrediction({ store, t, $, client, tokens }) {
  let asked = null; // what the newest request was for

  function rowOf(s) {
    return s.row !== null && s.row < s.result.T ? s.row : s.result.T - 1;
  }

  function shownNow(s) {
    return Boolean(s.result && s.model.info && !s.generation && s.inputMode !== 'manual');
  }

  function request() {
    const s = store.get();
    if (!shownNow(s)) return;
    const row = rowOf(s);
    const key = JSON.stringify([s.result.ids, row, s.ablate]);
    if (key === asked) return;
    asked = key;
    client.predict(tokens(), { row, ablate: s.ablate });
  }

  function heads(ablate) {
    return ablate.map(([layer, head]) => t('overview.headName', { layer, head })).join(t('overview.separator'));
  }

  function render() {
    const s = store.get();
    const box = $('prediction-box');
    box.hidden = !shownNow(s);
    const p = s.prediction;
    if (box.hidden || !p || p.query === null) {
      box.dataset.pending = String(!box.hidden && !p);
      $('prediction-title').textContent = t('predict.title', { token: '' });
      $('prediction').replaceChildren();
      $('prediction-note').textContent = '';
      return;
    }
    $('prediction-title').textContent = t('predict.title', { token: p.query });
    renderCandidates($('prediction'), p.candidates, t);
    const top = p.candidates[0];
    const name = (c) => (c.whole ? t('predict.whole', { label: c.label, whole: c.whole }) : c.label);
    $('prediction-note').textContent =
      p.on && top
        ? t(p.on.id === top.id ? 'predict.same' : 'predict.changed', {
            heads: heads(s.ablate),
            before: name(p.on),
            pBefore: p.on.p.toFixed(3),
            after: name(top),
            pAfter: top.p.toFixed(3),
          })
        : '';
    // Until the answer for what is shown arrives, the older one stays, marked as pending.
    box.dataset.pending = String(JSON.stringify([p.ids, p.row, p.ablate]) !== JSON.stringify([s.result.ids, rowOf(s), s.ablate]));
  }

  store.subscribe((s, changed) => {
    if (changed.has('model')) asked = null; // a new model (or a new worker) answers nothing asked before
    if (['result', 'row', 'ablate', 'generation', 'model', 'inputMode'].some((k) => changed.has(k))) request();
    if (['prediction', 'result', 'row', 'ablate', 'generation', 'model', 'inputMode', 'lang'].some((k) => changed.has(k))) render();
  });
  render();
}
