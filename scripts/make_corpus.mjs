// The command line of the corpus generator (js/corpus.mjs): writes the
// project's training corpus as MiniMind pretraining JSONL, and its probes.
//
//   node scripts/make_corpus.mjs --seed 1 --lines 450000 --pack-tokens --out corpus.jsonl [--probes probes.json] [--stats stats.json]
import { readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import {
  HELD_OUT_PAIRS,
  corpusJsonl,
  heldOutPronounProbes,
  lessonProbes,
  makeCorpusLines,
  packLines,
  packLinesByTokens,
  repeatedTokenProbes,
} from '../js/corpus.mjs';

const DEFAULT_LINES = 450000;

function parseArgs(argv) {
  const args = {
    seed: 1,
    lines: DEFAULT_LINES,
    out: null,
    probes: null,
    tokenize: true,
    maxSeqLen: 64,
    pack: 0,
    packTokens: false,
    stats: null,
  };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) throw new Error(`${flag} needs a value`);
      return argv[++i];
    };
    const integer = (text) => {
      if (!/^-?\d+$/.test(text)) throw new Error(`${flag} needs an integer, got ${text}`);
      return Number(text);
    };
    if (flag === '--seed') args.seed = integer(value());
    else if (flag === '--lines') args.lines = integer(value());
    else if (flag === '--out') args.out = value();
    else if (flag === '--probes') args.probes = value();
    else if (flag === '--stats') args.stats = value();
    else if (flag === '--max-seq-len') args.maxSeqLen = integer(value());
    else if (flag === '--pack') args.pack = integer(value());
    else if (flag === '--pack-tokens') args.packTokens = true;
    else if (flag === '--no-tokenize') args.tokenize = false;
    else if (flag === '--help' || flag === '-h') args.help = true;
    else throw new Error(`unknown flag ${flag}`);
  }
  return args;
}

const USAGE = `usage: node scripts/make_corpus.mjs [--seed 1] [--lines ${DEFAULT_LINES}] --out FILE.jsonl [--probes FILE.json]
         [--pack CHARS | --pack-tokens] [--max-seq-len 64] [--no-tokenize] [--stats FILE.json]
writes MiniMind pretraining JSONL; --pack joins consecutive lines up to CHARS characters (56: 99.9% fit in 64 tokens);
--pack-tokens joins them while they fit max_seq_len with bos and eos, by MiniMind's tokenizer;
--probes writes the lesson, held-out and repeated-token probes; --stats the counts below as JSON (for the model card);
prints lines, characters and (with MiniMind's tokenizer) token counts`;

function quantile(sorted, q) {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  if (args.help || !args.out) {
    console.log(USAGE);
    process.exit(args.help ? 0 : 2);
  }
  if (args.pack > 0 && args.packTokens) throw new Error('give --pack or --pack-tokens, not both');
  if (args.stats && !args.tokenize) throw new Error('--stats counts tokens: it does not go with --no-tokenize');
  const generated = makeCorpusLines(args.lines, args.seed);
  let tokenizer = null;
  if (args.tokenize || args.packTokens) {
    const { loadMiniMind } = await import('../js/minimind.mjs');
    const mm = await loadMiniMind();
    tokenizer = mm.loadTokenizer(readFileSync(new URL('../models/minimind-tokenizer/tokenizer.json', import.meta.url), 'utf8'));
  }
  const room = args.maxSeqLen - 2; // [bos] text [eos]
  const lines = args.packTokens
    ? packLinesByTokens(generated, (text) => tokenizer.encode(text).length, room)
    : args.pack > 0
      ? packLines(generated, args.pack)
      : generated;
  writeFileSync(args.out, corpusJsonl(lines));
  const chars = lines.reduce((sum, line) => sum + [...line].length, 0);
  const packed = args.packTokens
    ? ` (${generated.length} packed to ${room} tokens)`
    : args.pack > 0
      ? ` (${generated.length} packed to ${args.pack} characters)`
      : '';
  console.log(`wrote ${args.out}: ${lines.length} lines${packed}, ${chars} characters (seed ${args.seed})`);
  if (args.probes) {
    const probes = {
      lesson: lessonProbes(),
      heldOut: heldOutPronounProbes(200, args.seed),
      repeatedTokens: repeatedTokenProbes(20, args.seed),
      heldOutPairs: HELD_OUT_PAIRS,
    };
    writeFileSync(args.probes, JSON.stringify(probes, null, 1) + '\n');
    console.log(`wrote ${args.probes}: 4 lesson, 200 held-out and 20 repeated-token probes`);
  }
  if (!args.tokenize) return tokenizer?.dispose();
  const lengths = lines.map((line) => tokenizer.encode(line).length).sort((x, y) => x - y);
  const total = lengths.reduce((sum, n) => sum + n, 0);
  const fit = lengths.filter((n) => n <= room).length;
  const trained = lengths.reduce((sum, n) => sum + Math.min(n, room) + 2, 0);
  console.log(
    `tokens: ${total} in texts, ${trained} with bos/eos at max_seq_len ${args.maxSeqLen}; per line mean ${(total / lengths.length).toFixed(1)}, ` +
      `min ${lengths[0]}, median ${quantile(lengths, 0.5)}, p90 ${quantile(lengths, 0.9)}, p99 ${quantile(lengths, 0.99)}, max ${lengths[lengths.length - 1]}; ` +
      `${((100 * fit) / lengths.length).toFixed(2)}% fit in ${args.maxSeqLen} (${lengths.length - fit} truncated)`,
  );
  if (args.stats) {
    const stats = {
      seed: args.seed,
      texts: generated.length,
      lines: lines.length,
      packing: args.packTokens ? `${room} tokens` : args.pack > 0 ? `${args.pack} characters` : 'none',
      characters: chars,
      tokens: total,
      maxSeqLen: args.maxSeqLen,
      truncated: lengths.length - fit,
    };
    writeFileSync(args.stats, JSON.stringify(stats, null, 1) + '\n');
  }
  tokenizer.dispose();
}

function runDirectly() {
  try {
    return !!process.argv[1] && realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (runDirectly()) {
  main().catch((error) => {
    console.error(error.message);
    process.exit(1);
  });
}
