// The median of a list of numbers (the mean of the middle two for an even
// count); plain JS, so the benchmark pages can import it too.
export function median(values) {
  const s = [...values].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}
