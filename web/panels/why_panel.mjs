// "Ask the model why", under the matrix's prediction: for the selected row
// (the last token when none is), what each layer predicts (the logit lens)
// and what each part writes into logit(answer) − logit(wrong) (direct logit
// attribution); for two texts, which head carries the answer (activation
// patching, why_patch.mjs). On a text of the trained model's world with a
// pronoun, at the pronoun's row, the three tell the pronoun story: its
// sentences are gathered at the top. Everything is computed by the worker
// (why_worker.mjs) with the causal mask, √d and the heads switched off as the
// page sets them, and the sentences from those numbers (js/why_text.mjs).
// Typing asks again after a pause; until the answer for the text on screen
// is in, the section says it is updating and its old sentences are dimmed.
// app.mjs calls setupWhyPanel once and hands it the worker's 'lens',
// 'attribute' and 'patch' answers (receive).
import {
  attributionSentences,
  lensSentence,
  measuresDiffer,
  patchSentences,
  patchStory,
  rowStory,
  wordParams,
} from '../../js/why_text.mjs';
import { DEMO } from '../demo_model.mjs';
import { renderAttribution } from '../views/attribution_view.mjs';
import { renderLens } from '../views/lens_view.mjs';
import { showMarks } from '../views/mark_legend.mjs';
import { errorText } from '../error_text.mjs';
import { setupWhyPatch } from './why_patch.mjs';
import { make, makePart } from './make_element.mjs';

// After a keystroke, the section waits this long for the next one before asking again.
const TYPING_PAUSE_MS = 250;

function sentenceItems(list, lines, t) {
  list.replaceChildren(
    ...lines.map(({ key, params }) => {
      const item = document.createElement('li');
      item.dataset.key = key;
      item.textContent = t(key, wordParams(t, params));
      return item;
    }),
  );
}

export function setupWhyPanel({ store, t, $, client, input }) {
  const root = $('why');
  // The gallery's frame of this section alone: the compact view (?embed=1) opened at #why.
  document.body.classList.toggle('why-embed', location.hash === '#why');
  const title = make('h3', null, root);
  const intro = make('p', 'hint', root);
  const switches = make('p', 'note why-switches', root);
  const ablated = make('p', 'note why-ablated', root);
  const updating = make('p', 'note why-updating', root, { role: 'status' });
  const storyTitle = make('h4', null, root);
  const story = make('ol', 'why-sentences why-story', root);
  const [lensPart, lensTitle] = makePart('why-part why-lens', root);
  const lensHint = make('p', 'hint', lensPart);
  const lensTop = make('div', 'why-grid why-lens-top', lensPart);
  const mapTitle = make('h5', null, lensPart);
  const lensMap = make('div', 'why-grid why-lens-map', lensPart);
  const lensSentences = make('ul', 'why-sentences why-lens-sentences', lensPart);
  const [attrPart, attrTitle] = makePart('why-part why-attribution', root);
  const attrHint = make('p', 'hint', attrPart);
  const attrBars = make('div', 'why-bars', attrPart);
  const attrSentences = make('ul', 'why-sentences why-attr-sentences', attrPart);
  const error = make('p', 'message error', root);
  const patchPart = make('div', 'why-part why-patch', root);
  const patch = setupWhyPatch({ root: patchPart, store, t, client, hasTokenizer: () => hasTokenizer(store.get()) });

  let lens = null; // the worker's newest lens-result
  let attribution = null; // and attribution
  let chosen = null; // the token id picked in the lens, until the row or text changes
  let failure = null;

  function hasTokenizer(s) {
    return s.files ? s.files.tokenizer : s.preset === DEMO;
  }

  function shownNow(s) {
    return Boolean(s.result && s.model.info && !s.generation && s.inputMode !== 'manual' && s.result.T > 0);
  }

  function rowOf(s) {
    return s.row !== null && s.row < s.result.T ? s.row : s.result.T - 1;
  }

  // What an answer is for: the tokens, the row, the token picked and the switches.
  function keyOf(s) {
    return JSON.stringify([s.result.ids, rowOf(s), chosen, s.causal, s.scale, s.ablate]);
  }

  function textual(s) {
    return hasTokenizer(s) && s.inputMode === 'text';
  }

  // The story of the row shown (its pronoun's), for the lens, the attribution and the heading.
  function textStory(s) {
    return textual(s) ? rowStory(s.text, s.result.tokens, rowOf(s)) : null;
  }

  let asked = null;
  let typedAt = -Infinity; // when the text last changed
  let pauseTimer = null;
  function request() {
    const s = store.get();
    if (!shownNow(s)) return;
    const wait = typedAt + TYPING_PAUSE_MS - performance.now();
    clearTimeout(pauseTimer);
    if (wait > 0) {
      pauseTimer = setTimeout(request, wait);
      return render();
    }
    const key = keyOf(s);
    if (key !== asked) {
      asked = key;
      const tokens = input.requestTokens(input.currentTokens());
      const common = { row: rowOf(s), story: textStory(s), causal: s.causal, scale: s.scale, ablate: s.ablate, asked: key };
      client.lens(tokens, { ...common, token: chosen });
      client.attribute(tokens, { ...common, answer: null, wrong: null });
    }
    if (textual(s)) patch.follow(patchStory(s.text, s.result.tokens, rowOf(s)));
  }

  function receive(message) {
    if (message.request === 'patch' || message.type === 'patch-result') {
      patch.receive(message);
      return render(); // the story quotes the patching numbers
    }
    if (message.type === 'error')
      failure = message; // errorFields: worded in the page's language when drawn
    else {
      failure = null;
      if (message.type === 'lens-result') lens = message;
      if (message.type === 'attribution') attribution = message;
    }
    render();
  }

  const nameOf = (id, labels, wholes) => {
    const label = labels[id] ?? `#${id}`;
    return wholes?.[id] ? t('predict.whole', { label, whole: wholes[id] }) : label;
  };
  const tokenName = (token) => (token.whole ? t('predict.whole', { label: token.label, whole: token.whole }) : token.label);

  // The token names the section draws ({label, raw, kind}): the lens grid's, the answer and wrong tokens.
  function namesShown() {
    const lensNames = lens
      ? Object.keys(lens.labels).map((id) => ({ label: lens.labels[id], raw: lens.raws?.[id], kind: lens.kinds?.[id] }))
      : [];
    const pair = (answered) => (answered ? [answered.answer, answered.wrong] : []);
    return [...lensNames, ...pair(attribution), ...pair(patch.shown())];
  }

  function render() {
    const s = store.get();
    root.hidden = !shownNow(s);
    title.textContent = t('why.title');
    intro.textContent = t('why.intro');
    const off = [...(s.causal ? [] : [t('why.maskOff')]), ...(s.scale ? [] : [t('why.scaleOff')])];
    switches.hidden = off.length === 0;
    switches.textContent = off.length ? t('why.switches', { switches: off.join(t('note.listSeparator')) }) : '';
    ablated.hidden = s.ablate.length === 0;
    ablated.textContent = s.ablate.length ? t('why.ablated', { heads: headNames(s.ablate) }) : '';
    error.hidden = !failure;
    error.textContent = failure ? errorText(s.lang, failure).text : '';
    patch.render();
    showMarks($('mark-legend'), t, 'why', root.hidden ? [] : namesShown());
    if (root.hidden) return;
    const current = keyOf(s);
    const pending = lens?.asked !== current || attribution?.asked !== current;
    root.dataset.pending = String(pending);
    // Until the answer for what is on screen is in, the sentences below are of something else: dimmed, and said.
    root.classList.toggle('why-stale', pending);
    updating.hidden = !pending;
    updating.textContent = pending ? t('why.updating') : '';
    renderLensPart();
    renderAttributionPart(s);
    renderStory(s);
  }

  const headNames = (list) => list.map(([layer, head]) => `L${layer}H${head}`).join(t('note.listSeparator'));

  function renderLensPart() {
    lensPart.hidden = !lens;
    if (!lens) return;
    lensTitle.textContent = t('why.lens.title', { row: lens.row, token: lens.tokens[lens.row] });
    lensHint.textContent = t('why.lens.hint');
    const token = nameOf(lens.token.id, lens.labels, lens.wholes);
    mapTitle.textContent = t('why.lens.mapTitle', { token });
    renderLens(lensTop, lensMap, {
      lens,
      t,
      onPick: (id) => {
        chosen = id;
        request();
      },
    });
    sentenceItems(lensSentences, [lensSentence(lens, lens.row, lens.token.id, token)], t);
  }

  function renderAttributionPart(s) {
    attrPart.hidden = !attribution;
    if (!attribution) return;
    const { row, tokens, answer, wrong } = attribution;
    const label = t('why.attr.title', { row, token: tokens[row], answer: tokenName(answer), wrong: tokenName(wrong) });
    attrTitle.textContent = label;
    attrHint.textContent = t('why.attr.hint');
    renderAttribution(attrBars, { attribution: attribution.attribution, t, label });
    sentenceItems(attrSentences, attributionSentences(attribution.attribution, pronounHead(s)), t);
  }

  // The trained model's measured pronoun head (heads.json), while it is the model.
  function pronounHead(s) {
    return s.preset === DEMO && !s.files ? (s.demo?.heads?.pronounHead ?? null) : null;
  }

  // The pronoun story at the pronoun's row: the lens, patching and attribution sentences that tell it.
  function renderStory(s) {
    const st = textStory(s);
    const at = st && lens?.storyRow && attribution?.storyRow && lens.asked === keyOf(s);
    storyTitle.hidden = story.hidden = !at;
    if (!at) return;
    storyTitle.textContent = t('why.story', { pronoun: st.pronoun, referent: st.referent, habit: st.answer });
    const token = nameOf(lens.token.id, lens.labels, lens.wholes);
    const lines = [];
    if (s.ablate.length) lines.push({ key: 'why.story.off', params: { heads: headNames(s.ablate) } });
    lines.push(lensSentence(lens, lens.row, lens.token.id, token));
    // Patching's sentences only when its pair is this story's (the text up to this row's pronoun).
    const patched = patch.shown();
    const pair = patch.current();
    const ours = patched?.result && pair && pair.kind !== 'lesson' && pair.clean === st.prefix && !patch.pending();
    if (ours) lines.push(...patchSentences(patched.result).filter((line) => !line.key.startsWith('why.patch.residual')));
    const named = pronounHead(s);
    lines.push(...attributionSentences(attribution.attribution, named).filter((line) => line.key !== 'why.attr.total'));
    if (ours && named) {
      const versus = measuresDiffer(patched.result, attribution.attribution, named);
      if (versus) lines.push(versus);
    }
    sentenceItems(story, lines, t);
  }

  let patchedModel = null;
  store.subscribe((s, changed) => {
    if (changed.has('model')) asked = null; // a new model (or a new worker) answers nothing asked before
    if (changed.has('text')) typedAt = performance.now();
    if (changed.has('result') || changed.has('row')) chosen = null; // a picked token belongs to its row and text
    if (s.model.info && s.model.info !== patchedModel) {
      patchedModel = s.model.info;
      patch.reset();
    }
    const asks = ['result', 'row', 'causal', 'scale', 'ablate', 'generation', 'model', 'inputMode'];
    if (asks.some((k) => changed.has(k))) request();
    if (['lang', 'demo', ...asks].some((k) => changed.has(k))) render();
  });
  render();
  return { receive };
}
