// When a head forms: over a training run's snapshots, the first snapshot at
// which a head's role score reaches the threshold that gives it that role
// (js/head_roles.mjs ROLE_THRESHOLDS, the rule that labels the demo's heads:
// pronoun 0.5, induction 0.4, previous-token 0.6), once per head and role.
// The Train panel marks these moments on its charts and says them in a
// line ("batch 210: L0H2 became a pronoun head (0.52)"). Pure: tested in Node.
import { ROLE_THRESHOLDS } from './head_roles.mjs';

/** The scores the panel follows, in the order it shows them, and the role each gives. */
export const FORMING_KINDS = Object.freeze(['pronoun', 'induction', 'previousToken']);
const ROLE_OF_KIND = Object.freeze({ pronoun: 'pronoun', induction: 'induction', previousToken: 'previous-token' });

/** The head with the highest `kind` score in scores ({kind: [L][H]}): {layer, head, value}, or null without that score. */
export function bestHead(scores, kind) {
  const matrix = scores?.[kind];
  if (!matrix) return null;
  let best = null;
  matrix.forEach((row, layer) =>
    row.forEach((value, head) => {
      if (Number.isFinite(value) && (best === null || value > best.value)) best = { layer, head, value };
    }),
  );
  return best;
}

/**
 * Follows a run's snapshots as they come and notes each head's forming:
 * add(snapshot) returns the events that snapshot brings, [{kind, role,
 * layer, head, step, value}] in FORMING_KINDS order, then by layer and head;
 * events holds every one so far, in the order they happened. A snapshot of
 * an earlier step than one seen (a new probe at the same step) brings none
 * that already happened.
 */
export class FormationTracker {
  #formed = new Set(); // "kind layer head"
  #events = [];

  get events() {
    return [...this.#events];
  }

  add(snapshot) {
    const found = [];
    for (const kind of FORMING_KINDS) {
      const matrix = snapshot?.scores?.[kind];
      if (!matrix) continue;
      const threshold = ROLE_THRESHOLDS[kind];
      matrix.forEach((row, layer) =>
        row.forEach((value, head) => {
          const key = `${kind} ${layer} ${head}`;
          if (!(value >= threshold) || this.#formed.has(key)) return;
          this.#formed.add(key);
          found.push({ kind, role: ROLE_OF_KIND[kind], layer, head, step: snapshot.step, value });
        }),
      );
    }
    this.#events.push(...found);
    return found;
  }

  /** The first event of `kind` (the first head to take that role), or null. */
  first(kind) {
    return this.#events.find((e) => e.kind === kind) ?? null;
  }

  clear() {
    this.#formed.clear();
    this.#events = [];
  }
}

/** Every forming event over snapshots in step order (FormationTracker over them all). */
export function formationEvents(snapshots) {
  const tracker = new FormationTracker();
  for (const s of snapshots) tracker.add(s);
  return tracker.events;
}
