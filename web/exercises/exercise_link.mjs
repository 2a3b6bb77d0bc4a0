// An exercise on the page outside the tour: the link #exercise/NAME opens
// exercise NAME (js/exercises.mjs) in a box above the matrix, where its
// pokes (a head, a switch, the text) are at hand; another hash closes it.
import { EXERCISES } from '../../js/exercises.mjs';

/** exercises: setupExercises()'s {show, hide}; $: getElementById. */
export function setupExerciseLink({ exercises, $ }) {
  let box = null;
  function follow() {
    const m = /^#exercise\/([a-z-]+)$/.exec(location.hash);
    const name = m && EXERCISES.some((e) => e.name === m[1]) ? m[1] : null;
    if (box && box.dataset.name !== name) {
      exercises.hide();
      box.remove();
      box = null;
    }
    if (!name || box) return;
    box = document.createElement('section');
    box.className = 'exercise-box';
    box.dataset.name = name;
    $('toggle-note').after(box);
    exercises.show(box, name);
  }
  window.addEventListener('hashchange', follow);
  follow();
}
