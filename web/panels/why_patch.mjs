// The activation patching part of "ask the model why": the clean and corrupt
// texts (the lesson's pair by default, from js/why_text.mjs), the pronoun
// flip, the answer and wrong tokens, and the two heatmaps with their
// sentences. Texts need the model's tokenizer; a model without one takes
// token ids. The worker encodes the texts and says when their lengths differ.
import { defaultPair, flipPronoun, parseIds, parseTokenField, patchSentences, pronounStory } from '../../js/why_text.mjs';
import { errorText } from '../error_text.mjs';
import { renderPatch } from '../views/patch_view.mjs';

function make(tag, className, parent, attributes = {}) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  parent.append(node);
  return node;
}

/** Builds the form in `root`; returns {reset(hasTokenizer), run(), receive(message), render()}. */
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
  const message = make('p', 'message error', root, { role: 'alert' });
  const resolved = make('p', 'note why-resolved', root);
  const headsTitle = make('h5', null, root);
  const heads = make('div', 'why-grid why-patch-heads', root);
  const residualTitle = make('h5', null, root);
  const residual = make('div', 'why-grid why-patch-residual', root);
  const sentences = make('ul', 'why-sentences why-patch-sentences', root);
  let answerShown = null; // the worker's last patch-result
  let problem = null; // {key, params} of what is wrong with the form

  // A model with a tokenizer starts on the lesson's pair; one without it on nothing (ids are typed).
  function reset() {
    const pair = hasTokenizer() ? defaultPair() : { clean: '', corrupt: '' };
    clean.input.value = pair.clean;
    corrupt.input.value = pair.corrupt;
    answer.input.value = '';
    wrong.input.value = '';
    answerShown = null;
    problem = null;
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

  // Ids past the vocabulary go to the worker: the module refuses them (token_id.out_of_range),
  // worded in the page's language by errorText like every error it raises.
  function run() {
    const s = store.get();
    if (!s.model.info) return;
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
    client.patch({ ...pair, ...fields, story: story(), causal: s.causal, scale: s.scale });
    root.dataset.pending = 'true';
    render();
  }

  function receive(reply) {
    root.dataset.pending = 'false';
    if (reply.type === 'error')
      problem = { error: reply }; // errorFields: worded in the page's language when drawn
    else if (reply.lengths) problem = { key: 'why.patch.lengths', params: reply.lengths };
    else problem = null;
    answerShown = problem ? null : reply;
    render();
  }

  const named = (token) => (token.whole ? t('predict.whole', { label: token.label, whole: token.whole }) : token.label);

  function render() {
    title.textContent = t('why.patch.title');
    hint.textContent = t('why.patch.hint');
    clean.caption.textContent = t('why.patch.clean');
    corrupt.caption.textContent = t('why.patch.corrupt');
    answer.caption.textContent = t('why.patch.answer');
    wrong.caption.textContent = t('why.patch.wrong');
    flip.textContent = t('why.patch.flip');
    flip.disabled = !hasTokenizer();
    runButton.textContent = t('why.patch.run');
    const st = story();
    answer.input.placeholder = st ? t('why.patch.habitDefault', { name: st.referent, habit: st.answer }) : '';
    wrong.input.placeholder = st ? t('why.patch.habitDefault', { name: st.other, habit: st.wrong }) : '';
    const idsOnly = !hasTokenizer();
    clean.input.placeholder = idsOnly ? '1 17 42' : '';
    corrupt.input.placeholder = idsOnly ? '1 17 43' : '';
    tokenHint.textContent = idsOnly ? t('why.patch.idsOnly') : t('why.patch.tokenHint');
    message.hidden = !problem;
    message.textContent = !problem ? '' : problem.error ? errorText(store.get().lang, problem.error).text : t(problem.key, problem.params);
    const shown = answerShown?.result ?? null;
    for (const node of [resolved, headsTitle, heads, residualTitle, residual, sentences]) node.hidden = !shown;
    if (!shown) return;
    resolved.textContent = t('why.patch.resolved', { answer: named(answerShown.answer), wrong: named(answerShown.wrong) });
    headsTitle.textContent = t('why.patch.headsTitle');
    residualTitle.textContent = t('why.patch.residualTitle');
    renderPatch(heads, residual, { result: shown, t });
    sentences.replaceChildren(
      ...patchSentences(shown).map(({ key, params }) => {
        const item = document.createElement('li');
        item.dataset.key = key;
        item.textContent = t(key, params);
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
  clean.input.addEventListener('input', render); // the default answer's placeholder follows the clean text
  return { reset, run, receive, render, shown: () => answerShown };
}
