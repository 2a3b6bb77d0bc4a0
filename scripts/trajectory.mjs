// Compares two training logs (the JSONL that `minimind train --log` and
// minimind-train --log write, one line per batch) bit for bit: a replay of a
// recorded run must give every batch the same loss and gradient norm, the
// same doubles, not merely close ones.

const FIELDS = ['loss', 'grad_norm', 'lr', 'tokens'];

/** A log's text as its entries, [{epoch, batch, loss, lr, grad_norm, tokens, ...}]. */
export function parseTrainLog(text) {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line, i) => {
      try {
        return JSON.parse(line);
      } catch {
        throw new Error(`training log line ${i + 1} is not JSON: ${line.slice(0, 80)}`);
      }
    });
}

/**
 * The batches where `replayed` differs from the first entries of `recorded`:
 * [{batch, field, recorded, replayed}], empty when every field of every
 * replayed batch is the same double (Object.is: -0 and NaN count as values).
 * A replay longer than the record is a difference too.
 */
export function trajectoryDifferences(recorded, replayed) {
  const differences = [];
  replayed.forEach((entry, i) => {
    const record = recorded[i];
    if (!record) {
      differences.push({ batch: entry.batch, field: 'batch', recorded: undefined, replayed: entry.batch });
      return;
    }
    for (const field of ['batch', ...FIELDS]) {
      if (!Object.is(record[field], entry[field]))
        differences.push({ batch: record.batch, field, recorded: record[field], replayed: entry[field] });
    }
  });
  return differences;
}
