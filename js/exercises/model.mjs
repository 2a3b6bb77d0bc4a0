// The exercises of lesson 11's forward, "why this weight" and the Train
// panel: which query heads share a K/V head under GQA (from the config), which
// earlier component writes most of a selected score's key side (model.qk),
// and how many tokens a run of the shown settings trains on
// (js/train_recipes.mjs; no run is started).
import { sideSums } from '../qk_text.mjs';
import { TRAIN_RECIPES, recipeTokens } from '../train_recipes.mjs';
import { range, shownHead, switchesOf } from './screen.mjs';

const fixed = (value, digits = 2) => value.toFixed(digits);

// ---------------------------------------------------------------- GQA

/** The query heads that read the same K/V head as `head`: MiniMind's repeat_kv gives q head h kv head ⌊h / R⌋, R = H / Hkv. */
function gqaGroup(model, head) {
  const { num_attention_heads: H, num_key_value_heads: Hkv } = model.info();
  const R = H / Hkv;
  const kv = Math.floor(head / R);
  return { H, Hkv, R, kv, group: range(0, H).filter((q) => Math.floor(q / R) === kv) };
}

/** A list of heads the learner ticked, sorted, each once; null when it is not one. */
function headList(answer, H) {
  if (!Array.isArray(answer)) return null;
  const heads = [...new Set(answer.map(Number))].sort((a, b) => a - b);
  return heads.every((h) => Number.isInteger(h) && h >= 0 && h < H) ? heads : null;
}

const sameList = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);

export const forwardGqa = {
  name: 'forward-gqa',
  chapter: 'forward',
  available: () => null,
  question(model, screen) {
    const { head } = shownHead(model, screen);
    const { H, Hkv, R, kv } = gqaGroup(model, head);
    return { key: 'exercise.q.forwardGqa', params: { head, H, Hkv, R, kv } };
  },
  /** Right: the group with head h, or without it (the heads that share h's K and V besides h). */
  answers(model, screen) {
    const { head } = shownHead(model, screen);
    const { group } = gqaGroup(model, head);
    return [group, group.filter((q) => q !== head)];
  },
  /** answer: the query heads ticked, [q]. */
  check(model, screen, answer) {
    const { head } = shownHead(model, screen);
    const { H, Hkv, R, kv } = gqaGroup(model, head);
    const heads = headList(answer, H);
    if (heads && forwardGqa.answers(model, screen).some((right) => sameList(heads, right))) return { solved: true };
    return { solved: false, hint: { key: 'exercise.hint.forwardGqa', params: { head, H, Hkv, R, kv } } };
  },
};

// ---------------------------------------------------------------- why this weight

// Components whose key-side part is within this share of the largest in size are as right as it.
const COMPONENT_TIE = 0.01;

/** The selected cell when it is one of the text's: {query, key}, else null. */
function selectedCell(screen) {
  const T = screen.ids.length;
  const { query, key } = screen.cell ?? {};
  return Number.isInteger(query) && Number.isInteger(key) && query >= 0 && key >= 0 && query < T && key < T ? { query, key } : null;
}

/**
 * model.qk() of the selected cell at the head on screen, and each component's
 * part of its key side: the column sums of the contrast with the row's mean
 * (as the page's "why this weight" sentence reads it), or of the score itself
 * for a masked key. {layer, head, cell, components [C], parts [C], total, contrast}.
 */
function keySide(model, screen) {
  const { layer, head } = shownHead(model, screen);
  const cell = selectedCell(screen);
  const qk = model.qk({ ids: screen.ids, layer, head, ...cell, versus: 'mean', ...switchesOf(screen) });
  const contrast = Boolean(qk.versus) && !qk.masked;
  const table = contrast ? qk.versus.table : qk.table;
  return { layer, head, cell, components: qk.components, parts: sideSums(table).k, total: contrast ? qk.versus.score : qk.score, contrast };
}

function largestParts(parts) {
  const largest = Math.max(...parts.map(Math.abs));
  return range(0, parts.length).filter((c) => Math.abs(parts[c]) >= largest * (1 - COMPONENT_TIE));
}

export const weightSource = {
  name: 'weight-source',
  chapter: 'weight',
  available(model, screen) {
    if (screen.ids.length === 0) return { kind: 'noText', params: {} };
    if (!selectedCell(screen)) return { kind: 'noCell', params: {} };
    if (shownHead(model, screen).layer === 0) return { kind: 'blockZero', params: {} };
    return null;
  },
  question(model, screen) {
    const { layer, head } = shownHead(model, screen);
    const { query, key } = selectedCell(screen);
    const params = { layer, head, query: screen.labels[query], key: screen.labels[key] };
    return { key: 'exercise.q.weightSource', params };
  },
  /** Component names (embed, L{k}H{h}, L{k}ffn) as model.qk() names them. */
  answers(model, screen) {
    const { components, parts } = keySide(model, screen);
    return largestParts(parts).map((c) => components[c]);
  },
  check(model, screen, answer) {
    const { components, parts, total } = keySide(model, screen);
    const c = components.indexOf(answer);
    if (c < 0) return { solved: false, hint: { key: 'exercise.hint.aComponent', params: {} } };
    if (largestParts(parts).includes(c)) return { solved: true };
    return {
      solved: false,
      hint: { key: 'exercise.hint.weightSource', params: { name: answer, value: fixed(parts[c]), total: fixed(total) } },
    };
  },
};

// ---------------------------------------------------------------- the Train panel

/** The Train panel's settings on screen, else its first run's (js/train_recipes.mjs TRAIN_RECIPES.default). */
function trainSettings(screen) {
  const recipe = TRAIN_RECIPES.default;
  const shown = screen.train ?? {};
  return {
    batches: shown.batches ?? recipe.batches,
    batchSize: shown.batchSize ?? recipe.options.batchSize,
    maxSeqLen: shown.maxSeqLen ?? recipe.options.maxSeqLen,
    source: shown.source ?? recipe.data.source,
  };
}

const positiveInteger = (x) => Number.isInteger(x) && x > 0;

export const trainSetting = {
  name: 'train-setting',
  chapter: 'train',
  available(model, screen) {
    const s = trainSettings(screen);
    if (s.source !== 'stream') return { kind: 'fileData', params: {} };
    if (![s.batches, s.batchSize, s.maxSeqLen].every(positiveInteger)) return { kind: 'badSettings', params: {} };
    return null;
  },
  question(model, screen) {
    const { batches, batchSize, maxSeqLen } = trainSettings(screen);
    return { key: 'exercise.q.trainSetting', params: { batches, batchSize, maxSeqLen } };
  },
  answers(model, screen) {
    const { batches, batchSize, maxSeqLen } = trainSettings(screen);
    return [recipeTokens({ batches, options: { batchSize, maxSeqLen } })];
  },
  check(model, screen, answer) {
    const { batches, batchSize, maxSeqLen } = trainSettings(screen);
    const n = Number(String(answer ?? '').replace(/[\s,_]/g, ''));
    if (n === trainSetting.answers(model, screen)[0]) return { solved: true };
    if (!Number.isInteger(n) || n <= 0) return { solved: false, hint: { key: 'exercise.hint.aNumber', params: {} } };
    const key = n === batches * batchSize ? 'exercise.hint.trainRows' : 'exercise.hint.trainSetting';
    return { solved: false, hint: { key, params: { batches, batchSize, maxSeqLen } } };
  },
};
