// The attention matrices on screen, as the matrix panel draws them and the
// exports save them: both must agree on which matrices, which cells are
// masked and where one head's matrix lies.

/** The matrices on screen: the growing ones of a generation, else the forward's. */
export function shown(s) {
  return s.generation ?? s.result;
}

/** Generation runs MiniMind's attention as it is, with the causal mask. */
export function causalShown(s) {
  return s.generation ? true : s.causal;
}

export function isMasked(stage, causal) {
  // The causal mask hides keys after the query from "+ mask" on.
  return (i, j) => causal && j > i && (stage === 'scores_masked' || stage === 'attn_weights');
}

export function headMatrix(entry, head, T) {
  return entry.data.subarray(head * T * T, (head + 1) * T * T); // entry: [1, H, T, T]
}
