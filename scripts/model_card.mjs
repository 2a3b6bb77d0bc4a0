// Writes the demo model's card from what training left in the model folder:
// MODEL_CARD.md (corpus, hyperparameters, the loss curve, head roles) and
// loss_curve.svg, from config.json, train_log.jsonl, train_run.json (the
// run's time, threads, batch size, CPU and load), heads.json, shape_runs.json
// (scripts/shape_runs.mjs), qk_stories.json (scripts/qk_stories.mjs),
// timeline.json (scripts/demo_timeline.mjs) and corpus_stats.json (scripts/make_corpus.mjs --stats). Every number about the
// model comes from those files.
//
//   node scripts/model_card.mjs [--model models/minimind-demo]
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

import { FEMALE_NAMES, FRAMES, HABITS, HELD_OUT_PAIRS, MALE_NAMES, OBJECTS, PLACES } from '../js/corpus.mjs';
import { previousTokenCap } from '../js/prev_token_cap.mjs';
import { inductionReading, pronounReading } from '../js/qk_stories.mjs';
import { formationEvents } from '../js/head_formation_events.mjs';
import { ROLE_THRESHOLDS } from '../js/head_roles.mjs';
import { scoreMatrices } from '../js/timeline.mjs';

const { values } = parseArgs({
  options: {
    model: { type: 'string' },
  },
});
const dir = values.model ?? 'models/minimind-demo';
const config = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'));
const heads = JSON.parse(readFileSync(join(dir, 'heads.json'), 'utf8'));
const log = readFileSync(join(dir, 'train_log.jsonl'), 'utf8').trim().split('\n').map(JSON.parse);
const corpus = JSON.parse(readFileSync(join(dir, 'corpus_stats.json'), 'utf8'));
const run = JSON.parse(readFileSync(join(dir, 'train_run.json'), 'utf8'));
const shapeRuns = JSON.parse(readFileSync(join(dir, 'shape_runs.json'), 'utf8'));
const qkStories = JSON.parse(readFileSync(join(dir, 'qk_stories.json'), 'utf8'));
const timeline = JSON.parse(readFileSync(join(dir, 'timeline.json'), 'utf8'));
const recipe = JSON.parse(readFileSync(new URL('demo_recipe.json', import.meta.url), 'utf8'));
const seconds = run.seconds;
// Where the best previous-token head looks on sentences: at a name's second
// token (红 of 小|红) it also reads the token before the name, so i−1 gets less.
const splitText = () => {
  const s = heads.previousTokenSplit;
  if (!s) return '';
  return `. On the sentences it follows content, not position alone: it puts ${s.afterNameStart.mass.toFixed(2)} on i−1 where i−1 is a name's first token (苏 of 苏|静, 小 of 小|红, ${number(s.afterNameStart.queries)} queries) and ${s.elsewhere.mass.toFixed(2)} elsewhere (${number(s.elsewhere.queries)})`;
};
// A pronoun role shared by several heads: the accuracy with all of them off.
const allOffText = () => {
  const r = heads.referentAccuracy;
  if (!r.pronounHeads || r.pronounHeads.length < 2) return '';
  const names = r.pronounHeads.map(([l, h]) => `layer ${l} head ${h}`).join(', ');
  return `; ${r.pronounHeads.length} heads put ≥ 0.5 of the pronoun on the referent (${names}), and with all of them switched off it is **${pct(r.allOff)}**`;
};
// The trainer's --batch-size: the log does not record it.
const batchSize = run.batchSize;
if (!Number.isInteger(batchSize) || batchSize < 1) {
  console.error(`model_card: ${join(dir, 'train_run.json')} needs batchSize (the trainer's samples per batch), got ${batchSize}`);
  process.exit(2);
}
const number = (n) => n.toLocaleString('en-US');
// MiniMind's get_lr starts at the base rate and ends at a tenth of it.
const baseLr = log[0].lr;
const lrText = (v) => v.toExponential(0);

// The loss per batch (light) and its moving average over 50 batches (dark), as an SVG line chart.
function lossCurve(entries) {
  const W = 720,
    H = 300,
    left = 50,
    right = 16,
    top = 16,
    bottom = 40;
  const losses = entries.map((e) => e.loss);
  const maxLoss = Math.ceil(Math.max(...losses));
  const x = (i) => left + ((W - left - right) * i) / Math.max(1, losses.length - 1);
  const y = (v) => top + (H - top - bottom) * (1 - v / maxLoss);
  // Thousands of batches share each pixel column: a column's points are drawn
  // as its first, lowest, highest and last value, which looks the same as
  // every point and keeps the file small (a few points per column, not per batch).
  const path = (series, keep) => {
    const columns = new Map();
    series.forEach((v, i) => {
      const c = Math.round(x(i));
      if (!columns.has(c)) columns.set(c, []);
      columns.get(c).push(v);
    });
    const points = [...columns].flatMap(([c, vs]) => keep(vs).map((v) => `${c},${y(v).toFixed(1)}`));
    return `M${points.join('L')}`;
  };
  const range = (vs) => [vs[0], Math.min(...vs), Math.max(...vs), vs[vs.length - 1]];
  const ends = (vs) => [vs[0], vs[vs.length - 1]];
  const smooth = losses.map((_, i) => {
    const from = Math.max(0, i - 49);
    const window = losses.slice(from, i + 1);
    return window.reduce((a, b) => a + b, 0) / window.length;
  });
  const yTicks = Array.from({ length: maxLoss + 1 }, (_, v) => v);
  const xTicks = Array.from({ length: 6 }, (_, k) => Math.round((k * (losses.length - 1)) / 5));
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="12">
<rect width="${W}" height="${H}" fill="#ffffff"/>
${yTicks.map((v) => `<line x1="${left}" x2="${W - right}" y1="${y(v)}" y2="${y(v)}" stroke="#e5e7eb"/><text x="${left - 6}" y="${y(v) + 4}" text-anchor="end" fill="#374151">${v}</text>`).join('\n')}
${xTicks.map((i) => `<text x="${x(i)}" y="${H - bottom + 16}" text-anchor="middle" fill="#374151">${i + 1}</text>`).join('\n')}
<text x="${(left + W - right) / 2}" y="${H - 6}" text-anchor="middle" fill="#111827">batch (${batchSize} × 64 tokens)</text>
<text x="14" y="${(top + H - bottom) / 2}" text-anchor="middle" fill="#111827" transform="rotate(-90 14 ${(top + H - bottom) / 2})">loss</text>
<path d="${path(losses, range)}" fill="none" stroke="#93c5fd" stroke-width="1"/>
<path d="${path(smooth, ends)}" fill="none" stroke="#1d4ed8" stroke-width="2"/>
</svg>
`;
}

const steps = log.length;
const tokens = log.reduce((a, e) => a + e.tokens, 0);
const first = log[0].loss;
const last50 = log.slice(-50).reduce((a, e) => a + e.loss, 0) / Math.min(50, log.length);
writeFileSync(join(dir, 'loss_curve.svg'), lossCurve(log));

const pct = (v) => `${(100 * v).toFixed(1)}%`;
const table = heads.heads
  .map(
    (h) =>
      `| ${h.layer} | ${h.head} | ${h.previousToken.toFixed(2)} | ${h.induction.toFixed(2)} | ${h.pronoun.toFixed(2)} | ${h.entropy.toFixed(2)} | ${h.sink.toFixed(2)} | ${h.role} |`,
  )
  .join('\n');
const bestOf = (record, key) => record.heads.reduce((a, h) => (h[key] > a[key] ? h : a));
const best = (key) => bestOf(heads, key);
const { layer, head } = heads.pronounHead;
const minutes = Number.isFinite(seconds) ? `${(seconds / 60).toFixed(1)} minutes` : 'an unrecorded time';

// The project's targets for a model's heads.json record, each with its
// measured value: [what, wanted, value, met].
function targetRows(record) {
  const { layer: l, head: h } = record.pronounHead;
  const pronoun = record.heads.find((x) => x.layer === l && x.head === h).pronoun;
  const previous = bestOf(record, 'previousToken').previousToken;
  const induction = bestOf(record, 'induction').induction;
  return [
    ['pronoun head: mean mass on the referent, held-out sentences', '≥ 0.60', pronoun, pronoun >= 0.6],
    ...record.lesson.map((x) => [`same head, ${x.text} → ${x.referent}`, '≥ 0.50', x.mass, x.mass >= 0.5]),
    ['referent-dependent token after the pronoun predicted', '≥ 95%', record.referentAccuracy.on, record.referentAccuracy.on >= 0.95],
    ['best previous-token score', '≥ 0.80', previous, previous >= 0.8],
    ['best induction score', '≥ 0.50', induction, induction >= 0.5],
  ];
}

function targets() {
  const rows = targetRows(heads);
  const met = rows.filter((r) => r[3]).length;
  return [
    `${met} of ${rows.length} met.`,
    '',
    '| target | wanted | measured | |',
    '|---|---|---|---|',
    ...rows.map(([what, wanted, value, ok]) => `| ${what} | ${wanted} | ${value.toFixed(2)} | ${ok ? 'met' : '**missed**'} |`),
  ].join('\n');
}

// The previous-token cap of a head at q/k gain 1 (the norm weights' start),
// at the held-out probes' mean length, for this head_dim and for 64, the
// narrowest head of MiniMind's released models.
const probeLength = Math.round(1 + heads.probes.previousToken / heads.probes.texts);
const shapeCaps = [...new Set([config.head_dim, 64])].map((d) => [d, previousTokenCap(d, probeLength, 1)]);

// The model's parameters, from model.safetensors' header (the tied
// lm_head.weight, a copy of the embedding, counted once).
function parameterCount() {
  const bytes = readFileSync(join(dir, 'model.safetensors'));
  const header = JSON.parse(bytes.subarray(8, 8 + Number(bytes.readBigUInt64LE(0))).toString('utf8'));
  return Object.entries(header)
    .filter(([key]) => key !== '__metadata__' && !(key === 'lm_head.weight' && config.tie_word_embeddings !== false))
    .reduce((sum, [, entry]) => sum + entry.shape.reduce((a, b) => a * b, 1), 0);
}

// Why the shipped shape, against the retrains of shape_runs.json that
// changed one thing (measured on the same probes as heads.json).
function kvHeadsText() {
  const kv = shapeRuns.runs.find((r) => r.num_key_value_heads !== config.num_key_value_heads && r.head_dim === config.head_dim);
  const shipped = best('previousToken').previousToken.toFixed(2);
  if (!kv) return `- ${config.num_key_value_heads} kv heads: the best previous-token head scores ${shipped} on held-out sentences (below).`;
  const r = kv.heads;
  const split = r.previousTokenSplit;
  const others = targetRows(r).filter(([what]) => what !== 'best previous-token score');
  const othersMet = others.filter((row) => row[3]).length;
  const extra = config.num_hidden_layers * 2 * config.hidden_size * (config.num_key_value_heads - kv.num_key_value_heads) * config.head_dim;
  const share = Math.round((100 * extra) / parameterCount());
  return `- ${config.num_key_value_heads} kv heads${config.num_key_value_heads === config.num_attention_heads ? ', one per head (no GQA sharing)' : ''}: with ${kv.num_key_value_heads} kv heads (the model of commit ${kv.commit.slice(0, 7)}, \`shape_runs.json\`) the best previous-token head scored ${bestOf(r, 'previousToken').previousToken.toFixed(2)} on held-out sentences (${split.afterNameStart.mass.toFixed(2)} where i−1 starts a name, ${split.elsewhere.mass.toFixed(2)} elsewhere) and ${othersMet === others.length ? 'every other target was met' : `${othersMet} of the other ${others.length} targets were met`}; with ${config.num_key_value_heads}, ${shipped} (below). They cost ${config.num_hidden_layers} × 2 × ${config.hidden_size} × ${(config.num_key_value_heads - kv.num_key_value_heads) * config.head_dim} = ${number(extra)} more parameters (${share}%) and no measurable training time (300 batches side by side: the same 233 ms each).`;
}

// Which probes heads.json measured: the held-out seed, or the development
// seed whose probes chose the corpus and the shape.
function probeSeedText() {
  const { developmentSeed, heldOutSeed, heldOutSeedFrom } = recipe.probes;
  const seed = heads.probes.seed ?? developmentSeed;
  const development = `seed ${developmentSeed} was the development set: its probes drove the retrains, the corpus's design and the shape above, so scores on its probes are not an unbiased measure`;
  if (seed === heldOutSeed)
    return `The probes are drawn with seed ${seed} (the first 8 hex digits of sha256("${heldOutSeedFrom}"), \`scripts/demo_recipe.json\`), chosen after the model was trained: no design choice saw them. Probe ${development}. The lesson's sentence and its three swaps (below) are fixed sentences, not drawn from a seed, and the corpus was designed around them.`;
  return `The probes are drawn with seed ${seed}${seed === developmentSeed ? `, the development set: its probes drove the retrains, the corpus's design and the shape above, so these scores are not an unbiased measure (the held-out seed is ${heldOutSeed})` : ''}.`;
}

// Why the heads attend where they do: QK attribution over many probes
// (qk_stories.json), each sentence computed from its numbers.
const f2 = (v) => v.toFixed(2);
const spreadText = (s) => `${f2(s.mean)} (sd ${f2(s.sd)}; ${f2(s.min)} … ${f2(s.max)})`;
const seedName = (seed) => (seed === recipe.probes.heldOutSeed ? `${seed} (held out)` : `${seed} (development)`);

function inductionText() {
  const records = qkStories.induction;
  const prevNames = records[0].previousTokenHeads;
  const rows = records.flatMap((r) =>
    r.heads.map((h) => {
      const { previous } = inductionReading(h, r.previousTokenHeads);
      const part = previous
        ? `${previous.component}: ${spreadText(previous)} | ${pct(previous.share)} | ${h.largest[previous.component]} of ${h.cells}`
        : '— | — | —';
      return `| ${h.name} | ${seedName(r.seed)} | ${h.cells} | ${f2(h.weight.mean)} | ${spreadText(h.contrast)} | ${part} |`;
    }),
  );
  const heldOut = records.find((r) => r.seed === recipe.probes.heldOutSeed) ?? records[0];
  const others = records.filter((r) => r !== heldOut);
  const sentences = heldOut.heads.map((h) => {
    const { previous, top, kind } = inductionReading(h, heldOut.previousTokenHeads);
    const rest = h.parts
      .filter((p) => p !== previous)
      .slice(0, 2)
      .map((p) => `${p.component} ${f2(p.mean)}`)
      .join(', ');
    const lowest = h.parts[h.parts.length - 1];
    const against = lowest.mean < 0 ? `; against it, ${lowest.component} ${f2(lowest.mean)}` : '';
    const also = others
      .map((r) => {
        const o = r.heads.find((x) => x.name === h.name);
        const reading = inductionReading(o, r.previousTokenHeads);
        return reading.previous
          ? `on seed ${r.seed}'s, ${f2(reading.previous.mean)} of ${f2(o.contrast.mean)}, ${pct(reading.previous.share)}, largest in ${o.largest[reading.previous.component]}`
          : '';
      })
      .filter(Boolean)
      .join('; ');
    const small =
      h.weight.mean >= 0.5
        ? ". The contrast is small because the weighted mean is mostly the key's own score; its split is what matters"
        : '';
    const lead = `- **${h.name}** (mean weight ${f2(h.weight.mean)} on the induction key): the key's score is above the row's weighted mean by ${f2(h.contrast.mean)} on average, and not above it in ${h.notAbove} of ${h.cells} cells${small}`;
    if (kind === 'no-contrast')
      return `${lead}. On these probes it does not prefer the induction key on average: there is no key-side story to tell.`;
    if (kind === 'none')
      return `${lead}. No previous-token head precedes it; the key side's largest part is ${top.component}'s, ${f2(top.mean)} (${pct(top.share)}).`;
    const prevRecord = heads.heads.find((x) => `L${x.layer}H${x.head}` === previous.component);
    const prevRole =
      prevRecord?.previousTokenRandom === undefined
        ? ''
        : ` (${f2(prevRecord.previousTokenRandom)} of its attention on the token before, on these random sequences)`;
    const over = previous.share > 1 ? `; more than the whole, the other parts together giving ${f2(h.contrast.mean - previous.mean)}` : '';
    const writes = `${previous.component}, the previous-token head${prevRole}, writes on average ${f2(previous.mean)} of it on the key side (${pct(previous.share)}${over}), from ${f2(previous.min)} to ${f2(previous.max)} (sd ${f2(previous.sd)}), and its part is the largest in ${h.largest[previous.component]} of ${h.cells} cells${also ? ` (${also})` : ''}`;
    const verdict = {
      most: `. So the largest single part of what makes the induction key stand out is usually what ${previous.component} wrote at the key's position: the pattern of K-composition, though not in every cell. Next on the key side: ${rest}${against}.`,
      largest: `. It is the largest part, but under half: the rest comes from ${rest} and others, so K-composition through ${previous.component} is one path among several.`,
      'not-largest': `, but ${top.component}'s part is larger, ${f2(top.mean)} (${pct(top.share)}): these numbers do not show K-composition through ${previous.component} as the main path.`,
    }[kind];
    return `${lead}. ${writes}${verdict}`;
  });
  return [
    `On the \`heads\` command's induction probes (${heldOut.sequences} sequences of ${heldOut.length} of the corpus's tokens said twice after the bos; at each token's second occurrence, the query, and the token after its first occurrence, the key: ${heldOut.heads[0].cells} cells per seed), each induction head's contrast split by the component that wrote the key (summed over the query side); the sentences read the held-out seed, the table gives both. The previous-token head${prevNames.length === 1 ? '' : 's'} of the table above: ${prevNames.join(', ') || 'none'}.`,
    '',
    "| head | probe seed | cells | mean weight on the key | contrast: mean (sd; min … max) | previous-token head's key-side part: mean (sd; min … max) | share of the mean contrast | cells where it is the largest part |",
    '|---|---|---|---|---|---|---|---|',
    ...rows,
    '',
    ...sentences,
  ].join('\n');
}

// How it learned: the training timeline (timeline.json, scripts/demo_timeline.mjs),
// the moments each head crossed its role's threshold on the light probes, the
// ICL score over the same stretch, and where the induction heads' keys come
// from; every number read off the file.
function timelineText() {
  const entries = timeline.snapshots.map((e) => ({ ...e, scores: scoreMatrices(e.heads) }));
  const events = formationEvents(entries);
  const last = entries[entries.length - 1];
  const million = (tokens) => `${(tokens / 1e6).toFixed(2)}M`;
  const kindName = { pronoun: 'a pronoun', induction: 'an induction', previousToken: 'a previous-token' };
  const scoreName = { pronoun: 'pronoun', induction: 'induction', previousToken: 'previous-token' };
  const rows = events.map((e) => {
    const at = entries.findIndex((x) => x.step === e.step);
    const name = `L${e.layer}H${e.head}`;
    // The stretch: from the last entry before it where the score was under half its threshold.
    let from = at;
    while (from > 0 && !(entries[from].heads[name][e.kind] < ROLE_THRESHOLDS[e.kind] / 2)) from -= 1;
    const icl = entries[at].icl - entries[from].icl;
    return `| ${name} | ${kindName[e.kind]} head (${scoreName[e.kind]} ≥ ${ROLE_THRESHOLDS[e.kind]}) | ${number(e.step)} | ${million(entries[at].tokens)} | ${f2(e.value)} | ${number(entries[from].step)} → ${number(e.step)} | ${icl >= 0 ? '+' : ''}${f2(icl)} |`;
  });
  const composed = Object.entries(last.composition)
    .filter(([, shares]) => shares)
    .map(([name, shares]) => {
      const [source, share] = Object.entries(shares).reduce((a, b) => (b[1] > a[1] ? b : a));
      return { name, source, share, gap: last.gaps[name] };
    })
    .filter(({ name }) => last.heads[name].induction >= ROLE_THRESHOLDS.induction);
  const sources = composed.map(({ name, source, share, gap }) => {
    const first = entries.find(
      (e) => e.composition[name] && Object.entries(e.composition[name]).every(([h, v]) => h === source || v <= e.composition[name][source]),
    );
    return `- ${name}'s keys at the last entry: of its gap of ${f2(gap)} (its score on the induction key above the mean of the row's other keys), ${pct(share)} is written by ${source}${first ? `, the largest share since batch ${number(first.step)} (${million(first.tokens)} tokens)` : ''}.`;
  });
  return [
    `\`timeline.json\` follows the model through its training: an entry before the first batch and every ${number(timeline.every)} batches (${timeline.snapshots.length} entries, the last at the shipped weights), made by \`node scripts/demo_timeline.mjs\` from the weights the full replay saves (\`npm run test:replay\` checks every entry). Each holds the held-out loss and the in-context-learning score (${timeline.icl.sequences} held-out windows of ${timeline.icl.length} tokens: the mean loss over the last quarter of positions minus positions ${timeline.icl.early[0]}–${timeline.icl.early[1] - 1}), every head's role scores on the Train panel's light probes, which earlier heads write each later head's keys on the induction probe, and the lesson sentence's attention. The Train panel scrubs it as "how this model learned" (docs/training.md).`,
    '',
    `The ICL score went from ${f2(entries[0].icl)} at batch 0 to ${f2(last.icl)} at the end; the held-out loss from ${f2(entries[0].loss)} to ${f2(last.loss)}. The moments a head first crossed its role's threshold on the light probes (fewer probes than heads.json's, so the scores differ from the table above):`,
    '',
    '| head | became | batch | tokens | score then | stretch (batches) | ICL change over it (nats) |',
    '|---|---|---|---|---|---|---|',
    ...rows,
    '',
    ...sources,
  ].join('\n');
}

// A token in a table cell: quoted when it holds whitespace or a control
// character, its | escaped so that it does not end the cell.
const tokenCell = (token) => (/[\s\p{Cc}]/u.test(token) ? JSON.stringify(token) : token).replace(/\|/g, '\\|');

function pronounText() {
  const p = qkStories.pronoun;
  const rows = p.sentences.map((s) => {
    const tops = s.top
      .slice(0, 5)
      .map((t) => `${tokenCell(t.token)} ${f2(t.score)}`)
      .join(', ');
    return `| ${s.text} | ${s.pronoun} (${s.query}) → ${s.keyToken === s.referent ? s.referent : `${s.keyToken} of ${s.referent}`} (${s.key}) | ${f2(s.score)} | ${s.rank} | ${s.starts.female} / ${s.starts.male} / ${s.starts.both} / ${s.starts.neither} | ${tops} | ${f2(s.content)} / ${f2(s.distance)} | ${s.bestPair.pair}: ${f2(s.bestPair.rotated)} / ${f2(s.bestPair.unrotated)} |`;
  });
  const sentences = p.sentences.map((s) => {
    const { own, other, kind } = pronounReading(s);
    const gender = s.pronoun === '她' ? 'female' : 'male';
    const otherGender = s.pronoun === '她' ? 'male' : 'female';
    const what = {
      own: `its query looks for the first token of a ${gender} name: ${own} of the top ${s.top.length} start only ${gender} names, ${other} only ${otherGender} ones`,
      other: `${other} of the top ${s.top.length} start only ${otherGender} names and ${own} only ${gender} ones: the ranking does not show it looking for ${gender} names`,
      mixed: `of the top ${s.top.length}, ${own} start only ${gender} names and ${other} only ${otherGender} ones: the ranking does not single out one gender`,
    }[kind];
    const share = s.content >= 0 && s.distance >= 0 ? ` (${pct(s.content / s.score)} content)` : '';
    const name = s.keyToken === s.referent ? `${s.referent}, one token` : `${s.keyToken}, the first token of ${s.referent}`;
    return `- ${s.text}: ${what}; ${name}, ranks ${s.rank} with ${f2(s.score)}. Of that score, ${f2(s.content)} is content (RoPE removed: as if both tokens stood at one position) and ${f2(s.distance)} distance${share}.`;
  });
  return [
    `${p.name}, the pronoun head, reads the embeddings only (block 0), so its key at a position is its token's: ranked over the whole vocabulary (special tokens included), each token's key placed where the referent's first token stands, scored against the pronoun's query. Per lesson sentence: the score, the key token's rank, how many of the top ${p.top} start only a female name / only a male name / names of both / none, the top 5, the score split into content (RoPE's rotation removed) and distance (the rest), and the largest RoPE pair rotated / unrotated.`,
    '',
    '| sentence | query → key | score | rank | top ' +
      p.top +
      ': female / male / both / none | top 5 | content / distance | largest pair: rotated / unrotated |',
    '|---|---|---|---|---|---|---|---|',
    ...rows,
    '',
    ...sentences,
  ].join('\n');
}

const card = `# minimind-demo: a MiniMind the project trained itself

A generation-3 MiniMind (hidden ${config.hidden_size}, ${config.num_hidden_layers} layers, ${config.num_attention_heads} heads, ${config.num_key_value_heads} kv heads, head_dim ${config.head_dim}, SwiGLU ${config.intermediate_size}, q/k norm, tied embeddings, MiniMind's tokenizer with vocabulary ${config.vocab_size}), trained by this project's own trainer with MiniMind's pretraining recipe on a corpus the project generates. It is the playground's default model: its heads do nameable things, measured below.

Files: \`config.json\`, \`model.safetensors\` (F16, MiniMind's tensor names, both tied keys), \`tokenizer.json\` and \`tokenizer_config.json\` (MiniMind's, Apache-2.0, see \`models/minimind-tokenizer/\`), \`heads.json\` (\`minimind heads --json\`), \`qk_stories.json\` (\`node scripts/qk_stories.mjs\`: why the heads attend where they do, below), \`train_log.jsonl\` (every batch, as \`minimind train --log\` writes it), \`loss_curve.svg\`, \`timeline.json\` (the training timeline: [How it learned](#how-it-learned)).

## Why this shape

Measured by full retrains with the same corpus, seeds and ${number(steps)} batches, each changing one thing, on the same held-out probes as the head roles below:

${kvHeadsText()}
- head_dim ${config.head_dim} for ${config.num_attention_heads} heads: with 2 kv heads, head_dim 64 instead of 32 gave a weaker best previous-token head and a pronoun head that missed the right name in two of the lesson's swaps (that run's weights were not kept, so its scores are not given).

## Corpus: generated, and what the model can know

The corpus is **generated** by \`js/corpus.mjs\` (seed ${corpus.seed}; \`node scripts/make_corpus.mjs\`): ${number(corpus.texts)} short texts of Chinese written without spaces, in the lessons' world, packed into ${number(corpus.lines)} lines of at most ${corpus.packing} (so that little of a 64-token window is padding), ${number(corpus.tokens)} tokens by MiniMind's tokenizer. It contains:

- ${MALE_NAMES.length} male and ${FEMALE_NAMES.length} female names (小明 and 小红 among them, each drawn 4 times as often as any other; the other names start with a character of their own, 王强, 苏静, …, so that the token before a name's second token says which name it is), each with a habit of its own (小红 ${HABITS['小红']}, 小明 ${HABITS['小明']}, …), ${OBJECTS.length} objects, ${PLACES.length} places, feelings and weather (今天天气很好);
- pronoun sentences in ${FRAMES.length} frames (\`小明把书给了小红，她唱起了歌。\`): one male and one female person, so that the pronoun's gender decides its referent, followed by the referent's own habit, with the referent first as often as second: the token after 他/她 can only be predicted by resolving the pronoun;
- repeated spans (random characters, words, or a short sentence said twice, after a frame such as \`苏静又说了一遍：\` or with nothing between), so that copying from earlier context pays; 30% of them are a pronoun sentence said twice (\`老师说：…。大家一起念：…。\`), so that the previous-token head that copying needs works on the same kind of sentences as its probe;
- held out: ${HELD_OUT_PAIRS.length} name pairs never meet in training, and some pair × frame × object combinations never occur (the lesson's 小明把苹果给了小红 among them); the probes below are built from them only.

So the model knows this small world and nothing else: ${MALE_NAMES.length + FEMALE_NAMES.length} names, their genders and habits, the frames and objects above. It has never seen real text, cannot answer questions and does not know Chinese beyond these sentences; asked anything else it continues in the corpus's style. Its attention is meaningful where the corpus made it pay: finding a pronoun's referent, looking at the previous token, copying.

## Training

| setting | value |
|---|---|
| trainer | this project's (\`build/native/core/minimind-train\`), MiniMind's \`train_pretrain.py\` recipe |
| initial weights | the project's seeded recipe, seed 42, embedding at MiniMind's from-scratch scale (\`init: 'minimind'\`) |
| data | ${steps.toLocaleString('en-US')} batches of ${batchSize} samples × 64 tokens (max_seq_len 64), shuffled with seed 42, 1 epoch |
| learning rate | ${lrText(baseLr)}, MiniMind's \`get_lr\` cosine (${lrText(baseLr)} → ${lrText(log[log.length - 1].lr)}) |
| optimizer | AdamW (β 0.9/0.999, eps 1e-8, weight decay 0.01), clip_grad_norm 1.0, accumulation 1 |
| labelled tokens | ${tokens.toLocaleString('en-US')} |
| time | ${minutes} for the whole \`npm run train:demo\` (${run.stages}), training on ${run.threads === 1 ? 'one core' : `${run.threads} threads`} of ${run.cpu ?? 'an unrecorded CPU'}${run.load ? ` (load average ${run.load} at the start and the end)` : ''} |
| loss | ${first.toFixed(2)} at the first batch (ln 6400 = 8.76), ${last50.toFixed(2)} over the last 50 |

![Loss per batch (light) and its mean over 50 batches (dark)](loss_curve.svg)

\`npm run train:demo\` regenerates the corpus and retrains the model natively, bit for bit from the seeds (the trainer is deterministic on any thread count), then rewrites this card. Three replays check that claim against this model's log (\`docs/testing.md\`): \`npm test\` re-trains the first 200 batches from the corpus lines they read (\`tests/demo_replay/\`), each batch's loss and gradient norm equal to \`train_log.jsonl\`'s and the weights to committed checksums, bit for bit; \`npm run test:replay\` replays all the batches and compares the written weights byte for byte with this folder's \`model.safetensors\` (about an hour on 2 threads); \`npm run replay:demo\` regenerates the corpus from its seed and replays the first 20 batches.

## Head roles (measured by \`minimind heads\`)

Scores on probes the project generates fresh: previous-token (mean attention from position i to i−1 on held-out sentences), induction (a random sequence of the corpus's tokens said twice: mean attention from the second occurrence of a token to the token after its first occurrence, as Olsson et al. 2022), pronoun (mean attention mass from 他/她 onto the referent's tokens on ${heads.probes.heldOut} held-out sentences), entropy of the attention rows (nats), and the mass on the first token (the bos, the usual "sink"). ${probeSeedText()}

| layer | head | previous-token | induction | pronoun | entropy | first token | role |
|---|---|---|---|---|---|---|---|
${table}

- Pronoun head: **layer ${layer} head ${head}**; on the lesson's sentence and its swaps it puts on the right name: ${heads.lesson.map((l) => `${l.text} → ${l.referent} ${l.mass.toFixed(2)}`).join('; ')}.
- Best previous-token head: layer ${best('previousToken').layer} head ${best('previousToken').head} (${best('previousToken').previousToken.toFixed(2)} on held-out sentences${best('previousToken').previousTokenRandom === undefined ? '' : `, ${best('previousToken').previousTokenRandom.toFixed(2)} on the induction probe's random sequences, where the best is layer ${best('previousTokenRandom').layer} head ${best('previousTokenRandom').head} with ${best('previousTokenRandom').previousTokenRandom.toFixed(2)}`})${splitText()}; best induction head: layer ${best('induction').layer} head ${best('induction').head} (${best('induction').induction.toFixed(2)}).
- What bounds the previous-token score: q/k norm scales every query and key to the RMS of its norm weights, which start at 1 and are shared by the layer's heads, and at gain 1 no head can put more than ${shapeCaps.map(([d, cap]) => `${cap.toFixed(2)} (head_dim ${d})`).join(' or ')} of a ${probeLength}-token sentence's attention on the previous token, however it turns q and k (\`bench/training/prev_token_cap.mjs\`; the held-out probe sentences average ${probeLength} tokens).
- Causally (head ablation: the head's output zeroed before o_proj): the model predicts the referent's own habit after the pronoun in **${pct(heads.referentAccuracy.on)}** of the held-out sentences with the pronoun head, and **${pct(heads.referentAccuracy.off)}** with it switched off${allOffText()}.

## Why its heads attend where they do

Measured with QK attribution (\`model.qk\`; \`node scripts/qk_stories.mjs\` writes \`qk_stories.json\`): one attention score split into the components that wrote its query and its key (the embedding, each earlier head's output, each earlier FFN's), with each RMSNorm's scale frozen at the run's value, so the parts add up to the score exactly. It is a linearisation at frozen norms, not the effect of removing a component. Softmax ignores a shift shared by the row, so the induction story splits the **contrast**: the score minus the row's attention-weighted mean score, which decides where the weight goes.

### Induction: who writes the key

${inductionText()}

### The pronoun head: what 他/她 looks for

${pronounText()}

## How it learned

${timelineText()}

## Targets

${targets()}
`;
writeFileSync(join(dir, 'MODEL_CARD.md'), card);
console.log(`wrote ${join(dir, 'MODEL_CARD.md')} and loss_curve.svg (${steps} batches, loss ${first.toFixed(2)} -> ${last50.toFixed(2)})`);
