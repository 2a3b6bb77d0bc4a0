// Writes tests/fixtures/tokenizer_corpus.json: the ids and decoded text that the
// Hugging Face tokenizer gives for a corpus of strings, with MiniMind's
// tokenizer.json. tests/test_tokenizer.cpp checks the C++ tokenizer against it.
//
//   node tests/make_tokenizer_fixtures.mjs [path/to/tokenizer.json]
//
// Run from anywhere; the default tokenizer.json is MiniMind's, shipped in
// models/minimind-tokenizer/. The oracle is the npm package
// @huggingface/tokenizers (a devDependency: npm ci installs it). The output is
// deterministic.
//
// Format (format_version 1):
//   {"format_version": 1, "generator": "tests/make_tokenizer_fixtures.mjs",
//    "oracle": "@huggingface/tokenizers <version>", "tokenizer_sha256": ...,
//    "cases": [{"text", "ids", "decoded", "decoded_skip_special",
//               "input_hex" (only for invalid UTF-8 input: the bytes to encode;
//                            "text" is then what TextDecoder makes of them)}]}
// ids: encode(text) without anything added (MiniMind's file has no
// post_processor; the script checks that add_special_tokens changes nothing).
// decoded: decode(ids) as Hugging Face's Tokenizer.decode, without
// clean_up_tokenization_spaces (MiniMind's tokenizer_config.json sets it false).
//
// The corpus keeps to characters on which this JS oracle and the Rust library
// agree: JS's \s has U+FEFF and lacks U+0085 (Rust's is White_Space), and
// Node's \p{L} / \p{N} follow Node's ICU, which may be newer than the Unicode
// version of the C++ tables (core/tokenizer/unicode_categories.cpp). Cases where they
// differ are checked in tests/test_tokenizer.cpp against the Rust library.

import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Tokenizer } from '@huggingface/tokenizers';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const tokenizerPath = resolve(process.argv[2] ?? join(root, 'models', 'minimind-tokenizer', 'tokenizer.json'));
const outPath = join(root, 'tests', 'fixtures', 'tokenizer_corpus.json');
const oraclePackage = JSON.parse(readFileSync(join(root, 'node_modules', '@huggingface', 'tokenizers', 'package.json'), 'utf8'));

// A long string from a fixed pool, reproducible (mulberry32).
function randomText(seed, length) {
  const pool = [
    ...'的一是在不了有和人这中大为上个国我以要他时来用们生到作地于出就分对成会可主发年动同工也能下过子说产种面而方后多定行学法所民得经十三之进着等部度家电力里如水化高自二理起小物现实加量都两体制机当使点从业本去把性好应开它合还因由其些然前外天政四日那社义事平形相全表间样与关各重新线内数正心反你明看原又么利比或但质气第向道命此变条只没结解问意建月公无系军很情者最立代想已通并提直题党程展五果料象员革位入常文总次品式活设及管特件长求老头基资边流路级少图山统接知较将组见计别她手角期根论运农指几九区强放决西被干做必战先回则任取据处队南给色光门即保治北造百规热领七海口东导器压志世金增争济阶油思术极交受联什认六共权收证改清己美再采转更单风切打白教速花带安场身车例真务具万每目至达走积示议声报斗完类八离华名确才科张信马节话米整空元况今集温传土许步群广石记需段研界拉林律叫且究观越织装影算低持音众书布复容儿须际商非验连断深难近矿千周委素技备半办青省列习响约支般史感劳便团往酸历市克何除消构府称太准精值号率族维划选标写存候毛亲快效斯院查江型眼王按格养易置派层片始却专状育厂京识适属圆包火住调满县局照参红细引听该铁价严',
    ...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789',
    ...'     \n\t.,;:!?\'"()[]{}<>-_=+*/\\|@#$%^&~`',
    ...'，。！？、；：「」『』（）《》…—·',
    '😀',
    '👍🏽',
    '🇨🇳',
    '❤️',
    'é',
    'ß',
    'ñ',
    'Ω',
    'π',
    'あ',
    'カ',
    '한',
    'ก',
    'ب',
    'न',
    'ा',
  ];
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  let out = '';
  for (let i = 0; i < length; ++i) out += pool[Math.floor(next() * pool.length)];
  return out;
}

const corpus = [
  // Chinese, as in the lessons and beyond
  '小明 把 苹果 给了 小红 ， 她 很 开心',
  '今天 天气 很 好',
  '今天天气很好，我们去公园散步吧。',
  '人工智能正在改变世界。',
  '注意力机制（Attention）让模型关注重要的词。',
  '从前有座山，山里有座庙，庙里有个老和尚在给小和尚讲故事。他讲的是什么呢？他讲的是：从前有座山……',
  '哈哈哈哈哈哈哈哈哈哈哈哈哈哈哈哈',
  '𠀀𪚥 生僻字',
  // English
  'The quick brown fox jumps over the lazy dog.',
  'Hello, world!',
  'hello',
  'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789',
  'a'.repeat(80),
  // mixed Chinese and English
  'MiniMind 是一个从零开始训练的小型语言模型。',
  '我用 Python 3.11 写了一个 BPE tokenizer，速度 100MB/s！',
  'GPT-2 的分词器把 "don\'t" 切成 don 和 \'t。',
  // numbers
  '3.14159',
  '2024年',
  '１２３',
  '1,234,567.89',
  '第3章 第12节',
  '价格：￥99.99，折扣 20%',
  'Ⅻ ½ ² ① ٣',
  // punctuation
  '，。！？「」',
  '他说：「你好！」然后走了。',
  'Wait... what?!?',
  '(a+b)*c = d/e - f^2',
  'email@example.com https://github.com/jingyaogong/minimind',
  // emoji
  '😀',
  '👍🏽 good',
  '👨‍👩‍👧‍👦 family',
  '🇨🇳🇺🇸🇯🇵',
  '1️⃣ #️⃣ ❤️',
  '我爱你❤️！',
  // whitespace
  '',
  ' ',
  '   ',
  '\n',
  'a\n\n  b',
  ' hello',
  'hello ',
  '  leading',
  'trailing  \n',
  'Hello   world',
  'a  b   c    d',
  'line one\nline two\r\nline three',
  '\ttab\tseparated\tvalues',
  '\u00a0non-breaking\u00a0space',
  '\u3000全角空格\u3000',
  'x\u2028y\u2029z',
  'zero\u200bwidth\u200cjoiner\u200d',
  // contractions
  "I'll don't you're we've she'd it's I'm",
  "DON'T SHOUT",
  "'s 're 'LL",
  "rock'n'roll",
  // special tokens inside text
  '<|im_start|>user\n你好<|im_end|>',
  '<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n<|im_start|>user\n1+1=?<|im_end|>\n<|im_start|>assistant\n',
  '<|endoftext|>',
  'text<|endoftext|>more',
  '<|im_start|><|im_end|>',
  '<think>\n\n</think>\n\n答案是 2。',
  '<tool_call>{"name": "f"}</tool_call>',
  '<|im_start',
  '<|IM_START|>',
  '< |im_start| >',
  ' <|im_end|> ',
  // HTML and code
  '<img src=x onerror=alert(1)>',
  "<script>alert('xss')</script>",
  '&lt;b&gt; &amp; &quot;',
  'def f(x):\n    return x ** 2\n',
  'for (int i = 0; i < n; ++i) { sum += a[i]; }',
  '{"key": [1, 2, 3], "ok": true}',
  '∑_{i=1}^{n} i² = n(n+1)(2n+1)/6',
  // other scripts
  'مرحبا بالعالم',
  'नमस्ते दुनिया',
  'こんにちは、世界！カタカナ',
  '안녕하세요 세계',
  'สวัสดีชาวโลก',
  'Привет, мир!',
  'Καλημέρα κόσμε',
  'שלום עולם',
  // combining marks, ligatures, controls
  'cafe\u0301 vs café',
  'Z\u0324\u0354\u0367\u0311\u0313a\u0308\u0356\u032dl\u036e\u0312g\u030c\u0317o\u0319\u0314',
  'naïve résumé façade',
  'ﬁ ligature ﬀ',
  '\u0000\u0001\u001f\u007f',
  '\ufffd replacement',
  // long random-ish text
  randomText(20240611, 3000),
];

// Invalid UTF-8: what TextDecoder (and Python's errors="replace") makes of it.
const invalidInputs = [
  [0xff],
  [0x61, 0x62, 0x63, 0xe4, 0xbd], // "abc" + the first two bytes of 你
  [0xed, 0xa0, 0x80], // an encoded surrogate
  [0xc0, 0xaf], // overlong "/"
  [0xe4, 0xbd, 0xa0, 0x80, 0xe5, 0xa5, 0xbd], // 你, a stray continuation byte, 好
  [0xf4, 0x90, 0x80, 0x80, 0x20, 0x41], // above U+10FFFF
];

const tokenizerBytes = readFileSync(tokenizerPath);
// clean_up_tokenization_spaces false: Hugging Face's Tokenizer.decode never
// cleans up (that is transformers' option, which MiniMind sets false).
const tokenizer = new Tokenizer(JSON.parse(tokenizerBytes.toString('utf8')), {
  clean_up_tokenization_spaces: false,
});

function makeCase(text, inputBytes) {
  const ids = tokenizer.encode(text, { add_special_tokens: false }).ids;
  const withSpecial = tokenizer.encode(text, { add_special_tokens: true }).ids;
  if (JSON.stringify(ids) !== JSON.stringify(withSpecial)) {
    throw new Error(`add_special_tokens changes the ids of ${JSON.stringify(text)}: not MiniMind's settings`);
  }
  // The JS decode refuses an empty list; Hugging Face returns "".
  const decode = (skip) => (ids.length ? tokenizer.decode(ids, { skip_special_tokens: skip }) : '');
  const entry = { text, ids, decoded: decode(false), decoded_skip_special: decode(true) };
  if (inputBytes) entry.input_hex = Buffer.from(inputBytes).toString('hex');
  return entry;
}

const cases = [
  ...corpus.map((text) => makeCase(text)),
  ...invalidInputs.map((bytes) => makeCase(new TextDecoder().decode(new Uint8Array(bytes)), bytes)),
];
const fixture = {
  format_version: 1,
  generator: 'tests/make_tokenizer_fixtures.mjs',
  oracle: `@huggingface/tokenizers ${oraclePackage.version}`,
  tokenizer_sha256: createHash('sha256').update(tokenizerBytes).digest('hex'),
  cases,
};
// One case per line: readable diffs when the oracle or the corpus changes.
const header = JSON.stringify({ ...fixture, cases: [] }, null, 1).replace(/\[\]\n}$/, '[\n');
writeFileSync(outPath, header + cases.map((c) => ' ' + JSON.stringify(c)).join(',\n') + '\n ]\n}\n');
const roundTrips = cases.filter((c) => !c.input_hex && c.decoded === c.text).length;
console.log(
  `wrote ${relative(process.cwd(), outPath)}: ${cases.length} cases, ` +
    `${cases.reduce((n, c) => n + c.ids.length, 0)} ids, ${roundTrips} decode back to their text`,
);
