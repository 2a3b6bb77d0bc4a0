// What a model in training writes: at every snapshot the Train panel has the
// model continue a few prompts greedily (argmax, so a snapshot's text is a
// function of its weights alone) and shows the text, so a learner sees noise
// turn into 唱起了歌 and, once an induction head forms, a repeated span
// copied. Platform-neutral: the training worker runs it on the snapshot's
// weights, and it is tested in Node.
import { makeCorpusLines, makeRng } from './corpus.mjs';
import { encodeText } from './text_encoding.mjs';
import { argumentError } from './minimind_error.mjs';

/** The second default prompt: the lesson's pronoun sentence, cut after 她. */
export const PRONOUN_PROMPT = '小明把书给了小红，她';

/** Tokens written per prompt and snapshot. */
export const GENERATED_TOKENS = 16;

// A prompt is read after the bos and cut to this many tokens (the model's
// context in the page is the run's max_seq_len, 64 by default).
const MAX_PROMPT_TOKENS = 48;

/**
 * A random span of the corpus's characters said once and begun again:
 * `length` distinct characters, each one token of its own (none merges with
 * its neighbour), then the first `lead` of them. A model that copies writes
 * the span's other characters next. {text, span}; the same for the same seed.
 */
export function repeatedSpanPrompt(tokenizer, { seed = 11, length = 8, lead = 3 } = {}) {
  const chars = [...new Set([...makeCorpusLines(200, seed).join('')])].filter(
    (c) => /\p{Script=Han}/u.test(c) && tokenizer.encode(c).length === 1,
  );
  if (chars.length < length)
    throw argumentError(
      Error,
      'corpus.too_few_characters',
      { count: chars.length, needed: length },
      `the corpus has ${chars.length} one-token characters, fewer than ${length}`,
    );
  const rng = makeRng(seed);
  for (let attempt = 0; attempt < 100; attempt += 1) {
    const pool = [...chars];
    const span = [];
    while (span.length < length) span.push(pool.splice(rng.int(pool.length), 1)[0]);
    const text = span.join('') + span.slice(0, lead).join('');
    if (tokenizer.encode(text).length === [...text].length) return { text, span: span.join('') };
  }
  throw argumentError(Error, 'corpus.no_repeatable_span', {}, 'no span of one-token characters keeps its tokens when repeated');
}

/**
 * What a prompt that repeats itself asks to be copied: for a text whose
 * characters from some position p on repeat its first ones (text[i] =
 * text[i - p], at least two of them), the characters of the first
 * occurrence not yet repeated; null for a text that does not repeat.
 * 'ABCDEAB' -> 'CDE'.
 */
export function copyTarget(text) {
  const c = [...text];
  const n = c.length;
  for (let p = Math.ceil((n + 1) / 2); p <= n - 2; p += 1) {
    let repeats = true;
    for (let i = p; i < n && repeats; i += 1) repeats = c[i] === c[i - p];
    if (repeats) return c.slice(n - p, p).join('');
  }
  return null;
}

/** How many of `target`'s first characters `text` begins with. */
export function copiedCount(text, target) {
  const a = [...text];
  const b = [...target];
  let k = 0;
  while (k < a.length && k < b.length && a[k] === b[k]) k += 1;
  return k;
}

/** The default prompts: the probe sentence, the pronoun prompt and a repeated random span. */
export function defaultPrompts(tokenizer, probe) {
  return [probe, PRONOUN_PROMPT, repeatedSpanPrompt(tokenizer).text];
}

// Text of generated ids: decoded, without a character cut off at the end
// (its first bytes decode to U+FFFD until the rest is written).
function decodeWritten(tokenizer, ids) {
  return tokenizer.decode(ids, { skipSpecialTokens: true }).replace(/\uFFFD+$/u, '');
}

/**
 * The model's greedy continuation of `prompt` (read after the bos):
 * {prompt, ids: the written token ids, text: them decoded, ended: the model
 * wrote its eos, target: copyTarget(prompt), copied: how many of the
 * target's characters the text begins with (0 without a target)}.
 */
export function continuePrompt(model, tokenizer, prompt, { tokens = GENERATED_TOKENS } = {}) {
  const ids = encodeText(tokenizer, prompt).slice(0, MAX_PROMPT_TOKENS);
  const target = copyTarget(prompt);
  if (ids.length === 0) return { prompt, ids: [], text: '', ended: false, target, copied: 0 };
  const generator = model.generator(ids, { greedy: true });
  const written = [];
  let ended = false;
  try {
    for (let k = 0; k < tokens && !generator.finished; k += 1) {
      const step = generator.step({ trace: false });
      if (step.isEos) {
        ended = true;
        break;
      }
      written.push(step.token);
    }
  } finally {
    generator.dispose();
  }
  const text = decodeWritten(tokenizer, written);
  return { prompt, ids: written, text, ended, target, copied: target ? copiedCount(text, target) : 0 };
}

/** continuePrompt() of each prompt, in order. */
export function continuePrompts(model, tokenizer, prompts, options) {
  return prompts.map((prompt) => continuePrompt(model, tokenizer, prompt, options));
}
