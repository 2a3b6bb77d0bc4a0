// The long-run bar, always in view: what is running (building a model,
// loading files, a forward pass, generating), how far it got or for how
// long, and a Cancel button; after a cancel, what the page went back to.
// A forward pass or a generation step appears only once it has taken
// SHOW_AFTER_MS, so typing on a small model never flashes the bar.
const SHOW_AFTER_MS = 300;
const NOTICE_MS = 8000;

export class RunStatusView {
  #element;
  #progress;
  #text;
  #elapsed;
  #cancel;
  #run = null;
  #notice = null;
  #noticeUntil = Infinity; // set when the notice is first shown
  #elapsedText = String;
  #timer = null; // ticks the elapsed time, shows a delayed run, hides an old notice

  /** element holds a progress bar, [data-run="text"], [data-run="elapsed"] and the Cancel button. */
  constructor(element, { onCancel }) {
    this.#element = element;
    this.#progress = element.querySelector('progress');
    this.#text = element.querySelector('[data-run="text"]');
    this.#elapsed = element.querySelector('[data-run="elapsed"]');
    this.#cancel = element.querySelector('button');
    this.#cancel.addEventListener('click', () => onCancel(this.#run));
  }

  /**
   * run: null, or {kind, text, fraction (null: indeterminate), since (ms),
   * delayed (shown after SHOW_AFTER_MS), cancellable}. notice: {text}, shown
   * for a few seconds once nothing runs (a new object shows again).
   * elapsed(seconds) -> text.
   */
  render(run, notice, elapsed) {
    this.#run = run;
    this.#elapsedText = elapsed;
    if (notice !== this.#notice) {
      this.#notice = notice;
      this.#noticeUntil = Infinity;
    }
    clearInterval(this.#timer);
    this.#timer = null;
    if (this.#update()) this.#timer = setInterval(() => this.#update() || clearInterval(this.#timer), 100);
  }

  /** Shows the state now; true while it changes with time. */
  #update() {
    const now = performance.now();
    const run = this.#run;
    const element = this.#element;
    if (run && !(run.delayed && now - run.since < SHOW_AFTER_MS)) {
      element.hidden = false;
      element.dataset.kind = run.kind;
      this.#progress.hidden = false;
      if (run.fraction === null) this.#progress.removeAttribute('value');
      else this.#progress.value = run.fraction;
      this.#cancel.hidden = !run.cancellable;
      if (this.#text.textContent !== run.text) this.#text.textContent = run.text;
      this.#elapsed.textContent = run.fraction === null ? this.#elapsedText(((now - run.since) / 1000).toFixed(1)) : '';
      return run.fraction === null;
    }
    if (this.#notice && now < this.#noticeUntil) {
      if (this.#noticeUntil === Infinity) this.#noticeUntil = now + NOTICE_MS;
      element.hidden = false;
      element.dataset.kind = 'notice';
      this.#progress.hidden = true;
      this.#cancel.hidden = true;
      if (this.#text.textContent !== this.#notice.text) this.#text.textContent = this.#notice.text;
      this.#elapsed.textContent = '';
      return true;
    }
    if (!element.hidden) element.hidden = true;
    return Boolean(run); // a delayed run not shown yet
  }
}
