// A chat prompt that fits a token limit (the page's matrix holds 128 tokens):
// where the rendered prompt is longer, the user's text is cut, its end first,
// and the template is kept whole, so that the prompt still ends with the
// assistant's tag the model answers after. Cutting the rendered prompt's ids
// instead would drop that tag first.
import { chatPrompt } from './chat_template.mjs';
import { argumentError } from './minimind_error.mjs';

/**
 * The ids of chatPrompt(text, options), in at most maxTokens: {ids, cut},
 * cut being how many characters (code points) of the text's end were left
 * out. encode(string) -> ids (the model's tokenizer). Throws when the
 * template alone does not fit.
 */
export function fitChatPrompt(encode, text, maxTokens, options = {}) {
  const chars = [...text];
  const render = (n) => encode(chatPrompt(chars.slice(0, n).join(''), options));
  const whole = render(chars.length);
  if (whole.length <= maxTokens) return { ids: whole, cut: 0 };
  const bare = render(0);
  if (bare.length > maxTokens)
    throw argumentError(
      RangeError,
      'chat.template_too_long',
      { tokens: bare.length, limit: maxTokens },
      `the chat template alone takes ${bare.length} tokens, more than the ${maxTokens} allowed`,
    );
  // The longest prefix that fits, by bisection: render(lo) always fits (a BPE may merge
  // across the cut, so lengths grow only nearly monotonically: a fit is always checked).
  let lo = 0;
  let hi = chars.length - 1;
  let best = bare;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    const ids = render(mid);
    if (ids.length <= maxTokens) {
      lo = mid;
      best = ids;
    } else hi = mid - 1;
  }
  return { ids: best, cut: chars.length - lo }; // best: render(lo)
}
