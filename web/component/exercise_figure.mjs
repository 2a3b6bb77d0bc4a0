// The <minimind-exercise> element's own small figure: what the learner reads
// to answer, computed from the model on the element's screen (its text, layer,
// head, row, switches): the selected row of the stage shown, the next-token
// candidates after the pronoun with the heads switched off, the logit lens at
// the pronoun, the key side of a score by component, the heads grouped by the
// K/V head they read. Each is what the playground's own view of it shows.
import { argmax } from '../../js/argmax.mjs';
import { sideSums } from '../../js/qk_text.mjs';
import { softmax } from '../../js/softmax.mjs';
import { topK } from '../../js/top_k.mjs';
import { greedyCompletion, predictedLabel } from '../../js/token_text.mjs';
import { residualName, wordParams } from '../../js/why_text.mjs';
import { make } from '../panels/make_element.mjs';

const TOP = 5;

/** Next-token logits after ids[0..row] as probabilities: [V] (softmax, as MiniMind's generate at temperature 1). */
function nextProbabilities(model, ids, options) {
  const { logits } = model.forward(ids, options);
  const V = logits.shape[2];
  return softmax(logits.data.subarray((ids.length - 1) * V));
}

// A predicted token's label: a byte token by the character the model's greedy next tokens complete (唱…).
function tokenName(model, tokenizer, ids, id, options) {
  const next = (sequence) => {
    return argmax(nextProbabilities(model, sequence, options));
  };
  return predictedLabel(tokenizer.display([id])[0], greedyCompletion(tokenizer, ids, id, next)).label;
}

/** A strip of labelled values, each shaded by its size: [{label, value}], values in [0, 1] when `shade`. */
function strip(parent, items, shade = true) {
  const list = make('ol', 'ex-strip', parent);
  for (const { label, value, text } of items) {
    const item = make('li', null, list);
    make('span', 'ex-token', item, label);
    make('span', 'ex-value', item, text ?? value.toFixed(2));
    if (shade) item.style.setProperty('--ex-shade', String(Math.max(0, Math.min(1, value))));
  }
}

// The model's switches on the element's screen.
function switches(screen) {
  return { causalMask: screen.causal, scaleScores: screen.scale, ...(screen.ablate.length ? { ablate: screen.ablate } : {}) };
}

/**
 * Draws the figure of exercise `name` into `box` (emptied first). screen: the
 * element's (js/exercises/screen.mjs, with ids and labels); t(key, params).
 */
export function drawExerciseFigure(box, { name, model, screen, t }) {
  box.replaceChildren();
  const { ids, labels, tokenizer, layer, head, row } = screen;
  const info = model.info();
  const title = (key, params) => make('p', 'ex-figure-title', box, t(key, params));
  if (name === 'forward-gqa') {
    const { num_attention_heads: H, num_key_value_heads: Hkv, head_dim: dh } = info;
    title('exercise.el.config', { H, Hkv, dh });
    return;
  }
  if (name === 'train-setting' || name === 'circuit-edge') return; // the settings, or the edges listed in the answer control
  if (ids.length === 0) return;
  if (name === 'switch-off' || name === 'lens-block') {
    const prefix = ids.slice(0, row + 1);
    if (name === 'switch-off') {
      const options = { scaleScores: screen.scale, ...(screen.ablate.length ? { ablate: screen.ablate } : {}) };
      const p = nextProbabilities(model, prefix, options);
      const top = topK(p, TOP).map((entry) => entry.id);
      title('exercise.el.prediction', { row, token: labels[row] });
      strip(
        box,
        top.map((id) => ({ label: tokenName(model, tokenizer, prefix, id, options), value: p[id] })),
      );
      return;
    }
    const { lens } = model.lens(prefix, { top: 1, scaleScores: screen.scale, ...(screen.ablate.length ? { ablate: screen.ablate } : {}) });
    title('exercise.el.lens', { row, token: labels[row] });
    const word = (part) => t(part.key, wordParams(t, part.params));
    strip(
      box,
      lens.map((layerRows, l) => {
        const { id, p } = layerRows[row][0];
        return { label: word(residualName(l)), value: p, text: `${tokenName(model, tokenizer, prefix, id, {})} ${p.toFixed(2)}` };
      }),
    );
    return;
  }
  if (name === 'weight-source') {
    if (layer === 0 || !screen.cell) return;
    const qk = model.qk({ ids, layer, head, ...screen.cell, versus: 'mean', ...switches(screen) });
    const table = qk.versus && !qk.masked ? qk.versus.table : qk.table;
    const parts = sideSums(table).k;
    const largest = Math.max(...parts.map(Math.abs)) || 1;
    title('exercise.el.parts', { query: labels[screen.cell.query], key: labels[screen.cell.key], layer, head });
    strip(
      box,
      qk.components.map((component, c) => ({ label: component, value: Math.abs(parts[c]) / largest, text: parts[c].toFixed(2) })),
    );
    return;
  }
  // The selected row of the stage shown at (layer, head): the matrix's row as the page draws it.
  const stage = name === 'mask-cheat' && screen.stage === 'attn_weights' ? 'attn_weights' : screen.stage;
  const { trace } = model.forward(ids, { trace: { layers: [layer], stages: [stage] }, ...switches(screen) });
  const T = ids.length;
  const values = Array.from(trace.get(layer, stage).data.subarray((head * T + row) * T, (head * T + row + 1) * T));
  const largest = Math.max(...values.filter(Number.isFinite).map(Math.abs)) || 1;
  title('exercise.el.rowFigure', { layer, head, row, token: labels[row], stage: t(`exercise.el.stage.${stage}`) });
  strip(
    box,
    values.map((value, j) => ({
      label: `${j} ${labels[j]}`,
      value: stage === 'attn_weights' ? value : Number.isFinite(value) ? Math.abs(value) / largest : 0,
      text: Number.isFinite(value) ? value.toFixed(2) : '−∞',
    })),
  );
}
