// Lesson 11's labs A and B: the record lines the lesson asks the learner to
// fill in, the values it says they should see, and a reader for the record
// the core prints (mm.labRecord):
//   preset=lab-a seed=0
//   head_dim=16
//   x.shape=(2, 5, 64)
//   ...
//   attention weights for batch 0, head 0 =
//     [1.0000, 0.0000, 0.0000, 0.0000, 0.0000]
//     ...
//   future_attention_mass_for_batch0_head0=0.0000000000
//   manual_vs_module_max_abs_diff=0.000000238419
export const WEIGHTS_KEY = 'attention weights for batch 0, head 0';

// The lab's batch 0: the core feeds ids 3..7 (and 8..12 as batch 1).
export const LAB_IDS = '3 4 5 6 7';

/** Each lab's record lines in the lesson's order, with the lesson's expected values. */
export const LAB_RECORDS = {
  'lab-a': {
    command: 'python course/labs/trace_attention_shapes.py',
    lines: [
      ['x.shape', '(2, 5, 64)'],
      ['q_proj(x).shape', '(2, 5, 64)'],
      ['k_proj(x).shape', '(2, 5, 32)'],
      ['v_proj(x).shape', '(2, 5, 32)'],
      ['scores.shape', '(2, 4, 5, 5)'],
      [WEIGHTS_KEY, null],
      ['future_attention_mass_for_batch0_head0', '0.0000000000'],
      ['manual_vs_module_max_abs_diff', '0.000000000000'],
    ],
  },
  'lab-b': {
    command: 'python course/labs/trace_attention_shapes.py --hidden_size 96 --num_attention_heads 6 --num_key_value_heads 3',
    lines: [
      ['head_dim', '16'],
      ['q_proj(x).shape', '(2, 5, 96)'],
      ['k_proj(x).shape', '(2, 5, 48)'],
      ['xq.shape', '(2, 5, 6, 16)'],
      ['xk after repeat shape', '(2, 5, 6, 16)'],
      ['scores.shape', '(2, 6, 5, 5)'],
    ],
  },
};

/** The core's record text -> {preset, seed, values: Map(key -> text), weights: string[][]}. */
export function parseLabRecord(text) {
  const values = new Map();
  const weights = [];
  let preset = null;
  let seed = null;
  for (const line of text.split('\n')) {
    const header = /^preset=(\S+) seed=(\d+)$/.exec(line);
    const row = /^\s+\[(.*)\]$/.exec(line);
    const pair = /^([^=]+?)\s*=\s*(.*)$/.exec(line);
    if (header) [preset, seed] = [header[1], Number(header[2])];
    else if (row) weights.push(row[1].split(',').map((x) => x.trim()));
    else if (pair) values.set(pair[1], pair[2]);
  }
  return { preset, seed, values, weights };
}

/**
 * Rows to show: the lesson's lines first ({key, lesson, ours, status}), then
 * the rest of our record (lesson: null). status: 'same' | 'differs' | null
 * (nothing to compare).
 */
export function recordRows(lab, record) {
  const lines = LAB_RECORDS[lab]?.lines ?? [];
  const rows = [];
  const seen = new Set();
  for (const [key, lesson] of lines) {
    seen.add(key);
    rows.push(compare(key, lesson, record.values.get(key) ?? null));
  }
  for (const [key, ours] of record.values) {
    if (!seen.has(key) && key !== WEIGHTS_KEY) rows.push({ key, lesson: null, ours, status: null, extra: true });
  }
  return rows;
}

function compare(key, lesson, ours) {
  if (lesson === null || ours === null) return { key, lesson, ours, status: null, extra: false };
  return { key, lesson, ours, status: lesson === ours ? 'same' : 'differs', extra: false };
}
