// The next-token prediction panel: what the model predicts after the
// selected row (the last token when no row is selected), its five most
// likely tokens from the worker, computed with the switches as set; with
// heads switched off in the overview, each with its probability when every
// head is on, and a sentence on what changed. With the causal mask off the
// row reads the tokens after it too: the list is what a model that sees the
// future predicts, shown beside the masked prediction. During generation the
// generation panel shows its own candidates.
// app.mjs calls setupPrediction once; this reads the store and sends
// 'predict' requests to the worker.
import { renderCandidates } from './views/candidates.mjs';
import { showMarks } from './views/mark_legend.mjs';

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
    const key = keyOf(s);
    if (key === asked) return;
    asked = key;
    client.predict(tokens(), { row: rowOf(s), ablate: s.ablate, causal: s.causal, scale: s.scale });
  }

  // What a prediction answers: the tokens, the row and the switches.
  function keyOf(s) {
    return JSON.stringify([s.result.ids, rowOf(s), s.ablate, s.causal, s.scale]);
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
      renderSwitches(null);
      $('prediction-note').textContent = '';
      showMarks($('mark-legend'), t, 'prediction', []);
      return;
    }
    $('prediction-title').textContent = t('predict.title', { token: p.query });
    renderCandidates($('prediction'), p.candidates, t);
    renderSwitches(p);
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
    showMarks($('mark-legend'), t, 'prediction', [...p.candidates, ...(p.causal ? [] : p.masked), p.on]);
    // Until the answer for what is shown arrives, the older one stays, marked as pending.
    box.dataset.pending = String(JSON.stringify([p.ids, p.row, p.ablate, p.causal, p.scale]) !== keyOf(s));
  }

  // The switches the prediction was computed with, when one is off; with the
  // mask off, the masked prediction beside it and what the row could see.
  function renderSwitches(p) {
    const maskOff = Boolean(p && !p.causal);
    $('prediction-heading').hidden = !maskOff;
    $('prediction-masked-box').hidden = !maskOff;
    const lines = [];
    if (maskOff) {
      const token = p.query;
      const next = store.get().result?.tokens[p.row + 1];
      if (p.future > 0) lines.push(t('predict.maskOff', { token, count: p.future, next }));
      else lines.push(t(sameList(p.candidates, p.masked) ? 'predict.maskOffLastSame' : 'predict.maskOffLast', { token }));
      $('prediction-heading').textContent = t(p.future > 0 ? 'predict.seesFuture' : 'predict.noFuture');
      $('prediction-masked-heading').textContent = t('predict.masked');
      renderCandidates($('prediction-masked'), p.masked, t);
    } else $('prediction-masked').replaceChildren();
    if (p && !p.scale) lines.push(t('predict.scaleOff'));
    $('prediction-switches').hidden = lines.length === 0;
    $('prediction-switches').textContent = lines.join(' ');
  }

  // Two lists that show the same tokens with the same probabilities.
  function sameList(a, b) {
    const shown = (list) => list.map((c) => `${c.id}:${c.p.toFixed(3)}`).join(' ');
    return shown(a) === shown(b);
  }

  store.subscribe((s, changed) => {
    if (changed.has('model')) asked = null; // a new model (or a new worker) answers nothing asked before
    const asks = ['result', 'row', 'ablate', 'causal', 'scale', 'generation', 'model', 'inputMode'];
    if (asks.some((k) => changed.has(k))) request();
    if (['prediction', 'lang', ...asks].some((k) => changed.has(k))) render();
  });
  render();
}
