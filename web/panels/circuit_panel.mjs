// The circuit view, in "ask the model why": the edges that carry the answer
// of the why section's pair (js/why_text.mjs patchStory and storyPair, derived
// in the worker: the referent swapped, else the pronoun flipped, else the
// lesson's pair), or, for a text typed twice, of the copy (js/circuit_text.mjs
// inductionPair). The worker runs model.circuit: every edge scored by EAP,
// the `top` strongest path-patched, both faithfulness curves. The slider sets
// N, the edges drawn and the share of the answer their circuit keeps; a head
// node opens that head's matrix and its "why this weight". The heads
// switched off are off in every run of the circuit (the request and its key
// carry them) and the section names them; the mask and √d switches the
// circuit does not take: switched, the section says they stay on here.
// app.mjs calls setupCircuitPanel once
// and hands it the worker's 'circuit' answers (receive).
import { circuitSentences, curveAt, curveSteps, edgeShares, inductionPair, inductionSentence } from '../../js/circuit_text.mjs';
import { patchStory, wordParams } from '../../js/why_text.mjs';
import { DEMO, demoRoles } from '../demo_model.mjs';
import { newestReply } from './newest_reply.mjs';
import { errorText } from '../error_text.mjs';
import { headMatrix } from '../shown_matrix.mjs';
import { renderCircuit, renderCurves } from '../views/circuit_view.mjs';
import { make, makePart } from './make_element.mjs';

/** Edges path-patched: the choices, and the default. */
const CIRCUIT_TOPS = [20, 50, 100];
const DEFAULT_TOP = 50;
/** The graph draws at most this many edges (the slider's N beyond it is the curve's only). */
const DRAW_MAX = 60;
/** The slider starts at this N (or the largest step below it). */
const START_N = 10;
/** A model up to this many parameters computes its circuit as the text changes; a larger one on request. */
const AUTO_PARAMETERS = 8e6;
const TYPING_PAUSE_MS = 250;
const TABLE_ROWS = 8;

export function setupCircuitPanel({ store, t, $, client }) {
  const root = make('section', 'why-part circuit', $('why'));
  root.id = 'circuit';
  const title = make('h4', null, root);
  const hint = make('p', 'hint', root);
  const direction = make('p', 'note circuit-direction', root);
  const pairLine = make('p', 'note circuit-pair', root);
  const plain = make('p', 'note circuit-plain', root);
  const controls = make('div', 'circuit-controls', root);
  const topLabel = make('label', null, controls);
  const topCaption = make('span', null, topLabel);
  const topSelect = make('select', null, topLabel, { name: 'circuit-top' });
  for (const n of CIRCUIT_TOPS) make('option', null, topSelect, { value: String(n) }).textContent = String(n);
  topSelect.value = String(DEFAULT_TOP);
  const runButton = make('button', 'circuit-run', controls, { type: 'button' });
  const updating = make('p', 'note circuit-updating', root, { role: 'status' });
  const error = make('p', 'message error circuit-error', root);
  const body = make('div', 'circuit-body', root);
  const sliderLabel = make('label', 'circuit-slider', body);
  const sliderCaption = make('span', null, sliderLabel);
  const slider = make('input', null, sliderLabel, { type: 'range', min: '0', step: '1', name: 'circuit-n' });
  const keeps = make('p', 'circuit-keeps', body, { 'aria-live': 'polite' });
  const drawnNote = make('p', 'hint circuit-drawn', body);
  const graph = make('div', 'circuit-graph-box', body);
  const [curvePart, curveTitle] = makePart('circuit-curve-part', body);
  const curveBox = make('div', null, curvePart);
  const [tablePart, tableTitle] = makePart('circuit-table-part', body);
  const table = make('table', 'circuit-table', tablePart);
  const sentences = make('ul', 'why-sentences circuit-sentences', body);

  let answer = null; // the newest circuit-result
  let failure = null;
  let asked = null; // the key of the newest request
  let answeredFor = null;
  let step = null; // the slider's index, kept while the answer's steps stay the same
  let typedAt = -Infinity;
  let pauseTimer = null;

  const shownNow = (s) => Boolean(s.result && s.model.info && !s.generation && s.inputMode !== 'manual' && s.result.T > 0);
  const hasTokenizer = (s) => (s.files ? s.files.tokenizer : s.preset === DEMO);
  const small = (s) => (s.model.info?.parameters ?? Infinity) <= AUTO_PARAMETERS;
  const rowOf = (s) => (s.row !== null && s.row < s.result.T ? s.row : s.result.T - 1);

  // What to ask: a text typed twice its copy; else, with a tokenizer, the why section's pair.
  function question(s) {
    const ids = Array.from(s.result.ids);
    if (inductionPair(ids)) return { induction: { ids } };
    if (!hasTokenizer(s) || s.inputMode !== 'text') return null;
    return { pairFrom: { story: patchStory(s.text, s.result.tokens, rowOf(s)).story } };
  }

  function keyOf(s, q = question(s)) {
    return JSON.stringify([q, Number(topSelect.value), s.ablate, s.model.info?.parameters ?? null, s.preset, s.files?.name ?? null]);
  }

  function request(force = false) {
    const s = store.get();
    if (!shownNow(s)) return render();
    const wait = typedAt + TYPING_PAUSE_MS - performance.now();
    clearTimeout(pauseTimer);
    if (wait > 0) {
      pauseTimer = setTimeout(() => request(force), wait);
      return render();
    }
    const q = question(s);
    const key = keyOf(s, q);
    if (q && key !== asked && (force || small(s))) {
      asked = key;
      client.circuit({ ...q, top: Number(topSelect.value), ablate: s.ablate, asked: key });
    }
    render();
  }

  function receive(message) {
    if (message.type === 'superseded') return;
    ({ answeredFor, answer, failure } = newestReply(message, asked));
    render();
  }

  // A head node: that head's matrix, and "why this weight" of the last row's largest weight.
  function openHead(layer, head) {
    const s = store.get();
    const T = s.result.T;
    const query = T - 1;
    const entry = s.result.entries.get(layer, 'attn_weights');
    let key = 0;
    if (entry) {
      const weights = headMatrix(entry, head, T);
      for (let j = 1; j <= query; j += 1) if (weights[query * T + j] > weights[query * T + key]) key = j;
    }
    store.set({ layer, head, cell: { query, key } });
    document.getElementById('qk')?.scrollIntoView({ block: 'nearest' });
  }

  const fmt = (x) => (x === null ? t('circuit.none') : x.toFixed(2));
  const pct = (x) => (x === null ? t('circuit.none') : `${Math.round(x * 100)}%`);

  function tipLines(edge, result, top) {
    const { eap, patched } = edgeShares(edge, result.metric);
    const lines = [
      t('circuit.tip.edge', { from: edge.from, to: edge.to }),
      t('circuit.tip.score', { score: fmt(edge.score), eap: pct(eap) }),
    ];
    lines.push(
      edge.patched === null
        ? t('circuit.tip.unpatched', { top })
        : t('circuit.tip.patched', { patched: fmt(edge.patched), share: pct(patched) }),
    );
    if (edge.positions) {
      const order = edge.positions.map((v, i) => i).sort((a, b) => Math.abs(edge.positions[b]) - Math.abs(edge.positions[a]));
      const parts = order.slice(0, 3).map((i) => `${i} “${result.tokens.clean[i]}” ${fmt(edge.positions[i])}`);
      lines.push(t('circuit.tip.positions', { parts: parts.join(t('note.listSeparator')) }));
    }
    return lines;
  }

  function renderTable(result) {
    const head = make('tr', null, null);
    for (const k of ['circuit.col.edge', 'circuit.col.eap', 'circuit.col.patched']) make('th', null, head, t(k));
    const rows = result.edges.slice(0, TABLE_ROWS).map((edge) => {
      const { eap, patched } = edgeShares(edge, result.metric);
      const tr = make('tr', null, null);
      make('td', null, tr, `${edge.from} → ${edge.to}`);
      make('td', null, tr, pct(eap));
      make('td', null, tr, pct(patched));
      return tr;
    });
    table.replaceChildren(head, ...rows);
  }

  function render() {
    const s = store.get();
    root.hidden = !shownNow(s);
    if (root.hidden) return;
    title.textContent = t('circuit.title');
    hint.textContent = t('circuit.hint');
    direction.textContent = t('circuit.direction');
    topCaption.textContent = t('circuit.top');
    runButton.textContent = t('circuit.run');
    const off = [...(s.causal ? [] : [t('why.maskOff')]), ...(s.scale ? [] : [t('why.scaleOff')])];
    const heads = s.ablate.map(([l, h]) => `L${l}H${h}`);
    const notes = [
      ...(off.length ? [t('circuit.plainModel', { switches: off.join(t('note.listSeparator')) })] : []),
      ...(heads.length ? [t('circuit.headsOff', { heads: heads.join(t('note.listSeparator')) })] : []),
    ];
    plain.hidden = notes.length === 0;
    plain.textContent = notes.join(' ');
    const q = question(s);
    const pending = Boolean(q) && answeredFor !== keyOf(s, q);
    runButton.hidden = !q || small(s) || !pending;
    root.dataset.pending = String(pending);
    root.classList.toggle('why-stale', pending && Boolean(answer));
    updating.hidden = !pending || runButton.hidden === false;
    updating.textContent = updating.hidden ? '' : t('circuit.updating');
    error.hidden = !failure;
    error.textContent = failure ? errorText(s.lang, failure).text : '';
    const a = failure ? null : answer;
    body.hidden = !a?.result;
    pairLine.hidden = !a;
    if (!a) return;
    if (a.lengths) {
      pairLine.textContent = t('circuit.lengths', a.lengths);
      return;
    }
    const named = (token) => (token.whole ? t('predict.whole', { label: token.label, whole: token.whole }) : token.label);
    const { result } = a;
    const clean = result.tokens.clean.slice(1).join('');
    pairLine.textContent = a.induction
      ? t('circuit.inductionPair', { answer: named(a.answer), wrong: named(a.wrong) })
      : t('circuit.pair', { clean: a.pair.clean, corrupt: a.pair.corrupt || clean, answer: named(a.answer), wrong: named(a.wrong) });
    const steps = curveSteps(result.curves);
    slider.max = String(Math.max(0, steps.length - 1));
    if (step === null || step >= steps.length) step = Math.max(0, steps.filter((n) => n <= START_N).length - 1);
    slider.value = String(step);
    const n = steps[step] ?? 0;
    sliderCaption.textContent = t('circuit.slider');
    slider.setAttribute('aria-valuetext', String(n));
    const at = curveAt(result.curves, n);
    keeps.textContent = t('circuit.keeps', { edges: n, eap: pct(at.eap), patched: pct(at.patched) });
    keeps.dataset.eap = String(at.eap);
    keeps.dataset.edges = String(n);
    const info = s.model.info;
    const L = info.num_hidden_layers;
    const H = info.num_attention_heads;
    const drawn = Math.min(n, DRAW_MAX);
    drawnNote.textContent = t('circuit.drawn', { drawn, total: result.edges.length });
    renderCircuit(graph, {
      result,
      L,
      H,
      count: drawn,
      label: t('circuit.title'),
      tip: (edge) => tipLines(edge, result, a.top),
      onHead: openHead,
    });
    curveTitle.textContent = t('circuit.curveTitle');
    renderCurves(curveBox, {
      curves: result.curves,
      at: step,
      label: t('circuit.curveTitle'),
      names: { eap: t('circuit.curve.eap'), patched: t('circuit.curve.patched') },
    });
    tableTitle.textContent = t('circuit.tableTitle');
    renderTable(result);
    const story = a.pair && a.pair.kind === 'name' ? { referent: a.pair.referent, pronoun: a.pair.pronoun } : null;
    const lines = circuitSentences(result, { tokens: result.tokens, roles: demoRoles(s), story });
    if (a.induction) lines.push(inductionSentence(result, demoRoles(s)));
    sentences.replaceChildren(
      ...lines.map(({ key, params }) => {
        const item = document.createElement('li');
        item.dataset.key = key;
        item.textContent = t(key, wordParams(t, params));
        return item;
      }),
    );
  }

  slider.addEventListener('input', () => {
    step = Number(slider.value);
    render();
  });
  topSelect.addEventListener('change', () => request());
  runButton.addEventListener('click', () => request(true));

  store.subscribe((s, changed) => {
    if (changed.has('model')) {
      asked = null;
      answer = null;
      failure = null;
      step = null;
    }
    if (changed.has('text')) typedAt = performance.now();
    const asks = ['result', 'row', 'generation', 'model', 'inputMode', 'ablate'];
    if (asks.some((k) => changed.has(k))) request();
    else if (['lang', 'demo', 'causal', 'scale'].some((k) => changed.has(k))) render();
  });
  render();
  return { receive };
}
