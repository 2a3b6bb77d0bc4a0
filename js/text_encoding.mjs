// How a pretrained MiniMind reads a text, in one place for everything that
// feeds the model one (the page, the element, the head-role probes, the
// Train panel's probe sentence): MiniMind's bos, then the tokenizer's ids
// (eval_llm.py: `bos_token + prompt`, and as the pretraining corpus is read).
// The tokenizer's own encode() adds no bos (tokenizer_config.json:
// add_bos_token false), so it is put in front here.

/** MiniMind's bos token: a pretrained MiniMind reads every text after it. */
const BOS_TOKEN = '<|im_start|>';

/** The bos id of `tokenizer`, or null when its vocabulary has no BOS_TOKEN. */
export function bosId(tokenizer) {
  const id = tokenizer.tokenToId(BOS_TOKEN);
  return id >= 0 ? id : null;
}

/** `ids` with the tokenizer's bos in front (none in front of nothing, nor without a bos). */
export function withBos(tokenizer, ids) {
  const bos = bosId(tokenizer);
  return ids.length > 0 && bos !== null ? [bos, ...ids] : ids;
}

/**
 * ids of `text` as MiniMind feeds a pretrained model: the bos, then the
 * tokenizer's ids. A text of nothing but whitespace has no tokens to show,
 * as with the page's own tokenisation.
 */
export function encodeText(tokenizer, text) {
  if (text.trim() === '') return [];
  return withBos(tokenizer, tokenizer.encode(text));
}

/**
 * encodeText(text) and the token span [start, end) of text.slice(c0, c1) in
 * it: {ids, start, end}. A span has its own tokens when the encodings of
 * the text before it and through it are prefixes of the whole text's
 * (names keep their own tokens in context); null when they are not, or
 * when the text is only whitespace.
 */
export function encodeSpan(tokenizer, text, c0, c1) {
  if (text.trim() === '') return null;
  const body = tokenizer.encode(text);
  const before = tokenizer.encode(text.slice(0, c0));
  const through = tokenizer.encode(text.slice(0, c1));
  const isPrefix = (part) => part.every((id, i) => body[i] === id);
  if (!isPrefix(before) || !isPrefix(through)) return null;
  const ids = withBos(tokenizer, body);
  const lead = ids.length - body.length;
  return { ids, start: lead + before.length, end: lead + through.length };
}
