// The Train panel's saved runs (web/train/run_store.mjs): one line per run
// saved in this browser (its batch, loss, shape and size, when it was
// saved), whether it is training in this tab or another, and for each
// Resume, Use this model (in the playground, as saved: a finished run too),
// Download as MiniMind's *_resume.pth, Delete; the site's storage
// use; and a file input that continues MiniMind's own resume checkpoint.
// Every number is read off the saved runs or the browser's estimate.
import { make, setText } from './dom.mjs';

/** Bytes as the list shows them: kB under a megabyte, else MB, one decimal. */
function sizeText(bytes, fmt) {
  return bytes < 2 ** 20 ? `${fmt(bytes / 2 ** 10, 0)} kB` : `${fmt(bytes / 2 ** 20, 1)} MB`;
}

export class SavedRunsView {
  #t;
  #actions;
  #list;
  #usage;
  #empty;
  #message;

  /** t(key, params); actions: {resume(id), use(id), download(id), remove(id), importFile(file)}. */
  constructor({ t, actions }) {
    this.#t = t;
    this.#actions = actions;
    this.#list = make('ul', { class: 'train-saved-list' });
    this.#usage = make('p', { class: 'train-help', 'data-train': 'storage' });
    this.#empty = make('p', { class: 'train-help', 'data-train': 'no-saved-runs' });
    this.#message = make('p', { class: 'message', role: 'status', 'data-train': 'save-message' });
    const file = make('input', { type: 'file', accept: '.pth', 'data-train': 'import-pth' });
    file.addEventListener('change', () => {
      const [chosen] = file.files;
      file.value = '';
      if (chosen) actions.importFile(chosen);
    });
    this.element = make(
      'section',
      { class: 'train-saved', 'aria-labelledby': 'train-saved-title' },
      make('h3', { id: 'train-saved-title', i18n: 'train.saved.title' }),
      this.#message,
      this.#empty,
      this.#list,
      this.#usage,
      make(
        'label',
        { class: 'train-field' },
        make('span', { class: 'train-field-name', i18n: 'train.saved.import' }),
        file,
        make('span', { class: 'train-help', i18n: 'train.saved.importNote' }),
      ),
    );
  }

  /**
   * runs: [{id, savedAt, summary}] (RunStore.list); live: Set of ids some tab
   * trains; current: this tab's run id; usage: {usage, quota} or null;
   * message: a line about saving (or null); busy: no resume now (this tab
   * is preparing); every: batches between saves; lang, fmt(x, digits).
   */
  render({ runs, live, current, usage, message, busy, every, lang, fmt }) {
    const t = this.#t;
    setText(this.#message, message ?? '');
    this.#message.hidden = !message;
    setText(this.#empty, runs.length ? '' : t('train.saved.none', { every }));
    this.#empty.hidden = runs.length > 0;
    const total = runs.reduce((n, r) => n + r.summary.bytes, 0);
    const parts = [];
    if (runs.length) parts.push(t('train.saved.usageRuns', { size: sizeText(total, fmt), count: runs.length }));
    if (usage) parts.push(t('train.saved.usage', { used: sizeText(usage.usage, fmt), quota: sizeText(usage.quota, fmt) }));
    setText(this.#usage, parts.join(' '));
    this.#usage.hidden = parts.length === 0;

    const time = new Intl.DateTimeFormat(lang, { dateStyle: 'short', timeStyle: 'short' });
    this.#list.replaceChildren(
      ...runs.map(({ id, savedAt, summary: s }) => {
        const here = id === current;
        const elsewhere = live.has(id) && !here;
        const text = t('train.saved.item', {
          step: fmt(s.step),
          total: fmt(s.totalBatches),
          loss: s.loss === null ? '–' : fmt(s.loss, 3),
          hidden: s.hidden,
          layers: s.layers,
          heads: s.heads,
          size: sizeText(s.bytes, fmt),
          time: time.format(new Date(savedAt)),
        });
        const resume = make('button', { type: 'button', 'data-train': 'resume-saved', text: t('train.saved.resume') });
        resume.disabled = busy || here || elsewhere || s.step >= s.totalBatches;
        resume.addEventListener('click', () => this.#actions.resume(id));
        const use = make('button', { type: 'button', 'data-train': 'use-saved', text: t('train.saved.use') });
        use.disabled = busy && here; // this tab's run has no model while it is prepared
        use.addEventListener('click', () => this.#actions.use(id));
        const download = make('button', { type: 'button', 'data-train': 'download-pth', text: t('train.saved.download') });
        download.addEventListener('click', () => this.#actions.download(id));
        const remove = make('button', { type: 'button', 'data-train': 'delete-saved', text: t('train.saved.delete') });
        remove.disabled = here || elsewhere;
        remove.addEventListener('click', () => this.#actions.remove(id));
        const state = here ? t('train.saved.current') : elsewhere ? t('train.saved.live') : '';
        return make(
          'li',
          { 'data-run-id': id, 'data-step': s.step, 'data-live': elsewhere ? 'elsewhere' : here ? 'here' : null },
          make('span', { text }),
          state ? make('strong', { class: 'train-saved-state', text: ` ${state}` }) : '',
          make('span', { class: 'buttons' }, resume, use, download, remove),
        );
      }),
    );
  }
}
