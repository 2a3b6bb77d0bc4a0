// The activation patching part of "ask the model why": the clean and corrupt
// texts, the answer and wrong tokens, and the two heatmaps with their
// sentences. By default the pair follows the text on screen and its selected
// row (js/why_text.mjs patchStory and storyPair, derived in the worker with
// the model's tokenizer): the referent replaced by another name, else the
// pronoun flipped, else the lesson's pair, each labelled with why. A pair the
// learner edits is theirs until the text or the row changes. Texts need the
// model's tokenizer; a model without one takes token ids. The worker encodes
// the texts and says when their lengths differ. The heads switched off in the
// overview are off here too: their cells say so.
import { flipPronoun, parseIds, parseTokenField, patchSentences, pronounStory, wordParams } from '../../js/why_text.mjs';
import { errorText } from '../error_text.mjs';
import { renderPatch } from '../views/patch_view.mjs';
import { make } from './make_element.mjs';

// A model up to this many parameters patches as the text changes (the
// trained model's sweeps take milliseconds); a larger one on request.
const AUTO_PATCH_PARAMETERS = 8e6;

/**
 * Builds the form in `root`; returns {reset(), follow(pairStory), run(), receive(message), render(),
 * shown(), current()}. follow() is called with patchStory()'s answer for the text on screen.
 */
export function setupWhyPatch({ root, store, t, client, hasTokenizer }) {
  const title = make('h4', null, root);
  const hint = make('p', 'hint', root);
  const form = make('form', 'why-form', root);
  const field = (name) => {
    const label = make('label', null, form);
    const caption = make('span', null, label);
    const input = make('input', null, label, { type: 'text', name, autocomplete: 'off', spellcheck: 'false' });
    return { caption, input };
  };
  const clean = field('clean');
  const corrupt = field('corrupt');
  const flip = make('button', null, form, { type: 'button', name: 'flip' });
  const answer = field('answer');
  const wrong = field('wrong');
  const runButton = make('button', null, form, { type: 'submit', name: 'run' });
  const tokenHint = make('p', 'hint', root);
  const pairNote = make('p', 'note why-pair', root);
  const message = make('p', 'message error', root, { role: 'alert' });
  const resolved = make('p', 'note why-resolved', root);
  const headsTitle = make('h5', null, root);
  const heads = make('div', 'why-grid why-patch-heads', root);
  const residualTitle = make('h5', null, root);
  const residual = make('div', 'why-grid why-patch-residual', root);
  const sentences = make('ul', 'why-sentences why-patch-sentences', root);
  let answerShown = null; // the worker's last patch-result
  let problem = null; // {key, params} of what is wrong with the form
  let followed = null; // patchStory() of the text on screen: {story, reason}
  let derived = null; // the pair the worker derived for it ({kind, clean, corrupt, ...}), shown in the fields
  let asked = null; // the text, row and model of the last derived pair
  let switchesAsked = null; // and the switches it was patched with
  let onRequest = false; // a large model waits for the Patch button

  // A model that loads starts on its text's own pair; one without a tokenizer on nothing (ids are typed).
  function reset() {
    for (const f of [clean, corrupt, answer, wrong]) f.input.value = '';
    answerShown = null;
    problem = null;
    derived = null;
    asked = null;
    render();
  }

  // Whether the fields still hold the derived pair (else the learner's own texts).
  function edited() {
    if (!derived) return clean.input.value !== '' || corrupt.input.value !== '';
    return clean.input.value !== derived.clean || corrupt.input.value !== derived.corrupt || answer.input.value || wrong.input.value;
  }

  function switches(s) {
    return { causal: s.causal, scale: s.scale, ablate: s.ablate };
  }

  function small(s) {
    return (s.model.info?.parameters ?? Infinity) <= AUTO_PATCH_PARAMETERS;
  }

  /** The text on screen changed (or its row, a switch, the model): derive its pair again and patch it. */
  function follow(pairStory) {
    const s = store.get();
    if (!s.model.info || !hasTokenizer()) return;
    const key = JSON.stringify([pairStory.story, pairStory.reason, s.model.info]);
    const switchKey = JSON.stringify([s.causal, s.scale, s.ablate]);
    if (key === asked && switchKey === switchesAsked) return;
    const switchOnly = key === asked;
    asked = key;
    switchesAsked = switchKey;
    // A switch flipped over the learner's own pair: patch that pair again with it.
    if (switchOnly && edited()) return run();
    followed = pairStory;
    derived = null; // until the worker answers, the fields' pair is the old text's
    problem = null;
    onRequest = !small(s);
    client.patch({ pairFrom: { story: pairStory.story }, pairOnly: onRequest, ...switches(s) });
    root.dataset.pending = 'true';
    render();
  }

  function texts() {
    if (hasTokenizer()) return { clean: { text: clean.input.value }, corrupt: { text: corrupt.input.value } };
    const a = parseIds(clean.input.value);
    const b = parseIds(corrupt.input.value);
    const bad = a.bad ?? b.bad;
    if (bad !== undefined) return { problem: { key: 'why.patch.badIds', params: { token: bad } } };
    return { clean: { ids: a.ids }, corrupt: { ids: b.ids } };
  }

  function story() {
    return hasTokenizer() ? pronounStory(clean.input.value) : null;
  }

  // The Patch button: the derived pair as it is (a large model's, on request), or the learner's own texts.
  // Ids past the vocabulary go to the worker: the module refuses them (token_id.out_of_range),
  // worded in the page's language by errorText like every error it raises.
  function run() {
    const s = store.get();
    if (!s.model.info) return;
    if (hasTokenizer() && followed && derived && !edited()) {
      onRequest = false;
      client.patch({ pairFrom: { story: followed.story }, ...switches(s) });
      root.dataset.pending = 'true';
      return render();
    }
    const pair = texts();
    const fields = { answer: parseTokenField(answer.input.value), wrong: parseTokenField(wrong.input.value) };
    if (!hasTokenizer() && [fields.answer, fields.wrong].some((f) => f?.text !== undefined)) problem = { key: 'why.patch.idsOnly' };
    else if (pair.problem) problem = pair.problem;
    else if ((!fields.answer || !fields.wrong) && !story()) problem = { key: hasTokenizer() ? 'why.patch.noStory' : 'why.patch.needIds' };
    else if (!pair.clean.text?.trim() && !pair.clean.ids?.length)
      problem = { key: hasTokenizer() ? 'why.patch.noStory' : 'why.patch.idsOnly' };
    else problem = null;
    if (problem) {
      answerShown = null;
      return render();
    }
    derived = null; // the learner's own pair
    onRequest = false;
    client.patch({ ...pair, ...fields, story: story(), ...switches(s) });
    root.dataset.pending = 'true';
    render();
  }

  function receive(reply) {
    if (reply.type === 'superseded') return; // a newer request is on its way
    root.dataset.pending = 'false';
    if (reply.type === 'error')
      problem = { error: reply }; // errorFields: worded in the page's language when drawn
    else if (reply.lengths) problem = { key: 'why.patch.lengths', params: reply.lengths };
    else problem = null;
    if (reply.pair) {
      derived = reply.pair;
      clean.input.value = derived.clean;
      corrupt.input.value = derived.corrupt;
      answer.input.value = '';
      wrong.input.value = '';
    }
    answerShown = problem || !reply.result ? null : reply;
    render();
  }

  const named = (token) => (token.whole ? t('predict.whole', { label: token.label, whole: token.whole }) : token.label);

  // The label of the pair in the fields: where it comes from, computed from the text on screen.
  function pairLine() {
    if (!hasTokenizer()) return null;
    if (!derived) return edited() ? { key: 'why.pair.custom', params: {} } : null;
    const { kind, referent, replacement, pronoun, tokens, answer: habit, wrong: other } = derived;
    if (kind === 'name') return { key: 'why.pair.name', params: { referent, replacement, tokens, pronoun, answer: habit, wrong: other } };
    if (kind === 'pronoun')
      return { key: 'why.pair.pronoun', params: { referent, tokens, pronoun, flipped: flipPronoun(pronoun), answer: habit, wrong: other } };
    return { key: 'why.pair.lesson', params: { reason: followed?.reason ?? { key: 'why.pair.noPronoun', params: {} } } };
  }

  function render() {
    const s = store.get();
    title.textContent = t('why.patch.title');
    hint.textContent = t('why.patch.hint');
    clean.caption.textContent = t('why.patch.clean');
    corrupt.caption.textContent = t('why.patch.corrupt');
    answer.caption.textContent = t('why.patch.answer');
    wrong.caption.textContent = t('why.patch.wrong');
    flip.textContent = t('why.patch.flip');
    flip.disabled = !hasTokenizer();
    runButton.textContent = t('why.patch.run');
    const st = derived
      ? { referent: derived.referent, answer: derived.answer, other: derived.replacement ?? derived.other, wrong: derived.wrong }
      : story();
    answer.input.placeholder = st ? t('why.patch.habitDefault', { name: st.referent, habit: st.answer }) : '';
    wrong.input.placeholder = st ? t('why.patch.habitDefault', { name: st.other, habit: st.wrong }) : '';
    const idsOnly = !hasTokenizer();
    clean.input.placeholder = idsOnly ? '1 17 42' : '';
    corrupt.input.placeholder = idsOnly ? '1 17 43' : '';
    tokenHint.textContent = idsOnly ? t('why.patch.idsOnly') : t('why.patch.tokenHint');
    const line = pairLine();
    const waiting = onRequest && derived && !answerShown;
    pairNote.hidden = !line && !waiting;
    pairNote.textContent = [line && t(line.key, wordParams(t, line.params)), waiting && t('why.patch.onRequest')].filter(Boolean).join(' ');
    message.hidden = !problem;
    message.textContent = !problem ? '' : problem.error ? errorText(s.lang, problem.error).text : t(problem.key, problem.params);
    const shown = answerShown?.result ?? null;
    for (const node of [resolved, headsTitle, heads, residualTitle, residual, sentences]) node.hidden = !shown;
    if (!shown) return;
    resolved.textContent = t('why.patch.resolved', { answer: named(answerShown.answer), wrong: named(answerShown.wrong) });
    headsTitle.textContent = t('why.patch.headsTitle');
    residualTitle.textContent = t('why.patch.residualTitle');
    renderPatch(heads, residual, { result: shown, t, ablate: answerShown.ablate ?? [] });
    sentences.replaceChildren(
      ...patchSentences(shown).map(({ key, params }) => {
        const item = document.createElement('li');
        item.dataset.key = key;
        item.textContent = t(key, wordParams(t, params));
        return item;
      }),
    );
  }

  flip.addEventListener('click', () => {
    const flipped = flipPronoun(clean.input.value);
    if (flipped === null) {
      problem = { key: 'why.patch.noFlip' };
      return render();
    }
    corrupt.input.value = flipped;
    run();
  });
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    run();
  });
  for (const f of [clean, corrupt, answer, wrong]) f.input.addEventListener('input', render); // the label and placeholders follow
  return {
    reset,
    follow,
    run,
    receive,
    render,
    shown: () => answerShown,
    current: () => derived,
    pending: () => root.dataset.pending === 'true',
  };
}
