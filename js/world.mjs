// What the project's trained model knows: the small world its corpus is
// generated from (js/corpus.mjs), nothing else. The model card on the page
// and the notice on text outside that world are computed from here:
//
//   worldSummary(stats)   {names, male, female, habits, example: {name, habit},
//                          texts, lines, tokens} — the names and habits counted
//                          from the generator, the sizes from corpus_stats.json
//   outsideWorld(text)    the runs of characters the corpus never writes
//                          (Latin letters, emoji, names the world does not have)
import { FEMALE_NAMES, HABITS, MALE_NAMES, makeCorpusLines } from './corpus.mjs';

// The generated texts use a few hundred characters; 2,000 texts already show
// every one of them (tests/node/head_note.test.mjs checks it against 20,000).
export const WORLD_SAMPLE = 2000;

let characters = null;

/** Every character the corpus writes (a Set), from WORLD_SAMPLE texts of its seed; computed once. */
export function worldCharacters() {
  characters ??= new Set(makeCorpusLines(WORLD_SAMPLE, 1).join(''));
  return characters;
}

/**
 * The training world in numbers. stats: corpus_stats.json ({texts, lines,
 * tokens, ...}); the example is the lesson's 小红 (the first female name).
 */
export function worldSummary(stats) {
  const example = FEMALE_NAMES[0];
  return {
    names: MALE_NAMES.length + FEMALE_NAMES.length,
    male: MALE_NAMES.length,
    female: FEMALE_NAMES.length,
    habits: new Set(Object.values(HABITS)).size,
    example: { name: example, habit: HABITS[example] },
    texts: stats?.texts ?? null,
    lines: stats?.lines ?? null,
    tokens: stats?.tokens ?? null,
  };
}

/**
 * The parts of `text` the world never writes: runs of characters outside
 * worldCharacters() (whitespace separates runs and is never counted), at
 * most `max`, each once, in order.
 */
export function outsideWorld(text, { known = worldCharacters(), max = 5 } = {}) {
  const runs = [];
  let run = '';
  const flush = () => {
    if (run && !runs.includes(run)) runs.push(run);
    run = '';
  };
  for (const ch of text) {
    if (/\s/u.test(ch) || known.has(ch)) flush();
    else run += ch;
  }
  flush();
  return runs.slice(0, max);
}
