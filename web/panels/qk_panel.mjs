// "Why this weight", under the matrix: a click on a cell (or Enter on the
// focused one) sets store.cell, and this section asks the worker for that
// score of the layer and head shown, split by the components that wrote its
// query and its key (model.qk, against the row's weighted mean), with the
// causal mask, √d and the heads switched off as the page sets them. The
// sentences come from those numbers (js/qk_text.mjs); the head that wrote a
// side is read in the page's own matrices. A block-0 head also gets its
// ranked keys and RoPE's pairs. Until the answer for what is on screen is in,
// the section says it is updating and dims what it shows. app.mjs calls
// setupQKPanel once and hands it the worker's 'qk' answers (receive).
import { RANK_ASKED, qkSentences } from '../../js/qk_text.mjs';
import { wordParams } from '../../js/why_text.mjs';
import { DEMO, demoRoles } from '../demo_model.mjs';
import { newestReply } from './newest_reply.mjs';
import { errorText } from '../error_text.mjs';
import { headMatrix, shown } from '../shown_matrix.mjs';
import { renderPairs, renderRanked, renderRope, renderTable } from '../views/qk_view.mjs';
import { make, makePart } from './make_element.mjs';

export function setupQKPanel({ store, t, $, client, input }) {
  const root = $('qk');
  // The gallery's frame of this section alone: the compact view (?embed=1) opened at #qk.
  document.body.classList.toggle('qk-embed', location.hash === '#qk');
  const title = make('h3', null, root);
  const close = make('button', 'qk-close', root, { type: 'button' });
  const prompt = make('p', 'hint qk-prompt', root);
  const hint = make('p', 'hint qk-hint', root);
  const switches = make('p', 'note qk-switches', root);
  const updating = make('p', 'note qk-updating', root, { role: 'status' });
  const error = make('p', 'message error qk-error', root);
  const sentences = make('ul', 'why-sentences qk-sentences', root);
  const [tablePart, tableTitle] = makePart('qk-part qk-contrast', root);
  const tableBox = make('div', 'qk-table-scroll', tablePart);
  const rest = make('p', 'hint qk-rest', tablePart);
  const [pairsPart, pairsTitle] = makePart('qk-part qk-pairs-part', root);
  const pairsBox = make('div', null, pairsPart);
  const [rankedPart, rankedTitle] = makePart('qk-part qk-ranked-part', root);
  const rankedBox = make('div', null, rankedPart);
  const [ropePart, ropeTitle] = makePart('qk-part qk-rope-part', root);
  const ropeBox = make('div', null, ropePart);
  close.addEventListener('click', () => store.set({ cell: null }));

  let answer = null; // the worker's newest qk-result
  let failure = null;
  let asked = null; // the key of the newest request sent
  let answeredFor = null; // the key of the request the answer or the failure is for

  function shownNow(s) {
    return Boolean(
      s.result && s.model.info && !s.generation && s.inputMode !== 'manual' && s.result.T > 0 && s.layer !== null && s.head !== null,
    );
  }

  // What an answer is for: the tokens, the cell, the layer, the head and the switches.
  function keyOf(s) {
    return JSON.stringify([s.result.ids, s.cell, s.layer, s.head, s.causal, s.scale, s.ablate]);
  }

  function request() {
    const s = store.get();
    if (!shownNow(s) || !s.cell) return render();
    const key = keyOf(s);
    if (key !== asked) {
      asked = key;
      const tokens = input.requestTokens(input.currentTokens());
      client.qk(tokens, {
        layer: s.layer,
        head: s.head,
        query: s.cell.query,
        key: s.cell.key,
        rankKeys: s.layer === 0 ? RANK_ASKED : 0,
        causal: s.causal,
        scale: s.scale,
        ablate: s.ablate,
        asked: key,
      });
    }
    render();
  }

  function receive(message) {
    ({ answeredFor, answer, failure } = newestReply(message, asked));
    render();
  }

  // A head's weights [T] at a query position in the page's own run (the matrix on screen), or null.
  function attentionIn(s) {
    const view = shown(s);
    return (name, position) => {
      const m = /^L(\d+)H(\d+)$/.exec(name);
      if (!view || !m || position >= view.T) return null;
      const entry = view.entries.get(Number(m[1]), 'attn_weights');
      if (!entry) return null;
      const T = view.T;
      return headMatrix(entry, Number(m[2]), T).subarray(position * T, (position + 1) * T);
    };
  }

  function render() {
    const s = store.get();
    root.hidden = !shownNow(s);
    if (root.hidden) return;
    close.textContent = t('qk.close');
    const cell = s.cell;
    close.hidden = !cell;
    prompt.hidden = Boolean(cell);
    prompt.textContent = t('qk.prompt');
    hint.hidden = !cell;
    hint.textContent = t('qk.hint');
    // The switches the answer is computed with, when they are not the model's own.
    const off = [...(s.causal ? [] : [t('why.maskOff')]), ...(s.scale ? [] : [t('why.scaleOff')])];
    const lines = [
      ...(off.length ? [t('qk.switches', { switches: off.join(t('note.listSeparator')) })] : []),
      ...(s.ablate.length ? [t('qk.ablated', { heads: s.ablate.map(([l, h]) => `L${l}H${h}`).join(t('note.listSeparator')) })] : []),
    ];
    switches.hidden = !cell || lines.length === 0;
    switches.textContent = switches.hidden ? '' : lines.join(' ');
    const current = keyOf(s);
    const pending = Boolean(cell) && answeredFor !== current;
    root.dataset.pending = String(pending);
    root.classList.toggle('qk-stale', pending);
    updating.hidden = !pending;
    updating.textContent = pending ? t('qk.updating') : '';
    error.hidden = !cell || !failure;
    error.textContent = cell && failure ? errorText(s.lang, failure).text : '';
    const a = cell && !failure ? answer : null;
    if (!a) {
      title.textContent = t('qk.titleEmpty');
      for (const part of [sentences, tablePart, pairsPart, rankedPart, ropePart]) part.hidden = true;
      return;
    }
    const { qk, tokens } = a;
    title.textContent = t('qk.title', {
      query: qk.query,
      queryToken: tokens[qk.query],
      key: qk.key,
      keyToken: tokens[qk.key],
      layer: qk.layer,
      head: qk.head,
    });
    const labelOf = (id) => a.labels[id] ?? `#${id}`;
    // The page's matrices are of the run on screen only while this answer is.
    const said = qkSentences(qk, {
      tokens,
      ids: a.ids,
      roles: demoRoles(s),
      attention: pending ? null : attentionIn(s),
      labelOf,
      world: s.preset === DEMO && !s.files,
    });
    sentences.hidden = false;
    sentences.replaceChildren(
      ...said.map(({ key, params }) => {
        const item = document.createElement('li');
        item.dataset.key = key;
        item.textContent = t(key, wordParams(t, params));
        return item;
      }),
    );
    const contrast = qk.versus && !qk.masked;
    const table = contrast ? qk.versus.table : qk.table;
    tablePart.hidden = false;
    tableTitle.textContent = contrast ? t('qk.contrastTitle') : t('qk.tableTitle');
    const drawn = renderTable(tableBox, { table, components: qk.components, label: tableTitle.textContent });
    rest.hidden = Math.abs(drawn.rest) < 0.005;
    rest.textContent = rest.hidden ? '' : t('qk.rest', { rest: drawn.rest.toFixed(2) });
    // One component (block 0) makes one pair: the bars would repeat the table.
    pairsPart.hidden = qk.components.length === 1;
    if (!pairsPart.hidden) {
      pairsTitle.textContent = t('qk.pairsTitle');
      renderPairs(pairsBox, { table, components: qk.components, label: pairsTitle.textContent });
    }
    rankedPart.hidden = !qk.ranked?.length;
    if (!rankedPart.hidden) {
      rankedTitle.textContent = t('qk.rankedTitle', { query: tokens[qk.query], key: qk.key });
      renderRanked(rankedBox, { ranked: qk.ranked, keyId: a.ids[qk.key], labelOf, label: rankedTitle.textContent });
    }
    ropePart.hidden = !(qk.components.length === 1 && qk.ropePairs?.length);
    if (!ropePart.hidden) {
      ropeTitle.textContent = t('qk.ropeTitle');
      renderRope(ropeBox, { rotated: qk.ropePairs, unrotated: qk.ropePairsUnrotated, t, label: ropeTitle.textContent });
    }
  }

  store.subscribe((s, changed) => {
    if (changed.has('model')) asked = null; // a new model (or a new worker) answers nothing asked before
    const asks = ['result', 'cell', 'layer', 'head', 'causal', 'scale', 'ablate', 'generation', 'model', 'inputMode'];
    if (asks.some((k) => changed.has(k))) request();
    else if (['lang', 'demo'].some((k) => changed.has(k))) render();
  });
  render();
  return { receive };
}
