// The k largest entries of a numeric array, largest first: [{id, value}]
// (id = index). One pass keeping a sorted list of at most k, so a 6400-word
// vocabulary costs O(V·k) with k small; ties keep the lower id first.
export function topK(values, k) {
  const top = [];
  for (let id = 0; id < values.length; id += 1) {
    const value = values[id];
    if (top.length < k || value > top[top.length - 1].value) {
      top.push({ id, value });
      top.sort((a, b) => b.value - a.value);
      if (top.length > k) top.pop();
    }
  }
  return top;
}
