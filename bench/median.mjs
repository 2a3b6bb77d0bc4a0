// The median of a list of numbers (the mean of the middle two for an even
// count); plain JS, so the benchmark pages can import it too.
export function median(values) {
  const s = [...values].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

/**
 * Per key of `samples` ({key: [result, ...]}), the median of each numeric
 * field of its results, and of each numeric field one object deep
 * ({stream: {49: GB/s}}); other fields as the first result has them.
 */
export function medianFields(samples) {
  const medians = {};
  for (const [key, list] of Object.entries(samples)) {
    medians[key] = {};
    for (const [field, value] of Object.entries(list[0])) {
      if (typeof value === 'number') medians[key][field] = median(list.map((r) => r[field]));
      else if (value && typeof value === 'object')
        medians[key][field] = Object.fromEntries(Object.keys(value).map((k) => [k, median(list.map((r) => r[field][k]))]));
      else medians[key][field] = value;
    }
  }
  return medians;
}
