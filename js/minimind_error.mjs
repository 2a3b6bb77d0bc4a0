// The module's one error type. The core throws a kind ("safetensors.header_too_long"),
// named values ({length, limit}) and an English message; the bindings hand all
// three to JS as a MiniMindError, so a caller can word the error in any
// language from kind and values while `message` stays the core's own text.
// A config's error (kind "config.invalid") also lists each problem as
// {kind, values, message}; a problem the core gives no kind has kind "".

export class MiniMindError extends Error {
  /**
   * @param {string} message the English text
   * @param {{kind?: string, values?: object, problems?: {kind: string, values: object, message: string}[]}} [options]
   */
  constructor(message, { kind = '', values = {}, problems } = {}) {
    super(message);
    this.name = 'MiniMindError';
    /** A stable name of what went wrong; "" when the core named none. */
    this.kind = kind;
    /** The numbers and names the message is made of. */
    this.values = values;
    if (problems !== undefined) this.problems = problems;
  }
}

/**
 * An error as plain data, for postMessage (which keeps only an Error's
 * message): {message, kind, values, problems?}.
 */
export function errorFields(error) {
  const fields = { message: String(error?.message ?? error), kind: typeof error?.kind === 'string' ? error.kind : '' };
  fields.values = error?.values && typeof error.values === 'object' ? { ...error.values } : {};
  if (Array.isArray(error?.problems)) fields.problems = error.problems.map((p) => ({ ...p, values: { ...p.values } }));
  return fields;
}

/**
 * An argument error of the JS API: a TypeError or RangeError (what a caller
 * tests with instanceof, and what `message` has always said) that also carries
 * a kind ("api.not_integer") and the values its message is made of, so the
 * page words it in the reader's language as it words the core's errors.
 * @template {ErrorConstructor | TypeErrorConstructor | RangeErrorConstructor} T
 * @param {T} Type
 * @param {string} kind
 * @param {object} values
 * @param {string} message
 * @param {{cause?: unknown}} [options] the Error constructor's (a caught error as cause)
 */
export function argumentError(Type, kind, values, message, options) {
  const error = new Type(message, options);
  error.kind = kind;
  error.values = values;
  return error;
}

/**
 * A value as an argument error's values show it: a number, true/false or a
 * (short) JSON string as written, else its type: the same in every language.
 */
export function shownArgument(value) {
  if (value === null || value === undefined) return String(value);
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return typeof value;
}
