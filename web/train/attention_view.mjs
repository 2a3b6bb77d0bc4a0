// The Train panel's attention card: the probe sentence's attention at one
// head in one snapshot (heatmap and table), the head's role scores there,
// and the model's next-token candidates after a chosen position (by default
// the probe's last 他/她). The head shown is by default the best head of a
// role in the newest snapshot (js/head_formation_events.mjs bestHead), so
// the view follows the head that forms; choosing a layer or head pins it.
// The probe sentence can be changed while a run is held.
import { FORMING_KINDS } from '../../js/head_formation_events.mjs';
import { scaleFor } from '../colors.mjs';
import { HeatmapView } from '../views/heatmap.mjs';
import { renderMatrixTable } from '../views/matrix_table.mjs';
import { fillSelect, make } from './dom.mjs';

/** What the head select follows: the best head of a role, or the head the learner chose. */
const FOLLOW_CHOICES = Object.freeze([...FORMING_KINDS, 'pin']);

/** The position whose next token the panel shows first: the last 他/她 of the probe, else its last token. */
export function defaultRow(tokens) {
  for (let i = tokens.length - 1; i >= 0; i -= 1) if (/[他她]/.test(tokens[i])) return i;
  return tokens.length - 1;
}

export class AttentionView {
  #t;
  #heatmap;
  #shownKey = null; // [snapshot, layer, head, row, lang] drawn

  /**
   * t(key, params); probe: the default probe sentence; slider: the
   * SnapshotSlider (placed in the card's bar); on: {layer(k), head(k),
   * row(i), probe(text), follow(choice)}: the learner's choices.
   */
  constructor({ t, probe, slider, on }) {
    this.#t = t;
    this.layer = make('select', { name: 'layer' });
    this.head = make('select', { name: 'head' });
    this.follow = make('select', { name: 'follow' }, ...FOLLOW_CHOICES.map((c) => make('option', { value: c, i18n: `train.follow.${c}` })));
    this.followNote = make('p', { class: 'hint small train-follow-note' });
    this.probe = make('input', { type: 'text', name: 'probe', value: probe, spellcheck: 'false' });
    this.probeButton = make('button', { type: 'button', i18n: 'train.probeApply' });
    this.title = make('h4', { class: 'train-attn-title' });
    this.heatCanvas = make('canvas', { role: 'img', 'data-i18n-label': 'train.attnLabel' });
    this.heatWrap = make('div', { class: 'matrix-wrap train-heat-wrap' }, this.heatCanvas);
    this.table = make('table', { class: 'train-table' });
    this.predictTitle = make('h4', {});
    this.predict = make('ol', { class: 'candidates train-predict' });
    this.readout = make('p', { class: 'note' });
    this.element = make(
      'section',
      { class: 'train-card train-attn' },
      make('h3', { i18n: 'train.attnTitle' }),
      make(
        'div',
        { class: 'train-attn-bar' },
        make('label', {}, make('span', { i18n: 'train.followName' }), this.follow),
        make('label', {}, make('span', { i18n: 'view.layer' }), this.layer),
        make('label', {}, make('span', { i18n: 'view.head' }), this.head),
        slider.element,
      ),
      this.followNote,
      make('label', { class: 'train-probe' }, make('span', { i18n: 'train.probe' }), this.probe, this.probeButton),
      this.title,
      this.heatWrap,
      make('p', { class: 'hint small', i18n: 'train.attnHint' }),
      this.readout,
      make(
        'details',
        { class: 'table-details' },
        make('summary', { i18n: 'matrix.table' }),
        make('div', { class: 'table-scroll' }, this.table),
      ),
      this.predictTitle,
      this.predict,
    );
    this.#heatmap = new HeatmapView(this.heatCanvas, { onRowSelect: (row) => on.row(row) });
    this.layer.addEventListener('change', () => on.layer(Number(this.layer.value)));
    this.head.addEventListener('change', () => on.head(Number(this.head.value)));
    this.follow.addEventListener('change', () => on.follow(this.follow.value));
    this.probeButton.addEventListener('click', () => on.probe(this.probe.value.trim()));
    this.probe.addEventListener('keydown', (event) => {
      if (event.key === 'Enter') this.probeButton.click();
    });
  }

  /** The probe sentence typed. */
  get probeText() {
    return this.probe.value.trim();
  }

  /** Draws again on the next render even if nothing it shows changed (new labels). */
  forget() {
    this.#shownKey = null;
  }

  /**
   * snapshot: the one shown (or null); layers, heads: the selects' sizes;
   * layer, head, row (null: defaultRow); follow: a FOLLOW_CHOICES entry;
   * followed: the best head followed ({layer, head, value}) or null;
   * hasRun: the probe can be applied; lang; fmt. Returns the step drawn (or null).
   */
  render({ snapshot, layers, heads, layer, head, row, follow, followed, hasRun, lang, fmt }) {
    const t = this.#t;
    fillSelect(this.layer, layers, layer);
    fillSelect(this.head, heads, head);
    this.follow.value = follow;
    const note = followed
      ? t('train.followNote', {
          role: t(`train.score.${follow}`),
          layer: followed.layer,
          head: followed.head,
          value: followed.value.toFixed(2),
        })
      : '';
    if (this.followNote.textContent !== note) this.followNote.textContent = note;
    this.followNote.hidden = !followed;
    this.probeButton.disabled = !hasRun;
    if (!snapshot) {
      this.title.textContent = '';
      this.predictTitle.textContent = '';
      this.predict.replaceChildren();
      this.readout.textContent = '';
      this.heatWrap.hidden = true;
      return null;
    }
    this.heatWrap.hidden = false;
    const key = [snapshot, layer, head, row, lang];
    if (this.#shownKey && key.every((v, k) => v === this.#shownKey[k])) return snapshot.step;
    this.#shownKey = key;
    const { T, tokens, attention } = snapshot;
    const H = heads;
    const offset = (layer * H + head) * T * T;
    const values = attention.subarray(offset, offset + T * T);
    const shownRow = row !== null && row < T ? row : defaultRow(tokens);
    const masked = (i, j) => j > i;
    const kv = Math.floor(head / (H / (snapshot.kvHeads || H)));
    this.title.textContent = t('train.attnAt', { layer, head, kv, step: fmt(snapshot.step) });
    this.#heatmap.render({
      tokens,
      values,
      masked,
      scale: scaleFor('attn_weights', values),
      decimals: 2,
      selectedRow: shownRow,
      titles: { query: t('matrix.queryAxis'), key: t('matrix.keyAxis') },
    });
    renderMatrixTable(this.table, {
      caption: t('train.tableCaption', { layer, head, step: snapshot.step }),
      tokens,
      values,
      masked,
      maskedText: `0.000 (${t('matrix.masked')})`,
      queryLabel: `${t('matrix.query')} \\ ${t('matrix.key')}`,
    });
    const scores = snapshot.scores;
    this.readout.textContent = scores
      ? t('train.headScores', {
          layer,
          head,
          step: fmt(snapshot.step),
          previousToken: scores.previousToken[layer][head].toFixed(2),
          induction: scores.induction[layer][head].toFixed(2),
          pronoun: scores.pronoun[layer][head].toFixed(2),
        })
      : '';
    this.predictTitle.textContent = t('train.predictAfter', { token: tokens[shownRow], step: fmt(snapshot.step) });
    this.predict.replaceChildren(
      ...snapshot.top[shownRow].map((c) => {
        const item = make('li', { 'data-id': c.id, 'data-p': c.p, 'data-logit': c.logit });
        const label = c.whole ? t('predict.whole', { label: c.label, whole: c.whole }) : c.label;
        item.textContent = `${label} (#${c.id}): ${c.p.toFixed(3)}`;
        return item;
      }),
    );
    this.predict.dataset.row = String(shownRow);
    return snapshot.step;
  }
}
