// The stand-in tokenizer of the CLI: split on whitespace, number the distinct
// words 3, 4, 5, ... in order of first appearance (0-2 are MiniMind's special
// ids <|endoftext|>, <|im_start|>, <|im_end|>).
export function whitespaceTokens(text) {
  const tokens = text.split(/\s+/u).filter((t) => t.length > 0);
  const vocabulary = new Map();
  const ids = tokens.map((t) => {
    if (!vocabulary.has(t)) vocabulary.set(t, 3 + vocabulary.size);
    return vocabulary.get(t);
  });
  return { ids, tokens };
}
