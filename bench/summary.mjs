#!/usr/bin/env node
// The generated blocks that quote BENCHMARKS.md: the one-screen summary table
// at its top, and the blocks of README.md and docs/ that repeat a few of its
// numbers. A measured number is written in one place, a section of
// BENCHMARKS.md written by its bench; everything here is read back from those
// sections, so it can be rebuilt at any time without measuring anything.
//
// A block sits between two comments, its name in both:
//   <!-- generated: NAME; node bench/summary.mjs writes this from FILE -->
//   ...
//   <!-- /generated: NAME -->
// NAME is a key of BLOCKS, which says what it is made from.
//
//   node bench/summary.mjs           rewrites every block (BENCHMARKS.md's summary, README.md, docs/)
//   node bench/summary.mjs --check   lists the stale blocks; exits with 1 if there are any
// bench/run.mjs calls writeSummary() after every run, since a full run rewrites BENCHMARKS.md whole.
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Name of the summary block at the top of BENCHMARKS.md. */
export const SUMMARY = 'summary';

const BLOCK = /<!-- generated: ([\w-]+)(?:;[^>]*)? -->\n([\s\S]*?)<!-- \/generated: \1 -->/g;

/** The generated blocks of a Markdown text: [{name, body, start, end}] (start/end: offsets of the whole block). */
export function findBlocks(text) {
  return [...text.matchAll(BLOCK)].map((m) => ({ name: m[1], body: m[2], start: m.index, end: m.index + m[0].length }));
}

/** `text` with each block's body emptied (the markers stay), so that a block is never read as its own source. */
function withoutBlockBodies(text) {
  return text.replace(BLOCK, (whole, name) => `${whole.slice(0, whole.indexOf('\n') + 1)}<!-- /generated: ${name} -->`);
}

// ------------------------------------------------------------ reading Markdown

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
function headingSlug(heading) {
  return heading
    .replace(/`/g, '')
    .replace(/<[^>]*>/g, (tag) => tag.slice(1, -1))
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** The headings of a Markdown text outside code blocks: [{level, title, slug, line}], slugs made unique as GitHub does. */
export function headingsOf(text) {
  const seen = new Map();
  const out = [];
  let fenced = false;
  text.split('\n').forEach((line, index) => {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const m = !fenced && /^(#{1,6})\s+(.+?)\s*#*\s*$/.exec(line);
    if (!m) return;
    const base = headingSlug(m[2]);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.push({ level: m[1].length, title: m[2], slug: n === 0 ? base : `${base}-${n}`, line: index });
  });
  return out;
}

/**
 * The section of `text` whose heading starts with `title` (the first one):
 * {title, slug, body}, body running to the next heading of the same or a
 * higher level; null when there is none.
 */
function section(text, title) {
  const lines = text.split('\n');
  const headings = headingsOf(text);
  const i = headings.findIndex((h) => h.title.startsWith(title));
  if (i < 0) return null;
  const h = headings[i];
  const next = headings.slice(i + 1).find((other) => other.level <= h.level);
  return { title: h.title, slug: h.slug, body: lines.slice(h.line + 1, next ? next.line : lines.length).join('\n') };
}

/** The cells of one table row ("\|" is a pipe inside a cell). */
function cells(line) {
  return line
    .trim()
    .replace(/^\|/, '')
    .replace(/\|$/, '')
    .split(/(?<!\\)\|/)
    .map((cell) => cell.trim().replace(/\\\|/g, '|'));
}

/** The pipe tables of a section's body: [{header: [..], rows: [[..], ..]}]. */
function tablesOf(body) {
  const tables = [];
  let current = null;
  for (const line of body.split('\n')) {
    if (!line.trim().startsWith('|')) {
      current = null;
      continue;
    }
    if (!current) {
      current = { header: cells(line), rows: [], separator: false };
      tables.push(current);
    } else if (!current.separator && /^\|?[\s:|-]+\|?$/.test(line.trim())) {
      current.separator = true;
    } else {
      current.rows.push(cells(line));
    }
  }
  return tables.filter((t) => t.separator);
}

const plain = (cell) => cell.replace(/\*\*/g, '').trim();

class MissingValue extends Error {}

/** Reads a section's numbers; every failed read names the section and what was looked for. */
class SectionReader {
  constructor(found) {
    this.title = found.title;
    this.slug = found.slug;
    this.body = found.body;
    this.tables = tablesOf(found.body);
  }

  fail(what) {
    throw new MissingValue(`bench/summary.mjs: no ${what} in the section "${this.title}" of BENCHMARKS.md; update bench/summary.mjs`);
  }

  /** The first table whose header has a column starting with each of `columns`. */
  table(columns) {
    const table = this.tables.find((t) => columns.every((c) => t.header.some((h) => plain(h).startsWith(c))));
    if (!table) this.fail(`table with the columns ${columns.join(', ')}`);
    const index = (c) => table.header.findIndex((h) => plain(h).startsWith(c));
    const has = (column) => index(column) >= 0;
    /** The row whose cells start as `match` says ({column start: cell start}). */
    const row = (match) => {
      const found = table.rows.find((r) => Object.entries(match).every(([c, v]) => plain(r[index(c)] ?? '').startsWith(v)));
      if (!found) this.fail(`row ${Object.values(match).join(' / ')}`);
      return found;
    };
    return {
      rows: table.rows,
      has,
      row,
      /** The cell of `column` in the row `match` finds. */
      cell: (match, column) => {
        const value = has(column) ? row(match)[index(column)] : undefined;
        if (value === undefined || plain(value) === '') this.fail(`${column} of ${Object.values(match).join(' / ')}`);
        return plain(value);
      },
      /** Column `column` of every row, plain. */
      values: (column) => table.rows.map((r) => plain(r[index(column)] ?? '')),
      /** Column `column` of every row as written (bold kept). */
      raw: (column) => table.rows.map((r) => r[index(column)] ?? ''),
    };
  }

  /** The first capture of `pattern` in the section's text. */
  match(pattern, what) {
    const m = pattern.exec(this.body);
    if (!m) this.fail(what);
    return m;
  }
}

// Drops a cell's parenthesis after its value: "136 ms (110 keystrokes)" -> "136 ms".
const leading = (cell) => cell.replace(/\s*\(.*$/, '');

// ------------------------------------------------------------ the summary's rows

// Each entry reads one section (by the start of its heading) into rows
// {measure, result}; a section the file does not have gives no rows.
const ROWS = [
  {
    section: 'Key ratios',
    rows(s) {
      const t = s.table(['preset', 'work', 'wasm-simd']);
      const of = (kind, column = 'wasm-simd') =>
        t.rows
          .map((r, i) => ({ preset: t.values('preset')[i], work: t.values('work')[i] }))
          .filter((r) => r.work.startsWith(kind))
          .map((r) => `${r.preset} ${r.work.replace(/ \(.*\)/, '')}: ${t.cell({ preset: r.preset, work: r.work }, column)}`)
          .join(', ');
      return [
        { measure: 'forward pass, prefill: ours (Wasm SIMD, 1 thread) × ONNX Runtime Web’s speed', result: of('prefill') },
        ...(t.has('wasm-relaxed')
          ? [
              {
                measure: 'forward pass, prefill: the relaxed build (fused multiply-adds, 1 thread) × ONNX Runtime Web’s speed',
                result: of('prefill', 'wasm-relaxed'),
              },
            ]
          : []),
        { measure: 'cached decoding: ours × ONNX Runtime Web’s speed', result: of('decode') },
        ...(t.has('wasm-relaxed')
          ? [{ measure: 'cached decoding: the relaxed build × ONNX Runtime Web’s speed', result: of('decode', 'wasm-relaxed') }]
          : []),
      ];
    },
  },
  {
    section: 'The page',
    rows(s) {
      const t = s.table(['preset', 'page load', 'keystroke to painted']);
      const list = (column) =>
        t
          .values('preset')
          .map((p) => `${p} ${leading(t.cell({ preset: p }, column))}`)
          .join(', ');
      return [
        { measure: 'the playground: page load to the first matrix', result: list('page load') },
        { measure: 'the playground: keystroke to the painted matrix', result: list('keystroke to painted') },
      ];
    },
  },
  {
    section: 'Memory',
    rows(s) {
      const t = s.table(['preset', 'runtime', 'after build']);
      const ours = t.cell({ preset: 'minimind-3', runtime: 'wasm-simd' }, 'after build');
      const ort = t.cell({ preset: 'minimind-3', runtime: 'ort-web' }, 'after build');
      return [
        {
          measure: 'memory after building minimind-3 (ONNX Runtime Web: its high-water mark)',
          result: `ours ${ours}, ONNX Runtime Web ${ort}`,
        },
      ];
    },
  },
  {
    section: 'Tokens per second',
    rows(s) {
      const t = s.table(['config', 'batch × seq', 'runtime', 'tokens/s']);
      const config = t.values('config').at(-1);
      const shape = t.row({ config })[1];
      const runs = t.rows.filter((r) => plain(r[0]) === config && r[1] === shape).map((r) => plain(r[2]));
      const result = runs.map((runtime) => `${runtime} ${t.cell({ config, 'batch × seq': shape, runtime }, 'tokens/s')}`).join(', ');
      return [{ measure: `training tokens/s, ${config} ${shape}, 1 thread`, result }];
    },
  },
  {
    section: 'Training in the page',
    rows: (s) => pageTrainingRows(s).filter((row) => row.summary),
  },
  {
    section: 'Head formation',
    rows(s) {
      const columns = ['previous-token', 'induction', 'pronoun'];
      const t = s.table(['run', ...columns]);
      // A cell in bold is a run that reached the goal.
      const reached = (column) => t.raw(column).filter((cell) => cell.includes('**')).length;
      const goal = (name) => s.match(new RegExp(`${name} ≥ ([\\d.]+)`, 'i'), `the goal of ${name}`)[1];
      const result = columns.map((c) => `${c} ≥ ${goal(c)}: ${reached(c)} of ${t.rows.length}`).join(', ');
      return [{ measure: 'head formation: the Train panel’s runs in which each head reached its goal', result }];
    },
  },
  {
    section: 'Threads',
    rows(s) {
      const work = s.table(['work', 'ours 2 vs 1']);
      const trainers = s.table(['trainer', '2 vs 1']);
      const forward = work
        .values('work')
        .filter((w) => /prefill 256|decode/.test(w))
        .map((w) => `${w} ${work.cell({ work: w }, 'ours 2 vs 1')}`);
      return [
        { measure: 'ours on 2 threads × 1 thread’s speed', result: forward.join(', ') },
        { measure: 'the native trainer on 2 threads × 1 thread’s speed', result: trainers.cell({ trainer: 'native' }, '2 vs 1') },
      ];
    },
  },
  {
    section: 'llama.cpp in the browser',
    rows(s) {
      const t = s.table(['work', 'ONNX Runtime Web', 'llama.cpp', 'ours, float16']);
      const work = { work: 'minimind2-small decode' };
      const ours = leading(t.cell(work, 'ours, float16'));
      const result = `ours ${ours}, llama.cpp (F32 / F16) ${t.cell(work, 'llama.cpp')}, ONNX Runtime Web ${t.cell(work, 'ONNX Runtime Web')}`;
      return [{ measure: 'a decode step in Chromium, minimind2-small, 1 thread', result }];
    },
  },
  {
    section: 'Limits',
    rows(s) {
      const kinds = headingsOf(s.body).filter((h) => h.level === 3);
      if (kinds.length === 0) s.fail('block per machine (### heading)');
      const result = kinds
        .map((kind) => {
          const goals = new SectionReader(section(s.body, kind.title)).table(['goal', 'measured']);
          const met = goals.rows.filter((r) => /^met\b/.test(plain(r[2] ?? ''))).length;
          return `${kind.title}: ${met} of ${goals.rows.length}`;
        })
        .join('; ');
      return [{ measure: 'speed goals met, against what the machine allows', result }];
    },
  },
  {
    section: 'Interpretability',
    rows(s) {
      const t = s.table(['work', 'Wasm SIMD, 1 thread']);
      const work = { work: 'patching, both sweeps' };
      const one = `1 thread ${leading(t.cell(work, 'Wasm SIMD, 1 thread'))}`;
      const two = t.has('Wasm SIMD + threads') ? `, 2 threads ${leading(t.cell(work, 'Wasm SIMD + threads'))}` : '';
      return [{ measure: 'activation patching, every head and residual, minimind2-small', result: one + two }];
    },
  },
];

/** The Train panel's default run in the page, from "Training in the page": rows, some of them also in the summary. */
function pageTrainingRows(s) {
  const rate = s.match(/tokens\/s in the page: (\d[\d.]*)/, 'tokens/s')[1];
  const [, seconds, why, batches] = s.match(/Stopped after\s+([\d.]+ s) \(([^)]*)\),\s+(\d+) batches done/, 'run length');
  const t = s.table(['measure', 'goal', 'result']);
  const row = (pattern) => {
    const i = t.values('measure').findIndex((m) => pattern.test(m));
    if (i < 0) s.fail(`row matching ${pattern}`);
    const r = t.rows[i];
    return { goal: plain(r[1]), result: plain(r[2]), status: plain(r[3] ?? '') };
  };
  const outcome = (pattern) => {
    const r = row(pattern);
    if (r.status === 'met') return `${r.goal}: met after ${leading(r.result)}`;
    const best = /best ([\d.]+)/.exec(r.result);
    return `${r.goal}: missed${best ? ` (best ${best[1]})` : ''}`;
  };
  const loss = row(/^loss/);
  const pronoun = s.match(/the last snapshot \(batch \d+\): [\d.]+ \((L\d+ H\d+), its pronoun score ([\d.]+)\)/, 'last pronoun score');
  return [
    { summary: true, measure: 'the Train panel’s default run in headless Chromium: tokens/s', result: rate },
    { summary: false, measure: 'batches, and the run’s length', result: `${batches} batches in ${seconds} (${why})` },
    {
      summary: true,
      measure: 'the Train panel’s default run: loss at half its first value after',
      result: loss.status === 'met' ? leading(loss.result) : 'not reached',
    },
    { summary: false, measure: 'a previous-token head', result: outcome(/previous-token/) },
    { summary: false, measure: 'an induction head', result: outcome(/induction/) },
    { summary: false, measure: 'pronoun score of the best pronoun head, last snapshot', result: `${pronoun[2]} (${pronoun[1]})` },
  ];
}

function table(rows, links) {
  const head = links ? '| measure | result | section |\n|---|---|---|\n' : '| measure | result |\n|---|---|\n';
  return head + rows.map((r) => `| ${r.measure} | ${r.result} |${links ? ` [${r.section}](#${r.slug}) |` : ''}\n`).join('');
}

/** The summary table of a BENCHMARKS.md text (its sections; the summary block itself is ignored). */
export function summaryBlock(benchmarks) {
  const text = withoutBlockBodies(benchmarks);
  const rows = [];
  for (const entry of ROWS) {
    const found = section(text, entry.section);
    if (!found) continue;
    const reader = new SectionReader(found);
    for (const row of entry.rows(reader)) rows.push({ ...row, section: found.title, slug: found.slug });
  }
  return (
    'At a glance: each row is read from the section it links to, which gives the machine, the date and the method. ' +
    'Ratios above 1× are faster.\n\n' +
    table(rows, true)
  );
}

/** The Train panel's default run as docs/training.md quotes it. */
function pageTrainingBlock(benchmarks) {
  const found = section(withoutBlockBodies(benchmarks), 'Training in the page');
  if (!found) return '(not measured yet: `node bench/run.mjs --only page-training`)\n';
  return table(pageTrainingRows(new SectionReader(found)), false);
}

/** What each block is made from: the source file (relative to the repository) and the function of its text. */
export const BLOCKS = {
  [SUMMARY]: { source: 'BENCHMARKS.md', render: summaryBlock },
  'page-training': { source: 'BENCHMARKS.md', render: pageTrainingBlock },
};

// ------------------------------------------------------------ writing

/**
 * `text` with every block rendered afresh; readSource(path) gives a source
 * file's text (the file itself for its own blocks). An unknown block name throws.
 */
export function refreshBlocks(text, readSource) {
  let out = '';
  let at = 0;
  for (const block of findBlocks(text)) {
    const spec = BLOCKS[block.name];
    if (!spec) throw new Error(`bench/summary.mjs: unknown generated block "${block.name}"`);
    const body = spec.render(readSource(spec.source));
    const open = text.slice(block.start, text.indexOf('\n', block.start) + 1);
    out += text.slice(at, block.start) + open + body + `<!-- /generated: ${block.name} -->`;
    at = block.end;
  }
  return out + text.slice(at);
}

/** The blocks of `text` whose body differs from a fresh rendering: [{name, expected, found}]. */
export function staleBlocks(text, readSource) {
  const fresh = findBlocks(refreshBlocks(text, readSource));
  return findBlocks(text)
    .map((block, i) => ({ name: block.name, found: block.body, expected: fresh[i].body }))
    .filter((b) => b.found !== b.expected);
}

const SUMMARY_OPEN = `<!-- generated: ${SUMMARY}; node bench/summary.mjs writes this from the sections below -->\n`;
const SUMMARY_CLOSE = `<!-- /generated: ${SUMMARY} -->`;

/** A BENCHMARKS.md text with the summary block right under its title (added when missing), rendered afresh. */
export function withSummary(benchmarks) {
  let text = benchmarks;
  if (!findBlocks(text).some((b) => b.name === SUMMARY)) {
    const title = /^# .*\n/.exec(text);
    const at = title ? title[0].length : 0;
    const rest = text.slice(at).replace(/^\n+/, '');
    text = `${text.slice(0, at)}\n${SUMMARY_OPEN}${SUMMARY_CLOSE}\n\n${rest}`;
  }
  return refreshBlocks(text, () => text);
}

/** Rewrites the summary at the top of a BENCHMARKS.md file (read right before writing: benches share the file). */
export function writeSummary(file = join(ROOT, 'BENCHMARKS.md')) {
  const before = readFileSync(file, 'utf8');
  const after = withSummary(before);
  if (after !== before) writeFileSync(file, after);
  return after !== before;
}

/** The Markdown files that may hold generated blocks: BENCHMARKS.md, README.md and docs/ (recursively). */
export function generatedFiles(root = ROOT) {
  const files = ['BENCHMARKS.md', 'README.md'].filter((f) => existsSync(join(root, f)));
  const walk = (dir) => {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.md')) files.push(path);
    }
  };
  if (existsSync(join(root, 'docs'))) walk('docs');
  return files;
}

/** A reader of source files under `root`, for refreshBlocks. */
export function sourceReader(root = ROOT) {
  return (path) => readFileSync(join(root, path), 'utf8');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const check = process.argv.includes('--check');
  let stale = 0;
  if (!check && writeSummary()) console.log('wrote the summary at the top of BENCHMARKS.md');
  for (const file of generatedFiles()) {
    const path = join(ROOT, file);
    const text = readFileSync(path, 'utf8');
    if (check) {
      for (const block of staleBlocks(text, sourceReader())) {
        console.log(`${file}: the block "${block.name}" is stale`);
        stale += 1;
      }
    } else {
      const fresh = refreshBlocks(text, sourceReader());
      if (fresh !== text) {
        writeFileSync(path, fresh);
        console.log(`wrote ${relative(ROOT, path)}`);
      }
    }
  }
  if (check && stale > 0) {
    console.log('run node bench/summary.mjs to rebuild them');
    process.exit(1);
  }
}
