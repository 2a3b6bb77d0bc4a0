// The generated corpus as a stream: fresh lines from the generator
// (js/corpus.mjs) for as many batches as a run asks for, never an epoch over
// a fixed list. A fixed list of a few thousand lines lets a small model
// memorise its random spans instead of learning to copy them; a line drawn
// once is never seen again (the random spans and the word lists have far
// more combinations than a run draws), so copying is the only way to predict
// a span's second saying.
//
// The stream yields trainer samples as js/train_data.mjs trainingSamples
// builds them: each line tokenized on its own, consecutive lines packed
// (first fit over the 8 groups still open, js/train_data.mjs packIds) into
// [bos] + ids[:maxSeqLen - 2] + [eos]. The first n samples of a stream are
// the first n that trainingSamples makes from makeCorpusLines(…, seed, {mix}).
//
// Deterministic from its seed, and resumable: state() is a plain JSON value
// (the generator's four words, the packer's open groups and the counts), and
// CorpusStream.fromState(state, encode) goes on exactly where it was, sample
// for sample.
import { LINE_KINDS, makeRng, mixedKinds } from './corpus.mjs';
import { checkCount } from './argument_checks.mjs';
import { argumentError } from './minimind_error.mjs';

const STATE_VERSION = 1;
const PACK_WINDOW = 8;

export class CorpusStream {
  #seed;
  #mix;
  #maxSeqLen;
  #bos;
  #eos;
  #pack;
  #encode;
  #kinds;
  #rng;
  #open = []; // packed groups still taking lines: [ids] each, oldest first
  #ready = []; // closed groups not yet handed out, oldest first
  #lines = 0; // lines drawn from the generator
  #samples = 0; // samples handed out

  /**
   * seed: the generator's seed; mix: {kind: weight} in place of the corpus's
   * line shares (js/corpus.mjs LINE_KINDS), or null; maxSeqLen: the trainer's;
   * encode(text) -> ids: MiniMind's tokenizer (no bos/eos); bos, eos: the
   * model's ids; pack: false for one line per sample.
   */
  constructor({ seed = 1, mix = null, maxSeqLen, encode, bos = 1, eos = 2, pack = true }) {
    if (!Number.isSafeInteger(maxSeqLen) || maxSeqLen < 3)
      throw argumentError(
        RangeError,
        'api.below_minimum',
        { name: 'maxSeqLen', min: 3, got: String(maxSeqLen) },
        `maxSeqLen must be an integer of at least 3, got ${maxSeqLen}`,
      );
    if (typeof encode !== 'function')
      throw argumentError(TypeError, 'api.not_function', { name: 'encode', got: typeof encode }, 'encode must be a function text -> ids');
    this.#seed = seed;
    this.#mix = mix === null ? null : { ...mix };
    this.#kinds = mix === null ? LINE_KINDS : mixedKinds(mix);
    this.#maxSeqLen = maxSeqLen;
    this.#bos = bos;
    this.#eos = eos;
    this.#pack = Boolean(pack);
    this.#encode = encode;
    this.#rng = makeRng(seed);
  }

  /** A stream that goes on from `state` (an earlier stream's state()), with MiniMind's tokenizer as `encode`. */
  static fromState(state, encode) {
    if (!state || state.version !== STATE_VERSION)
      throw argumentError(
        Error,
        'corpus.stream_state',
        { version: STATE_VERSION },
        `not a corpus stream state of version ${STATE_VERSION}`,
      );
    const stream = new CorpusStream({ ...state, encode });
    stream.#rng = makeRng(state.seed, { state: state.rng });
    stream.#open = state.open.map((ids) => [...ids]);
    stream.#ready = state.ready.map((ids) => [...ids]);
    stream.#lines = state.lines;
    stream.#samples = state.samples;
    return stream;
  }

  /**
   * Everything needed to go on from here, as JSON-able values: {version,
   * seed, mix, maxSeqLen, bos, eos, pack, rng: four 32-bit words, open and
   * ready: the packer's groups (token ids), lines: lines drawn, samples:
   * samples handed out}.
   */
  state() {
    return {
      version: STATE_VERSION,
      seed: this.#seed,
      mix: this.#mix === null ? null : { ...this.#mix },
      maxSeqLen: this.#maxSeqLen,
      bos: this.#bos,
      eos: this.#eos,
      pack: this.#pack,
      rng: this.#rng.state(),
      open: this.#open.map((ids) => [...ids]),
      ready: this.#ready.map((ids) => [...ids]),
      lines: this.#lines,
      samples: this.#samples,
    };
  }

  /** Lines drawn from the generator so far. */
  get lines() {
    return this.#lines;
  }

  /** Samples handed out so far. */
  get samples() {
    return this.#samples;
  }

  /** The next line of the generator (the same lines, in order, as makeCorpusLines(n, seed, {mix})). */
  #nextLine() {
    this.#lines += 1;
    return this.#rng.weighted(this.#kinds).make(this.#rng);
  }

  /** The next sample: [bos] + ids + [eos], at most maxSeqLen ids. */
  next() {
    const room = this.#maxSeqLen - 2;
    while (this.#ready.length === 0) {
      const ids = this.#encode(this.#nextLine());
      if (ids.length === 0) continue;
      if (!this.#pack) {
        this.#ready.push(Array.from(ids));
        break;
      }
      // As packIds: the oldest open group the line fits in, else a new group;
      // a group within one token of full closes at once, the oldest of more
      // than PACK_WINDOW open groups closes too.
      const at = this.#open.findIndex((group) => group.length + ids.length <= room);
      if (at >= 0) {
        this.#open[at].push(...ids);
        if (this.#open[at].length >= room - 1) this.#ready.push(this.#open.splice(at, 1)[0]);
        continue;
      }
      this.#open.push(Array.from(ids));
      if (this.#open.length > PACK_WINDOW) this.#ready.push(this.#open.shift());
    }
    this.#samples += 1;
    return [this.#bos, ...this.#ready.shift().slice(0, room), this.#eos];
  }

  /** The next `count` samples. */
  take(count) {
    checkCount(count, 'count');
    return Array.from({ length: count }, () => this.next());
  }
}
