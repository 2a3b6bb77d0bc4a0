// The exercises about the pronoun (lesson 2.5's 她 and the heads that learned
// it): a head of block 0 that resolves it, a sentence where that head looks at
// another name, a head whose switching off changes the prediction after it,
// and the block after which the logit lens first puts the referent's habit on
// top. Everything is read from the screen's text with the model's tokenizer:
// a model without one, or a text without a pronoun story, has no answer.
import { argmax } from '../argmax.mjs';
import { nextToken } from '../pronoun_pair.mjs';
import { encodeSpan } from '../text_encoding.mjs';
import { LESSON_PROBE } from '../train_session.mjs';
import { FEMALE_HABITS } from '../corpus.mjs';
import { defaultRow, flipPronoun, namesIn, residualName, rowStory } from '../why_text.mjs';
import { hasText, shownRow, stageRow, stageRows, switchesOf, textScreen } from './screen.mjs';

/** A head resolves the pronoun when its row of the pronoun puts at least this share on the referent's tokens. */
export const PRONOUN_SHARE = 0.5;
const fixed = (value, digits = 2) => value.toFixed(digits);

/**
 * The pronoun on screen: the selected row when it is a pronoun with a story
 * (js/why_text.mjs rowStory: two names of both genders before it), else the
 * text's last such pronoun. {row, story, referent: {start, end} token span of
 * the referent's nearest mention, answerId: the first token of the referent's
 * habit after the pronoun (唱 of 唱起了歌), answerLabel} or {none: {kind, params}}.
 */
function pronounContext(screen) {
  if (!screen.tokenizer) return { none: { kind: 'noTokenizer', params: {} } };
  if (!hasText(screen)) return { none: { kind: 'noText', params: {} } };
  const { text, labels, tokenizer } = screen;
  let story = rowStory(text, labels, shownRow(screen));
  if (!story) story = rowStory(text, labels, defaultRow(text, labels));
  if (!story) return { none: { kind: 'noStory', params: {} } };
  const c0 = text.lastIndexOf(story.referent, story.at);
  const span = encodeSpan(tokenizer, text, c0, c0 + story.referent.length);
  if (!span || span.end <= span.start) return { none: { kind: 'noStory', params: {} } };
  let answerId;
  try {
    answerId = nextToken(tokenizer, story.prefix, story.answer);
  } catch {
    answerId = tokenizer.encode(story.answer)[0];
  }
  const shown = tokenizer.display([answerId])[0];
  const answerLabel = shown.partial ? [...story.answer][0] : shown.text;
  return { row: story.row, story, referent: { start: span.start, end: span.end }, answerId, answerLabel };
}

/** Each head of `layer`'s share of the pronoun row's attention on the referent: [H]. */
function referentShares(model, screen, ctx, layer = 0) {
  return stageRows(model, screen, { layer, row: ctx.row }).map((weights) =>
    weights.slice(ctx.referent.start, ctx.referent.end).reduce((sum, w) => sum + w, 0),
  );
}

const storyParams = (ctx) => ({ pronoun: ctx.story.pronoun, referent: ctx.story.referent, row: ctx.row });

// ---------------------------------------------------------------- a head that resolves the pronoun

function resolvingHeads(model, screen, ctx) {
  return referentShares(model, screen, ctx)
    .map((share, head) => ({ layer: 0, head, share }))
    .filter((h) => h.share >= PRONOUN_SHARE);
}

export const pronounHead = {
  name: 'pronoun-head',
  chapter: 'heads',
  available(model, screen) {
    const ctx = pronounContext(screen);
    if (ctx.none) return ctx.none;
    if (resolvingHeads(model, screen, ctx).length === 0)
      return { kind: 'noPronounHead', params: { ...storyParams(ctx), share: PRONOUN_SHARE } };
    return null;
  },
  question(model, screen) {
    const ctx = pronounContext(screen);
    return { key: 'exercise.q.pronounHead', params: { ...storyParams(ctx), share: PRONOUN_SHARE } };
  },
  answers(model, screen) {
    return resolvingHeads(model, screen, pronounContext(screen)).map(({ layer, head }) => ({ layer, head }));
  },
  /** answer: {layer, head}; the head on screen when none is given (the learner clicks one). */
  check(model, screen, answer = null) {
    const { layer, head } = answer ?? { layer: screen.layer, head: screen.head };
    const ctx = pronounContext(screen);
    if (layer !== 0) return { solved: false, hint: { key: 'exercise.hint.pronounHeadBlock', params: { layer } } };
    const shares = referentShares(model, screen, ctx);
    if (!(head >= 0 && head < shares.length)) return { solved: false, hint: { key: 'exercise.hint.pronounHeadBlock', params: { layer } } };
    if (shares[head] >= PRONOUN_SHARE) return { solved: true };
    return {
      solved: false,
      hint: { key: 'exercise.hint.pronounHead', params: { ...storyParams(ctx), layer, head, share: fixed(shares[head]) } },
    };
  },
};

// ---------------------------------------------------------------- the pronoun head on another name

/**
 * The model's pronoun head: the head of block 0 that puts the largest share
 * of 她 on 小红 in the lesson's sentence (js/train_session.mjs LESSON_PROBE),
 * if that share is at least PRONOUN_SHARE: {layer, head, referent}, or null.
 */
function lessonPronounHead(model, tokenizer) {
  const lesson = textScreen(tokenizer, LESSON_PROBE);
  const ctx = pronounContext(lesson);
  if (ctx.none) return null;
  const shares = referentShares(model, lesson, ctx);
  const head = argmax(shares);
  return shares[head] >= PRONOUN_SHARE ? { layer: 0, head, referent: ctx.story.referent } : null;
}

/** Which name of the text the pronoun head's top key at the pronoun's row is in: {key, name | null}. */
function lookedAt(model, screen, ctx, { layer, head }) {
  const weights = stageRow(model, screen, { layer, head, row: ctx.row, over: { causalMask: true } });
  let key = 0;
  for (let j = 1; j <= ctx.row; j += 1) if (weights[j] > weights[key]) key = j;
  const { text, tokenizer } = screen;
  for (const { name, at } of namesIn(text.slice(0, ctx.story.at))) {
    const span = encodeSpan(tokenizer, text, at, at + name.length);
    if (span && key >= span.start && key < span.end) return { key, name, weight: weights[key] };
  }
  return { key, name: null, weight: weights[key] };
}

export const otherName = {
  name: 'other-name',
  chapter: 'heads',
  available(model, screen) {
    if (!screen.tokenizer) return { kind: 'noTokenizer', params: {} };
    if (!lessonPronounHead(model, screen.tokenizer)) return { kind: 'noLessonHead', params: { share: PRONOUN_SHARE } };
    return null;
  },
  question(model, screen) {
    const { layer, head, referent } = lessonPronounHead(model, screen.tokenizer);
    return { key: 'exercise.q.otherName', params: { layer, head, referent } };
  },
  /** Sentences that answer it: the lesson's with its pronoun or its names changed, those the head reads as asked. */
  answers(model, screen) {
    const { referent } = lessonPronounHead(model, screen.tokenizer);
    const others = Object.keys(FEMALE_HABITS).filter((name) => name !== referent);
    const swaps = [flipPronoun(LESSON_PROBE), ...others.slice(0, 3).map((name) => LESSON_PROBE.replace(referent, name))];
    return swaps.filter((text) => otherName.check(model, { ...screen, text }, text).solved);
  },
  /** answer: a text; the screen's own when none is given (the learner types it into the page). */
  check(model, screen, answer = null) {
    const text = typeof answer === 'string' ? answer : screen.text;
    const typed = textScreen(screen.tokenizer, text, { causal: screen.causal, scale: screen.scale, ablate: screen.ablate });
    const ctx = pronounContext(typed);
    if (ctx.none) return { solved: false, hint: { key: 'exercise.hint.otherNameStory', params: {} } };
    const pronounHeadOf = lessonPronounHead(model, screen.tokenizer);
    const seen = lookedAt(model, typed, ctx, pronounHeadOf);
    if (seen.name && seen.name !== pronounHeadOf.referent) return { solved: true };
    const params = { pronoun: ctx.story.pronoun, token: typed.labels[seen.key], name: seen.name ?? '', referent: pronounHeadOf.referent };
    return { solved: false, hint: { key: seen.name ? 'exercise.hint.otherNameSame' : 'exercise.hint.otherNameNoName', params } };
  },
};

// ---------------------------------------------------------------- switching a head off

/** The most likely next token after the pronoun, with `ablate` switched off (the screen's ÷√d; the mask on). */
function topAfter(model, screen, ctx, ablate) {
  const ids = screen.ids.slice(0, ctx.row + 1);
  const over = { causalMask: true, ...(ablate.length ? { ablate } : {}) };
  const { ablate: _shown, ...switches } = switchesOf(screen);
  const { logits } = model.forward(ids, { ...switches, ...over });
  const V = logits.shape[2];
  return argmax(logits.data, ctx.row * V, (ctx.row + 1) * V);
}

function headsWhoseOffChanges(model, screen, ctx) {
  const { num_hidden_layers: L, num_attention_heads: H } = model.info();
  const found = [];
  for (let layer = 0; layer < L; layer += 1)
    for (let head = 0; head < H; head += 1) if (topAfter(model, screen, ctx, [[layer, head]]) !== ctx.answerId) found.push([layer, head]);
  return found;
}

export const switchOff = {
  name: 'switch-off',
  chapter: 'switch-off',
  available(model, screen) {
    const ctx = pronounContext(screen);
    if (ctx.none) return ctx.none;
    const params = { ...storyParams(ctx), token: ctx.answerLabel };
    if (topAfter(model, screen, ctx, []) !== ctx.answerId) return { kind: 'notTop', params };
    if (headsWhoseOffChanges(model, screen, ctx).length === 0) return { kind: 'noSingleHead', params };
    return null;
  },
  question(model, screen) {
    const ctx = pronounContext(screen);
    return { key: 'exercise.q.switchOff', params: { ...storyParams(ctx), token: ctx.answerLabel } };
  },
  answers: (model, screen) => headsWhoseOffChanges(model, screen, pronounContext(screen)).map(([layer, head]) => [[layer, head]]),
  /** answer: the heads switched off, [[layer, head]]; the screen's when none is given (the learner switches them). */
  check(model, screen, answer = null) {
    const ablate = answer ?? screen.ablate ?? [];
    const ctx = pronounContext(screen);
    if (ablate.length === 0) return { solved: false, hint: { key: 'exercise.hint.switchOffNone', params: {} } };
    if (ablate.length > 1) return { solved: false, hint: { key: 'exercise.hint.switchOffOne', params: { count: ablate.length } } };
    if (topAfter(model, screen, ctx, ablate) !== ctx.answerId) return { solved: true };
    const [[layer, head]] = ablate;
    return {
      solved: false,
      hint: { key: 'exercise.hint.switchOffStill', params: { layer, head, token: ctx.answerLabel, pronoun: ctx.story.pronoun } },
    };
  },
};

// ---------------------------------------------------------------- the logit lens

/** The lens rows (0 the embeddings, l after block l - 1) at the pronoun, and the first that has the habit on top. */
function lensFirst(model, screen, ctx) {
  const ids = screen.ids.slice(0, ctx.row + 1);
  const { ablate, ...switches } = switchesOf(screen, { causalMask: true });
  const { lens, token } = model.lens(ids, { top: 1, token: ctx.answerId, ...switches, ...(ablate ? { ablate } : {}) });
  const tops = lens.map((layer) => layer[ctx.row][0]);
  return { tops, p: token.p.map((layer) => layer[ctx.row]), first: tops.findIndex((top) => top.id === ctx.answerId) };
}

export const lensBlock = {
  name: 'lens-block',
  chapter: 'why',
  available(model, screen) {
    const ctx = pronounContext(screen);
    if (ctx.none) return ctx.none;
    if (lensFirst(model, screen, ctx).first < 0) return { kind: 'lensNever', params: { ...storyParams(ctx), token: ctx.answerLabel } };
    return null;
  },
  question(model, screen) {
    const ctx = pronounContext(screen);
    return { key: 'exercise.q.lensBlock', params: { ...storyParams(ctx), token: ctx.answerLabel } };
  },
  /** Lens rows: 0 the embeddings, l after block l - 1 (js/why_text.mjs residualName names them). */
  answers: (model, screen) => [lensFirst(model, screen, pronounContext(screen)).first],
  check(model, screen, answer) {
    const ctx = pronounContext(screen);
    const { tops, p, first } = lensFirst(model, screen, ctx);
    const l = typeof answer === 'string' && answer !== '' ? Number(answer) : answer;
    if (!(Number.isInteger(l) && l >= 0 && l < tops.length)) return { solved: false, hint: { key: 'exercise.hint.aBlock', params: {} } };
    if (l === first) return { solved: true };
    const params = { at: residualName(l), token: ctx.answerLabel, p: fixed(p[l]) };
    return { solved: false, hint: { key: l < first ? 'exercise.hint.lensEarly' : 'exercise.hint.lensLate', params } };
  },
};
