// Growing the attention matrices by one row per generated token. A cached
// decoding step computes only the new query's row ([1, H, 1, Tk]); older rows
// gain one column for the new key: masked for them (−∞, weight 0), and for
// the raw and scaled scores, which cached decoding never computes, NaN (shown
// as "not computed").

const NEW_COLUMN = { scores_raw: NaN, scores_scaled: NaN, scores_masked: -Infinity, attn_weights: 0 };

/**
 * entries: [{layer, stage, shape: [1, H, T, T], data}]; rows: the step's [1, H, 1, T + 1],
 * one per entry (a token that ended generation unfed has none: it adds no row).
 */
export function appendRows(entries, rows) {
  return withLookup(
    entries.map((entry) => {
      const row = rows.find((r) => r.layer === entry.layer && r.stage === entry.stage);
      if (!row) throw new Error(`the step has no row for layer ${entry.layer}, ${entry.stage}`);
      const [, H, T] = entry.shape;
      const next = T + 1;
      const data = new Float32Array(H * next * next);
      for (let h = 0; h < H; h += 1) {
        for (let i = 0; i < T; i += 1) {
          data.set(entry.data.subarray((h * T + i) * T, (h * T + i + 1) * T), (h * next + i) * next);
          data[(h * next + i) * next + T] = NEW_COLUMN[entry.stage];
        }
        data.set(row.data.subarray(h * next, (h + 1) * next), (h * next + T) * next);
      }
      return { layer: entry.layer, stage: entry.stage, shape: [1, H, next, next], data };
    }),
  );
}

export function withLookup(entries) {
  return Object.assign(entries, { get: (layer, stage) => entries.find((e) => e.layer === layer && e.stage === stage) });
}
