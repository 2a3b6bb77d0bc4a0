// The Train panel's run bar: start, "watch an induction head form" (the
// induction recipe, js/train_recipes.mjs, put into the settings and started)
// and what that run is, pause / resume (first, for a saved run the panel
// opened: going on is what it is there for), stop, reset; use the model in the
// playground, download it (F32 or F16); the progress bar, the status line
// and the error line.
import { TRAIN_RECIPES, recipeTokens } from '../../js/train_recipes.mjs';
import { mixPercents } from './data_mix.mjs';
import { make, setText } from './dom.mjs';

const INDUCTION = TRAIN_RECIPES.induction;

// A line of the bar: a string, or a function that words it in the page's language now.
const worded = (line) => (typeof line === 'function' ? line() : line);

export class RunBar {
  #t;

  /** t(key, params); actions: {start, induction, pause, stop, reset, use, download}: what each button does. */
  constructor({ t, actions }) {
    this.#t = t;
    this.start = make('button', { type: 'button', class: 'primary', 'data-train': 'start' });
    this.induction = make('button', { type: 'button', 'data-train': 'induction', i18n: 'train.induction' });
    this.inductionHelp = make('p', { class: 'train-help train-induction-help' });
    this.pause = make('button', { type: 'button', 'data-train': 'pause' });
    this.stop = make('button', { type: 'button', 'data-train': 'stop', i18n: 'train.stop' });
    this.reset = make('button', { type: 'button', 'data-train': 'reset', i18n: 'train.reset' });
    this.use = make('button', { type: 'button', 'data-train': 'use', i18n: 'train.use' });
    this.dtype = make(
      'select',
      { name: 'dtype', 'data-i18n-label': 'train.dtype' },
      make('option', { value: 'F32', text: 'F32' }),
      make('option', { value: 'F16', text: 'F16' }),
    );
    this.download = make('button', { type: 'button', 'data-train': 'download', i18n: 'train.download' });
    this.progress = make('progress', { max: 1, value: 0 });
    this.status = make('p', { class: 'train-status', role: 'status', 'aria-live': 'polite' });
    this.message = make('p', { class: 'message', role: 'alert' });
    this.downloadNote = make('p', { class: 'train-help', i18n: 'train.downloadNote' });
    this.runButtons = make('div', { class: 'buttons' }, this.start, this.induction, this.pause, this.stop, this.reset);
    this.bar = make('div', { class: 'train-bar' }, this.runButtons, make('div', { class: 'buttons' }, this.use, this.dtype, this.download));
    /** The bar's nodes in the order the panel shows them. */
    this.nodes = [this.bar, this.inductionHelp, this.downloadNote, this.progress, this.status, this.message];
    for (const name of ['start', 'induction', 'pause', 'stop', 'reset', 'use', 'download'])
      this[name].addEventListener('click', () => actions[name]());
  }

  /**
   * run: the TrainRun; error, notice: the panel's lines (or null), each a
   * string or a function that words it now (so a line on screen follows a
   * language switch);
   * resumeFirst: pause / resume leads the buttons; fmt(x, digits).
   */
  render({ run, error: errorLine, notice: noticeLine, resumeFirst = false, fmt }) {
    const error = worded(errorLine);
    const notice = worded(noticeLine);
    const t = this.#t;
    const { step, total } = run;
    const running = run.busy;
    // A paused or finished run can be left for a new one with the settings as they are now.
    this.start.textContent = t(run.state === 'done' || run.state === 'paused' ? 'train.again' : 'train.start');
    this.start.disabled = running;
    this.induction.disabled = running;
    setText(this.inductionHelp, this.#inductionText(fmt));
    this.pause.textContent = t(run.state === 'paused' ? 'train.resume' : 'train.pause');
    this.pause.disabled = !(running || run.state === 'paused');
    this.stop.disabled = !(running || run.state === 'paused');
    this.reset.disabled = run.state === 'idle';
    const order = resumeFirst ? [this.pause, this.start] : [this.start, this.induction, this.pause];
    if (order.some((button, k) => this.runButtons.children[k] !== button))
      this.runButtons.replaceChildren(...new Set([...order, this.start, this.induction, this.pause, this.stop, this.reset]));
    this.pause.classList.toggle('primary', resumeFirst);
    this.start.classList.toggle('primary', !resumeFirst);
    const hasModel = Boolean(run.prepared) && run.state !== 'preparing';
    this.use.disabled = !hasModel;
    this.download.disabled = !hasModel;

    if (run.progress) this.progress.value = run.progress.total ? run.progress.done / run.progress.total : 0;
    else this.progress.value = total ? step / total : 0;
    this.progress.hidden = run.state === 'idle';
    setText(this.status, this.#statusText(run, notice, fmt));
    setText(this.message, error ?? '');
    this.message.hidden = !error;
    this.message.classList.toggle('error', Boolean(error));
  }

  // What the induction run is, from its recipe.
  #inductionText(fmt) {
    const { config, batches } = INDUCTION;
    return this.#t('train.inductionHelp', {
      layers: config.num_hidden_layers,
      heads: config.num_attention_heads,
      hidden: config.hidden_size,
      share: fmt(mixPercents(INDUCTION.data.mix).induction),
      batches: fmt(batches),
      tokens: fmt(recipeTokens(INDUCTION)),
    });
  }

  #statusText(run, notice, fmt) {
    const t = this.#t;
    const { step, total } = run;
    if (run.state === 'idle') return notice ?? t('train.idle');
    if (run.state === 'preparing') {
      const p = run.progress;
      if (p?.phase === 'tokenize') return t('train.tokenizing', { done: fmt(p.done), total: fmt(p.total) });
      if (p?.phase === 'data') return t('train.readingData');
      return t('train.loading');
    }
    const key = { running: 'train.running', paused: 'train.paused', done: 'train.done' }[run.state];
    const text = t(key, { step: fmt(step), total: fmt(total) });
    return notice ? `${text} ${notice}` : text;
  }
}
