// The training data of the page's Train panel, as MiniMind's pretraining
// reads it (trainer/dataset/lm_dataset.py PretrainDataset): texts become
// [bos] + tokenize(text)[:max_seq_len - 2] + [eos]. Texts come from the
// project's generated corpus (js/corpus.mjs), the lessons' sentences, pasted
// text, or a dropped .jsonl ({"text": ...} per line, MiniMind's format) or
// .txt (one text per non-empty line); or, as a stream of fresh generated
// lines for a number of batches (js/corpus_stream.mjs), straight as
// samples (streamSamples). They are tokenized here, line by line,
// so that the worker can say how far it got, and handed to the trainer as id
// arrays (model.trainer({data: [[ids], ...]})), which it takes as whole
// sequences: the bos and eos are added here, as MiniMind adds them.
//
// Packing (optional, on by default): consecutive short texts share one
// sequence, as the project's own model was trained (js/corpus.mjs
// packLinesByTokens), so that less of each max_seq_len window is padding.
// Here the texts' token ids are joined (each text tokenized on its own), not
// the texts: BPE never merges across a seam, which only differs from
// tokenizing the joined text where a merge would have crossed it.

import { CorpusStream } from './corpus_stream.mjs';
import { checkPositiveInteger } from './argument_checks.mjs';
import { argumentError } from './minimind_error.mjs';

/** Where the texts come from ('corpus': a fixed number of generated lines; 'stream': fresh generated lines for a number of batches). */
export const SOURCES = Object.freeze(['corpus', 'stream', 'lessons', 'text', 'file']);

/**
 * The texts of MiniMind pretraining JSONL (`{"text": ...}` per line; empty
 * lines skipped). A line that is not JSON or has no string "text" throws an
 * Error naming its line number (1-based).
 */
export function jsonlTexts(jsonl) {
  const texts = [];
  const lines = jsonl.split(/\r?\n/);
  for (let i = 0; i < lines.length; i += 1) {
    const line = lines[i].trim();
    if (line === '') continue;
    let value;
    try {
      value = JSON.parse(line);
    } catch {
      throw argumentError(Error, 'data.line_not_json', { line: i + 1 }, `line ${i + 1} is not JSON`);
    }
    if (typeof value !== 'object' || value === null || typeof value.text !== 'string')
      throw argumentError(
        Error,
        'data.line_no_text',
        { line: i + 1 },
        `line ${i + 1} has no "text" string (MiniMind's pretraining lines are {"text": ...})`,
      );
    if (value.text.trim() !== '') texts.push(value.text);
  }
  return texts;
}

/** One text per non-empty line of plain text. */
export function plainTexts(text) {
  return text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '');
}

/** A file's or a pasted text's texts: JSONL when its name ends in .jsonl, or (pasted) when every line is a {"text"} object. */
export function textsOf(content, name = '') {
  if (/\.jsonl$/i.test(name)) return jsonlTexts(content);
  if (/\.txt$/i.test(name)) return plainTexts(content);
  const lines = plainTexts(content);
  const looksJsonl = lines.length > 0 && lines.every((line) => line.startsWith('{') && line.endsWith('}'));
  if (looksJsonl) {
    try {
      return jsonlTexts(content);
    } catch {
      return lines; // text that happens to be braces: one text per line
    }
  }
  return lines;
}

/**
 * Tokenizes `texts` one by one with `encode(text) -> ids`, yielding to the
 * caller every `sliceMs` milliseconds: calls onProgress(done, total) then and
 * at the end, and awaits `pause()` (a macrotask, so messages are handled).
 * Returns the id arrays (without bos or eos). `signal.aborted` stops it with
 * an AbortError.
 */
export async function tokenizeTexts(texts, encode, { onProgress = () => {}, pause = defaultPause, sliceMs = 50, signal = null } = {}) {
  const out = new Array(texts.length);
  let sliceStart = performance.now();
  onProgress(0, texts.length);
  for (let i = 0; i < texts.length; i += 1) {
    out[i] = encode(texts[i]);
    if (performance.now() - sliceStart >= sliceMs) {
      onProgress(i + 1, texts.length);
      await pause();
      if (signal?.aborted) throw abortError();
      sliceStart = performance.now();
    }
  }
  onProgress(texts.length, texts.length);
  return out;
}

/**
 * The trainer's samples of a stream data request {source: 'stream', seed,
 * mix, batches}: exactly batches × batchSize samples from the generated
 * corpus's stream (js/corpus_stream.mjs), in stream order: the same samples
 * as js/train_recipes.mjs recipeSamples for a recipe with that data and
 * those options. encode(text) -> ids is MiniMind's tokenizer; bos, eos the
 * model's ids; pack: false for one line per sample. Made `chunk` samples at
 * a time: onProgress(done, total) in samples before the first chunk and
 * after each, then `await pause()` (a macrotask, so messages are handled);
 * `signal.aborted` stops it there with an AbortError. Returns {samples,
 * lines: the corpus lines drawn}.
 */
export async function streamSamples(
  data,
  { batchSize, maxSeqLen, encode, bos = 1, eos = 2, pack = true, chunk = 256, onProgress = () => {}, pause = defaultPause, signal = null },
) {
  if (data?.source !== 'stream')
    throw argumentError(
      Error,
      'api.not_stream_request',
      { got: JSON.stringify(data?.source) ?? 'undefined' },
      `not a stream data request: ${JSON.stringify(data?.source)}`,
    );
  for (const [name, value] of [
    ['batches', data.batches],
    ['batchSize', batchSize],
    ['chunk', chunk],
  ])
    checkPositiveInteger(value, name);
  const stream = new CorpusStream({ seed: data.seed ?? 1, mix: data.mix ?? null, maxSeqLen, encode, bos, eos, pack });
  const total = data.batches * batchSize;
  const samples = [];
  onProgress(0, total);
  while (samples.length < total) {
    const end = Math.min(total, samples.length + chunk);
    while (samples.length < end) samples.push(stream.next());
    onProgress(samples.length, total);
    if (samples.length < total) {
      await pause();
      if (signal?.aborted) throw abortError();
    }
  }
  return { samples, lines: stream.lines };
}

function defaultPause() {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

function abortError() {
  const error = new Error('making the training data was stopped');
  error.name = 'AbortError';
  return error;
}

/**
 * Joins consecutive id arrays into groups of at most `maxTokens` ids, first
 * fit over the `window` groups still open (as corpus.mjs packLinesByTokens
 * packs texts): an array joins the oldest open group it fits in, else opens
 * one; the oldest group is closed when more than `window` are open, a full
 * one at once. An array longer than maxTokens stays alone (the trainer cuts
 * it). Returns the groups (new arrays), in the order they were closed.
 */
export function packIds(idLists, maxTokens, window = 8) {
  checkPositiveInteger(maxTokens, 'maxTokens');
  checkPositiveInteger(window, 'window');
  const packed = [];
  const open = [];
  for (const ids of idLists) {
    if (ids.length === 0) continue;
    const at = open.findIndex((group) => group.length + ids.length <= maxTokens);
    if (at >= 0) {
      open[at].push(...ids);
      if (open[at].length >= maxTokens - 1) packed.push(open.splice(at, 1)[0]);
      continue;
    }
    open.push([...ids]);
    if (open.length > window) packed.push(open.shift());
  }
  packed.push(...open);
  return packed;
}

/**
 * The trainer's samples: [bos] + ids[:maxSeqLen - 2] + [eos] for every id
 * array (packed first when `pack`), as PretrainDataset builds them.
 */
export function trainingSamples(idLists, { maxSeqLen, bos = 1, eos = 2, pack = true }) {
  if (!Number.isSafeInteger(maxSeqLen) || maxSeqLen < 2)
    throw argumentError(
      RangeError,
      'api.below_minimum',
      { name: 'maxSeqLen', min: 2, got: String(maxSeqLen) },
      `maxSeqLen must be an integer of at least 2, got ${maxSeqLen}`,
    );
  const groups = pack ? packIds(idLists, maxSeqLen - 2) : idLists.filter((ids) => ids.length > 0);
  return groups.map((ids) => [bos, ...ids.slice(0, maxSeqLen - 2), eos]);
}

/** Tokens the samples hold (bos and eos included), and how many of their padded positions are padding. */
export function sampleStats(samples, maxSeqLen) {
  let tokens = 0;
  for (const s of samples) tokens += Math.min(s.length, maxSeqLen);
  return { samples: samples.length, tokens, padding: samples.length * maxSeqLen - tokens };
}
