// The exercises' styles, one string for the page (added to its <head> once)
// and for the <minimind-exercise> element's shadow root. Colours come from the
// host's custom properties when it has them (web/theme.css), else defaults.
export const EXERCISE_CSS = `
.exercise { border: 1px solid var(--line, #d0d0d0); border-radius: 6px; padding: 0.6rem 0.8rem; margin: 0.6rem 0;
  background: var(--panel, #fff); max-width: 100%; box-sizing: border-box; overflow-wrap: anywhere; }
.exercise-title { margin: 0 0 0.4rem; font-size: 1rem; }
.exercise-question { margin: 0.3rem 0; }
.exercise-controls { margin: 0.4rem 0; }
.exercise .exercise-answer { display: flex; flex-direction: row; flex-wrap: wrap; gap: 0.4rem; align-items: center;
  justify-content: flex-start; text-align: left; margin: 0; }
.exercise-answer select, .exercise-answer input[type='text'] { max-width: 100%; min-width: 6rem; font: inherit; }
.exercise-heads { display: flex; flex-wrap: wrap; gap: 0.2rem 0.7rem; }
.exercise-heads .check { display: inline-flex; gap: 0.2rem; align-items: center; }
.exercise-poke { color: var(--muted, #5b5b5b); margin: 0; font-size: 0.9rem; }
.exercise-buttons { display: flex; flex-wrap: wrap; gap: 0.5rem; align-items: center; margin: 0.4rem 0; }
.exercise-buttons button { font: inherit; }
.exercise-tries { color: var(--muted, #5b5b5b); font-size: 0.85rem; }
.exercise-verdict { margin: 0.3rem 0; min-height: 1.2em; }
.exercise-verdict.solved { color: var(--ok, #1b7a3a); font-weight: 600; }
.exercise-verdict.wrong { color: var(--error, #b00020); }
.exercise-answers { margin: 0.3rem 0; font-size: 0.9rem; }
.exercise[aria-busy='true'] .exercise-question { opacity: 0.7; }
`;

/** Adds the styles to `document` once. */
export function addExerciseStyles(doc = document) {
  if (doc.getElementById('exercise-styles')) return;
  const style = doc.createElement('style');
  style.id = 'exercise-styles';
  style.textContent = EXERCISE_CSS;
  doc.head.append(style);
}
