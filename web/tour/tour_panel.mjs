// The guided tour, bound to the live figure: one step shown at a time, in a
// box that stays above the figure; each step sets the page's state through
// the store (chapters.mjs, resolved by tour_state.mjs) and says what to look
// at in sentences composed from what is on screen (js/tour_text.mjs), again
// whenever the learner types, switches or clicks. "Back to this step" sets
// the step's state again; leaving the tour puts the learner's own state back
// (playground_keeper.mjs: a model loaded from files is read again). Every
// step is a link (tour_route.mjs); in the compact iframe view a chapter's
// link keeps Next and Back within the chapter. app.mjs calls setupTour once.
import { tourSentences } from '../../js/tour_text.mjs';
import { PLAYGROUND, createPlaygroundKeeper } from '../playground_keeper.mjs';
import { make } from '../panels/make_element.mjs';
import { STEPS, chapterRange } from './chapters.mjs';
import { readTourHash, tourHash } from './tour_route.mjs';
import { STEP_KEYS, resolveStep, tourView } from './tour_state.mjs';

const KEPT = [...PLAYGROUND, 'cell', 'lab'];
const REDRAW = [
  'result',
  'generation',
  'row',
  'cell',
  'layer',
  'head',
  'stage',
  'causal',
  'scale',
  'ablate',
  'prediction',
  'lang',
  'model',
  'demo',
  'text',
];

// Words a sentence's parameters: nested {key, params} and lists of them.
function worded(t, params) {
  const one = (value) =>
    value && typeof value === 'object' && typeof value.key === 'string' ? t(value.key, worded(t, value.params)) : value;
  return Object.fromEntries(
    Object.entries(params).map(([name, value]) => [name, Array.isArray(value) ? value.map(one).join(t('overview.separator')) : one(value)]),
  );
}

// Focus in a field (or a widget that uses the arrows itself) keeps the arrow keys.
function arrowsTaken(event) {
  const el = event.target;
  if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return true;
  return Boolean(el?.closest?.('input, textarea, select, [contenteditable=""], [contenteditable="true"], [role="radiogroup"], canvas'));
}

/**
 * hooks: {loadModel, compute, resetGeneration, modelInUse, reopenFiles} of the
 * page's model view (as the lesson panel's); showExercise(container, name) and
 * hideExercise() show and leave a chapter's exercise (web/exercises/).
 * Returns {links(): {step, chapter} hashes of the step shown (null when none)}.
 */
export function setupTour({ store, t, $, hooks, showExercise, hideExercise }) {
  const root = $('tour');
  const keeper = createPlaygroundKeeper({ store, hooks, keys: KEPT });
  root.setAttribute('aria-labelledby', 'tour-chapter');
  const head = make('div', 'tour-head', root);
  const chapterTitle = make('h2', 'tour-chapter', head, { id: 'tour-chapter' });
  const progress = make('span', 'tour-progress', head);
  const exit = make('button', 'tour-exit', head, { type: 'button' });
  const step = make('div', 'tour-step', root, { tabindex: '-1', 'aria-live': 'polite' });
  const text = make('div', 'tour-text', step);
  const code = make('pre', 'tour-code', step, { translate: 'no' });
  const exercise = make('div', 'tour-exercise', step);
  const nav = make('div', 'tour-nav', root);
  const back = make('button', 'tour-back', nav, { type: 'button' });
  const restore = make('button', 'tour-restore', nav, { type: 'button' });
  const next = make('button', 'tour-next', nav, { type: 'button' });

  let index = null; // the step shown (0-based over the tour), null when the tour is closed
  let range = [0, STEPS.length - 1]; // where Next and Back go: a chapter's steps in an embedded chapter
  let resolved = null; // {target, pending} of the step shown
  let lastDemo = store.get().demo; // the trained model's files, as last known (its sentence and heads)
  let trainOpened = false; // the tour opened the Train panel (and closes it again)
  let pointed = null;
  let embeddedChapter = null; // the chapter a link opened in the compact view (navigation stays within it)
  let settledView = false; // the step shown has been scrolled to since its state was in
  let exerciseShown = null; // the exercise (and language) drawn in the step's box
  let appearing = new ResizeObserver(() => {}); // watches a step's element that is not shown yet

  const active = () => index !== null;

  function context(s, target) {
    const forTarget = target && s.result && !s.busy && s.text === target.text && s.preset === target.preset && !s.files;
    return { demo: lastDemo, result: forTarget ? s.result : null };
  }

  // Sets step `k`'s state and shows it.
  function go(k, { focus = true } = {}) {
    if (!active()) keeper.keep();
    if (index !== null && STEPS[index].exercise) hideExercise();
    index = k;
    settledView = false;
    exerciseShown = null; // shown again, even the same exercise (back to this step)
    const current = STEPS[k];
    resolved = resolveStep(current, context(store.get(), null));
    const unknown = Object.fromEntries(resolved.pending.map((key) => [key, key === 'ablate' ? [] : null]));
    keeper.apply({ ...resolved.target, ...unknown });
    openTrain(current.state.panel === 'train');
    root.hidden = false;
    document.body.classList.add('touring');
    history.replaceState(null, '', `${location.pathname}${location.search}${tourHash(k, embeddedChapter)}`);
    render();
    point(current.point);
    if (focus) step.focus({ preventScroll: true });
  }

  function openTrain(open) {
    const button = $('open-train');
    const isOpen = button.getAttribute('aria-pressed') === 'true';
    if (open && !isOpen) {
      button.click();
      trainOpened = true;
    } else if (!open && trainOpened && isOpen) {
      button.click();
      trainOpened = false;
    } else if (!open) trainOpened = false;
  }

  // The element a step points at (an id, or a selector from #), scrolled into view below the tour's box.
  function point(where) {
    pointed?.classList.remove('tour-target');
    appearing.disconnect();
    let el = where.startsWith('#') ? document.querySelector(where) : $(where);
    if (el && (el.hidden || el.closest('[hidden]'))) {
      // Not drawn yet (a why-tool's answer is on its way): the matrix meanwhile, the element once it shows.
      const wanted = el;
      const shownStep = index;
      appearing = new ResizeObserver(() => {
        if (index === shownStep && !wanted.closest('[hidden]') && wanted.getClientRects().length) point(where);
      });
      appearing.observe(wanted);
      el = null;
    }
    el ??= $('heatmap');
    pointed = el;
    el.classList.add('tour-target');
    document.documentElement.style.setProperty('--tour-height', `${root.offsetHeight}px`);
    el.scrollIntoView({ block: 'start', behavior: 'instant' });
  }

  // The box grew (a longer sentence): what it points at moves down out from under it.
  function uncover() {
    document.documentElement.style.setProperty('--tour-height', `${root.offsetHeight}px`);
    if (!pointed) return;
    const under = root.getBoundingClientRect().bottom - pointed.getBoundingClientRect().top;
    if (under > 0 && pointed.getBoundingClientRect().top >= 0) window.scrollBy({ top: -under - 8, behavior: 'instant' });
  }

  // The keys the step still waits for (the model's heads, the text's tokens), once they are known.
  function settle(s) {
    if (!resolved) return;
    if (s.demo) lastDemo = s.demo;
    if (resolved.pending.length === 0) return;
    const again = resolveStep(STEPS[index], context(s, resolved.target));
    if (again.target.text !== resolved.target.text) return go(index, { focus: false }); // the lesson's sentence, now known
    const patch = Object.fromEntries(resolved.pending.filter((key) => !again.pending.includes(key)).map((key) => [key, again.target[key]]));
    resolved = { target: { ...resolved.target, ...patch }, pending: again.pending };
    if (Object.keys(patch).length === 0) return;
    store.set(patch);
    if ('ablate' in patch) hooks.compute();
  }

  function render() {
    if (!active()) return;
    const s = store.get();
    const current = STEPS[index];
    const inChapter = range[0] !== 0 || range[1] !== STEPS.length - 1;
    chapterTitle.textContent = t(`tour.chapter.${current.chapter}`);
    progress.textContent = t('tour.progress', { n: index - range[0] + 1, total: range[1] - range[0] + 1 });
    exit.textContent = t('tour.exit');
    exit.hidden = inChapter && s.embed;
    back.textContent = t('tour.back');
    next.textContent = t('tour.next');
    restore.textContent = t('tour.restore');
    back.disabled = index <= range[0];
    next.disabled = index >= range[1];
    step.dataset.tourStep = String(index + 1);
    step.dataset.tourChapter = current.chapter;
    const view = tourView(s);
    const lines = !view
      ? []
      : current.exercise
        ? view.cell
          ? [
              {
                key: 'tour.exercise.leadCell',
                params: { q: view.cell.query, k: view.cell.key, query: view.tokens[view.cell.query], key: view.tokens[view.cell.key] },
              },
            ]
          : view.row === null
            ? []
            : [{ key: 'tour.exercise.lead', params: { row: view.at, token: view.tokens[view.at] } }]
        : tourSentences(current.say, view);
    const sentences = lines.map(({ key, params }) => t(key, worded(t, params)));
    if (text.dataset.text !== sentences.join('\n')) {
      text.dataset.text = sentences.join('\n');
      text.replaceChildren(...sentences.map((line) => Object.assign(document.createElement('p'), { textContent: line })));
    }
    code.hidden = !current.code;
    code.replaceChildren(
      ...(current.code ? [Object.assign(document.createElement('code'), { textContent: current.code.join('\n') })] : []),
    );
    renderExercise(current);
    // What the step set and what the store holds now (tests and course platforms read them).
    const ready = resolved.pending.length === 0 && context(s, resolved.target).result !== null;
    step.dataset.tourReady = String(ready);
    // Once the step's matrix is drawn, what it points at is scrolled into view again (the page grew meanwhile).
    if (ready && !settledView) {
      settledView = true;
      point(current.point);
    } else uncover();
    requestAnimationFrame(() => active() && uncover()); // after the views that size themselves in this frame
    step.dataset.tourTarget = JSON.stringify(Object.fromEntries(STEP_KEYS.map((key) => [key, resolved.target[key] ?? null])));
    step.dataset.tourState = JSON.stringify(Object.fromEntries(STEP_KEYS.map((key) => [key, s[key] ?? null])));
  }

  function renderExercise(current) {
    exercise.hidden = !current.exercise;
    if (!current.exercise) {
      exerciseShown = null;
      return exercise.replaceChildren();
    }
    const key = `${current.exercise}:${store.get().lang}`;
    if (exerciseShown === key) return;
    exerciseShown = key;
    exercise.replaceChildren();
    showExercise(exercise, current.exercise);
  }

  function close() {
    if (!active()) return;
    if (STEPS[index].exercise) hideExercise();
    index = null;
    resolved = null;
    openTrain(false);
    pointed?.classList.remove('tour-target');
    pointed = null;
    appearing.disconnect();
    root.hidden = true;
    document.body.classList.remove('touring');
    history.replaceState(null, '', `${location.pathname}${location.search}`);
    keeper.restore();
    $('open-tour').focus();
  }

  // A tour link: the step it names (a chapter's link in the compact view keeps to the chapter).
  function follow(hash, focus = false) {
    const link = readTourHash(hash);
    if (!link) return false;
    embeddedChapter = link.chapter && store.get().embed ? link.chapter : null;
    range = embeddedChapter ? chapterRange(embeddedChapter) : [0, STEPS.length - 1];
    go(link.index, { focus });
    return true;
  }

  store.subscribe((s, changed) => {
    if (!active()) {
      if (s.demo) lastDemo = s.demo;
      return;
    }
    if (['result', 'demo', 'busy', 'model'].some((k) => changed.has(k))) settle(s);
    if (REDRAW.some((k) => changed.has(k)) || changed.has('busy')) render();
  });

  next.addEventListener('click', () => index < range[1] && go(index + 1));
  back.addEventListener('click', () => index > range[0] && go(index - 1));
  restore.addEventListener('click', () => go(index));
  exit.addEventListener('click', close);
  $('open-tour').addEventListener('click', () => (active() ? close() : follow('#tour', true)));
  document.addEventListener('keydown', (event) => {
    if (!active() || arrowsTaken(event)) return;
    if (event.key === 'ArrowRight' && index < range[1]) go(index + 1);
    else if (event.key === 'ArrowLeft' && index > range[0]) go(index - 1);
    else return;
    event.preventDefault();
  });
  window.addEventListener('hashchange', () => follow(location.hash));
  // An exercise draws itself into the box later: the box grows, and what it points at moves out from under it.
  // So does the page when a section above it grows or shrinks (a why-tool's "updating" line goes).
  const moved = new ResizeObserver(() => active() && uncover());
  moved.observe(root);
  moved.observe(document.body);

  root.hidden = true;
  const started = follow(location.hash);
  return {
    /** Whether a tour link opened the page (the tour then loads the model). */
    started,
    links() {
      if (!active()) return null;
      const chapter = STEPS[index].chapter;
      return { step: `#tour/${index + 1}`, chapter: `#tour/${chapter}`, n: index + 1, chapterName: chapter };
    },
  };
}
