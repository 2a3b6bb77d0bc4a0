// What the model writes: at every snapshot the worker has the model continue
// the probe sentence and the prompts greedily (js/snapshot_generation.mjs);
// a timeline shows batch -> text, a row per snapshot, a column per prompt,
// so noise turning into words is read top to bottom. In a prompt that
// repeats a span, the characters the model copied right are marked. The
// prompts are editable; a row's button shows that snapshot everywhere.
import { GENERATED_TOKENS, PRONOUN_PROMPT } from '../../js/snapshot_generation.mjs';
import { make, setText } from './dom.mjs';

export class GenerationView {
  #t;
  #snapshots;
  #onPick;
  #drawn = null;
  #edited = false; // the learner typed a prompt: the run's own span does not overwrite it

  /** t(key, params); snapshots: the run's SnapshotStore; onApply(prompts): new prompts; onPick(step): show that snapshot. */
  constructor({ t, snapshots, onApply, onPick }) {
    this.#t = t;
    this.#snapshots = snapshots;
    this.#onPick = onPick;
    this.hint = make('p', { class: 'hint small' });
    this.prompts = [
      make('input', { type: 'text', name: 'prompt-1', value: PRONOUN_PROMPT, spellcheck: 'false' }),
      make('input', {
        type: 'text',
        name: 'prompt-2',
        value: '',
        spellcheck: 'false',
        'data-i18n-placeholder': 'train.genSpanPlaceholder',
      }),
    ];
    this.apply = make('button', { type: 'button', i18n: 'train.genApply' });
    this.table = make('table', { class: 'train-timeline' });
    this.scroll = make('div', { class: 'train-timeline-scroll', tabindex: 0 }, this.table);
    this.copyNote = make('p', { class: 'caption' });
    this.element = make(
      'section',
      { class: 'train-card train-gen' },
      make('h3', { i18n: 'train.genTitle' }),
      this.hint,
      make(
        'div',
        { class: 'train-prompts' },
        make('p', { class: 'train-help', i18n: 'train.genProbe' }),
        ...this.prompts.map((input) => make('label', { class: 'train-probe' }, make('span', {}), input)),
        this.apply,
      ),
      this.scroll,
      this.copyNote,
    );
    for (const input of this.prompts) input.addEventListener('input', () => (this.#edited = true));
    this.apply.addEventListener('click', () => onApply(this.values()));
  }

  /** The prompts to write on (after the probe): typed text, or null (a repeated random span) for an empty field. */
  values() {
    return this.prompts.map((input) => (input.value.trim() === '' ? null : input.value.trim()));
  }

  forget() {
    this.#drawn = null;
  }

  /** shownStep: the snapshot shown (its row is marked); follow: keep the newest row in view; hasRun; lang; fmt. */
  render({ shownStep, follow, hasRun, lang, fmt }) {
    const t = this.#t;
    const snapshots = this.#snapshots;
    const latest = snapshots.latest();
    this.apply.disabled = !hasRun;
    // A new snapshot of the same batch (new prompts) replaces the newest: its prompts are part of the key.
    const key = JSON.stringify([snapshots.length, latest?.step, latest?.generated?.map((g) => g.prompt), shownStep, lang]);
    if (this.#drawn === key) return;
    this.#drawn = key;
    setText(this.hint, t('train.genHint', { tokens: GENERATED_TOKENS }));
    this.prompts.forEach((input, k) => setText(input.previousSibling, t('train.genPrompt', { k: k + 2 })));
    const written = latest?.generated ?? null;
    // The run's own span fills the empty field (the learner sees what the model is asked to copy).
    if (written && !this.#edited)
      this.prompts.forEach((input, k) => {
        if (input.value === '' && written[k + 1]) input.value = written[k + 1].prompt;
      });
    if (!written) {
      this.table.replaceChildren(make('caption', { text: t('train.genEmpty') }));
      this.copyNote.textContent = '';
      return;
    }
    const head = make(
      'tr',
      {},
      make('th', { scope: 'col', text: t('train.genBatch') }),
      ...written.map((g) => make('th', { scope: 'col', text: g.prompt })),
    );
    const rows = [];
    for (let k = 0; k < snapshots.length; k += 1) {
      const s = snapshots.get(k);
      if (!s.generated) continue;
      const pick = make('button', { type: 'button', class: 'train-timeline-step', text: fmt(s.step) });
      pick.addEventListener('click', () => this.#onPick(s.step));
      const cells = s.generated.map((g, j) => this.#cell(g, written[j]?.prompt));
      const row = make('tr', { 'data-step': s.step }, make('th', { scope: 'row' }, pick), ...cells);
      if (s.step === shownStep) row.setAttribute('aria-current', 'true');
      rows.push(row);
    }
    this.table.replaceChildren(
      make('caption', { class: 'sr-only', text: t('train.genCaption') }),
      make('thead', {}, head),
      make('tbody', {}, ...rows),
    );
    if (follow) this.scroll.scrollTop = this.scroll.scrollHeight;
    const copy = written.find((g) => g.target);
    this.copyNote.textContent = copy
      ? t('train.genCopyNote', { target: copy.target, step: fmt(latest.step), k: copy.copied, n: [...copy.target].length })
      : '';
  }

  // A continuation: the characters copied right marked, the rest as written; its prompt
  // in front when it is not the column's (the prompts were changed since).
  #cell(g, columnPrompt) {
    const chars = [...g.text];
    const cell = make('td', { 'data-copied': g.target ? g.copied : null });
    if (g.prompt !== columnPrompt) cell.append(make('span', { class: 'train-gen-prompt', text: g.prompt }));
    const written = make('span', { class: 'train-gen-written' });
    if (g.copied > 0) written.append(make('mark', { text: chars.slice(0, g.copied).join('') }));
    written.append(chars.slice(g.copied).join(''));
    cell.append(written);
    if (g.target) cell.title = this.#t('train.genCopied', { k: g.copied, n: [...g.target].length });
    return cell;
  }
}
