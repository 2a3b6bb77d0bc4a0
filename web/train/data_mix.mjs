// The generated corpus's mixes of line kinds the Train panel offers: the
// corpus's own shares (js/corpus.mjs LINE_KINDS) or the induction run's
// copy-heavy mix, both as js/train_recipes.mjs has them, and the share of
// each kind in percent for the help line.
import { LINE_KINDS } from '../../js/corpus.mjs';
import { TRAIN_RECIPES } from '../../js/train_recipes.mjs';

/** name -> mix ({kind: weight}, or null for the corpus's own shares), in the order offered. */
export const STREAM_MIXES = Object.freeze({
  corpus: TRAIN_RECIPES.default.data.mix,
  copy: TRAIN_RECIPES.induction.data.mix,
});

/** The name of `mix` in STREAM_MIXES (equal weights), or null. */
export function mixName(mix) {
  const key = (m) => JSON.stringify(m === null ? null : LINE_KINDS.map((k) => m[k.kind] ?? 0));
  return Object.keys(STREAM_MIXES).find((name) => key(STREAM_MIXES[name]) === key(mix ?? null)) ?? null;
}

/** {kind: percent of the lines} of a mix (null: the corpus's own shares), every kind of LINE_KINDS. */
export function mixPercents(mix) {
  const weights = LINE_KINDS.map((k) => (mix === null ? k.weight : (mix[k.kind] ?? 0)));
  const sum = weights.reduce((a, b) => a + b, 0);
  return Object.fromEntries(LINE_KINDS.map((k, i) => [k.kind, (100 * weights[i]) / sum]));
}
