// A training text file read in chunks (js/text_file_stream.mjs): the same
// texts and ids as reading it whole (js/train_data.mjs textsOf), whatever the
// chunk size, characters split across chunks included; progress in bytes,
// rising to the file's size; a cancel between chunks; the file's problems
// named with their line; the size and token limits.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { test } from 'node:test';

import { makeCorpusLines } from '../../js/corpus.mjs';
import { loadMiniMind } from '../../js/minimind.mjs';
import { createTrainHost } from '../../web/train_host.mjs';
import { MiniMindError } from '../../js/minimind_error.mjs';
import {
  CHUNK_BYTES,
  MAX_TEXT_FILE_BYTES,
  MAX_TRAIN_TOKENS,
  TokenIds,
  checkTextFileSize,
  fileLines,
  formatOfName,
  tokenizeTextFile,
} from '../../js/text_file_stream.mjs';
import { textsOf } from '../../js/train_data.mjs';

// A stand-in tokenizer: one id per UTF-16 code unit, so every character of a text shows in its ids.
const units = (text) => Array.from(text, (c) => c.codePointAt(0));
const noPause = () => Promise.resolve();

const TEXT_LINES = ['小明把苹果给了小红，她很开心。', '  Hello, 世界 🙂  ', '', '第三行：ß ç ø', '\t', 'last line without newline'];
const TEXT = '\uFEFF' + TEXT_LINES.join('\r\n');
const JSONL_LINES = [
  JSON.stringify({ text: '小红是学生。' }),
  '',
  JSON.stringify({ text: '她喜欢读书 🙂' }),
  JSON.stringify({ text: '   ' }),
  JSON.stringify({ text: 'ends\nwith a newline inside' }),
];
const JSONL = JSONL_LINES.join('\n') + '\n';

async function read(content, name, options = {}) {
  return tokenizeTextFile(new Blob([content]), { name, encode: units, pause: noPause, ...options });
}

function textsOfIds(ids) {
  return ids.lists().map((list) => String.fromCodePoint(...list));
}

test('every chunk size gives the texts of reading the file whole, characters split across chunks included', async () => {
  const bytes = new TextEncoder().encode(TEXT).length;
  for (const [content, name] of [
    [TEXT, 'lines.txt'],
    [JSONL, 'pretrain.jsonl'],
  ]) {
    const whole = textsOf(content.replace(/^\uFEFF/, ''), name);
    for (const chunkBytes of [1, 2, 3, 5, 7, 64, CHUNK_BYTES]) {
      const { ids, format } = await read(content, name, { chunkBytes });
      assert.deepEqual(textsOfIds(ids), whole, `${name}, chunks of ${chunkBytes} bytes`);
      assert.equal(format, name.endsWith('.jsonl') ? 'jsonl' : 'text');
      assert.equal(
        ids.tokens,
        whole.reduce((n, text) => n + units(text).length, 0),
      );
    }
  }
  assert.ok(bytes > 64, 'the text spans several chunks of 64 bytes');
});

test('lines come numbered from 1, empty ones counted, the last one without its newline', async () => {
  const lines = [];
  for await (const chunk of fileLines(new Blob(['a\n\nbc\r\nd']), { chunkBytes: 2 }))
    chunk.lines.forEach((line, i) => lines.push([chunk.first + i, line]));
  assert.deepEqual(lines, [
    [1, 'a'],
    [2, ''],
    [3, 'bc\r'],
    [4, 'd'],
  ]);
});

test('progress is in bytes: from 0, rising, to the file size, once per chunk', async () => {
  const content = 'x'.repeat(1000) + '\n' + '好'.repeat(300);
  const size = new Blob([content]).size;
  const seen = [];
  await read(content, 'p.txt', { chunkBytes: 256, onProgress: (done, total) => seen.push([done, total]) });
  assert.deepEqual(seen[0], [0, size]);
  assert.deepEqual(seen.at(-1), [size, size]);
  assert.equal(seen.length, 1 + Math.ceil(size / 256) + 1); // the start, every chunk, the end of the decoder
  for (let i = 1; i < seen.length; i += 1) assert.ok(seen[i][0] >= seen[i - 1][0], `progress ${i} does not go back`);
  assert.ok(seen.every(([, total]) => total === size));
});

test('a cancel stops the read between chunks, with an AbortError, before the rest is tokenized', async () => {
  const content = Array.from({ length: 400 }, (_, i) => `line ${i}`).join('\n');
  const signal = { aborted: false };
  let encoded = 0;
  let reports = 0;
  const reading = read(content, 'c.txt', {
    chunkBytes: 128,
    signal,
    encode: (text) => ((encoded += 1), units(text)),
    onProgress: () => {
      reports += 1;
      if (reports === 3) signal.aborted = true; // after the second chunk
    },
  });
  await assert.rejects(reading, { name: 'AbortError' });
  assert.equal(reports, 3);
  assert.ok(encoded > 0 && encoded < 400, `${encoded} of 400 lines were tokenized`);
});

test('a bad JSONL line stops the read and is named by its line number, across chunks', async () => {
  const lines = [...JSONL_LINES, '{"text": "fine"}', '{"text": broken', '{"text": "never read"}'];
  for (const chunkBytes of [3, 4096]) {
    const error = await read(lines.join('\n'), 'bad.jsonl', { chunkBytes }).catch((e) => e);
    assert.ok(error instanceof MiniMindError);
    assert.equal(error.kind, 'data.not_json');
    assert.deepEqual(error.values, { name: 'bad.jsonl', line: 7 });
    assert.match(error.message, /bad\.jsonl: line 7 is not JSON/);
  }
  const noText = await read('{"text": "a"}\n\n{"txt": "b"}\n', 'x.jsonl').catch((e) => e);
  assert.equal(noText.kind, 'data.no_text');
  assert.deepEqual(noText.values, { name: 'x.jsonl', line: 3 });
  const notObject = await read('[1, 2]\n', 'x.jsonl').catch((e) => e);
  assert.equal(notObject.kind, 'data.no_text');
});

test('a name that does not say: the first non-empty line decides', async () => {
  assert.equal(formatOfName('a.JSONL'), 'jsonl');
  assert.equal(formatOfName('a.txt'), 'text');
  assert.equal(formatOfName('a.json'), null);
  const asJsonl = await read('\n  {"text": "一"}\n{"text": "二"}\n', 'data.json');
  assert.equal(asJsonl.format, 'jsonl');
  assert.deepEqual(textsOfIds(asJsonl.ids), ['一', '二']);
  const asText = await read('一\n{"text": "二"}\n', 'notes');
  assert.equal(asText.format, 'text');
  assert.deepEqual(textsOfIds(asText.ids), ['一', '{"text": "二"}']);
});

test('a file over the size limit is refused before a byte is read, naming its size and the limit', async () => {
  let reads = 0;
  const error = await read('0123456789', 'big.txt', { maxBytes: 9, onProgress: () => (reads += 1) }).catch((e) => e);
  assert.ok(error instanceof MiniMindError);
  assert.equal(error.kind, 'data.file_too_large');
  assert.deepEqual(error.values, { name: 'big.txt', bytes: 10, limit: 9 });
  assert.equal(reads, 0);
  assert.doesNotThrow(() => checkTextFileSize('ok.txt', MAX_TEXT_FILE_BYTES));
  assert.throws(() => checkTextFileSize('big.txt', MAX_TEXT_FILE_BYTES + 1), { kind: 'data.file_too_large' });
  assert.match(caught(() => checkTextFileSize('big.txt', 100 * 2 ** 20, 64 * 2 ** 20)).message, /100\.0 MiB.*64\.0 MiB/);
});

test('more tokens than the trainer holds stops the read at the line that passed the limit', async () => {
  const error = await read('abc\ndef\nghi\n', 't.txt', { maxTokens: 7 }).catch((e) => e);
  assert.equal(error.kind, 'data.too_many_tokens');
  assert.deepEqual(error.values, { name: 't.txt', limit: 7, line: 3 });
  assert.equal((await read('abc\ndef\nghi\n', 't.txt', { maxTokens: 9 })).ids.tokens, 9);
});

test('a file with no text at all says so', async () => {
  for (const [content, name] of [
    ['', 'empty.txt'],
    ['\n \n\t\n', 'blank.txt'],
    ['{"text": " "}\n', 'blank.jsonl'],
  ]) {
    const error = await read(content, name).catch((e) => e);
    assert.equal(error.kind, 'data.empty', name);
  }
});

test('TokenIds keeps every text as a view into one growing Int32Array', () => {
  const ids = new TokenIds();
  const expected = [];
  for (let k = 0; k < 5000; k += 1) {
    const list = Array.from({ length: k % 37 }, (_, i) => (k * 31 + i) % 6400);
    expected.push(list);
    ids.push(list);
  }
  assert.equal(ids.texts, 5000);
  assert.equal(
    ids.tokens,
    expected.reduce((n, list) => n + list.length, 0),
  );
  assert.deepEqual(Array.from(ids.text(4999)), expected[4999]);
  assert.deepEqual(Array.from(ids.text(0)), []);
  assert.deepEqual(
    ids.lists().map((view) => Array.from(view)),
    expected,
  );
  assert.ok(ids.bytes < 4 * 2 * (ids.tokens + ids.texts) + 4 * (1 << 16), 'at most twice what it holds (doubling)');
});

test("MiniMind's tokenizer: a file read in chunks gives the token count of its texts encoded whole", async () => {
  const mm = await loadMiniMind();
  const tokenizer = mm.loadTokenizer(await readFile(new URL('../../models/minimind-demo/tokenizer.json', import.meta.url), 'utf8'));
  const lines = Array.from({ length: 200 }, (_, i) => `小明把第${i}本书给了小红，她唱起了歌。Line ${i}: the café 🙂`);
  const content = lines.join('\n');
  const expected = lines.reduce((n, line) => n + tokenizer.encode(line).length, 0);
  const { ids } = await read(content, 'mixed.txt', { chunkBytes: 333, encode: (text) => tokenizer.encode(text) });
  assert.equal(ids.tokens, expected);
  assert.deepEqual(Array.from(ids.text(17)), tokenizer.encode(lines[17]));

  // The size limit: a file of the project's Chinese corpus at that size stays within the token limit, by less than 20%.
  const corpus = makeCorpusLines(2000, 1).join('\n');
  const read2 = await read(corpus, 'corpus.txt', { encode: (text) => tokenizer.encode(text) });
  const density = read2.ids.tokens / new Blob([corpus]).size;
  assert.ok(MAX_TEXT_FILE_BYTES * density <= MAX_TRAIN_TOKENS, `${density} tokens a byte`);
  assert.ok(MAX_TEXT_FILE_BYTES * density > 0.8 * MAX_TRAIN_TOKENS, `${density} tokens a byte`);
  tokenizer.dispose();
});

// The training worker's side (web/train_host.mjs): answers collected; next(type) waits for the next of that type.
function trainHost() {
  const answers = [];
  let waiting = [];
  const post = (message) => {
    answers.push(message);
    waiting = waiting.filter(({ type, resolve }) => (type === message.type ? (resolve(message), false) : true));
  };
  const host = createTrainHost({
    post,
    loadRuntime: () => loadMiniMind(),
    fetchText: (path) => readFile(new URL(`../../${path}`, import.meta.url), 'utf8'),
  });
  return { handle: host.handle, answers, next: (type) => new Promise((resolve) => waiting.push({ type, resolve })) };
}

const RUN = {
  type: 'prepare',
  model: {
    kind: 'new',
    config: {
      hidden_size: 32,
      num_hidden_layers: 1,
      num_attention_heads: 2,
      num_key_value_heads: 1,
      intermediate_size: 64,
      vocab_size: 6400,
    },
    seed: 3,
  },
  pack: true,
  options: { batchSize: 2, maxSeqLen: 16, learningRate: 1e-3, accumulationSteps: 1, gradClip: 1, epochs: 1, seed: 1 },
  probe: '小红说她喜欢读书。',
  snapshotEvery: 100,
  start: false,
};

test('the training worker reads a data file with progress, keeps it through a cancelled one, and trains on it', async () => {
  const h = trainHost();
  const small = ['小红是学生。', '她喜欢读书。', '小明在学校。'];
  await h.handle({ type: 'data-file', id: 1, file: new File([small.join('\n')], 'small.txt') });
  const ready = h.answers.find((a) => a.type === 'data-ready');
  const mm = await loadMiniMind();
  const tokenizer = mm.loadTokenizer(await readFile(new URL('../../models/minimind-demo/tokenizer.json', import.meta.url), 'utf8'));
  const tokens = small.reduce((n, text) => n + tokenizer.encode(text).length, 0);
  assert.deepEqual(
    { ...ready },
    { type: 'data-ready', id: 1, name: 'small.txt', format: 'text', bytes: new Blob([small.join('\n')]).size, texts: 3, tokens },
  );

  // A file of 4 chunks, cancelled after its first: the file before stays.
  const big = Array.from({ length: 20000 }, (_, i) => `第${i}行：小明把书给了小红，她很开心。`).join('\n');
  const reading = h.handle({ type: 'data-file', id: 2, file: new File([big], 'big.txt') });
  for (;;) {
    const progress = await h.next('data-progress');
    if (progress.id === 2 && progress.done > 0) break;
  }
  await h.handle({ type: 'data-cancel' });
  await reading;
  assert.deepEqual(h.answers.at(-1), { type: 'data-cancelled', id: 2 });
  const progress = h.answers.filter((a) => a.type === 'data-progress' && a.id === 2).map((a) => a.done);
  assert.ok(progress.length >= 2 && progress.at(-1) < new Blob([big]).size, `stopped part way: ${progress}`);
  assert.deepEqual(
    progress,
    [...progress].sort((a, b) => a - b),
  );

  await h.handle({ ...RUN, id: 3, data: { source: 'file', fileId: 1, name: 'small.txt' } });
  const prepared = h.answers.find((a) => a.type === 'ready' && a.id === 3);
  assert.equal(prepared?.data.texts, 3);
  assert.equal(prepared.data.tokens, tokens + 2 * prepared.data.samples); // every sample: bos + ids + eos

  await h.handle({ ...RUN, id: 4, data: { source: 'file', fileId: 2, name: 'big.txt' } });
  assert.match(h.answers.find((a) => a.type === 'error' && a.id === 4)?.message, /no longer held/);

  await h.handle({ type: 'data-file', id: 5, file: new File(['{"text": "一"}\n{"text": 二}\n'], 'bad.jsonl') });
  const error = h.answers.find((a) => a.type === 'error' && a.id === 5);
  assert.equal(error.request, 'data-file');
  assert.equal(error.kind, 'data.not_json');
  assert.deepEqual(error.values, { name: 'bad.jsonl', line: 2 });
  tokenizer.dispose();
  await h.handle({ type: 'reset' });
});

function caught(f) {
  try {
    f();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}
