// The export buttons: the view on screen as PNG, SVG, CSV or JSON, with the
// model, tokens, layer, head, stage and switches it was drawn with.
import { DEMO } from '../demo_model.mjs';
import { canvasMeasure, download, exportMeta, figurePng, figureSvg, matrixCsv, matrixJson } from '../export.mjs';
import { figureText } from '../export_figure.mjs';
import { modelTitle } from '../model_names.mjs';
import { causalShown, headMatrix, isMasked, shown } from '../shown_matrix.mjs';

export function setupExportButtons({ store, t, $ }) {
  // The view the exports hold: the matrix on screen (the generated one while generation is shown) and what it is.
  function exportView() {
    const s = store.get();
    const view = shown(s);
    const info = s.model.info;
    if (!view || !info || document.querySelector('section.view').dataset.matrix !== 'current') return null;
    const { tokens, ids, entries, T } = view;
    const values = headMatrix(entries.get(s.layer, s.stage), s.head, T);
    const causal = causalShown(s);
    const causalMask = isMasked(s.stage, causal);
    const g = s.generation;
    const spec = s.files
      ? { files: s.files.name, tokenizer: Boolean(s.files.tokenizer) }
      : s.preset === DEMO && !s.config
        ? { preset: DEMO, trained: true }
        : { preset: s.preset, seed: s.seed, ...(s.config ? { config: s.config } : {}), trained: false };
    return {
      model: {
        name: modelTitle(s, t),
        ...spec,
        ...(s.ablate.length && !g ? { ablate: s.ablate } : {}), // heads switched off (generation runs with every head on)
      },
      tokens, // as the page draws them
      rawTokens: view.raw ?? tokens, // the tokenizer's text (<0xE5><0x94>): the data keeps it
      ids,
      values,
      masked: (i, j) => causalMask(i, j) || Number.isNaN(values[i * T + j]),
      hasNotComputed: values.some(Number.isNaN),
      T,
      H: info.num_attention_heads,
      layer: s.layer,
      head: s.head,
      stage: s.stage,
      stageName: t(`stage.${s.stage}`),
      causal,
      scale: g ? true : s.scale, // generation computes MiniMind's attention as it is
      generation: g ? { prompt: g.promptT, generated: g.T - g.promptT } : null, // rows: an unfed last token has none
      cell: pageCell(T),
    };
  }

  // The heatmap's cell size (views/matrix_layout.mjs): the figure lays out its matrix and labels as the page does.
  function pageCell(T) {
    const drawn = JSON.parse(document.getElementById('heatmap')?.dataset.layout || 'null');
    return drawn?.T === T ? drawn.cell : null;
  }

  function exportBase(view) {
    const s = store.get();
    const name = s.config ? 'minimind-custom' : s.preset === DEMO ? DEMO : `minimind-${s.preset}`;
    return `${name}-L${view.layer}-H${view.head}-${view.stage}${view.generation ? '-generated' : ''}`;
  }

  const exporters = {
    'export-png': async (view) => ['png', await figurePng(view, figureText(view, t))],
    'export-svg': (view) => [
      'svg',
      new Blob([figureSvg(view, figureText(view, t), exportMeta(view), canvasMeasure())], { type: 'image/svg+xml' }),
    ],
    'export-csv': (view) => ['csv', new Blob([matrixCsv(view)], { type: 'text/csv' })],
    'export-json': (view) => ['json', new Blob([matrixJson(view)], { type: 'application/json' })],
  };
  for (const [id, exporter] of Object.entries(exporters)) {
    $(id).addEventListener('click', async () => {
      const view = exportView();
      if (!view) return;
      const [extension, blob] = await exporter(view);
      download(`${exportBase(view)}.${extension}`, blob);
    });
  }
}
