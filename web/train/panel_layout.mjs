// The Train panel's layout: its views, in the order the learner meets them.
//   run_bar.mjs          start, "watch an induction head form", pause, stop, reset, use, download; status
//   formation_view.mjs   the heads that formed, a line each
//   stats_view.mjs       loss, perplexity, learning rate, tokens/s, ETA, memory, shapes
//   settings_view.mjs    the model, the data and the hyperparameters
//   saved_runs.mjs       the runs saved in this browser: saving, resuming, MiniMind's *_resume.pth
//   loss_view.mjs        every batch's loss, smoothed, the chance line, the learning rate
//   attention_view.mjs   the probe's attention at the head followed or pinned, the next-token candidates
//     (snapshot_slider.mjs back through the snapshots)
//   role_charts_view.mjs the heads' role scores over the snapshots, the best head of each role
//   timeline_view.mjs    the run's timeline (or the demo model's) on one token axis, scrubbed and played
//   generation_view.mjs  what the model writes at each snapshot
//   compare_view.mjs     two snapshots side by side
import { make } from './dom.mjs';

/** Puts the views into `root` (the #train element); onClose(): the × button. */
export function layoutPanel(
  root,
  { bar, formation, stats, settings, saved, loss, attention, roles, timeline, generation, compare, onClose },
) {
  const close = make('button', { type: 'button', class: 'train-close', 'data-i18n-label': 'train.close', text: '×' });
  close.addEventListener('click', onClose);
  root.replaceChildren(
    make(
      'header',
      { class: 'train-head' },
      make('h2', { id: 'train-title', i18n: 'train.title' }),
      make('p', { class: 'hint', i18n: 'train.intro' }),
      close,
    ),
    ...bar.nodes,
    formation.element,
    stats.element,
    settings.element,
    saved.element,
    make(
      'div',
      { class: 'train-body' },
      make('div', { class: 'train-main' }, loss.element, attention.element, roles.element),
      timeline.element,
      generation.element,
      compare.element,
    ),
  );
}
