// The index of the largest entry of values[from .. to), counted from `from`:
// the greedy choice over a logits row [V] (or a row of a [T, V] array read in
// place, with from = t·V and to = (t + 1)·V). Ties keep the lower index, as
// torch.argmax does; an empty range gives 0.
export function argmax(values, from = 0, to = values.length) {
  let best = from;
  for (let i = from + 1; i < to; i += 1) if (values[i] > values[best]) best = i;
  return best - from;
}
