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
