// What the CLI's patch and circuit commands read alike: the clean / corrupt
// pair (--clean "..." | --clean-ids, --corrupt "..." | --corrupt-ids; the
// demo's pronoun pair when none is given and the model has a tokenizer), the
// metric's tokens (--answer, --wrong: ids or texts), and a token as printed.
import { PRONOUN_PAIR, nextToken, pronounPairAnswers } from './pronoun_pair.mjs';

/** A token as the CLI prints it: its text and id with a tokenizer, else the id. */
export function tokenName(tokenizer, id) {
  return tokenizer ? `${tokenizer.display([id])[0].text} ${id}` : String(id);
}

/**
 * --answer / --wrong: an id, or a text whose first token (after `prefix` when
 * the input was a text) is taken; undefined when not given.
 */
export function tokenOption(values, name, tokenizer, prefix, UsageError) {
  const given = values[name];
  if (given === undefined) return undefined;
  if (/^\s*\d+\s*$/.test(given)) return Number(given);
  if (!tokenizer) throw new UsageError(`--${name} "${given}" is a text, and this model has no tokenizer: give a token id`);
  if (prefix !== undefined) return nextToken(tokenizer, prefix, given);
  const ids = tokenizer.encode(given);
  if (ids.length === 0) throw new UsageError(`--${name} is empty`);
  return ids[0];
}

/**
 * The two runs and the metric's tokens: {clean, corrupt: {text, ids, labels},
 * answer, wrong} (their lengths are the caller's to check). helpers: cli.mjs's
 * {inputTokens, UsageError}; model: the one the ids are for.
 */
export function patchPair(values, tokenizer, model, { inputTokens, UsageError }) {
  const givesPair = [values.clean, values['clean-ids'], values.corrupt, values['corrupt-ids']].some((v) => v !== undefined);
  if ((values.clean !== undefined || values.corrupt !== undefined || !givesPair) && !tokenizer)
    throw new UsageError(
      'texts need a model with a tokenizer (a preset has no answer tokens of its own to compare): give --clean-ids and --corrupt-ids',
    );
  const side = (name) => {
    if (values[name] !== undefined && values[`${name}-ids`] !== undefined)
      throw new UsageError(`give --${name} or --${name}-ids, not both`);
    const text = values[name] ?? (givesPair ? undefined : PRONOUN_PAIR[name]);
    if (text === undefined && values[`${name}-ids`] === undefined) throw new UsageError(`give --${name} "..." or --${name}-ids 1,2,3`);
    return { text, ...inputTokens({ ids: values[`${name}-ids`], text, 'no-bos': values['no-bos'] }, tokenizer, null, model) };
  };
  const clean = side('clean');
  const corrupt = side('corrupt');
  let answer = tokenOption(values, 'answer', tokenizer, clean.text, UsageError);
  let wrong = tokenOption(values, 'wrong', tokenizer, clean.text, UsageError);
  if ((answer === undefined || wrong === undefined) && !givesPair) {
    const defaults = pronounPairAnswers(tokenizer);
    answer ??= defaults.answer;
    wrong ??= defaults.wrong;
  }
  if (answer === undefined || wrong === undefined) throw new UsageError('give --answer and --wrong (token ids or texts)');
  return { clean, corrupt, answer, wrong };
}
