// A training text file of any size, read the way the Train panel's worker
// reads it: in chunks (Blob.slice, so a 50 MB file is never one string),
// decoded as UTF-8 in TextDecoder's stream mode (a character whose bytes
// straddle two chunks is decoded whole), cut into lines, each line's text
// tokenized at once and its ids appended to one Int32Array. Progress is the
// share of the file's bytes read; a signal stops it between chunks.
//
// The texts are those of js/train_data.mjs textsOf: a .jsonl is MiniMind's
// pretraining format ({"text": ...} per line; a line that is not JSON or has
// no "text" string stops the read, naming the line), a .txt gives one text
// per non-empty line (trimmed). Another name is read as JSONL when its first
// non-empty line starts with "{", else as text.
//
// The limits are what the trainer can hold. Preparing a run holds a text's
// ids several times over: here (4 bytes a token), as the trainer's samples,
// as the JSONL of {"ids": [...]} the trainer reads (about 5 characters a
// token), that text copied into Wasm memory, and the trainer's own Int32
// rows (about 4.6 bytes a token with their vectors). Measured at the peak of
// preparing a run (JS heap and Wasm memory together): about 64 bytes a token
// under Node on the generated corpus (3.2 million tokens), and in Chromium a
// 50 MB file of 20.7 million tokens took the tab from 0.4 to 1.1 GB (about
// 37 bytes a token). MAX_TRAIN_TOKENS keeps that peak near 1.5 GiB, well
// inside a tab and far below the 4 GiB the module may grow to;
// MAX_TEXT_FILE_BYTES is the file size at which text as dense in tokens as
// Chinese prose (about 0.33 tokens a byte with MiniMind's tokenizer) nears
// it. Text denser in tokens (English words, emoji, digits: up to one token a
// byte) stops at MAX_TRAIN_TOKENS instead, naming the line it reached.
import { MiniMindError } from './minimind_error.mjs';

/** The most tokens a file may hold: the trainer's samples of them must fit the tab's memory (see above). */
export const MAX_TRAIN_TOKENS = 25_000_000;

/** The largest text file the Train panel reads: about MAX_TRAIN_TOKENS of Chinese prose (see above). */
export const MAX_TEXT_FILE_BYTES = 64 * 2 ** 20;

/** Bytes read, decoded and tokenized between two progress reports (and two chances to cancel). */
export const CHUNK_BYTES = 2 ** 18;

/** 'jsonl' or 'text' by the file's name; null when the name does not say (the first line decides). */
export function formatOfName(name) {
  if (/\.jsonl$/i.test(name)) return 'jsonl';
  if (/\.txt$/i.test(name)) return 'text';
  return null;
}

/**
 * A file's token ids, text after text, in one growing Int32Array: text k's
 * ids are ids[ends[k - 1] .. ends[k]) (ends[-1] = 0).
 */
export class TokenIds {
  #ids = new Int32Array(1 << 16);
  #ends = new Int32Array(1 << 10);
  texts = 0;
  tokens = 0;

  /** Appends one text's ids (an array or typed array of integers). */
  push(ids) {
    if (this.tokens + ids.length > this.#ids.length) this.#ids = grown(this.#ids, this.tokens + ids.length);
    if (this.texts + 1 > this.#ends.length) this.#ends = grown(this.#ends, this.texts + 1);
    this.#ids.set(ids, this.tokens);
    this.tokens += ids.length;
    this.#ends[this.texts] = this.tokens;
    this.texts += 1;
  }

  /** Text k's ids: a view, not a copy. */
  text(k) {
    return this.#ids.subarray(k === 0 ? 0 : this.#ends[k - 1], this.#ends[k]);
  }

  /** Every text's ids, as views (what js/train_data.mjs trainingSamples takes). */
  lists() {
    return Array.from({ length: this.texts }, (_, k) => this.text(k));
  }

  /** Bytes held (capacity, not only what is used). */
  get bytes() {
    return this.#ids.byteLength + this.#ends.byteLength;
  }
}

// A copy of `array` with room for at least `needed` elements (doubling, so appends stay linear).
function grown(array, needed) {
  let length = array.length;
  while (length < needed) length *= 2;
  const out = new Int32Array(length);
  out.set(array);
  return out;
}

/**
 * The lines of `blob` as UTF-8, a chunk at a time: yields {lines, first,
 * read} where lines are the whole lines the chunk completed (no "\n"), first
 * is the 1-based number of lines[0], read the bytes read so far. The last
 * line need not end in "\n". A BOM at the start is dropped (as Blob.text()).
 */
export async function* fileLines(blob, { chunkBytes = CHUNK_BYTES } = {}) {
  const decoder = new TextDecoder('utf-8');
  let pending = ''; // the line the chunks so far have not ended
  let next = 1;
  for (let start = 0; start < blob.size; start += chunkBytes) {
    const end = Math.min(blob.size, start + chunkBytes);
    const chunk = new Uint8Array(await blob.slice(start, end).arrayBuffer());
    const parts = (pending + decoder.decode(chunk, { stream: end < blob.size })).split('\n');
    pending = parts.pop();
    yield { lines: parts, first: next, read: end };
    next += parts.length;
  }
  pending += decoder.decode(); // an unfinished character at the very end becomes U+FFFD
  yield { lines: pending === '' ? [] : [pending], first: next, read: blob.size };
}

/** The text of one line, or null for none; throws the line's problem. */
function lineReader(format, name) {
  if (format === 'text') return (line) => (line.trim() === '' ? null : line.trim());
  return (line, number) => {
    const trimmed = line.trim();
    if (trimmed === '') return null;
    let value;
    try {
      value = JSON.parse(trimmed);
    } catch {
      throw new MiniMindError(`${name}: line ${number} is not JSON`, { kind: 'data.not_json', values: { name, line: number } });
    }
    if (typeof value !== 'object' || value === null || typeof value.text !== 'string')
      throw new MiniMindError(`${name}: line ${number} has no "text" string (MiniMind's pretraining lines are {"text": ...})`, {
        kind: 'data.no_text',
        values: { name, line: number },
      });
    return value.text.trim() === '' ? null : value.text;
  };
}

/** Throws when a file of `bytes` is over MAX_TEXT_FILE_BYTES (or `limit`), naming both. */
export function checkTextFileSize(name, bytes, limit = MAX_TEXT_FILE_BYTES) {
  if (bytes <= limit) return;
  throw new MiniMindError(`${name} is ${mib(bytes)} MiB; text files of up to ${mib(limit)} MiB can be trained on here`, {
    kind: 'data.file_too_large',
    values: { name, bytes, limit },
  });
}

function mib(bytes) {
  return (bytes / 2 ** 20).toFixed(1);
}

function abortError() {
  const error = new Error('reading the file was stopped');
  error.name = 'AbortError';
  return error;
}

function defaultPause() {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/**
 * Reads and tokenizes a training text file (a Blob or File). encode(text)
 * gives a text's ids (MiniMind's tokenizer, no bos or eos); onProgress(read,
 * total) in bytes, at the start and after every chunk; `signal.aborted`
 * (checked between chunks, after `pause()` lets messages in) stops it with an
 * AbortError. Throws a MiniMindError (kind 'data.*', with name and line) for
 * a file over `maxBytes`, a bad JSONL line, more than `maxTokens` tokens, or
 * no text at all. Returns {name, format, bytes, ids: TokenIds}.
 */
export async function tokenizeTextFile(
  blob,
  {
    name = blob.name ?? 'data',
    encode,
    onProgress = () => {},
    signal = null,
    pause = defaultPause,
    maxBytes = MAX_TEXT_FILE_BYTES,
    maxTokens = MAX_TRAIN_TOKENS,
    chunkBytes = CHUNK_BYTES,
  },
) {
  checkTextFileSize(name, blob.size, maxBytes);
  const ids = new TokenIds();
  let format = formatOfName(name);
  let read = null;
  onProgress(0, blob.size);
  for await (const chunk of fileLines(blob, { chunkBytes })) {
    for (let i = 0; i < chunk.lines.length; i += 1) {
      const line = chunk.lines[i];
      if (format === null && line.trim() !== '') format = line.trimStart().startsWith('{') ? 'jsonl' : 'text';
      if (format === null) continue;
      read ??= lineReader(format, name);
      const text = read(line, chunk.first + i);
      if (text === null) continue;
      const textIds = encode(text);
      if (ids.tokens + textIds.length > maxTokens)
        throw new MiniMindError(
          `${name} holds more than ${maxTokens} tokens (line ${chunk.first + i}), the most the trainer can hold here`,
          {
            kind: 'data.too_many_tokens',
            values: { name, limit: maxTokens, line: chunk.first + i },
          },
        );
      ids.push(textIds);
    }
    onProgress(chunk.read, blob.size);
    await pause();
    if (signal?.aborted) throw abortError();
  }
  if (ids.texts === 0) throw new MiniMindError(`${name} holds no text`, { kind: 'data.empty', values: { name } });
  return { name, format: format ?? 'text', bytes: blob.size, ids };
}
