// What each attention head of a model does, measured on probes the project
// generates fresh (js/corpus.mjs), not asserted:
//   previousToken  mean attention from position i to i - 1 (natural text)
//   previousTokenRandom  the same on the induction probe's random sequences
//   induction      on a random token sequence said twice, mean attention from
//                  the second occurrence of a token to the token after its
//                  first occurrence (Olsson et al. 2022)
//   pronoun        mean attention mass from 他/她 onto its referent's tokens,
//                  on held-out sentences whose referent only gender decides
//   entropy        mean entropy (nats) of the attention rows
//   sink           mean attention on the first token (the bos)
// and, causally, how often the model predicts the referent's own habit after
// the pronoun with the best pronoun head on and switched off (ablated).
import { argmax } from './argmax.mjs';
import { HABITS, heldOutPronounProbes, lessonProbes, makeCorpusLines, repeatedTokenProbes } from './corpus.mjs';
import { encodeSpan, withBos } from './text_encoding.mjs';
import { argumentError } from './minimind_error.mjs';

/** A pronoun probe as token positions of encodeText(probe.prefix) (js/text_encoding.mjs): {ids, pronoun, referent: [positions], next} (bos at 0). */
export function pronounProbeTokens(tokenizer, probe) {
  const c0 = probe.prefix.indexOf(probe.referent);
  // Names keep their own tokens in the generated sentences; a tokenizer that
  // merges one into its neighbours cannot score the pronoun on it.
  const span = encodeSpan(tokenizer, probe.prefix, c0, c0 + probe.referent.length);
  if (!span)
    throw argumentError(
      Error,
      'probe.referent_tokens',
      { referent: probe.referent, prefix: probe.prefix },
      `"${probe.referent}" does not keep its own tokens in "${probe.prefix}"`,
    );
  const full = tokenizer.encode(probe.text);
  const keys = [];
  for (let k = span.start; k < span.end; k += 1) keys.push(k);
  // The token after the pronoun in the whole sentence (the habit's first, or 很).
  const next = full[span.ids.length - 1];
  return { ids: span.ids, pronoun: span.ids.length - 1, referent: keys, next };
}

// Fraction of probes whose greedy next token after the pronoun is the sentence's own.
function referentAccuracy(model, probes, ablate) {
  let right = 0;
  for (const p of probes) {
    const { logits } = model.forward(p.ids, ablate ? { ablate } : {});
    const V = logits.shape[2];
    right += argmax(logits.data, p.pronoun * V, (p.pronoun + 1) * V) === p.next ? 1 : 0;
  }
  return right / probes.length;
}

/**
 * The induction probes of measureHeads(): `count` sequences of `length`
 * random tokens from the corpus's own vocabulary (the ids of its first 400
 * lines at `seed`), said twice after the bos. Each is {ids, lead, cells}:
 * lead the bos's length, cells [{query, key}] the length - 1 induction cells,
 * the second occurrence of half[j] (lead + length + j) and the token after
 * its first occurrence (lead + j + 1).
 */
export function inductionProbes(tokenizer, { seed = 7, length = 20, count = 40 } = {}) {
  const pool = [...new Set(makeCorpusLines(400, seed).flatMap((line) => tokenizer.encode(line)))].filter((id) => id > 2);
  return repeatedTokenProbes(count, seed, { length, pool }).map((probe) => {
    const ids = withBos(tokenizer, probe.ids);
    const n = probe.length;
    const lead = ids.length - probe.ids.length;
    const cells = [];
    for (let j = 0; j + 1 < n; j += 1) cells.push({ query: lead + n + j, key: lead + 1 + j });
    return { ids, lead, cells };
  });
}

/** The score at which a head takes each role (roleOf), by score name. */
export const ROLE_THRESHOLDS = Object.freeze({ pronoun: 0.5, induction: 0.4, previousToken: 0.6, sink: 0.6 });

/** A head's role from its scores (a score left out, as the light probes leave the sink out, never decides). */
export function roleOf(s) {
  if (s.pronoun >= ROLE_THRESHOLDS.pronoun) return 'pronoun';
  if (s.induction >= ROLE_THRESHOLDS.induction) return 'induction';
  if (s.previousToken >= ROLE_THRESHOLDS.previousToken) return 'previous-token';
  if (s.sink >= ROLE_THRESHOLDS.sink) return 'sink';
  return 'mixed';
}

/**
 * Scores every head of `model` (MiniMind's tokenizer needed for the
 * sentences). Returns {heads: [{layer, head, previousToken, previousTokenRandom, induction,
 * pronoun, entropy, sink, role}], pronounHead: {layer, head}, lesson:
 * [{text, referent, mass}] for that head, previousTokenSplit: {layer, head,
 * afterNameStart: {mass, queries}, elsewhere: {mass, queries}} (the best
 * previous-token head's score where the previous token starts a name and
 * elsewhere), referentAccuracy: {on, off, pronounHeads, allOff}}: the
 * accuracy with every head on, with the pronoun head off, and with every
 * head whose role is 'pronoun' off (pronounHeads: [[layer, head], ...]),
 * since a role several heads share survives switching one of them off.
 */
export function measureHeads(model, tokenizer, { count = 500, seed = 7, inductionLength = 20 } = {}) {
  const info = model.info();
  const L = info.num_hidden_layers;
  const H = info.num_attention_heads;
  const heldOut = heldOutPronounProbes(count, seed).map((p) => pronounProbeTokens(tokenizer, p));
  const lesson = lessonProbes().map((p) => ({ ...p, tokens: pronounProbeTokens(tokenizer, p) }));
  const texts = heldOut.slice(0, 100).map((p) => p.ids);

  const previous = [];
  const sink = [];
  // The previous-token probes again, split by whether the previous token is
  // the first of a name's tokens (小 of 小红 = 小|红), to show where a head
  // that follows content rather than position looks past it.
  const nameStarts = new Set(
    Object.keys(HABITS)
      .map((name) => tokenizer.encode(name))
      .filter((t) => t.length > 1)
      .map((t) => t[0]),
  );
  const previousSplit = { afterNameStart: [], elsewhere: [] };
  for (const ids of texts) {
    for (let i = 1; i < ids.length; i += 1) {
      const probe = { ids, query: i, keys: [i - 1] };
      previous.push(probe);
      previousSplit[nameStarts.has(ids[i - 1]) ? 'afterNameStart' : 'elsewhere'].push(probe);
      sink.push({ ids, query: i, keys: [0] });
    }
  }
  const induction = [];
  // The previous-token score on these random sequences too, as induction-head
  // studies often measure it: a previous-token head of natural text may also
  // look elsewhere there, where the sentence tells it to.
  const previousRandom = [];
  for (const { ids, lead, cells } of inductionProbes(tokenizer, { seed, length: inductionLength })) {
    for (const { query, key } of cells) induction.push({ ids, query, keys: [key] });
    for (let i = lead + 1; i < ids.length; i += 1) previousRandom.push({ ids, query: i, keys: [i - 1] });
  }
  const pronoun = heldOut.map((p) => ({ ids: p.ids, query: p.pronoun, keys: p.referent }));

  const scores = {
    previousToken: model.attentionMass(previous),
    previousTokenRandom: model.attentionMass(previousRandom),
    induction: model.attentionMass(induction),
    pronoun: model.attentionMass(pronoun),
    sink: model.attentionMass(sink),
    entropy: model.attentionEntropy(texts),
  };
  const heads = [];
  let best = { layer: 0, head: 0, score: -1 };
  for (let layer = 0; layer < L; layer += 1) {
    for (let head = 0; head < H; head += 1) {
      const s = Object.fromEntries(Object.entries(scores).map(([k, m]) => [k, m[layer][head]]));
      const role = roleOf(s);
      heads.push({ layer, head, ...s, role });
      if (s.pronoun > best.score) best = { layer, head, score: s.pronoun };
    }
  }
  const pronounHead = { layer: best.layer, head: best.head };
  const previousHead = heads.reduce((a, b) => (b.previousToken > a.previousToken ? b : a));
  const splitMass = (probes) => ({
    mass: probes.length ? model.attentionMass(probes)[previousHead.layer][previousHead.head] : 0,
    queries: probes.length,
  });
  const previousTokenSplit = {
    layer: previousHead.layer,
    head: previousHead.head,
    afterNameStart: splitMass(previousSplit.afterNameStart),
    elsewhere: splitMass(previousSplit.elsewhere),
  };
  const lessonMass = lesson.map((p) => ({
    text: p.text,
    referent: p.referent,
    mass: model.attentionMass([{ ids: p.tokens.ids, query: p.tokens.pronoun, keys: p.tokens.referent }])[best.layer][best.head],
  }));
  const accuracyProbes = heldOut.filter((p) => p.next !== undefined);
  const pronounHeads = heads.filter((h) => h.role === 'pronoun').map((h) => [h.layer, h.head]);
  if (pronounHeads.length === 0) pronounHeads.push([best.layer, best.head]);
  const off = referentAccuracy(model, accuracyProbes, [[best.layer, best.head]]);
  return {
    heads,
    pronounHead,
    lesson: lessonMass,
    previousTokenSplit,
    referentAccuracy: {
      on: referentAccuracy(model, accuracyProbes, null),
      off,
      pronounHeads,
      allOff: pronounHeads.length === 1 ? off : referentAccuracy(model, accuracyProbes, pronounHeads),
    },
    probes: { seed, heldOut: heldOut.length, induction: induction.length, previousToken: previous.length, texts: texts.length },
  };
}

/**
 * A light set of probes for scoring heads often (every few batches while a
 * model trains): the same three kinds of probe measureHeads() uses, fewer of
 * them. Returns {previousToken, induction, pronoun} lists of {ids, query,
 * keys} for model.attentionMass(): previous-token from `texts` held-out
 * sentences (every position onto the one before), induction from `repeats`
 * random spans of `inductionLength` corpus tokens said twice after the bos,
 * pronoun from `pronouns` held-out sentences (他/她 onto the referent).
 */
export function lightHeadProbes(tokenizer, { pronouns = 24, texts = 8, repeats = 4, inductionLength = 10, seed = 7 } = {}) {
  const heldOut = heldOutPronounProbes(Math.max(pronouns, texts), seed).map((p) => pronounProbeTokens(tokenizer, p));
  const previousToken = [];
  for (const { ids } of heldOut.slice(0, texts))
    for (let i = 1; i < ids.length; i += 1) previousToken.push({ ids, query: i, keys: [i - 1] });
  const pool = [...new Set(makeCorpusLines(200, seed).flatMap((line) => tokenizer.encode(line)))].filter((id) => id > 2);
  const induction = [];
  for (const probe of repeatedTokenProbes(repeats, seed, { length: inductionLength, pool })) {
    const ids = withBos(tokenizer, probe.ids);
    const n = probe.length;
    const lead = ids.length - probe.ids.length;
    for (let j = 0; j + 1 < n; j += 1) induction.push({ ids, query: lead + n + j, keys: [lead + 1 + j] });
  }
  const pronoun = heldOut.slice(0, pronouns).map((p) => ({ ids: p.ids, query: p.pronoun, keys: p.referent }));
  return { previousToken, induction, pronoun };
}

/** {previousToken, induction, pronoun}: each [L][H], the mean attention mass of `probes` (lightHeadProbes()) on `model`. */
export function scoreHeadRoles(model, probes) {
  const scores = {};
  for (const [kind, list] of Object.entries(probes)) scores[kind] = list.length ? model.attentionMass(list) : null;
  return scores;
}

/**
 * The roles scoreHeadRoles() measured, in heads.json's shape, so that a model
 * trained in the page labels its heads as the trained demo's heads.json does:
 * {heads: [{layer, head, previousToken, induction, pronoun, role}],
 * pronounHead: the best pronoun head if its role is 'pronoun' (else null),
 * step}. scores: {previousToken, induction, pronoun} each [L][H] (null when not measured).
 */
export function rolesFromScores(scores, step = null) {
  const kinds = Object.keys(scores ?? {}).filter((kind) => scores[kind]);
  if (kinds.length === 0) return null;
  const L = scores[kinds[0]].length;
  const H = scores[kinds[0]][0].length;
  const heads = [];
  for (let layer = 0; layer < L; layer += 1) {
    for (let head = 0; head < H; head += 1) {
      const s = Object.fromEntries(kinds.map((kind) => [kind, scores[kind][layer][head]]));
      heads.push({ layer, head, ...s, role: roleOf(s) });
    }
  }
  const best = heads.reduce((a, b) => ((b.pronoun ?? -1) > (a.pronoun ?? -1) ? b : a));
  return { heads, pronounHead: best.role === 'pronoun' ? { layer: best.layer, head: best.head } : null, step };
}
