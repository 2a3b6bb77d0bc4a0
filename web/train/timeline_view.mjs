// The Train panel's timeline card: a run's history on one axis of tokens
// trained (timeline_charts.mjs: the loss, the ICL score, each role's head
// scores, where keys come from), a scrubber over the entries that redraws
// the probe sentence's attention at that moment (every head as small
// multiples, or the head chosen, from the entry's half floats: no weights
// needed) and every head's role scores there, and the moments a head
// formed, told in sentences (js/timeline_text.mjs). Play moves the scrubber
// through the entries. It shows either this tab's run (live: the run's
// TimelineStore, following the newest entry), the demo model's own
// history (models/minimind-demo/timeline.json, "how this model learned"),
// or the induction recipe's run (models/timelines/induction.json,
// scripts/recipe_timeline.mjs),
// and says which. Exports: the entries as a timeline file (JSON), the
// charts as an SVG or PNG figure (timeline_figure.mjs).
// A scrub redraws only the attention, the overview, the sentences and the
// cursor (the charts redraw when the entries change), decodes each entry's
// attention once, and records a performance measure 'minimind:timeline-scrub'.
// The card's element exposes `shown` (read-only, for tests and scripts):
// {source, index, step, tokens, choice, layer, head, T, values}: the
// attention drawn (the chosen head's [T·T], or every head's [L·H·T·T]).
import { FORMING_KINDS } from '../../js/head_formation_events.mjs';
import { roleOf } from '../../js/head_roles.mjs';
import { floatsFromHalf } from '../../js/half_float.mjs';
import { COMPOSITION_MIN_GAP, headName, readTimeline, timelineJson } from '../../js/timeline.mjs';
import { compactTokens, momentSentence, timelineMoments } from '../../js/timeline_text.mjs';
import { wordParams } from '../../js/why_text.mjs';
import { scaleFor } from '../colors.mjs';
import { download, pngWithText } from '../export.mjs';
import { HeatmapView } from '../views/heatmap.mjs';
import { LineChart } from '../views/line_chart.mjs';
import { make, setText } from './dom.mjs';
import { ROLE_COLORS } from './role_charts_view.mjs';
import { timelineCharts } from './timeline_charts.mjs';
import { timelinePng, timelineSvg } from './timeline_figure.mjs';

const SCRUB = 'minimind:timeline-scrub';
/** Milliseconds an entry stays on screen while the timeline plays. */
const PLAY_MS = 120;
const CHART_HEIGHTS = { loss: 150, icl: 110, composition: 130 };
// The line chart's plot box: 44 px of axis at the left, 10 at the right (views/line_chart.mjs).
const PLOT_LEFT = 44;
const PLOT_RIGHT = 10;

export class TimelineView {
  #t;
  #files; // {demo: URL, induction: URL}: the shipped timelines
  #onChange;
  #source = 'live'; // 'live', or a key of #files
  #loaded = {}; // key of #files -> {entries, probe, every, minGap, layers, heads}
  #loading = false;
  #error = null;
  #index = 0;
  #follow = true; // live: the scrubber stays at the newest entry
  #fileIndex = {}; // key of #files -> the entry shown when the learner left that timeline
  #choice = 'all'; // 'all' | 'L2H2'
  #playing = 0; // the animation frame requested, while playing
  #charts = new Map(); // id -> {chart, canvas, figure, title, cursor}
  #decoded = new WeakMap(); // entry -> Float32Array of its attention
  #chartsKey = null;
  #scrubKey = null;
  #view = null; // {entries, probe, every, minGap, moments, charts, source}
  #lang = 'zh-CN';
  #fmt = (x) => String(x);
  #shown = null;
  #overviewShape = '';
  #gridWidth = 320; // the small multiples' container width (a ResizeObserver's: a scrub reads no layout)

  /**
   * t(key, params); files: the shipped timelines, {demo: the demo model's,
   * induction: the induction recipe's run's} (URLs); onChange(): the card
   * wants the panel redrawn.
   */
  constructor({ t, files, onChange }) {
    this.#t = t;
    this.#files = files;
    this.#onChange = onChange;
    this.demoButton = make('button', { type: 'button', 'data-timeline': 'demo', i18n: 'timeline.loadDemo' });
    this.inductionButton = make('button', { type: 'button', 'data-timeline': 'induction', i18n: 'timeline.loadInduction' });
    this.liveButton = make('button', { type: 'button', 'data-timeline': 'live', i18n: 'timeline.showLive' });
    this.sourceNote = make('p', { class: 'hint small train-tl-source', 'aria-live': 'polite' });
    this.chartsBox = make('div', { class: 'train-tl-charts' });
    this.play = make('button', { type: 'button', 'data-timeline': 'play', 'aria-pressed': 'false' });
    this.scrubber = make('input', {
      type: 'range',
      min: 0,
      max: 0,
      step: 1,
      value: 0,
      'data-timeline': 'scrubber',
      'data-i18n-label': 'timeline.scrubber',
    });
    this.at = make('output', { class: 'train-tl-at' });
    this.nowText = make('span', {});
    this.now = make('p', { class: 'train-tl-now', 'aria-live': 'polite' }, make('strong', { i18n: 'timeline.now' }), ' ', this.nowText);
    this.headChoice = make('select', { name: 'timeline-head' });
    this.attnTitle = make('h4', { class: 'train-tl-attn-title' });
    this.grid = make('canvas', { role: 'img', class: 'train-tl-grid', 'data-timeline': 'grid' });
    this.gridWrap = make('div', { class: 'train-tl-grid-wrap' }, this.grid);
    this.heat = make('canvas', { role: 'img', 'data-timeline': 'heat' });
    this.heatWrap = make('div', { class: 'matrix-wrap train-heat-wrap train-tl-heat' }, this.heat);
    this.overview = make('table', { class: 'train-tl-overview' });
    this.moments = make('ol', { class: 'train-tl-moments' });
    this.noMoments = make('p', { class: 'hint small' });
    this.exports = ['json', 'svg', 'png'].map((kind) =>
      make('button', { type: 'button', 'data-timeline-export': kind, i18n: `timeline.export${kind[0].toUpperCase()}${kind.slice(1)}` }),
    );
    this.body = make(
      'div',
      { class: 'train-tl-body' },
      this.chartsBox,
      make('div', { class: 'train-tl-scrub' }, this.play, this.scrubber, this.at),
      this.now,
      make('div', { class: 'train-tl-bar' }, make('label', {}, make('span', { i18n: 'timeline.headChoice' }), this.headChoice)),
      this.attnTitle,
      this.gridWrap,
      this.heatWrap,
      make('h4', { i18n: 'timeline.overviewTitle' }),
      make('div', { class: 'table-scroll' }, this.overview),
      make('h4', { i18n: 'timeline.momentsTitle' }),
      this.noMoments,
      this.moments,
      make('div', { class: 'train-tl-exports' }, ...this.exports),
    );
    this.empty = make('p', { class: 'hint small train-tl-empty', i18n: 'timeline.empty' });
    this.element = make(
      'section',
      { class: 'train-card train-tl', 'data-timeline-card': '' },
      make('h3', { i18n: 'timeline.title' }),
      make('p', { class: 'hint small', i18n: 'timeline.hint' }),
      make('div', { class: 'train-tl-bar' }, this.demoButton, this.inductionButton, this.liveButton),
      this.sourceNote,
      this.empty,
      this.body,
    );
    Object.defineProperty(this.element, 'shown', {
      get: () => (this.#shown ? { ...this.#shown, values: Array.from(this.#shown.values ?? []) } : null),
    });
    this.heatmap = new HeatmapView(this.heat, {});
    new ResizeObserver((seen) => {
      const width = Math.floor(seen.at(-1).contentRect.width);
      if (!width || width === this.#gridWidth) return;
      this.#gridWidth = width;
      this.#scrubKey = null;
      this.#scrub();
    }).observe(this.gridWrap);
    this.demoButton.addEventListener('click', () => this.openFile('demo'));
    this.inductionButton.addEventListener('click', () => this.openFile('induction'));
    this.liveButton.addEventListener('click', () => {
      this.#stop();
      if (this.#source !== 'live') this.#fileIndex[this.#source] = this.#index;
      this.#source = 'live';
      this.#follow = true;
      this.#onChange();
    });
    this.scrubber.addEventListener('input', () => {
      this.#stop();
      this.#moveTo(Number(this.scrubber.value));
    });
    this.play.addEventListener('click', () => (this.#playing ? this.#stop() : this.#start()));
    this.headChoice.addEventListener('change', () => {
      this.#choice = this.headChoice.value;
      this.#scrub();
    });
    this.exports[0].addEventListener('click', () => this.#exportJson());
    this.exports[1].addEventListener('click', () => this.#exportFigure('svg'));
    this.exports[2].addEventListener('click', () => this.#exportFigure('png'));
  }

  /** Makes the charts: once the element is in the document (a chart measures its container). */
  attach() {
    for (const id of ['loss', 'icl', ...FORMING_KINDS, 'composition']) {
      const canvas = make('canvas', { role: 'img', 'data-timeline-chart': id });
      const title = make('figcaption', {});
      const cursor = make('div', { class: 'train-tl-cursor', 'aria-hidden': 'true' });
      const wrap = make('div', { class: 'train-chart-wrap train-tl-chart' }, canvas, cursor);
      const figure = make('figure', { class: 'train-tl-figure', 'data-chart': id }, title, wrap);
      this.chartsBox.append(figure);
      this.#charts.set(id, { chart: new LineChart(canvas, { height: CHART_HEIGHTS[id] ?? 100 }), canvas, title, cursor });
    }
  }

  /** Draws everything again on the next render (new labels). */
  forget() {
    this.#chartsKey = null;
    this.#scrubKey = null;
  }

  /** A shipped timeline ('demo' or 'induction', a key of files): fetched once, then shown. */
  async openFile(key) {
    this.#stop();
    if (this.#source === key) return;
    if (this.#source !== 'live') this.#fileIndex[this.#source] = this.#index;
    this.#source = key;
    this.#index = this.#fileIndex[key] ?? 0; // where the learner left that timeline
    this.#error = null;
    if (!this.#loaded[key]) {
      this.#loading = true;
      this.#onChange();
      try {
        const response = await fetch(this.#files[key]);
        if (!response.ok) throw new Error(`HTTP ${response.status}`);
        const json = readTimeline(await response.json());
        this.#loaded[key] = {
          entries: json.snapshots,
          probe: json.probe,
          every: json.every,
          minGap: json.compositionMinGap ?? COMPOSITION_MIN_GAP,
          layers: json.layers,
          heads: json.heads,
        };
        this.#index = 0;
      } catch (error) {
        this.#error = error.message;
        this.#source = 'live';
      }
      if (this.#source !== key) return this.#onChange(); // the learner chose another timeline meanwhile
      this.#loading = false;
    }
    this.#onChange();
  }

  /** live: {entries (the run's timeline entries), probe: {text, ids, tokens} | null, layers, heads}; lang; fmt. */
  render({ live, lang, fmt }) {
    const t = this.#t;
    this.#lang = lang;
    this.#fmt = fmt;
    this.#showPlay(); // its text follows its state, which applyTranslations does not know
    const file = this.#source !== 'live' ? this.#loaded[this.#source] : null;
    const source = file ? this.#source : 'live';
    const data = file ?? { ...live, every: everyOf(live.entries), minGap: COMPOSITION_MIN_GAP };
    const entries = data.entries;
    for (const [key, button] of [
      ['demo', this.demoButton],
      ['induction', this.inductionButton],
    ]) {
      button.disabled = this.#loading;
      button.setAttribute('aria-pressed', String(source === key));
    }
    this.liveButton.setAttribute('aria-pressed', String(source === 'live'));
    this.liveButton.disabled = source === 'live';
    const note = this.#loading
      ? t('timeline.loading')
      : this.#error
        ? t('timeline.loadFailed', { message: this.#error })
        : !entries.length
          ? ''
          : source === 'live'
            ? t('timeline.sourceLive', { n: entries.length })
            : t(source === 'demo' ? 'timeline.sourceDemo' : 'timeline.sourceInduction', {
                n: entries.length,
                tokens: compactTokens(entries.at(-1).tokens),
              });
    setText(this.sourceNote, note);
    this.element.dataset.source = source;
    this.empty.hidden = entries.length > 0;
    this.body.hidden = entries.length === 0;
    if (!entries.length) {
      this.#shown = null;
      this.forget(); // what is drawn is hidden now: the next entries draw anew
      return;
    }
    const chartsKey = [source, entries.length, entries.at(-1), lang];
    if (!sameKey(chartsKey, this.#chartsKey)) {
      this.#chartsKey = chartsKey;
      const moments = timelineMoments(entries);
      const axis = timelineCharts(entries, moments, { minGap: data.minGap, t });
      this.#view = { ...data, entries, moments, axis, source };
      this.#drawCharts(axis);
      this.#drawMoments();
      this.#fillHeads(entries.at(-1));
      this.#scrubKey = null;
    }
    this.scrubber.max = String(entries.length - 1);
    if (source === 'live' && this.#follow) this.#index = entries.length - 1;
    this.#index = Math.min(this.#index, entries.length - 1);
    this.#scrub();
  }

  #drawCharts(axis) {
    const t = this.#t;
    const xLabel = t('timeline.xTokens', { unit: t(`timeline.unit.${axis.unit}`) });
    for (const spec of axis.charts) {
      const { chart, canvas, title } = this.#charts.get(spec.id);
      title.textContent = spec.title;
      title.style.color = spec.titleColor ?? '';
      // The axis's unit is said once, under the last chart: the charts share it.
      chart.render({
        series: spec.series,
        xMax: axis.xMax,
        xExact: true,
        yLeft: spec.yLeft,
        rules: spec.rules,
        marks: spec.marks,
        xLabel: spec === axis.charts.at(-1) ? xLabel : undefined,
        empty: spec.empty,
      });
      canvas.setAttribute('aria-label', t('timeline.chartLabel', { chart: spec.title }));
    }
  }

  #word(parts) {
    const t = this.#t;
    return parts.map((p) => t(p.key, wordParams(t, p.params))).join(t('timeline.join')) + t('timeline.end');
  }

  #sentence(moment) {
    const text = this.#word(momentSentence(moment, { minGap: this.#view.minGap }));
    return text.charAt(0).toUpperCase() + text.slice(1);
  }

  #drawMoments() {
    const { moments } = this.#view;
    setText(this.noMoments, moments.length ? '' : this.#t('timeline.noMoments'));
    this.noMoments.hidden = moments.length > 0;
    this.moments.replaceChildren(
      ...moments.map((m) => {
        const jump = make('button', {
          type: 'button',
          class: 'train-tl-jump',
          'aria-label': this.#t('timeline.jump'),
          text: compactTokens(m.tokens),
        });
        jump.addEventListener('click', () => {
          this.#stop();
          this.#moveTo(m.index);
        });
        const item = make(
          'li',
          { 'data-kind': m.kind, 'data-head': m.head, 'data-index': m.index, 'data-step': m.step },
          jump,
          make('span', { text: this.#sentence(m) }),
        );
        item.style.borderColor = ROLE_COLORS[m.kind];
        return item;
      }),
    );
  }

  #fillHeads(entry) {
    const names = Object.keys(entry.heads);
    const values = ['all', ...names];
    if ([...this.headChoice.options].map((o) => o.value).join() !== values.join())
      this.headChoice.replaceChildren(...values.map((v) => new Option(v === 'all' ? this.#t('timeline.allHeads') : v, v)));
    else this.headChoice.options[0].textContent = this.#t('timeline.allHeads');
    if (!values.includes(this.#choice)) this.#choice = 'all';
    this.headChoice.value = this.#choice;
  }

  #moveTo(index) {
    const entries = this.#view?.entries ?? [];
    this.#index = Math.max(0, Math.min(index, entries.length - 1));
    this.#follow = this.#index === entries.length - 1;
    this.#scrub();
  }

  // Redraws what depends on the entry shown (only what changed) and measures it.
  #scrub() {
    const view = this.#view;
    if (!view) return;
    const key = [view, this.#index, this.#choice, this.#lang];
    if (sameKey(key, this.#scrubKey)) return;
    this.#scrubKey = key;
    const started = performance.now();
    const t = this.#t;
    const fmt = this.#fmt;
    const { entries, axis } = view;
    const k = this.#index;
    const entry = entries[k];
    this.scrubber.value = String(k);
    const at = t('timeline.at', { k: k + 1, n: entries.length, step: fmt(entry.step), tokens: compactTokens(entry.tokens) });
    setText(this.at, at);
    this.scrubber.setAttribute('aria-valuetext', at);
    this.element.dataset.index = String(k);
    this.element.dataset.step = String(entry.step);
    const f = entry.tokens / axis.scale / axis.xMax;
    for (const { cursor } of this.#charts.values())
      cursor.style.left = `calc(${PLOT_LEFT}px + (100% - ${PLOT_LEFT + PLOT_RIGHT}px) * ${f})`;
    const here = view.moments.filter((m) => m.index === k);
    const said = here.map((m) => this.#sentence(m)).join(' ');
    if (this.nowText.textContent !== said) this.nowText.textContent = said;
    this.now.hidden = here.length === 0;
    for (const item of this.moments.children) {
      if (Number(item.dataset.index) === k) item.setAttribute('aria-current', 'true');
      else item.removeAttribute('aria-current');
    }
    this.#drawAttention(entry);
    this.#drawOverview(entry);
    performance.measure(SCRUB, { start: started });
  }

  // The entry's attention, decoded once: Float32Array [L, H, T, T].
  #attention(entry) {
    if (!entry.attention) return null;
    let values = this.#decoded.get(entry);
    if (!values) {
      values = floatsFromHalf(entry.attention);
      this.#decoded.set(entry, values);
    }
    return values;
  }

  #tokens(T) {
    const probe = this.#view.probe;
    const tokens = probe?.tokens;
    return Array.isArray(tokens) && tokens.length === T ? tokens : Array.from({ length: T }, (_, i) => `#${i}`);
  }

  // The entry shown, or (past the timeline's byte budget, js/timeline_store.mjs) the
  // nearest one that kept its attention, the earlier one on a tie.
  #withAttention(entry) {
    if (entry.attention) return entry;
    const entries = this.#view.entries;
    const at = entries.indexOf(entry);
    for (let d = 1; d < entries.length; d += 1) {
      for (const k of [at - d, at + d]) if (entries[k]?.attention) return entries[k];
    }
    return entry;
  }

  #drawAttention(shownEntry) {
    const t = this.#t;
    const entry = this.#withAttention(shownEntry);
    const names = Object.keys(entry.heads);
    const layers = 1 + Math.max(...names.map((n) => Number(/^L(\d+)/.exec(n)[1])));
    const heads = names.length / layers;
    const values = this.#attention(entry);
    const T = entry.T;
    const at = { step: this.#fmt(entry.step), tokens: compactTokens(entry.tokens) };
    this.attnTitle.textContent = !values
      ? t('timeline.noAttention')
      : entry === shownEntry
        ? t('timeline.attnTitle', at)
        : t('timeline.attnNearest', { ...at, shown: this.#fmt(shownEntry.step) });
    const chosen = this.#choice === 'all' ? null : /^L(\d+)H(\d+)$/.exec(this.#choice).slice(1).map(Number);
    this.gridWrap.hidden = !values || chosen !== null;
    this.heatWrap.hidden = !values || chosen === null;
    const base = { source: this.#view.source, index: this.#index, step: entry.step, tokens: entry.tokens, choice: this.#choice, T };
    if (!values) {
      this.#shown = { ...base, layer: null, head: null, values: null };
      return;
    }
    const label = t('timeline.attnLabel', { step: this.#fmt(entry.step) });
    if (chosen) {
      const [layer, head] = chosen;
      const offset = (layer * heads + head) * T * T;
      const matrix = values.subarray(offset, offset + T * T);
      this.heatmap.render({
        tokens: this.#tokens(T),
        values: matrix,
        masked: (i, j) => j > i,
        scale: scaleFor('attn_weights', matrix),
        decimals: 2,
        selectedRow: null,
        titles: { query: t('matrix.queryAxis'), key: t('matrix.keyAxis') },
      });
      this.heat.setAttribute('aria-label', `${label}: ${this.#choice}`);
      this.#shown = { ...base, layer, head, values: matrix };
      return;
    }
    drawGrid(this.grid, this.#gridWidth, { values, layers, heads, T });
    this.grid.setAttribute('aria-label', label);
    this.#shown = { ...base, layer: null, head: null, values };
  }

  // The overview's cells are made once per shape, then only their text and attributes change.
  #drawOverview(entry) {
    const t = this.#t;
    const names = Object.keys(entry.heads);
    const layers = 1 + Math.max(...names.map((n) => Number(/^L(\d+)/.exec(n)[1])));
    const heads = names.length / layers;
    if (this.#overviewShape !== `${layers}x${heads}`) {
      this.#overviewShape = `${layers}x${heads}`;
      const rows = [];
      for (let l = 0; l < layers; l += 1) {
        const cells = [];
        for (let h = 0; h < heads; h += 1) {
          const name = headName(l, h);
          const button = make(
            'button',
            { type: 'button' },
            make('strong', { text: name }),
            make('span', {}),
            make('span', { class: 'train-tl-scores' }),
          );
          button.addEventListener('click', () => {
            this.#choice = this.#choice === name ? 'all' : name;
            this.headChoice.value = this.#choice;
            this.#scrub();
          });
          cells.push(make('td', { 'data-head': name }, button));
        }
        rows.push(make('tr', {}, ...cells));
      }
      this.overview.replaceChildren(make('caption', {}), make('tbody', {}, ...rows));
    }
    setText(this.overview.firstChild, t('timeline.overviewCaption', { step: this.#fmt(entry.step) }));
    for (const cell of this.overview.querySelectorAll('td')) {
      const name = cell.dataset.head;
      const s = entry.heads[name];
      const role = roleOf(s);
      const [, roleText, scores] = cell.firstChild.children;
      setText(roleText, role === 'mixed' ? t('timeline.role.mixed') : t(`qk.role.${role}`));
      setText(
        scores,
        FORMING_KINDS.slice()
          .reverse()
          .map((kind) => s[kind].toFixed(2))
          .join(' / '),
      );
      cell.firstChild.setAttribute('aria-pressed', String(this.#choice === name));
      Object.assign(cell.dataset, { role, previousToken: s.previousToken, induction: s.induction, pronoun: s.pronoun });
      const kind = role === 'previous-token' ? 'previousToken' : role;
      cell.style.borderColor = ROLE_COLORS[kind] ?? 'transparent';
    }
  }

  #start() {
    const entries = this.#view?.entries ?? [];
    if (entries.length < 2) return;
    if (this.#index >= entries.length - 1) this.#moveTo(0);
    let last = performance.now();
    const tick = (now) => {
      if (now - last >= PLAY_MS) {
        last = now;
        this.#moveTo(this.#index + 1);
      }
      if (this.#index >= (this.#view?.entries.length ?? 0) - 1) return this.#stop();
      this.#playing = requestAnimationFrame(tick);
    };
    this.#playing = requestAnimationFrame(tick);
    this.#showPlay();
  }

  #stop() {
    if (this.#playing) cancelAnimationFrame(this.#playing);
    this.#playing = 0;
    this.#showPlay();
  }

  #showPlay() {
    this.play.textContent = this.#t(this.#playing ? 'timeline.pause' : 'timeline.play');
    this.play.setAttribute('aria-pressed', String(Boolean(this.#playing)));
    this.element.dataset.playing = String(Boolean(this.#playing));
  }

  #exportJson() {
    const view = this.#view;
    if (!view) return;
    const [first] = view.entries;
    const names = Object.keys(first.heads);
    const layers = view.layers ?? 1 + Math.max(...names.map((n) => Number(/^L(\d+)/.exec(n)[1])));
    const json = timelineJson({
      every: view.every,
      probe: view.probe,
      layers,
      heads: view.heads ?? names.length / layers,
      entries: view.entries,
    });
    download('minimind-timeline.json', new Blob([JSON.stringify(json)], { type: 'application/json' }));
  }

  #figure() {
    const t = this.#t;
    const view = this.#view;
    const { axis, entries } = view;
    const source = t(
      { demo: 'timeline.figureSourceDemo', induction: 'timeline.figureSourceInduction' }[view.source] ?? 'timeline.figureSourceLive',
    );
    return {
      title: t('timeline.figureTitle', { source }),
      source: this.sourceNote.textContent,
      charts: axis.charts,
      xMax: axis.xMax,
      xLabel: t('timeline.xTokens', { unit: t(`timeline.unit.${axis.unit}`) }),
      cursor: entries[this.#index].tokens / axis.scale,
      sentences: view.moments.map((m) => this.#sentence(m)),
    };
  }

  async #exportFigure(kind) {
    if (!this.#view) return;
    const meta = {
      format: 'minimind-playground/training-timeline',
      source: this.#view.source,
      entries: this.#view.entries.length,
      shown: this.#index,
    };
    const blob =
      kind === 'svg'
        ? new Blob([timelineSvg(this.#figure(), meta)], { type: 'image/svg+xml' })
        : await timelinePng(this.#figure(), meta, pngWithText);
    download(`minimind-timeline.${kind}`, blob);
  }
}

// Keys compared element by element (objects by identity).
function sameKey(a, b) {
  return Boolean(b) && a.length === b.length && a.every((v, k) => v === b[k]);
}

/** A live run's snapshot spacing: the smallest step between entries (1 with fewer than two). */
function everyOf(entries) {
  let every = Infinity;
  for (let k = 1; k < entries.length; k += 1) every = Math.min(every, entries[k].step - entries[k - 1].step);
  return Number.isFinite(every) && every > 0 ? every : 1;
}

/** Every head's matrix as small multiples: a row per layer, a column per head, each labelled. */
function drawGrid(canvas, width, { values, layers, heads, T }) {
  const ratio = globalThis.devicePixelRatio || 1;
  const gap = 8;
  const label = 14;
  const panel = Math.max(T, Math.floor((width - (heads - 1) * gap) / heads));
  const cell = Math.max(1, Math.floor(Math.min(panel, 140) / T));
  const side = cell * T;
  const W = heads * side + (heads - 1) * gap;
  const H = layers * (side + label) + (layers - 1) * gap;
  if (canvas.width !== Math.round(W * ratio) || canvas.height !== Math.round(H * ratio)) {
    canvas.width = Math.round(W * ratio);
    canvas.height = Math.round(H * ratio);
    canvas.style.width = `${W}px`;
    canvas.style.height = `${H}px`;
  }
  const ctx = canvas.getContext('2d');
  ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
  ctx.clearRect(0, 0, W, H);
  ctx.font = '11px system-ui, sans-serif';
  ctx.textBaseline = 'top';
  const scale = scaleFor('attn_weights', values);
  for (let l = 0; l < layers; l += 1)
    for (let h = 0; h < heads; h += 1) {
      const x0 = h * (side + gap);
      const y0 = l * (side + label + gap);
      ctx.fillStyle = '#444';
      ctx.fillText(headName(l, h), x0, y0);
      const offset = (l * heads + h) * T * T;
      for (let i = 0; i < T; i += 1)
        for (let j = 0; j < T; j += 1) {
          ctx.fillStyle = j > i ? '#f2f2f2' : scale.color(values[offset + i * T + j]);
          ctx.fillRect(x0 + j * cell, y0 + label + i * cell, cell, cell);
        }
    }
}
