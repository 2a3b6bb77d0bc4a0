// The CLI's interpretability commands (lens, patch, attribute, qk), on the JS
// API's Model.lens / patch / attribute / qk. cli.mjs hands in its model and
// input helpers, so the flags (--ablate too) read exactly as they do for `run`.
import { patchPair, tokenName, tokenOption as readTokenOption } from './cli_pair.mjs';
import { PRONOUN_PAIR } from './pronoun_pair.mjs';

export const INTERP_USAGE = `  lens      MODEL (--ids ... | --text "...") [--top 5] [--token ID] [--no-bos] [--json]
            the logit lens: each residual (embed, then after block 0, 1, ...) read
            through the final norm and lm_head: top tokens per residual and position
  patch     MODEL (--clean "..." | --clean-ids ...) (--corrupt "..." | --corrupt-ids ...)
            [--no-bos] --answer ID|TEXT --wrong ID|TEXT [--json]
            activation patching, metric logit(answer) - logit(wrong) at the last
            position: each head's output and each residual (embed or after block
            b, position) of the clean run put into the corrupt run (same token length). With a
            tokenizer the defaults are ${PRONOUN_PAIR.clean} / ${PRONOUN_PAIR.corrupt} and the
            first tokens of ${PRONOUN_PAIR.answerName}'s and ${PRONOUN_PAIR.wrongName}'s habits
  attribute MODEL (--ids ... | --text "...") [--position P] --answer ID|TEXT --wrong ID|TEXT [--json]
            direct logit attribution: what the embedding, each head and each FFN
            add to logit(answer) - logit(wrong) at position P (default: the last)
  qk        MODEL (--ids ... | --text "...") --layer L --head H --query I --key J
            [--versus J2|mean] [--rank-keys K] [--json]
            QK attribution: the score of head H of block L (from 0) from position I
            to position J (after q/k norm and RoPE, before the mask), split into
            [q-side component][k-side component] (embed, then L{k}H{h} and L{k}ffn
            of each earlier block) at the run's frozen norm scales: a
            linearisation, not the effect of removing a component; the table sums
            to the score. rope_pairs: the score's part from dims p and p + Dh/2
            (rotated, and with RoPE removed). --versus: the same split of
            score(I, J) - score(I, J2), or against the row's weighted mean.
            --rank-keys (block 0 only): the K vocabulary tokens whose key at J
            scores highest against the query at I
            lens, patch and attribute take --no-causal-mask and --no-scale (the
            page's switches; MiniMind runs with both on) and --ablate L:H,...
            (heads switched off as run switches them; patch prints "off" for them),
            and so does qk`;

export const INTERP_OPTIONS = {
  top: { type: 'string' },
  token: { type: 'string' },
  position: { type: 'string' },
  answer: { type: 'string' },
  wrong: { type: 'string' },
  clean: { type: 'string' },
  corrupt: { type: 'string' },
  'clean-ids': { type: 'string' },
  'corrupt-ids': { type: 'string' },
  layer: { type: 'string' },
  head: { type: 'string' },
  query: { type: 'string' },
  key: { type: 'string' },
  versus: { type: 'string' },
  'rank-keys': { type: 'string' },
  'no-causal-mask': { type: 'boolean' },
  'no-scale': { type: 'boolean' },
};

/**
 * The three commands, given cli.mjs's helpers: {openModel, openTokenizer,
 * inputTokens, integerOption, ablation, UsageError}.
 */
export function interpCommands({ openModel, openTokenizer, inputTokens, integerOption, ablation, UsageError }) {
  // A token as the tokenizer displays it, with its id.
  const switches = (values) => {
    const ablate = ablation(values);
    return { causalMask: !values['no-causal-mask'], scaleScores: !values['no-scale'], ...(ablate ? { ablate } : {}) };
  };
  // A restoration cell: "off" for a head switched off (null).
  const cell = (v) => (v === null ? 'off' : v.toFixed(2)).padStart(6);

  const tokenOption = (values, name, tokenizer, prefix) => readTokenOption(values, name, tokenizer, prefix, UsageError);

  async function withModel(mm, values, body) {
    const { model, folder } = await openModel(mm, values);
    const tokenizer = await openTokenizer(mm, values, folder);
    try {
      return await body(model, tokenizer);
    } finally {
      tokenizer?.dispose();
      model.dispose();
    }
  }

  async function lens(mm, values) {
    await withModel(mm, values, async (model, tokenizer) => {
      const { ids, labels } = inputTokens(values, tokenizer, null, model);
      const top = integerOption(values, 'top', 5);
      const token = values.token === undefined ? undefined : integerOption(values, 'token');
      const r = model.lens(ids, { top, ...(token === undefined ? {} : { token }), ...switches(values) });
      if (values.json) return console.log(JSON.stringify({ ids, tokens: labels, ...r }));
      r.lens.forEach((rows, layer) => {
        console.log(`\n${layer === 0 ? 'embed' : `after block ${layer - 1}`}: top ${top} next tokens`);
        rows.forEach((entries, t) =>
          console.log(`  after ${labels[t]}: ${entries.map((e) => `${tokenName(tokenizer, e.id)}: ${e.p.toFixed(3)}`).join(', ')}`),
        );
      });
      if (r.token) {
        console.log(
          `\np(${tokenName(tokenizer, r.token.id)}) per residual (rows: embed, then after block 0, 1, ...) and position (columns):`,
        );
        r.token.p.forEach((row, layer) => console.log(`  ${r.residuals[layer].padStart(5)} ${row.map((p) => p.toFixed(3)).join(' ')}`));
      }
    });
  }

  async function patch(mm, values) {
    await withModel(mm, values, async (model, tokenizer) => {
      const { clean, corrupt, answer, wrong } = patchPair(values, tokenizer, model, { inputTokens, UsageError });
      if (clean.ids.length !== corrupt.ids.length)
        throw new UsageError(
          `the clean input has ${clean.ids.length} tokens and the corrupt one ${corrupt.ids.length}: ` +
            'patching needs the same token length (position t of one run goes to position t of the other)',
        );
      const r = model.patch({ clean: clean.ids, corrupt: corrupt.ids, answer, wrong, ...switches(values) });
      const out = {
        ids: { clean: clean.ids, corrupt: corrupt.ids },
        tokens: { clean: clean.labels, corrupt: corrupt.labels },
        answer,
        wrong,
        metric: r.metric,
        heads: r.heads,
        residuals: r.residuals,
        residual: r.residual,
      };
      if (values.json) return console.log(JSON.stringify(out));
      console.log(`clean:   ${clean.labels.join(' ')}\ncorrupt: ${corrupt.labels.join(' ')}`);
      console.log(
        `logit(${tokenName(tokenizer, answer)}) - logit(${tokenName(tokenizer, wrong)}) at the last position: clean ${r.metric.clean.toFixed(3)}, corrupt ${r.metric.corrupt.toFixed(3)}`,
      );
      if (!r.restoration) return console.log('the two runs give the same metric: nothing to restore');
      console.log('\nrestoration (patched - corrupt) / (clean - corrupt), head outputs [block (from 0) × head]:');
      r.restoration.heads.forEach((row, l) => console.log(`  ${String(l).padStart(3)} ${row.map(cell).join(' ')}`));
      console.log('\nrestoration, residual [embed, then after block 0, 1, ... × position]:');
      console.log(`        ${corrupt.labels.map((l) => l.padStart(6)).join(' ')}`);
      r.restoration.residual.forEach((row, l) =>
        console.log(`  ${r.residuals[l].padStart(5)} ${row.map((v) => v.toFixed(2).padStart(6)).join(' ')}`),
      );
    });
  }

  async function attribute(mm, values) {
    await withModel(mm, values, async (model, tokenizer) => {
      const { ids } = inputTokens(values, tokenizer, null, model);
      const answer = tokenOption(values, 'answer', tokenizer, values.text);
      const wrong = tokenOption(values, 'wrong', tokenizer, values.text);
      if (answer === undefined || wrong === undefined) throw new UsageError('give --answer and --wrong (token ids or texts)');
      const position = integerOption(values, 'position', ids.length - 1);
      const r = model.attribute(ids, { position, answer, wrong, ...switches(values) });
      if (values.json) return console.log(JSON.stringify(r));
      console.log(
        `logit(${tokenName(tokenizer, answer)}) - logit(${tokenName(tokenizer, wrong)}) at position ${r.position}: ${r.total.toFixed(3)}`,
      );
      console.log(`  embed ${r.embedding.toFixed(3)}`);
      r.heads.forEach((row, l) => console.log(`  block ${l}: heads ${row.map((v) => v.toFixed(3)).join(' ')}, FFN ${r.ffn[l].toFixed(3)}`));
    });
  }

  async function qk(mm, values) {
    for (const name of ['layer', 'head', 'query', 'key'])
      if (values[name] === undefined) throw new UsageError(`qk needs --${name} (an integer from 0)`);
    let versus;
    if (values.versus !== undefined) versus = values.versus.trim() === 'mean' ? 'mean' : integerOption(values, 'versus');
    const request = {
      layer: integerOption(values, 'layer'),
      head: integerOption(values, 'head'),
      query: integerOption(values, 'query'),
      key: integerOption(values, 'key'),
      ...(versus === undefined ? {} : { versus }),
      ...(values['rank-keys'] === undefined ? {} : { rankKeys: integerOption(values, 'rank-keys') }),
    };
    if (request.rankKeys > 0 && request.layer > 0)
      throw new Error(
        `--rank-keys needs block 0: in block ${request.layer} a key depends on more than its token ` +
          '(the blocks before it wrote into the residual stream at that position)',
      );
    await withModel(mm, values, async (model, tokenizer) => {
      const { ids, labels } = inputTokens(values, tokenizer, null, model);
      const r = model.qk({ ids, ...request, ...switches(values) });
      const out = {
        score: r.score,
        components: r.components,
        table: r.table,
        rope_pairs: r.ropePairs,
        rope_pairs_unrotated: r.ropePairsUnrotated,
        weight: r.weight,
        masked: r.masked,
        ...(r.versus ? { versus: r.versus } : {}),
        ...(r.ranked ? { ranked: r.ranked } : {}),
      };
      if (values.json) return console.log(JSON.stringify(out));
      const at = (t) => `${labels[t]} (${t})`;
      console.log(
        `block ${r.layer} head ${r.head}, query ${at(r.query)} -> key ${at(r.key)}: score ${r.score.toFixed(3)}, ` +
          (r.masked ? 'weight 0 (the causal mask hides a key after the query)' : `weight ${r.weight.toFixed(3)}`),
      );
      // The largest cells of a table, by size: "q-side x k-side value".
      const largest = (table, n) =>
        table
          .flatMap((row, a) => row.map((v, b) => ({ a, b, v })))
          .sort((x, y) => Math.abs(y.v) - Math.abs(x.v))
          .slice(0, n)
          .map(({ a, b, v }) => `    ${r.components[a]} x ${r.components[b]}  ${v.toFixed(3)}`);
      console.log('  largest parts [q-side x k-side], at frozen norm scales (they sum to the score):');
      console.log(largest(r.table, 8).join('\n'));
      const pairs = r.ropePairs.map((v, p) => ({ p, v, u: r.ropePairsUnrotated[p] }));
      pairs.sort((x, y) => Math.abs(y.v) - Math.abs(x.v));
      console.log('  RoPE pairs (dims p and p + Dh/2; pair 0 turns fastest): rotated, and with RoPE removed');
      for (const { p, v, u } of pairs.slice(0, 6)) console.log(`    pair ${p}: ${v.toFixed(3)}  (${u.toFixed(3)})`);
      if (r.versus) {
        const other = r.versus.key === 'mean' ? "the row's weighted mean" : at(r.versus.key);
        console.log(`  against ${other}: ${r.versus.score.toFixed(3)} more; largest parts of the difference:`);
        console.log(largest(r.versus.table, 8).join('\n'));
      }
      if (r.ranked) {
        console.log(`  keys at position ${r.key} that would score highest against the query:`);
        r.ranked.forEach((k, n) => console.log(`    ${String(n + 1).padStart(3)}. ${tokenName(tokenizer, k.id)}  ${k.score.toFixed(3)}`));
      }
    });
  }

  return { lens, patch, attribute, qk };
}
