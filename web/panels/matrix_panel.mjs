// The matrix panel: the layer, head and stage selectors and the mask and
// scale switches, one head's matrix (heatmap, legend, table, the selected
// row explained, the cell under the pointer), the overview of every head
// (where heads are switched off), and the line saying whose matrix is on
// screen while another model loads.
import { scaleFor } from '../colors.mjs';
import { DEMO } from '../demo_model.mjs';
import { errorMessage } from '../error_text.mjs';
import { switchMarks } from '../../js/head_note.mjs';
import { headNote, headTag, headTitle } from '../demo_text.mjs';
import { modelTitle } from '../model_names.mjs';
import { causalShown, headMatrix, isMasked, shown } from '../shown_matrix.mjs';
import { STAGES } from '../url_state.mjs';
import { HeatmapView } from '../views/heatmap.mjs';
import { renderLegend } from '../views/legend.mjs';
import { placeCellTip } from '../views/cell_tooltip.mjs';
import { renderMatrixState } from '../views/matrix_state.mjs';
import { renderMatrixTable } from '../views/matrix_table.mjs';
import { renderOverview } from '../views/overview.mjs';
import { renderRowExplanation } from '../views/row_explanation.mjs';

/**
 * loading: the model loading state (model_loading.mjs); input: the input panel
 * ({compute, currentTokens}); generation: the generation panel ({reset});
 * redrawTimer: keystroke-to-redraw timing, ended when a matrix is drawn.
 */
export function setupMatrixPanel({ store, t, $, loading, input, generation, redrawTimer }) {
  // The one-line legend of the role scores the note quotes, right under it.
  const noteLegend = document.createElement('p');
  noteLegend.id = 'head-note-legend';
  noteLegend.className = 'hint note-legend';
  noteLegend.hidden = true;
  $('head-note').after(noteLegend);
  let firstMatrixDrawn = false;
  // The model whose matrix is on screen ({files, preset, config, seed}), null when none is.
  let drawnSpec = null;
  let focusedCell = null; // the heatmap's cell under the pointer or focus
  let highlightedRow = null; // the row drawn as selected (the store's, or the head note's)

  const heatmap = new HeatmapView($('heatmap'), {
    onCellFocus: (cell) => {
      focusedCell = cell;
      renderCellInfo(cell);
    },
    // Clicking the selected row keeps it: a silent deselection would leave the outline on the note's row.
    onRowSelect: (row) => store.set({ row }),
    // The cell whose weight "why this weight" explains (qk_panel.mjs).
    onCellSelect: ({ i, j }) => store.set({ cell: { query: i, key: j } }),
  });

  // Switching a head off (or on again) from the overview.
  function toggleHead(layer, head) {
    const { ablate, generation: g } = store.get();
    const off = ablate.some(([l, h]) => l === layer && h === head);
    const next = off ? ablate.filter(([l, h]) => l !== layer || h !== head) : [...ablate, [layer, head]];
    if (g) generation.reset(); // generation runs with every head on
    store.set({ ablate: next.sort((a, b) => a[0] - b[0] || a[1] - b[1]) });
    input.compute();
  }

  function renderCellInfo(cell) {
    const s = store.get();
    const view = shown(s);
    if (!cell || !view) {
      $('cell-info').textContent = '';
      return;
    }
    const { tokens, entries, T } = view;
    if (cell.i >= T || cell.j >= T) return;
    const value = (stage) => headMatrix(entries.get(s.layer, stage), s.head, T)[cell.i * T + cell.j];
    // The tooltip keeps a byte token's raw bytes beside its label: 唱 (<0xE5><0x94>).
    const named = (k) => (view.raw && view.raw[k] !== tokens[k] ? `${tokens[k]} (${view.raw[k]})` : tokens[k]);
    const params = { query: named(cell.i), key: named(cell.j) };
    $('cell-info').textContent = isMasked('attn_weights', causalShown(s))(cell.i, cell.j)
      ? t('matrix.cellMasked', params)
      : t('matrix.cell', {
          ...params,
          raw: value('scores_raw').toFixed(3),
          scaled: value('scores_scaled').toFixed(3),
          weight: value('attn_weights').toFixed(3),
        });
    // The tooltip by the cell (its text is also the live region's).
    placeCellTip($('cell-info'), $('heatmap'), heatmap.cellBox(cell), rowsBand(cell));
  }

  // The rows a tooltip must leave in view: the cell's and the highlighted one, as {y, h} on the canvas.
  function rowsBand(cell) {
    const boxes = [cell, highlightedRow === null ? null : { i: highlightedRow, j: 0 }]
      .map((c) => (c ? heatmap.cellBox(c) : null))
      .filter(Boolean);
    if (boxes.length === 0) return null;
    const y = Math.min(...boxes.map((b) => b.y));
    return { y, h: Math.max(...boxes.map((b) => b.y + b.h)) - y };
  }

  function renderSelectors() {
    const s = store.get();
    const info = s.model.info;
    const fill = (select, count, value) => {
      if (select.options.length !== count)
        select.replaceChildren(...Array.from({ length: count }, (_, k) => new Option(String(k), String(k))));
      select.value = String(value);
    };
    fill($('layer'), info?.num_hidden_layers ?? 1, s.layer ?? 0);
    fill($('head'), info?.num_attention_heads ?? 1, s.head ?? 0);
    for (const button of document.querySelectorAll('[data-stage]')) {
      const on = button.dataset.stage === s.stage;
      button.setAttribute('aria-checked', String(on));
      button.tabIndex = on ? 0 : -1;
    }
    $('causal').checked = s.causal;
    $('scale').checked = s.scale;
  }

  function renderMatrix() {
    const s = store.get();
    const info = s.model.info;
    const result = shown(s);
    const causal = causalShown(s);
    const computeMessage = s.computeError
      ? t('error.compute', { message: errorMessage(s.lang, s.computeError) })
      : s.stale && !s.generation
        ? t('run.stale')
        : '';
    $('compute-message').hidden = !computeMessage;
    $('compute-message').textContent = computeMessage;
    renderAblation(s);
    if (!info || !result || s.layer === null || s.head === null) {
      $('view-title').textContent = '';
      $('stage-caption').textContent = '';
      $('head-note').textContent = '';
      noteLegend.hidden = true;
      // The matrix drawn before stays only while the next one is on its way, marked as the previous model's.
      const waiting = loadingAnother(s) || (s.model.status === 'ready' && !s.computeError && hasInput(s));
      showMatrixState(drawnSpec && waiting ? 'previous' : 'empty', s);
      return;
    }
    const { tokens, entries, T } = result;
    const H = info.num_attention_heads;
    const Hkv = info.num_key_value_heads;
    const Dh = info.head_dim;
    const entry = entries.get(s.layer, s.stage);
    const values = headMatrix(entry, s.head, T);
    // NaN: scores cached decoding never computed (older rows, newer keys).
    const causalMask = isMasked(s.stage, causal);
    const masked = (i, j) => causalMask(i, j) || Number.isNaN(values[i * T + j]);
    const scale = scaleFor(s.stage, values);
    const kv = Math.floor(s.head / (H / Hkv));
    $('view-title').textContent = t('view.title', {
      layer: s.layer,
      head: s.head,
      kvNote: t('view.kvHead', { kv }),
      stage: [t(`stage.${s.stage}`), ...switchMarks(t, s)].join(' · '), // "softmax · mask off"
    });
    $('stage-caption').textContent = t(`stage.caption.${s.stage}`, { H, T, Dh, Hkv, sqrtD: Math.sqrt(Dh).toFixed(3) });
    $('matrix-shape').textContent = t('matrix.shape', { stage: t(`stage.${s.stage}`), H, T, head: s.head });
    // Shown (and marked) before it is drawn: the heatmap sizes itself from its box.
    drawnSpec = { files: s.files, preset: s.preset, config: s.config, seed: s.seed };
    showMatrixState(loadingAnother(s) ? 'previous' : 'current', s);
    // The note is composed first: with no row selected, the row it talks about is the one highlighted.
    const weights = headMatrix(entries.get(s.layer, 'attn_weights'), s.head, T);
    const heads = measuredHeads(s);
    const note = headNote(t, heads, {
      tokens,
      weights,
      row: s.row,
      layer: s.layer,
      head: s.head,
      causal: s.causal,
      scale: s.scale,
      stage: s.stage,
    });
    highlightedRow = s.row ?? note.row ?? null;
    heatmap.render({
      tokens,
      values,
      masked,
      scale,
      decimals: s.stage === 'attn_weights' ? 2 : 1,
      selectedRow: highlightedRow,
      selectedCell: s.generation ? null : s.cell, // the cell "why this weight" explains
      titles: { query: t('matrix.queryAxis'), key: t('matrix.keyAxis') },
    });
    placeCellTip($('cell-info'), $('heatmap'), heatmap.cellBox(focusedCell), rowsBand(focusedCell));
    renderLegend($('legend'), {
      scale,
      stage: s.stage,
      maskedLabel: t('matrix.masked'),
      showMasked: causal && s.stage !== 'scores_raw' && s.stage !== 'scores_scaled',
    });
    renderMatrixTable($('matrix-table'), {
      caption: t('matrix.tableCaption', { layer: s.layer, head: s.head, stage: t(`stage.${s.stage}`) }),
      tokens,
      values,
      masked,
      maskedText: (i, j) =>
        Number.isNaN(values[i * T + j])
          ? t('matrix.notComputed')
          : s.stage === 'attn_weights'
            ? `0.000 (${t('matrix.masked')})`
            : `−∞ (${t('matrix.masked')})`,
      queryLabel: `${t('matrix.query')} \\ ${t('matrix.key')}`,
    });
    renderRowExplanation($('row-explanation'), { tokens, weights, row: s.row, t });
    renderToggleNote(weights, T, Dh);
    markTimings(result);
    // A preset's random weights say so first; then only what the row shows.
    const untrained = !heads && !s.files && s.preset !== DEMO && s.inputMode === 'text';
    $('head-note').textContent = untrained ? `${t('model.untrainedNote')}${t('note.sentenceSeparator')}${note.text}` : note.text;
    $('head-note').dataset.row = String(note.row);
    noteLegend.hidden = !note.legend;
    noteLegend.textContent = note.legend ?? '';
    renderOverview($('overview'), {
      entries,
      layers: info.num_hidden_layers,
      heads: H,
      kvHeads: Hkv,
      T,
      stage: s.stage,
      masked: causalMask,
      current: { layer: s.layer, head: s.head },
      t,
      // Measured with both switches on: with one off the tags say so (headTag), as the note does.
      tags: heads ? (layer, head) => ({ ...headTag(t, heads, layer, head, s), title: headTitle(t, heads, layer, head, s) }) : null,
      ablated: new Set(s.ablate.map(([layer, head]) => `${layer}:${head}`)),
      onOpen: (layer, head) => store.set({ layer, head }),
      onToggle: toggleHead,
    });
  }

  // Another model is on its way: building, downloading, or files loading into the worker
  // (not the same model loaded again after a cancelled forward pass, whose matrices still fit).
  function loadingAnother(s) {
    return (s.model.status === 'building' && !loading.restoring?.keep) || s.filesStatus?.phase === 'parsing';
  }

  // The input has tokens to compute (a model is loaded).
  function hasInput(s) {
    const current = input.currentTokens();
    return current.viaWorker ? s.text.trim() !== '' : current.ids.length > 0;
  }

  function showMatrixState(state, s) {
    let text = '';
    if (state === 'previous') {
      const loadingNow = s.model.status === 'building' || s.filesStatus?.phase === 'parsing';
      const files = s.filesStatus?.phase === 'parsing' || (loadingNow && loading.loadingFiles && s.filesStatus?.name);
      text = t(loadingNow ? 'matrix.previousLoading' : 'matrix.previousComputing', {
        previous: modelTitle(drawnSpec, t),
        name: files ? s.filesStatus.name : modelTitle(s, t),
      });
    } else if (state === 'empty') {
      drawnSpec = null;
      // Nothing stale under the "empty" message: the matrix, its legend, table and explanation go.
      for (const id of ['matrix-table', 'legend']) $(id).replaceChildren();
      for (const id of ['row-explanation', 'cell-info', 'toggle-note', 'matrix-shape']) $(id).textContent = '';
      if (s.model.info && !input.currentTokens().error && !hasInput(s)) text = t('matrix.empty');
    }
    renderMatrixState(document.querySelector('section.view'), $('matrix-state'), { state, text });
  }

  // The measured head roles of the model in use: the trained model's
  // heads.json, or what a model trained in the Train panel measured (handed
  // over with its files); null for random weights and dropped checkpoints.
  function measuredHeads(s) {
    if (s.files) return s.files.roles ?? null;
    return s.demo && s.preset === DEMO ? s.demo.heads : null;
  }

  // Which heads are off, and what that means ("all heads on" puts them back);
  // with none off, what switching the trained model's pronoun head off did to
  // its predictions when it was measured (heads.json), and, when several heads
  // share that role, what switching all of them off did.
  function renderAblation(s) {
    const headNames = (list) => list.map(([layer, head]) => t('overview.headName', { layer, head })).join(t('overview.separator'));
    $('ablate-note').textContent = s.ablate.length
      ? t('overview.ablated', { heads: headNames(s.ablate) })
      : measuredAblation(measuredHeads(s), headNames);
    $('ablate-reset').hidden = s.ablate.length === 0;
    $('ablate-box').hidden = !$('ablate-note').textContent;
  }

  /** The invitation shown while no head is off: what switching the pronoun head(s) off did when measured ('' without measurements). */
  function measuredAblation(heads, headNames) {
    const accuracy = heads?.referentAccuracy;
    if (!accuracy || !heads.pronounHead) return '';
    const percent = (x) => `${(100 * x).toFixed(1)}%`;
    const one = t('demo.ablation', { ...heads.pronounHead, on: percent(accuracy.on), off: percent(accuracy.off) });
    if (!(accuracy.pronounHeads?.length > 1)) return one;
    return one + t('demo.ablationGroup', { heads: headNames(accuracy.pronounHeads), off: percent(accuracy.allOff) });
  }

  function renderToggleNote(weights, T, Dh) {
    const s = store.get();
    const notes = [];
    if (!s.causal) {
      let future = 0;
      for (let i = 0; i < T; i += 1) for (let j = i + 1; j < T; j += 1) future += weights[i * T + j];
      notes.push(t('toggles.causalOff', { percent: ((100 * future) / T).toFixed(1) }));
    }
    if (!s.scale) {
      let peak = 0;
      for (let i = 0; i < T; i += 1) peak += Math.max(...weights.subarray(i * T, (i + 1) * T)) / T;
      notes.push(t('toggles.scaleOff', { factor: Math.sqrt(Dh).toFixed(1), peak: peak.toFixed(2) }));
    }
    $('toggle-note').textContent = notes.join(' ');
  }

  let timedResult = null; // the newest result drawn
  function markTimings(result) {
    if (!firstMatrixDrawn) {
      firstMatrixDrawn = true;
      performance.mark('minimind:first-matrix');
    }
    if (result !== timedResult) {
      timedResult = result;
      if (result.sentAt !== undefined) redrawTimer.drawn(result.sentAt); // keystroke-to-redraw ends after this frame
    }
    document.body.dataset.ready = 'true';
  }

  store.subscribe((state, changed) => {
    if (['model', 'layer', 'head', 'stage', 'causal', 'scale'].some((k) => changed.has(k))) renderSelectors();
    if (
      [
        'result',
        'generation',
        'layer',
        'head',
        'stage',
        'row',
        'cell',
        'lang',
        'computeError',
        'model',
        'stale',
        'ablate',
        'demo',
        'filesStatus',
      ].some((k) => changed.has(k))
    )
      renderMatrix();
  });

  $('layer').addEventListener('change', (event) => store.set({ layer: Number(event.target.value) }));
  $('head').addEventListener('change', (event) => store.set({ head: Number(event.target.value) }));
  for (const button of document.querySelectorAll('[data-stage]')) {
    button.addEventListener('click', () => store.set({ stage: button.dataset.stage }));
    button.addEventListener('keydown', (event) => {
      const step = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 }[event.key];
      if (!step) return;
      const next = STAGES[(STAGES.indexOf(store.get().stage) + step + STAGES.length) % STAGES.length];
      store.set({ stage: next });
      document.querySelector(`[data-stage="${next}"]`).focus();
      event.preventDefault();
    });
  }
  $('ablate-reset').addEventListener('click', () => {
    store.set({ ablate: [] });
    input.compute();
  });
  $('causal').addEventListener('change', (event) => {
    store.set({ causal: event.target.checked });
    input.compute();
  });
  $('scale').addEventListener('change', (event) => {
    store.set({ scale: event.target.checked });
    input.compute();
  });
  window.addEventListener('resize', () => renderMatrix());

  renderSelectors();
}
