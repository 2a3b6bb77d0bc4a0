// The heads that formed, in a line each ("batch 210: L0H2 became a pronoun
// head (0.52)"), in the order they formed (js/head_formation_events.mjs);
// before any has, what forming means here.
import { ROLE_THRESHOLDS } from '../../js/head_roles.mjs';
import { ROLE_COLORS } from './role_charts_view.mjs';
import { make, setText } from './dom.mjs';

export class FormationView {
  #t;
  #drawn = null;

  constructor({ t }) {
    this.#t = t;
    this.list = make('ol', { class: 'train-formed-list' });
    this.none = make('p', { class: 'hint small' });
    this.element = make(
      'section',
      { class: 'train-formed', 'aria-live': 'polite' },
      make('h3', { i18n: 'train.formedTitle' }),
      this.none,
      this.list,
    );
  }

  forget() {
    this.#drawn = null;
  }

  /** events: FormationTracker.events; hasRun: a run was prepared (nothing shows before); lang; fmt. */
  render({ events, hasRun, lang, fmt }) {
    const t = this.#t;
    this.element.hidden = !hasRun;
    const key = `${events.length} ${lang}`;
    if (this.#drawn === key) return;
    this.#drawn = key;
    setText(
      this.none,
      events.length
        ? ''
        : t('train.formedNone', {
            pronoun: ROLE_THRESHOLDS.pronoun,
            induction: ROLE_THRESHOLDS.induction,
            previousToken: ROLE_THRESHOLDS.previousToken,
          }),
    );
    this.none.hidden = events.length > 0;
    this.list.replaceChildren(
      ...events.map((e) => {
        const item = make('li', {
          'data-kind': e.kind,
          'data-layer': e.layer,
          'data-head': e.head,
          'data-step': e.step,
          'data-value': e.value,
        });
        item.style.borderColor = ROLE_COLORS[e.kind];
        item.textContent = t('train.formed', {
          step: fmt(e.step),
          layer: e.layer,
          head: e.head,
          role: t(`train.role.${e.kind}`),
          value: e.value.toFixed(2),
        });
        return item;
      }),
    );
  }
}
