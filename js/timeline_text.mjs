// The moments of a training timeline and the sentences that tell them:
// where a head crossed the score that gives it a role
// (js/head_formation_events.mjs, js/head_roles.mjs ROLE_THRESHOLDS), which
// earlier head its keys come from at that moment (the entry's composition,
// js/timeline.mjs) and what the ICL score did over the stretch that led
// there. Sentences are {key, params} parts worded by the page's catalogue
// (web/messages/timeline_terms.mjs; nested {key, params} by
// js/why_text.mjs wordParams), and claim only what the entry's numbers show:
//   "mostly"   only when the top source holds more than half the head's gap;
//   a source's role is named only when that head holds it at that entry (roleOf);
//   the keys' source is told for induction heads only (the composition is measured on the
//   induction probe); composition null: the gap is still below the timeline's threshold;
//   the stretch runs from the last entry before the moment whose score was
//   below half the threshold (the first entry when none was) to the moment;
//   the ICL score "fell" or "rose" only by ICL_CHANGE nats or more.
// Entries: js/timeline.mjs timelineEntry objects, in step order. Pure: tested in Node.
import { formationEvents } from './head_formation_events.mjs';
import { ROLE_THRESHOLDS, roleOf } from './head_roles.mjs';
import { headName, scoreMatrices } from './timeline.mjs';

/** Below this change (nats) the ICL score "barely changed". */
export const ICL_CHANGE = 0.05;
/** A source "mostly" writes a head's keys above this share of its gap. */
const MOSTLY = 0.5;

/** Token counts compactly: 950, 1.5k, 350k, 1.2M, 13.7M. */
export function compactTokens(n) {
  const short = (x) => (x < 10 ? String(Math.round(x * 10) / 10) : String(Math.round(x)));
  if (n < 1000) return String(Math.round(n));
  if (n < 999500) return `${short(n / 1000)}k`;
  return `${short(n / 1e6)}M`;
}

/** The earlier head whose share of `shares` ({L0H0: share, ...}) is largest: {source, share}, or null. */
export function topSource(shares) {
  let best = null;
  for (const [source, share] of Object.entries(shares ?? {}))
    if (Number.isFinite(share) && (best === null || share > best.share)) best = { source, share };
  return best;
}

/**
 * Every moment a head crossed its role's threshold, in the order they
 * happened: {kind, role, head: 'L2H2', layer, index (of the entry), step,
 * tokens, value, from: index where the stretch starts, composition:
 * {source, share, role | null} | 'small' (the gap below the threshold) |
 * null (a head of block 0: nothing earlier writes its keys), gap, icl:
 * {from, to, change} | null (the moment is the first entry)}.
 */
export function timelineMoments(entries) {
  const events = formationEvents(entries.map((e) => ({ step: e.step, scores: scoreMatrices(e.heads) })));
  return events.map((event) => {
    const index = entries.findIndex((e) => e.step === event.step);
    const entry = entries[index];
    const name = headName(event.layer, event.head);
    const half = ROLE_THRESHOLDS[event.kind] / 2;
    let from = 0;
    for (let k = index - 1; k >= 0; k -= 1)
      if (entries[k].heads[name][event.kind] < half) {
        from = k;
        break;
      }
    // Where the keys come from is the induction story (K-composition on the induction probe):
    // told for an induction head only.
    const shares = event.kind === 'induction' ? entry.composition?.[name] : undefined;
    let composition = null;
    if (shares === null) composition = 'small';
    else if (shares) {
      const top = topSource(shares);
      if (top) {
        const role = roleOf(entry.heads[top.source]);
        composition = { ...top, role: role === 'mixed' ? null : role };
      }
    }
    const icl = index > 0 ? { from: entries[from].icl, to: entry.icl, change: entry.icl - entries[from].icl } : null;
    return {
      kind: event.kind,
      role: event.role,
      head: name,
      layer: event.layer,
      index,
      step: event.step,
      tokens: entry.tokens,
      value: event.value,
      from,
      fromTokens: entries[from].tokens,
      composition,
      gap: entry.gaps?.[name] ?? null,
      icl,
    };
  });
}

const percent = (x) => Math.round(x * 100);

/**
 * The sentence of a moment (timelineMoments) as parts [{key, params}], said
 * in order and joined by the catalogue's separator. minGap: the timeline's
 * composition threshold (its file's compositionMinGap).
 */
export function momentSentence(moment, { minGap }) {
  const parts = [
    {
      key: 'timeline.formed',
      params: {
        tokens: compactTokens(moment.tokens),
        head: moment.head,
        role: { key: `timeline.become.${moment.role}`, params: {} },
        value: moment.value.toFixed(2),
      },
    },
  ];
  const c = moment.composition;
  if (c === 'small') parts.push({ key: 'timeline.gapSmall', params: { gap: (moment.gap ?? 0).toFixed(2), min: minGap } });
  else if (c) {
    const mostly = c.share > MOSTLY;
    const params = { source: c.source, share: percent(c.share) };
    if (c.role)
      parts.push({
        key: mostly ? 'timeline.keysMostlyRole' : 'timeline.keysLargestRole',
        params: { ...params, role: { key: `qk.role.${c.role}`, params: {} } },
      });
    else parts.push({ key: mostly ? 'timeline.keysMostly' : 'timeline.keysLargest', params });
  }
  if (!moment.icl) parts.push({ key: 'timeline.iclFirst', params: {} });
  else {
    const { change } = moment.icl;
    const params = { change: Math.abs(change).toFixed(2), from: compactTokens(moment.fromTokens), to: compactTokens(moment.tokens) };
    const key = Math.abs(change) < ICL_CHANGE ? 'timeline.iclFlat' : change < 0 ? 'timeline.iclFell' : 'timeline.iclRose';
    parts.push({ key, params });
  }
  return parts;
}
