// The note under one head's attention matrix, composed from what is on
// screen: the tokens, that head's softmax weights, the selected row, the
// switches, and the head's measured role when the model has one (heads.json
// of the trained model, or the roles a model trained in the page measured).
// Never a fixed sentence about another text:
//
//   pronoun head, 他/她 in the text   each pronoun's row and where it looks:
//                                    “他” (row 11) → 小明 0.99 (小 0.01 + 明 0.98)
//   any other head or text           the head's measured role, then the
//                                    selected row's largest weights
//   no measured roles                only the row's largest weights
//   causal mask or ÷√d switched off  no role claim: the model was trained and
//                                    measured with both on
//
// A name of the training world spread over several tokens (小|明) counts as
// one target: its tokens' weights are summed, and the note gives each token's
// weight beside the sum, so every number can be found in the matrix.
// `t(key, params)` is the caller's catalogue (web/messages/demo_terms.mjs's keys).
import { HABITS } from './corpus.mjs';

const PRONOUNS = Object.freeze(['他', '她']);

// Weights are shown with 2 decimals, as in the matrix's cells.
const fixed = (w) => w.toFixed(2);

/**
 * The matrix title's marks for a switch that is off and changes the stage
 * shown ("softmax · mask off"): [] with both on. √d divides from ÷ √d on; the
 * causal mask hides keys from + mask on.
 */
export function switchMarks(t, { stage, causal = true, scale = true }) {
  const marks = [];
  if (!scale && stage !== 'scores_raw') marks.push(t('view.scaleOff'));
  if (!causal && (stage === 'scores_masked' || stage === 'attn_weights')) marks.push(t('view.maskOff'));
  return marks;
}

/** heads' entry of (layer, head), or null (heads: heads.json's shape, {heads: [{layer, head, role, ...scores}]}). */
function measuredEntry(heads, layer, head) {
  return heads?.heads?.find((h) => h.layer === layer && h.head === head) ?? null;
}

/** True when the measured role of (layer, head) is 'pronoun', or it is heads.pronounHead. */
function isPronounHead(heads, layer, head) {
  const p = heads?.pronounHead;
  if (p && p.layer === layer && p.head === head) return true;
  return measuredEntry(heads, layer, head)?.role === 'pronoun';
}

/**
 * Where consecutive tokens spell a name of the training world exactly:
 * [{name, positions: [i, i + 1, ...]}], left to right, not overlapping.
 */
export function nameSpans(tokens, names = Object.keys(HABITS)) {
  const spans = [];
  for (let i = 0; i < tokens.length; i += 1) {
    for (const name of names) {
      let spelled = '';
      let k = i;
      while (k < tokens.length && spelled.length < name.length && name.startsWith(spelled + tokens[k])) spelled += tokens[k++];
      if (spelled === name && k > i) {
        spans.push({ name, positions: Array.from({ length: k - i }, (_, n) => i + n) });
        i = k - 1;
        break;
      }
    }
  }
  return spans;
}

/** Row `row` of a [T, T] weight matrix, as [{token, index, weight}], largest first, zeros left out. */
export function largestWeights(tokens, weights, row, count = 3) {
  const T = tokens.length;
  const terms = [];
  for (let j = 0; j < T; j += 1) {
    const weight = weights[row * T + j];
    if (weight > 0) terms.push({ token: tokens[j], index: j, weight });
  }
  return terms.sort((a, b) => b.weight - a.weight).slice(0, count);
}

/**
 * Where the pronoun at `row` puts most of its attention: a name of the
 * world (its tokens' weights summed) or a single token. {text, name (or
 * null), weight, parts: [{token, weight}] (a name's tokens, when several)}.
 */
export function pronounTarget(tokens, weights, row, spans = nameSpans(tokens)) {
  const T = tokens.length;
  // NaN: a weight cached decoding never computed (an older row, a newer key).
  const w = (j) => weights[row * T + j] || 0;
  const inName = new Set(spans.flatMap((s) => s.positions));
  const targets = spans.map((s) => ({
    text: s.name,
    name: s.name,
    weight: s.positions.reduce((sum, j) => sum + w(j), 0),
    parts: s.positions.length > 1 ? s.positions.map((j) => ({ token: tokens[j], weight: w(j) })) : [],
  }));
  for (let j = 0; j < T; j += 1) if (!inName.has(j)) targets.push({ text: tokens[j], name: null, weight: w(j), parts: [] });
  return targets.reduce((best, x) => (x.weight > best.weight ? x : best));
}

/** The rows of 他/她 tokens, in order. */
function pronounRows(tokens) {
  const rows = [];
  tokens.forEach((token, i) => PRONOUNS.includes(token) && rows.push(i));
  return rows;
}

/** What (layer, head) does, measured: one sentence (t's 'note.role'), or '' without a measured entry. */
export function roleSentence(t, heads, layer, head) {
  const entry = measuredEntry(heads, layer, head);
  if (!entry) return '';
  const scores = ['pronoun', 'previousToken', 'induction', 'sink']
    .filter((key) => Number.isFinite(entry[key]))
    .map((key) => t('note.score', { name: t(`score.${key}`), value: fixed(entry[key]) }))
    .join(t('note.listSeparator'));
  const role = isPronounHead(heads, layer, head) ? 'pronoun' : entry.role;
  return t('note.role', { layer, head, does: t(`note.does.${role}`), scores });
}

/**
 * The note: {text, row} — row is the matrix row the note reads (the
 * selected one, or the one it names). tokens: [T] as shown; weights: the
 * head's softmax weights [T, T] (row-major); row: the selected row or null;
 * heads: the measured roles or null; causal, scale: the switches.
 */
export function composeHeadNote(t, { tokens, weights, row, layer, head, heads, causal = true, scale = true, stage = 'attn_weights' }) {
  const T = tokens.length;
  if (T === 0) return { text: '', row: null };
  const sentences = [];
  // The weights below are the softmax's; at an earlier stage the matrix shows scores, so say where they are.
  if (stage !== 'attn_weights') sentences.push(t('note.softmaxStage'));
  const entry = measuredEntry(heads, layer, head);
  const off = [!causal && t('note.maskOff'), !scale && t('note.scaleOff')].filter(Boolean);
  if (entry && off.length) {
    const role = isPronounHead(heads, layer, head) ? 'pronoun' : entry.role;
    sentences.push(t('note.switchesOff', { switches: off.join(t('note.listSeparator')), role: t(`role.${role}`) }));
  } else if (entry) {
    sentences.push(roleSentence(t, heads, layer, head));
  }
  // The scores of the role sentence are explained in one line under the note.
  const legend = entry && !off.length ? t('note.scoresLegend') : '';

  const pronouns = pronounRows(tokens);
  if (entry && !off.length && isPronounHead(heads, layer, head) && pronouns.length) {
    const spans = nameSpans(tokens);
    const resolved = pronouns.map((r) => ({ row: r, pronoun: tokens[r], target: pronounTarget(tokens, weights, r, spans) }));
    const list = resolved.map(({ row: r, pronoun, target }) =>
      t('note.pronounRow', {
        pronoun,
        row: r,
        target: target.text,
        weight: fixed(target.weight),
        parts: target.parts.length ? t('note.parts', { parts: target.parts.map((p) => `${p.token} ${fixed(p.weight)}`).join(' + ') }) : '',
      }),
    );
    sentences.push(t('note.pronouns', { list: list.join(t('note.listSeparator')) }));
    // The row the note is about: the selected one if it is a pronoun's, else the last pronoun's.
    const shown = resolved.find((r) => r.row === row) ?? resolved.at(-1);
    const name = shown.target.name;
    if (name) sentences.push(habitSentence(t, tokens, shown.row, shown.pronoun, name));
    return { text: sentences.join(t('note.sentenceSeparator')), row: shown.row, legend };
  }
  // A measured role is about held-out sentences: say what the head does on this one too.
  if (entry && !off.length && stage === 'attn_weights') {
    const onText = onTextSentence(t, tokens, weights, isPronounHead(heads, layer, head) ? 'pronoun' : entry.role);
    if (onText) sentences.push(onText);
  }

  // Any other head or text: what the selected row (or the last one, named) shows.
  const r = row !== null && row !== undefined && row < T ? row : T - 1;
  const list = largestWeights(tokens, weights, r)
    .map((term) => `${term.token} ${fixed(term.weight)}`)
    .join(t('note.listSeparator'));
  sentences.push(t('note.row', { row: r, query: tokens[r], list }));
  return { text: sentences.join(t('note.sentenceSeparator')), row: r, legend };
}

/**
 * What the head does on this text, averaged over rows 1..T-1 of its softmax
 * weights [T, T]: the weight on the first token, on the previous token, and,
 * where a token repeats, on the token after its earlier copy (what an
 * induction head attends to). For an induction head on a text where nothing
 * repeats, or a pronoun head on one without 他/她, it says there is nothing
 * here for its role to do. '' for a one-token text.
 */
export function onTextSentence(t, tokens, weights, role) {
  const T = tokens.length;
  if (T < 2) return '';
  const mean = (values) => {
    const finite = values.filter(Number.isFinite);
    return finite.length ? finite.reduce((a, b) => a + b, 0) / finite.length : 0;
  };
  const rows = Array.from({ length: T - 1 }, (_, k) => k + 1);
  const first = mean(rows.map((i) => weights[i * T]));
  // Row 1's previous token is the first token: it counts there only.
  const previous = mean((T > 2 ? rows.slice(1) : rows).map((i) => weights[i * T + i - 1]));
  // Induction keys: for row i, the positions j + 1 after an earlier copy j < i - 1 of token i.
  const inductions = rows
    .map((i) => {
      const keys = [];
      for (let j = 0; j < i - 1; j += 1) if (tokens[j] === tokens[i]) keys.push(j + 1);
      return keys.length ? keys.reduce((sum, j) => sum + (weights[i * T + j] || 0), 0) : null;
    })
    .filter((w) => w !== null);
  const params = { first: fixed(first), previous: fixed(previous) };
  const repeats = inductions.length
    ? t('note.onTextRepeats', { count: inductions.length, induction: fixed(mean(inductions)) })
    : t('note.onTextNoRepeats');
  const idle =
    role === 'induction' && !inductions.length
      ? t('note.idleInduction')
      : role === 'pronoun' && !pronounRows(tokens).length
        ? t('note.idlePronoun')
        : '';
  return t('note.onText', { ...params, repeats, idle });
}

// What the world taught the model to write after the pronoun resolved to
// `name`, and whether the text shows it (the token after the pronoun starts the habit).
function habitSentence(t, tokens, row, pronoun, name) {
  const habit = HABITS[name];
  const next = tokens[row + 1];
  const params = { name, habit, pronoun, first: habit[0] };
  return next !== undefined && next !== '' && habit.startsWith(next) ? t('note.habitShown', { ...params, next }) : t('note.habit', params);
}
