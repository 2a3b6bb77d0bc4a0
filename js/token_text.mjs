// Text as a learner reads it, from the tokenizer's display of a sequence
// (Tokenizer.display: {text, partial, special, group, groupText} per token):
// tokens that share a character show it once, and the bytes of a character
// not yet complete stay <0x..> until the token that completes it.

/**
 * {prompt, generated}: the text of the first `promptLength` tokens and of
 * the rest. A character whose bytes straddle the two counts as generated.
 */
export function splitText(shown, promptLength) {
  let prompt = '';
  let generated = '';
  for (let first = 0; first < shown.length;) {
    let last = first;
    while (last + 1 < shown.length && shown[last + 1].group === shown[first].group) last += 1;
    if (last < promptLength) prompt += shown[first].groupText;
    else generated += shown[first].groupText;
    first = last + 1;
  }
  return { prompt, generated };
}

/**
 * The character that token `index` completes (<0xE8><0xB8> then <0xA2> → 踢)
 * when it is the last byte token of its group, else null.
 */
export function completedCharacter(shown, index) {
  const token = shown[index];
  if (!token?.partial || shown[index + 1]?.group === token.group) return null;
  const bytes = shown
    .filter((t) => t.group === token.group)
    .map((t) => t.text)
    .join('');
  return token.groupText === bytes ? null : token.groupText;
}
