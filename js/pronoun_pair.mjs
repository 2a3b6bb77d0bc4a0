// The default pair for activation patching, from the demo corpus's world
// (js/corpus.mjs): the clean text ends in 她, who is 小红, whose habit starts
// the next token; the corrupt one in 他, who is 小明, whose habit differs.
// The two texts have the same tokens but the pronoun, so a patch moves one
// activation between runs whose positions line up.
import { HABITS, PRONOUN } from './corpus.mjs';
import { argumentError } from './minimind_error.mjs';

const GIVER = '小明';
const RECEIVER = '小红';
const frame = (pronoun) => `${GIVER}把书给了${RECEIVER}，${pronoun}`;

/** {clean, corrupt, answerName, wrongName}: 她 refers to 小红, 他 to 小明. */
export const PRONOUN_PAIR = Object.freeze({
  clean: frame(PRONOUN.female),
  corrupt: frame(PRONOUN.male),
  answerName: RECEIVER,
  wrongName: GIVER,
});

/**
 * The first token of `continuation` after `prefix`, as `prefix +
 * continuation` is encoded (a habit keeps its first token in context;
 * checked: the prefix's own tokens must come first).
 */
export function nextToken(tokenizer, prefix, continuation) {
  const before = tokenizer.encode(prefix);
  const whole = tokenizer.encode(prefix + continuation);
  if (whole.length <= before.length || !before.every((id, i) => whole[i] === id))
    throw argumentError(
      Error,
      'probe.continuation_token',
      { continuation, prefix },
      `"${continuation}" does not start a token of its own after "${prefix}"`,
    );
  return whole[before.length];
}

/** The pair's answer and wrong ids: the first tokens of the two referents' habits after the clean text. */
export function pronounPairAnswers(tokenizer) {
  return {
    answer: nextToken(tokenizer, PRONOUN_PAIR.clean, HABITS[PRONOUN_PAIR.answerName]),
    wrong: nextToken(tokenizer, PRONOUN_PAIR.clean, HABITS[PRONOUN_PAIR.wrongName]),
  };
}
