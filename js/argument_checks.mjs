// The JS API's argument checks: one place for the TypeError/RangeError that
// every module throws before it calls the core, with the kind and values the
// page words in the reader's language (see minimind_error.mjs).
//
// Modules word a wrong value differently in their messages (the model API
// names an object's class, the interpretability tools and the chat template
// say less), so the checks are made per module by argumentChecks(), from that
// module's describer and its integer range defaults; messages stay as each
// module has always written them.

import { argumentError, shownArgument } from './minimind_error.mjs';

/** A wrong value as the model API's messages show it: long strings cut, objects by class. */
export function describeArgument(value) {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  return typeof value === 'object' ? `an object (${value.constructor?.name ?? 'Object'})` : `${typeof value} ${String(value)}`;
}

/** A wrong value as the interpretability tools' messages show it: strings whole, anything else by type and String(). */
export function describeBrief(value) {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'string' ? JSON.stringify(value) : `${typeof value} ${String(value)}`;
}

/** A wrong value as the chat template's messages show it: an object is only "an object". */
export function describeKind(value) {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `${typeof value} ${String(value)}`;
}

// The values and message of a wrong argument, as argumentError(Type, kind, ...) takes them.
const wrongArgument = (value, name, what, describe) => [
  { name, got: shownArgument(value) },
  `${name} must be ${what}, got ${describe(value)}`,
];

/**
 * The checks of one module. `describe` words the wrong value in messages;
 * `min`/`max` are integer()'s default range. Each check returns the value.
 * @param {{describe?: (value: unknown) => string, min?: number, max?: number}} [options]
 */
export function argumentChecks({ describe = describeArgument, min: minDefault = 0, max: maxDefault = Number.MAX_SAFE_INTEGER } = {}) {
  const wrong = (value, name, what) => wrongArgument(value, name, what, describe);
  return Object.freeze({
    describe,
    /** An integer in [min, max] (TypeError api.not_integer, RangeError api.out_of_range). */
    integer(value, name, min = minDefault, max = maxDefault) {
      if (typeof value !== 'number' || !Number.isInteger(value))
        throw argumentError(TypeError, 'api.not_integer', ...wrong(value, name, 'an integer'));
      if (value < min || value > max)
        throw argumentError(
          RangeError,
          'api.out_of_range',
          { name, min, max, got: value },
          `${name} must be between ${min} and ${max}, got ${value}`,
        );
      return value;
    },
    /** A finite number (TypeError api.not_number). */
    number(value, name) {
      if (typeof value !== 'number' || !Number.isFinite(value))
        throw argumentError(TypeError, 'api.not_number', ...wrong(value, name, 'a finite number'));
      return value;
    },
    /** A string (TypeError api.not_string). */
    string(value, name) {
      if (typeof value !== 'string') throw argumentError(TypeError, 'api.not_string', ...wrong(value, name, 'a string'));
      return value;
    },
    /** A non-null object; an array only with {arrays: true} (TypeError api.not_object). */
    object(value, name, { arrays = false } = {}) {
      if (typeof value !== 'object' || value === null || (!arrays && Array.isArray(value)))
        throw argumentError(TypeError, 'api.not_object', ...wrong(value, name, 'an object'));
      return value;
    },
    /** true or false, `fallback` when undefined (TypeError api.not_boolean); `why` follows "true or false" in the message. */
    flag(value, name, fallback = undefined, why = '') {
      if (value === undefined) return fallback;
      if (typeof value !== 'boolean') throw argumentError(TypeError, 'api.not_boolean', ...wrong(value, name, `true or false${why}`));
      return value;
    },
  });
}

// The values and message of a count or size that is not a safe integer in range.
const wrongSafeInteger = (value, name, what) => [{ name, got: String(value) }, `${name} must be ${what}, got ${value}`];

/** A count: a safe integer >= 0 (RangeError api.not_negative). */
export function checkCount(value, name) {
  if (!Number.isSafeInteger(value) || value < 0)
    throw argumentError(RangeError, 'api.not_negative', ...wrongSafeInteger(value, name, 'a non-negative integer'));
  return value;
}

/** A safe integer >= 1 (RangeError api.not_positive_integer). */
export function checkPositiveInteger(value, name) {
  if (!Number.isSafeInteger(value) || value < 1)
    throw argumentError(RangeError, 'api.not_positive_integer', ...wrongSafeInteger(value, name, 'a positive integer'));
  return value;
}
