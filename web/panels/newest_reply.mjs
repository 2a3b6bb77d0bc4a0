// A "why" panel's newest worker reply. The client delivers only the newest
// request's answer, so an error is for the key asked last; the answer and the
// failure (errorFields, worded in the page's language when drawn) replace
// each other.

/** {answeredFor, answer, failure} after `message` (a result or an error) for the request keyed `asked`. */
export function newestReply(message, asked) {
  const answeredFor = message.asked ?? asked;
  return message.type === 'error' ? { answeredFor, answer: null, failure: message } : { answeredFor, answer: message, failure: null };
}
