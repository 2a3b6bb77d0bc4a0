// The softmax of a logits row [V] at temperature 1, as torch.softmax computes
// it: the largest logit is subtracted before exp so none overflows. Float64
// sums, so probabilities of a 6400-word vocabulary add up to 1 within 1e-12.

function maxOf(values) {
  let max = -Infinity;
  for (let i = 0; i < values.length; i += 1) if (values[i] > max) max = values[i];
  return max;
}

/** softmax(values) as a Float64Array [V]. */
export function softmax(values) {
  const max = maxOf(values);
  const p = new Float64Array(values.length);
  let sum = 0;
  for (let i = 0; i < values.length; i += 1) sum += p[i] = Math.exp(values[i] - max);
  for (let i = 0; i < values.length; i += 1) p[i] /= sum;
  return p;
}
