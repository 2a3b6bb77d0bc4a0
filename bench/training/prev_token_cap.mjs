#!/usr/bin/env node
// The table of what bounds a young model's previous-token score: the most a
// purely positional head can put on the previous token (js/prev_token_cap.mjs
// previousTokenCap) for each head_dim, q/k norm gain and sequence length, and
// the q/k norm gains a trained model's weights reached, for BENCHMARKS.md.
//
// Usage: node bench/training/prev_token_cap.mjs   (prints the table)
import { readFileSync } from 'node:fs';

import { previousTokenCap } from '../../js/prev_token_cap.mjs';

const CAP_CASES = { headDims: [16, 32], gains: [1, 1.5, 2], lengths: [14, 40] };

/** The table as Markdown rows: head_dim, gain, cap at each length. */
export function capTable() {
  const rows = [];
  for (const d of CAP_CASES.headDims) {
    for (const gain of CAP_CASES.gains) {
      const caps = CAP_CASES.lengths.map((T) => previousTokenCap(d, T, gain).toFixed(2));
      rows.push(`| ${d} | ${gain} | ${caps.join(' | ')} |`);
    }
  }
  return [
    `| head_dim | q/k norm gain | ${CAP_CASES.lengths.map((T) => `${T} tokens`).join(' | ')} |`,
    `|---|---|${CAP_CASES.lengths.map(() => '---').join('|')}|`,
    ...rows,
  ].join('\n');
}

/** The RMS of every q_norm / k_norm weight in a float16 or float32 model.safetensors: {min, max, count}. */
export function normGains(safetensorsPath) {
  const bytes = readFileSync(safetensorsPath);
  const headerLength = Number(bytes.readBigUInt64LE(0));
  const header = JSON.parse(bytes.subarray(8, 8 + headerLength).toString('utf8'));
  const view = new DataView(bytes.buffer, bytes.byteOffset + 8 + headerLength);
  const half = (h) => {
    const e = (h >> 10) & 31;
    const m = h & 1023;
    const v = e === 0 ? m * 2 ** -24 : (1 + m / 1024) * 2 ** (e - 15);
    return h & 0x8000 ? -v : v;
  };
  const gains = [];
  for (const [name, t] of Object.entries(header)) {
    if (!/\.(q|k)_norm\.weight$/.test(name)) continue;
    const [from, to] = t.data_offsets;
    const size = t.dtype === 'F16' ? 2 : 4;
    let sum = 0;
    for (let o = from; o < to; o += size) {
      const v = size === 2 ? half(view.getUint16(o, true)) : view.getFloat32(o, true);
      sum += v * v;
    }
    gains.push(Math.sqrt(sum / ((to - from) / size)));
  }
  return { min: Math.min(...gains), max: Math.max(...gains), count: gains.length };
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(capTable());
