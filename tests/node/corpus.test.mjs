// The training corpus generator (js/corpus.mjs, run by scripts/make_corpus.mjs): deterministic from
// its seed, Chinese without spaces, every pronoun resolved by gender and
// followed by its referent's habit, the referent first half the time, the
// held-out combinations never in training, and the probes as specified.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

import { loadMiniMind } from '../../js/minimind.mjs';
import {
  FEELINGS,
  FEMALE_NAMES,
  GENDER,
  HABITS,
  HELD_OUT_PAIRS,
  MALE_NAMES,
  corpusJsonl,
  heldOutCombos,
  heldOutPronounProbes,
  isHeldOut,
  lessonProbes,
  makeCorpusLines,
  packLinesByTokens,
  repeatedTokenProbes,
} from '../../js/corpus.mjs';

const SAMPLE = makeCorpusLines(20000, 1);
const PRONOUNS = { 他: 'male', 她: 'female' };

/** Any corpus name (all have two characters). */
const NAME = `(?:${[...MALE_NAMES, ...FEMALE_NAMES].join('|')})`;

/** The names of a text in order. */
function namesIn(text) {
  return [...text.matchAll(new RegExp(NAME, 'gu'))].map((m) => m[0]);
}

/** Every pronoun sentence of the sample: {line, sentence, names, pronoun, after}. */
function pronounSentences(lines) {
  const found = [];
  for (const line of lines)
    for (const sentence of line.split('。')) {
      const at = sentence.search(/[他她]/u);
      if (at < 0) continue;
      found.push({ line, sentence, names: namesIn(sentence.slice(0, at)), pronoun: sentence[at], after: sentence.slice(at + 1) });
    }
  return found;
}

test('the corpus is deterministic from its seed', () => {
  const a = corpusJsonl(makeCorpusLines(3000, 7));
  assert.equal(corpusJsonl(makeCorpusLines(3000, 7)), a);
  const other = makeCorpusLines(3000, 8);
  const same = makeCorpusLines(3000, 7).filter((line, i) => line === other[i]).length;
  assert.ok(same < 300, `${same} of 3000 lines equal across seeds`);
  assert.deepEqual(makeCorpusLines(50, 1), SAMPLE.slice(0, 50));
  for (const line of a.trimEnd().split('\n')) assert.deepEqual(Object.keys(JSON.parse(line)), ['text']);
});

test('texts have no spaces, no Latin letters and end a sentence', () => {
  for (const line of SAMPLE) {
    assert.doesNotMatch(line, /[\s\u3000a-zA-Z]/u, line);
    assert.match(line, /。$/u, line);
  }
});

test('every pronoun sentence names one male and one female, and the pronoun is followed by its referent’s habit', () => {
  const sentences = pronounSentences(SAMPLE);
  assert.ok(sentences.length > 11000, `${sentences.length} pronoun sentences`); // half the lines, some with two
  let habits = 0;
  let referentFirst = 0;
  let male = 0;
  for (const { line, sentence, names, pronoun, after } of sentences) {
    assert.equal(names.length, 2, sentence);
    const genders = names.map((n) => GENDER[n]).sort();
    assert.deepEqual(genders, ['female', 'male'], sentence);
    // the line names no one else
    for (const name of namesIn(line)) assert.ok(names.includes(name), `${name} in ${line}`);
    const referent = names.find((n) => GENDER[n] === PRONOUNS[pronoun]);
    if (after === HABITS[referent]) habits++;
    else assert.ok(FEELINGS.includes(after), `${sentence}: after the pronoun ${after}, not ${referent}'s habit ${HABITS[referent]}`);
    if (referent === names[0]) referentFirst++;
    if (pronoun === '他') male++;
  }
  const n = sentences.length;
  assert.ok(habits / n > 0.9, `habits follow ${habits} of ${n} pronouns`);
  assert.ok(Math.abs(referentFirst / n - 0.5) < 0.03, `referent first in ${referentFirst} of ${n}`);
  assert.ok(Math.abs(male / n - 0.5) < 0.03, `他 in ${male} of ${n}`);
  // no line without a pronoun sentence holds a pronoun
  for (const line of SAMPLE)
    if (/[他她]/u.test(line))
      assert.ok(
        line.split('。').some((s) => new RegExp(`^[^他她]*${NAME}[^他她]*${NAME}[^他她]*，[他她]`, 'u').test(s)),
        line,
      );
});

test('the other kinds of lines are there: repeated spans, moods, habits after names', () => {
  // a pronoun sentence said twice, bare or after a frame without names
  const sentenceRepeats = SAMPLE.filter((line) => /^(?:[^：。]*：)?([^。]*[他她][^。]*)。(?:[^：。]*：)?\1。$/u.test(line));
  const spans = SAMPLE.filter((line) => !sentenceRepeats.includes(line));
  const framed = spans.filter((line) => {
    const m = line.match(/：([^。]+)。(?:.*：)?([^。]+)。$/u);
    return m && m[1] === m[2];
  });
  // a span said twice or three times with nothing between (or a comma), as the induction probe is built
  const bare = spans.filter((line) => /^([^：。]{4,})，?\1\1?。$/u.test(line));
  // 41% of the lines (the repeated-span kind's weight): 30% of them a pronoun sentence, of the rest 40% bare
  assert.ok(
    sentenceRepeats.length > 0.1 * SAMPLE.length && sentenceRepeats.length < 0.145 * SAMPLE.length,
    `${sentenceRepeats.length} repeated sentences`,
  );
  const repeated = framed.length + bare.length;
  assert.ok(repeated > 0.26 * SAMPLE.length && repeated < 0.32 * SAMPLE.length, `${repeated} repeated-span lines`);
  assert.ok(bare.length > 0.35 * repeated && bare.length < 0.45 * repeated, `${bare.length} of ${repeated} bare repeats`);
  assert.ok(
    bare.some((line) => /^(.+)\1\1。$/u.test(line)),
    'some span said three times',
  );
  // the lesson's names are drawn 4 times as often as any other of their gender
  const count = (name) => SAMPLE.reduce((n, line) => n + line.split(name).length - 1, 0);
  for (const [lesson, other] of [
    ['小明', '王强'],
    ['小红', '苏静'],
  ]) {
    const ratio = count(lesson) / count(other);
    assert.ok(ratio > 3 && ratio < 5, `${lesson} ${ratio.toFixed(2)} times as often as ${other}`);
  }
  assert.ok(SAMPLE.some((line) => line.includes('今天天气很好')));
  const habitAfterName = SAMPLE.filter(
    (line) => !/[他她]/u.test(line) && namesIn(line).some((name) => line.endsWith(name + HABITS[name] + '。')),
  );
  assert.ok(habitAfterName.length > 0.03 * SAMPLE.length, `${habitAfterName.length} lines of a name and its habit`);
  assert.ok(SAMPLE.some((line) => line.includes('，她很开心。')) && SAMPLE.some((line) => line.includes('，他很开心。')));
});

test('held-out combinations never appear in training', () => {
  const clauses = new Set(SAMPLE.flatMap((line) => line.split(/[，。：]/u)));
  const combos = heldOutCombos();
  assert.ok(combos.length > 1000, `${combos.length} held-out combinations`);
  for (const combo of combos) for (const clause of combo.clauses) assert.ok(!clauses.has(clause), `held out, yet in training: ${clause}`);
  assert.ok(
    combos.some((c) => c.male === '小明' && c.female === '小红' && c.frame === 'give' && c.object === '苹果'),
    'the lesson’s combination is held out',
  );
  // held-out pairs never share a line
  assert.equal(HELD_OUT_PAIRS.length, MALE_NAMES.length);
  assert.deepEqual(new Set(HELD_OUT_PAIRS.map((p) => p[1])), new Set(FEMALE_NAMES));
  const pairKeys = new Set(HELD_OUT_PAIRS.map(([m, f]) => `${m}|${f}`));
  for (const line of SAMPLE) {
    const names = new Set(namesIn(line));
    for (const m of names) for (const f of names) assert.ok(!pairKeys.has(`${m}|${f}`), `held-out pair ${m} ${f} in ${line}`);
  }
  // and the lesson's sentence and swaps are not in training
  for (const { prefix } of lessonProbes()) assert.ok(!SAMPLE.some((line) => line.includes(prefix.slice(0, -2))), prefix);
});

test('held-out probes are built from held-out combinations only', () => {
  const probes = heldOutPronounProbes(400, 3);
  assert.deepEqual(heldOutPronounProbes(400, 3), probes);
  assert.equal(probes.filter((p) => p.first).length, 200);
  const trainingClauses = new Set(SAMPLE.flatMap((line) => line.split(/[，。]/u)));
  for (const p of probes) {
    assert.equal(p.text, p.prefix + p.habit);
    assert.equal(p.habit, HABITS[p.referent]);
    assert.equal(PRONOUNS[p.pronoun], GENDER[p.referent]);
    assert.notEqual(GENDER[p.other], GENDER[p.referent]);
    const [male, female] = GENDER[p.referent] === 'male' ? [p.referent, p.other] : [p.other, p.referent];
    assert.ok(isHeldOut(male, female, p.frame, p.object), p.text);
    const names = namesIn(p.prefix);
    assert.deepEqual(names, p.first ? [p.referent, p.other] : [p.other, p.referent]);
    assert.doesNotMatch(p.text, /[\s。]/u);
    assert.ok(!trainingClauses.has(p.text.split('，')[0]), p.text);
  }
});

test('lesson probes: the lesson’s sentence and its three swaps', () => {
  assert.deepEqual(
    lessonProbes().map(({ text, referent, pronoun }) => ({ text, referent, pronoun })),
    [
      { text: '小明把苹果给了小红，她很开心', referent: '小红', pronoun: '她' },
      { text: '小红把苹果给了小明，他很开心', referent: '小明', pronoun: '他' },
      { text: '小明把苹果给了小红，他很开心', referent: '小明', pronoun: '他' },
      { text: '小红把苹果给了小明，她很开心', referent: '小红', pronoun: '她' },
    ],
  );
});

test('repeated random token probes', () => {
  const probes = repeatedTokenProbes(10, 5, { length: 25 });
  assert.deepEqual(repeatedTokenProbes(10, 5, { length: 25 }), probes);
  assert.notDeepEqual(repeatedTokenProbes(10, 6, { length: 25 }), probes);
  for (const { ids, length } of probes) {
    assert.equal(length, 25);
    assert.equal(ids.length, 50);
    assert.deepEqual(ids.slice(25), ids.slice(0, 25));
    assert.equal(new Set(ids).size, 25);
    for (const id of ids) assert.ok(Number.isInteger(id) && id >= 100 && id <= 6399, `${id}`);
  }
});

test('with MiniMind’s tokenizer: pronouns and ， are one token, names one or two with no first token shared, habits start with their own token', async () => {
  const mm = await loadMiniMind();
  const tokenizer = mm.loadTokenizer(readFileSync(new URL('../../models/minimind-tokenizer/tokenizer.json', import.meta.url), 'utf8'));
  try {
    for (const text of ['他', '她', '，']) assert.equal(tokenizer.encode(text).length, 1, text);
    const firstTokens = new Map();
    const nameStarts = new Map();
    for (const name of [...MALE_NAMES, ...FEMALE_NAMES]) {
      const ids = tokenizer.encode(name);
      assert.ok(ids.length <= 2, `${name}: ${ids.length} tokens`);
      // the token before a name's second token says which name it is
      if (ids.length === 2) {
        assert.ok(!nameStarts.has(ids[0]), `${name} and ${nameStarts.get(ids[0])} start with the same token`);
        nameStarts.set(ids[0], name);
      }
      const pronoun = GENDER[name] === 'male' ? '他' : '她';
      const after = tokenizer.encode(`${pronoun}${HABITS[name]}`);
      assert.equal(after[0], tokenizer.encode(pronoun)[0], `${pronoun}${HABITS[name]}`);
      assert.ok(after.length <= 6, `${HABITS[name]}: ${after.length - 1} tokens`);
      assert.ok(!firstTokens.has(after[1]), `${HABITS[name]} and ${firstTokens.get(after[1])} start alike`);
      firstTokens.set(after[1], HABITS[name]);
    }
    // in context the names and pronouns keep their own tokens, and the lines fit max_seq_len 64 with bos and eos
    const contains = (ids, part) => ids.some((_, i) => part.every((id, j) => ids[i + j] === id));
    let fit = 0;
    for (const line of SAMPLE.slice(0, 3000)) {
      const ids = tokenizer.encode(line);
      if (ids.length <= 62) fit++;
      for (const name of namesIn(line)) {
        // The one known exception: in the visit frame (`…去建国家玩`) MiniMind's
        // tokenizer reads 建|国家; the committed model was trained so. Renaming
        // 建国 needs a retrain that still meets every target: one with 建华
        // moved the pronoun head to layer 3 and put 0.27 on 小明 in a lesson
        // swap (≥ 0.5 wanted). Any other name split in context fails.
        if (name === '建国' && line.includes('建国家')) {
          assert.ok(contains(ids, tokenizer.encode('建国家')), line);
          continue;
        }
        assert.ok(contains(ids, tokenizer.encode(name)), `${name} in ${line}`);
      }
      for (const [pronoun] of line.matchAll(/[他她]/gu)) assert.ok(ids.includes(tokenizer.encode(pronoun)[0]), line);
    }
    assert.ok(fit >= 2990, `${fit} of 3000 lines fit in 62 tokens`);
    // packed by tokens: every text exactly once, in order within its line, lines of at most 62 tokens and ~90% full
    const texts = SAMPLE.slice(0, 2000);
    const count = (text) => tokenizer.encode(text).length;
    const packed = packLinesByTokens(texts, count, 62);
    let next = 0;
    const used = new Set();
    let tokens = 0;
    for (const line of packed) {
      const n = count(line);
      tokens += n;
      let rest = line;
      while (rest) {
        // the texts of a line are later texts than the previous one of the same line
        const i = texts.findIndex((t, k) => k >= next && !used.has(k) && rest.startsWith(t));
        assert.ok(i >= 0, `${rest} is not made of the corpus texts`);
        used.add(i);
        rest = rest.slice(texts[i].length);
        if (!rest) next = 0;
        else next = i + 1;
      }
      if (n > 62) assert.ok(texts.includes(line), `${n} tokens in a packed line: ${line}`);
    }
    assert.equal(used.size, texts.length);
    assert.ok(tokens / packed.length > 0.88 * 62, `${(tokens / packed.length).toFixed(1)} tokens per packed line`);
    assert.throws(() => packLinesByTokens(texts, count, 0), /maxTokens/);
    const lesson = tokenizer.encode(lessonProbes()[0].text);
    assert.deepEqual(lesson.slice(0, 1), tokenizer.encode('小明'));
    assert.deepEqual(lesson.slice(5, 9), [...tokenizer.encode('小红'), ...tokenizer.encode('，'), ...tokenizer.encode('她')]);
  } finally {
    tokenizer.dispose();
  }
});
