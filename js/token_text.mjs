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

// ---- token labels ---------------------------------------------------------
// A byte token (<0xE5><0x94>) names no character on its own: it begins 64 of
// them. The page labels every token by one rule, {label, raw, kind}:
//   'text'       a whole token (or a special one): label = raw
//   'completes'  a byte token whose character is completed in the sequence
//                shown: label = that character, on every token of its bytes
//   'predicted'  a predicted byte token: label = the character the model's
//                own greedy next bytes complete, marked 唱…
//   'bytes'      a byte token whose character is not known: 'E5 94'
// raw is the tokenizer's own text (<0xE5><0x94>), for tooltips and exports.

export const PREDICTED_MARK = '…';

const ESCAPE = /^<0x([0-9A-F]{2})>/;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** A token's text as the bytes it stands for: characters as UTF-8, <0xE5> as the byte 0xE5. */
function bytesOf(token) {
  if (!token.partial) return [...encoder.encode(token.text)];
  const out = [];
  for (let k = 0; k < token.text.length;) {
    const escape = ESCAPE.exec(token.text.slice(k, k + 6));
    if (escape) {
      out.push(parseInt(escape[1], 16));
      k += 6;
    } else {
      const c = String.fromCodePoint(token.text.codePointAt(k));
      out.push(...encoder.encode(c));
      k += c.length;
    }
  }
  return out;
}

/** The length of the UTF-8 character at bytes[pos] and whether it is whole (Unicode Table 3-7, as the tokenizer reads it). */
function characterAt(bytes, pos) {
  const b0 = bytes[pos];
  if (b0 < 0x80) return { length: 1, valid: true };
  let trail;
  let lo = 0x80;
  let hi = 0xbf;
  if (b0 >= 0xc2 && b0 <= 0xdf) trail = 1;
  else if (b0 >= 0xe0 && b0 <= 0xef) {
    trail = 2;
    if (b0 === 0xe0) lo = 0xa0;
    if (b0 === 0xed) hi = 0x9f;
  } else if (b0 >= 0xf0 && b0 <= 0xf4) {
    trail = 3;
    if (b0 === 0xf0) lo = 0x90;
    if (b0 === 0xf4) hi = 0x8f;
  } else return { length: 1, valid: false };
  for (let i = 1; i <= trail; i += 1) {
    const b = bytes[pos + i];
    if (b === undefined || b < lo || b > hi) return { length: i, valid: false };
    lo = 0x80;
    hi = 0xbf;
  }
  return { length: trail + 1, valid: true };
}

const hex = (b) => b.toString(16).toUpperCase().padStart(2, '0');

/** The short byte form of a token's text: <0xE5><0x94> → 'E5 94' (characters stay as they are). */
export function byteForm(text) {
  return text.replace(/(<0x[0-9A-F]{2}>)+/g, (run) => run.slice(3, -1).split('><0x').join(' '));
}

/**
 * [{label, raw, kind}] per token of a sequence, from the tokenizer's display
 * of it: a token that holds bytes of a character completed in the sequence
 * is labelled by that character (both tokens of 唱 = <0xE5><0x94> + <0xB1>
 * read 唱); bytes of a character not completed here read 'E5 94'.
 */
export function tokenLabels(shown) {
  const out = [];
  for (let first = 0; first < shown.length;) {
    let last = first;
    while (last + 1 < shown.length && shown[last + 1].group === shown[first].group) last += 1;
    const group = shown.slice(first, last + 1);
    if (!group.some((t) => t.partial)) out.push(...group.map((t) => ({ label: t.text, raw: t.text, kind: 'text' })));
    else out.push(...groupLabels(group));
    first = last + 1;
  }
  return out;
}

// Each token of a group: the characters that have a byte in it, whole ones as
// themselves, the bytes of an unfinished one in the short byte form.
function groupLabels(group) {
  const bytes = [];
  const starts = [];
  for (const token of group) {
    starts.push(bytes.length);
    bytes.push(...bytesOf(token));
  }
  starts.push(bytes.length);
  const pieces = group.map(() => []);
  let whole = true;
  for (let pos = 0; pos < bytes.length;) {
    const { length, valid } = characterAt(bytes, pos);
    const text = valid
      ? decoder.decode(new Uint8Array(bytes.slice(pos, pos + length)))
      : bytes
          .slice(pos, pos + length)
          .map(hex)
          .join(' ');
    whole &&= valid;
    for (let k = 0; k < group.length; k += 1) if (starts[k] < pos + length && starts[k + 1] > pos) pieces[k].push({ text, valid });
    pos += length;
  }
  return group.map((token, k) => {
    if (!token.partial) return { label: token.text, raw: token.text, kind: 'text' };
    const label = pieces[k].reduce((s, p, i) => s + (i > 0 && (!p.valid || !pieces[k][i - 1].valid) ? ' ' : '') + p.text, '');
    return { label, raw: token.text, kind: pieces[k].every((p) => p.valid) ? 'completes' : 'bytes' };
  });
}

/**
 * {label, raw, kind} of a predicted token on its own (shown: the tokenizer's
 * display of it; whole: the text its byte group makes once the model's greedy
 * next tokens complete it, or null when none is known).
 */
export function predictedLabel(shown, whole = null) {
  if (!shown.partial) return { label: shown.text, raw: shown.text, kind: 'text' };
  if (whole) return { label: `${whole}${PREDICTED_MARK}`, raw: shown.text, kind: 'predicted' };
  return { label: byteForm(shown.text), raw: shown.text, kind: 'bytes' };
}

/**
 * The text a byte token's group makes when the model reads on greedily after
 * it: next(sequence) -> the argmax id after the sequence's last token. Tokens
 * `ids` come before the predicted `id`; null when `id` is whole or no
 * character completes within `max` more tokens.
 */
export function greedyCompletion(tokenizer, ids, id, next, max = 3) {
  if (!tokenizer || !tokenizer.display([id])[0].partial) return null;
  const sequence = [...ids, id];
  for (let k = 0; k < max; k += 1) {
    sequence.push(next(sequence));
    // Whole once the group's text is a character, not its bytes.
    const shown = tokenizer.display(sequence.slice(ids.length));
    const bytes = shown.filter((t) => t.group === shown[0].group).map((t) => t.text);
    if (shown[0].groupText !== bytes.join('')) return shown[0].groupText;
  }
  return null;
}
